'use strict';
// Two processes contend for one lock and print their fencing tokens.
//
//   node examples/contend.js 127.0.0.1:2181 [/demo/lock] [rounds]
//
// The parent forks two workers (this same file). Each takes the lock a few
// times, "uses" it for a moment, and releases it. The tokens printed by the
// two workers, read in time order, strictly increase: a resource protected
// by the lock can reject any write carrying a token older than the newest it
// has seen (a stale holder after a pause, say).
const { fork } = require('node:child_process');
const { setTimeout: sleep } = require('node:timers/promises');
const zkl = require('..');

const [servers = '127.0.0.1:2181', path = '/demo/lock', rounds = '3'] = process.argv.slice(2);

async function worker(name) {
  const client = await zkl.connect(servers);
  for (let i = 0; i < Number(rounds); i++) {
    const lock = await client.lock(path, { timeout: 30000, data: name });
    lock.on('lost', (err) => console.log(`${name}: lost the lock (${err.code})`));
    console.log(`${name}: acquired, fencing token ${lock.fencingToken}`);
    await sleep(200);  // the critical section
    console.log(`${name}: releasing`);
    await lock.release();
  }
  await client.close();
}

if (process.env.ZKL_EXAMPLE_WORKER) {
  worker(process.env.ZKL_EXAMPLE_WORKER).catch((err) => {
    console.error(`${process.env.ZKL_EXAMPLE_WORKER}: ${err.code ?? ''} ${err.message}`);
    process.exitCode = 1;
  });
} else {
  let failed = 0;
  const workers = ['worker-A', 'worker-B'].map((name) =>
    fork(__filename, process.argv.slice(2), { env: { ...process.env, ZKL_EXAMPLE_WORKER: name } })
      .on('exit', (code) => { if (code !== 0) failed++; }));
  Promise.all(workers.map((w) => new Promise((r) => w.on('exit', r))))
    .then(() => { process.exitCode = failed ? 1 : 0; });
}
