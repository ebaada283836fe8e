'use strict';
// Process lifetime: the client's poll handle keeps Node alive only while an
// acquire is pending or a lock is held; process exit closes the session.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { setTimeout: delay } = require('node:timers/promises');
const zkl = require('..');
const { servers, uniquePath, within, until, Child, fixture } = require('./helpers');

let a;
before(async () => { a = await zkl.connect(servers()); });
after(async () => { await a?.close(); });

const lifecycle = (mode, p) => new Child(process.execPath, [fixture('lifecycle.js'), mode, servers(), p]);
const count = async (p) => (await a.inspect(p)).length;

for (const mode of ['idle', 'close']) {
  test(`exits by itself after release (${mode === 'close' ? 'with' : 'without'} close())`, async () => {
    const p = uniquePath(`exit-${mode}`);
    const child = lifecycle(mode, p);
    const { code } = await child.wait(20000);
    assert.equal(code, 0);
    assert.deepEqual(child.lines.map((l) => l.split(' ')[0]), ['acquired', 'released']);
    assert.equal(await count(p), 0);
  });
}

test('a pending acquire keeps the process alive until it is granted', async () => {
  const p = uniquePath('exit-wait');
  const holder = await a.lock(p);
  const child = lifecycle('wait', p);
  await until(async () => await count(p) === 2, 20000, 'child queued');
  // Nothing but the pending acquire keeps the child's loop alive; give an
  // idle process ample time to exit (a negative check, not a sync point).
  await delay(300);
  assert.equal(child.exitCode, null, 'the waiting child must not exit');
  await holder.release();
  const { code } = await child.wait(20000);
  assert.equal(code, 0);
  assert.match(child.lines[0], /^acquired \d+$/);
  assert.ok(BigInt(child.lines[0].split(' ')[1]) > holder.fencingToken);
});

test('a held lock keeps the process alive', async () => {
  const p = uniquePath('exit-hold');
  const child = lifecycle('hold', p);
  try {
    await child.line(/^acquired/);
    await delay(300);  // negative check, as above
    assert.equal(child.exitCode, null, 'the holder must not exit');
  } finally {
    child.kill();
  }
  await child.wait();
});

test('process.exit() while holding closes the session at once', async () => {
  const p = uniquePath('exit-now');
  const child = lifecycle('exit', p);
  const { code } = await child.wait(20000);
  assert.equal(code, 0);
  assert.match(child.lines[0], /^acquired/);
  // The session was closed, not left to expire (10 s): the node is gone.
  assert.equal(await count(p), 0);
});

test('a held lock and a pending acquire in this process are reflected by ref/unref', async () => {
  // In-process view of the same mechanism: hasRef() of the poll handle is
  // not exposed, so check the bookkeeping that drives it.
  const p = uniquePath('refs');
  const c = await zkl.connect(servers());
  assert.equal(c._refs, 0);
  const l = await c.lock(p);
  assert.equal(c._refs, 1);
  const m = c.createLock(p);
  const pending = m.acquire();
  assert.equal(c._refs, 2);
  await l.release();
  await within(pending, 10000, 'second handle');
  assert.equal(c._refs, 1);
  await m.release();
  assert.equal(c._refs, 0);
  m.close();
  await c.close();
});
