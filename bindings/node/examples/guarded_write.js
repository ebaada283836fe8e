'use strict';
// Acquire a lock, write a value under it with a guarded write, release.
//
//   node examples/guarded_write.js 127.0.0.1:2181 [/demo/job] [value]
//
// The write (PATH/state = value) is applied only while the lock is really
// held at the ZooKeeper quorum: a holder that was paused, cut off or expired
// writes nothing, whatever it believes (docs/FENCING.md). The first write
// creates the node; later ones replace its value.
const zkl = require('..');

const [servers = '127.0.0.1:2181', path = '/demo/guarded-write', value = 'hello'] = process.argv.slice(2);

async function main() {
  const client = await zkl.connect(servers);
  try {
    const lock = await client.lock(path, { timeout: 30000 });
    try {
      const state = `${path}/state`;
      let result;
      try {  // first time: create the node
        result = await lock.write(new zkl.Ops().create(state, value));
      } catch (err) {
        if (err.code !== 'ZKL_EEXISTS') throw err;
        result = await lock.write(new zkl.Ops().set(state, value));  // it exists: replace its value
      }
      console.log(`wrote '${value}' to ${state} (data version ${result.versions[0]}) ` +
                  `under fencing token ${lock.fencingToken}`);
    } finally {
      await lock.release();
    }
  } finally {
    await client.close();
  }
}

main().catch((err) => {
  console.error(`${err.code ?? ''} ${err.message}`);
  process.exitCode = 1;
});
