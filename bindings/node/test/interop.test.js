'use strict';
// Cross-process and cross-language exclusion: this Node process, other Node
// processes (fixtures/contender.js) and C processes (tests/tools/zkl_hold.c)
// on the same path exclude each other, with strictly increasing fencing
// tokens.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { once } = require('node:events');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zkl = require('..');
const { servers, uniquePath, within, until, Child, zklHold, fixture } = require('./helpers');

let a;
before(async () => { a = await zkl.connect(servers()); });
after(async () => { await a?.close(); });

const queued = (p, n, kind = 'fair', election = false) =>
  until(async () => (await a.inspect(p, { kind, election })).length === n, 20000, `${n} participants`);
const tokenOf = (line) => BigInt(line.split(' ')[1]);
const cHold = (p, ...opts) => new Child(zklHold(), [...opts, servers(), p]);
const nodeHold = (p, ...opts) => new Child(process.execPath, [fixture('contender.js'), ...opts, servers(), p]);

test('this Node process and a C process exclude each other', async () => {
  const p = uniquePath('node-c');
  // C holds; Node waits.
  const c1 = cHold(p, '--hold', '-1');
  const t1 = tokenOf(await c1.line(/^acquired /));
  let granted = false;
  const waiting = a.lock(p, { timeout: 20000 }).then((l) => { granted = true; return l; });
  await queued(p, 2);
  assert.equal(granted, false, 'Node must wait while C holds');
  c1.endInput();
  await c1.line(/^released$/);
  const mine = await within(waiting, 20000, 'Node acquire after C');
  assert.ok(mine.fencingToken > t1, `${mine.fencingToken} > ${t1}`);
  assert.equal((await c1.wait()).code, 0);

  // Node holds; C waits.
  const c2 = cHold(p, '--hold', '0', '--timeout', '20000');
  await queued(p, 2);
  assert.equal(c2.lines.length, 0, 'C must wait while Node holds');
  await mine.release();
  const t3 = tokenOf(await c2.line(/^acquired /));
  assert.ok(t3 > mine.fencingToken);
  assert.equal((await c2.wait()).code, 0);
});

test('two Node processes exclude each other', async () => {
  const p = uniquePath('node-node');
  const n1 = nodeHold(p, '--hold', '-1');
  const t1 = tokenOf(await n1.line(/^acquired /));
  const n2 = nodeHold(p, '--hold', '0');
  await queued(p, 2);
  assert.equal(n2.lines.length, 0, 'the second process must wait');
  n1.endInput();
  const t2 = tokenOf(await n2.line(/^acquired /));
  assert.ok(t2 > t1);
  assert.equal((await n1.wait()).code, 0);
  assert.equal((await n2.wait()).code, 0);
});

test('a C process times out (exit 2) while Node holds', async () => {
  const p = uniquePath('c-timeout');
  const l = await a.lock(p);
  const c = cHold(p, '--timeout', '200');
  assert.equal((await c.wait()).code, 2);
  await l.release();
});

test('mixed contention: history shows no overlap and increasing tokens', async () => {
  const p = uniquePath('history');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zkl-node-history-'));
  const history = path.join(dir, 'history');
  const out = fs.openSync(history, 'a');
  const rounds = 4;
  try {
    // Two Node processes (4 rounds each) and two C loops (4 runs each). C
    // prints "acquired <token>" while holding, straight into the file.
    const nodes = [0, 1].map(() => nodeHold(p, '--rounds', String(rounds), '--hold', '10',
                                            '--history', history));
    const cLoop = async () => {
      for (let i = 0; i < rounds; i++) {
        const c = new Child(zklHold(), ['--hold', '10', servers(), p], { stdio: ['ignore', out, 'inherit'] });
        assert.equal((await c.wait(30000)).code, 0);
      }
    };
    await within(Promise.all([...nodes.map(async (n) => assert.equal((await n.wait(60000)).code, 0)),
                              cLoop(), cLoop()]), 90000, 'contenders');
  } finally {
    fs.closeSync(out);
  }
  // C also prints "released" after its release, outside the critical
  // section: not part of the history.
  const lines = fs.readFileSync(history, 'utf8').trim().split('\n').filter((l) => l !== 'released');
  fs.rmSync(dir, { recursive: true, force: true });
  const acquisitions = lines.filter((l) => /^(enter|acquired) /.test(l));
  assert.equal(acquisitions.length, 4 * rounds, lines.join('\n'));
  let last = 0n;
  for (const l of acquisitions) {
    const t = tokenOf(l);
    assert.ok(t > last, `tokens must strictly increase: ${last} then ${t}\n${lines.join('\n')}`);
    last = t;
  }
  // Each Node critical section is uninterrupted: "enter T pid" is followed
  // directly by "exit T pid" (nobody else acquired in between).
  lines.forEach((l, i) => {
    if (!l.startsWith('enter ')) return;
    assert.equal(lines[i + 1], l.replace(/^enter/, 'exit'), `overlap after line ${i}:\n${lines.join('\n')}`);
  });
});

test('a C leader and a Node candidate: election hand-over', async () => {
  const p = uniquePath('election-c');
  const c = cHold(p, '--kind', 'election-fair', '--id', 'c-leader', '--hold', '-1');
  const t1 = tokenOf(await c.line(/^elected /));
  const observer = a.observe(p);
  await within((async () => {
    while (observer.leader !== 'c-leader') await once(observer, 'leaderChanged');
  })(), 10000, 'observer sees the C leader');
  const e = a.election(p, { id: 'node' });
  const campaign = e.campaign({ timeout: 20000 });
  await queued(p, 2, 'fair', true);
  assert.equal(e.isLeader, false);
  c.endInput();
  const t2 = await within(campaign, 20000, 'Node elected');
  assert.ok(t2 > t1);
  assert.equal((await c.wait()).code, 0);
  e.close();
  observer.close();
});
