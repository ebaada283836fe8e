'use strict';
// Guarded writes, proclaim and fence checks: the scenarios of
// bindings/CONFORMANCE.md ("Guarded writes, proclaim, fence checks"), one
// test per id, and the binding's own details (the Ops builder, results,
// completions matched by request id), against a real ZooKeeper server.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const path = require('node:path');
const zkl = require('..');
const { connectTwo, closeAll, servers, uniquePath, within, until } = require('./helpers');

let a, b;
before(async () => { [a, b] = await connectTwo(); });
after(() => closeAll(a, b));

async function rejectsWith(promise, code, check) {
  await assert.rejects(within(promise, 20000), (err) => {
    assert.ok(err instanceof zkl.ZklError, `not a ZklError: ${err}`);
    assert.equal(err.code, code);
    assert.equal(err.errno, zkl.constants[code]);
    if (check) check(err);
    return true;
  });
}

/**
 * A reader of the tree below `base`: a lock on `base` held by client b, whose
 * guarded check ops answer whether a node exists (with a version). The
 * resources under test live at `${base}/res...`, a lock of their own.
 */
async function reader(base) {
  const probe = await b.lock(base);
  return {
    async exists(p, version) {
      try {
        await probe.write(new zkl.Ops().check(p, { version }));
        return true;
      } catch (err) {
        if (err.code === 'ZKL_ENOTFOUND' || err.code === 'ZKL_EBADVERSION') return false;
        throw err;
      }
    },
    release: () => probe.release(),
  };
}

test('guarded_write_applies', async () => {
  const base = uniquePath('gw-apply');
  const p = `${base}/res`;
  const raw = await reader(base);
  const lock = await a.lock(p);
  const ops = new zkl.Ops()
    .create(`${p}/state`, 'v1')
    .set(`${p}/state`, 'v2', { version: 0 })
    .create(`${p}/state/item-`, Buffer.from('x'), { sequential: true });
  assert.equal(ops.length, 3);
  const result = await within(lock.write(ops), 20000);
  assert.equal(result.failed, null);
  assert.equal(result.paths[0], `${p}/state`);
  assert.equal(result.paths[1], null, 'a set creates nothing');
  assert.ok(result.paths[2].startsWith(`${p}/state/item-`), result.paths[2]);
  assert.deepEqual(result.versions.slice(0, 2), [0, 1]);
  // A second write's check op with version 1: the set was applied.
  assert.deepEqual(await lock.write(new zkl.Ops().check(`${p}/state`, { version: 1 })),
                   { failed: null, paths: [null], versions: [null] });
  assert.equal(await raw.exists(result.paths[2]), true);
  // Another write (a create) in flight with the first: each promise gets the
  // answer of its own request id.
  const [one, two] = await within(Promise.all([
    lock.write(new zkl.Ops().create(`${p}/async`, 'a')),
    lock.write(new zkl.Ops().create(`${p}/async2`)),
  ]), 20000);
  assert.deepEqual(one.paths, [`${p}/async`]);
  assert.deepEqual(two.paths, [`${p}/async2`]);
  assert.equal(await raw.exists(`${p}/async`, 0), true);
  await lock.release();
  await raw.release();
});

test('guarded_write_refused', async () => {
  const base = uniquePath('gw-refused');
  const p = `${base}/res`;
  const raw = await reader(base);
  const lock = a.createLock(p);
  const ops = new zkl.Ops().create(`${p}/x`, '1');
  await rejectsWith(lock.write(ops), 'ZKL_ENOTHELD', (err) => assert.equal(err.failed, null));
  await lock.acquire({ timeout: 10000 });
  await rejectsWith(lock.write(new zkl.Ops().create(`${p}/ok`).create('/elsewhere')), 'ZKL_EBADPATH');
  assert.equal(await raw.exists(`${p}/ok`), false);
  await lock.write(new zkl.Ops().create(`${p}/data`, '0'));
  // A create of an existing node: EXISTS, its index, and the create before
  // it in the same write not applied.
  await rejectsWith(lock.write(new zkl.Ops().create(`${p}/data`, 'again')), 'ZKL_EEXISTS',
                    (err) => assert.equal(err.failed, 0));
  await rejectsWith(lock.write(new zkl.Ops().create(`${p}/first`, 'no').create(`${p}/data`, 'again')),
                    'ZKL_EEXISTS', (err) => {
                      assert.equal(err.failed, 1);
                      assert.equal(err.result.failed, 1);
                    });
  assert.equal(await raw.exists(`${p}/first`), false);
  // A set with a wrong version.
  await rejectsWith(lock.write(new zkl.Ops().set(`${p}/data`, 'x', { version: 41 })), 'ZKL_EBADVERSION',
                    (err) => assert.equal(err.failed, 0));
  // A delete of a node with children.
  await lock.write(new zkl.Ops().create(`${p}/data/child`));
  await rejectsWith(lock.write(new zkl.Ops().delete(`${p}/data`)), 'ZKL_ENOTEMPTY',
                    (err) => assert.equal(err.failed, 0));
  assert.equal(await raw.exists(`${p}/data`, 0), true, 'data unchanged (version 0)');
  await lock.release();
  await rejectsWith(lock.write(ops), 'ZKL_ENOTHELD');
  // A client.lock() handle is freed by its release: NOTHELD as well.
  const once = await a.lock(p);
  await once.release();
  await rejectsWith(once.write(ops), 'ZKL_ENOTHELD');
  assert.equal(await raw.exists(`${p}/x`), false, 'nothing was written');
  lock.close();
  await raw.release();
});

test('guarded_write_multilock_election', async () => {
  const base = uniquePath('gw-multi');
  const raw = await reader(base);
  const m = a.multiLock([`${base}/res-a`, `${base}/res-b`]);
  const ops = new zkl.Ops().create(`${base}/res-a/x`, '1').create(`${base}/res-b/y`, '2');
  await rejectsWith(m.write(ops), 'ZKL_ENOTHELD');
  await m.acquire({ timeout: 10000 });
  const result = await within(m.write(ops), 20000);
  assert.equal(result.failed, null);
  assert.deepEqual(result.paths, [`${base}/res-a/x`, `${base}/res-b/y`]);
  assert.equal(await raw.exists(`${base}/res-a/x`), true);
  assert.equal(await raw.exists(`${base}/res-b/y`), true);
  await m.release();
  m.close();

  const ep = `${base}/election`;
  const leader = a.election(ep, { id: 'alpha' });
  const follower = b.election(ep, { id: 'beta' });
  await leader.campaign({ timeout: 10000 });
  const queued = follower.campaign();
  queued.catch(() => {});
  const written = await within(leader.write(new zkl.Ops().create(`${ep}/config`, 'from alpha')), 20000);
  assert.deepEqual(written.paths, [`${ep}/config`]);
  assert.equal(await raw.exists(`${ep}/config`), true);
  await rejectsWith(follower.write(new zkl.Ops().create(`${ep}/other`)), 'ZKL_ENOTHELD');
  assert.equal(await raw.exists(`${ep}/other`), false);
  await leader.release();
  await within(queued, 20000);
  await follower.release();
  leader.close();
  follower.close();
  await raw.release();
});

test('proclaim_same_term', async () => {
  const p = uniquePath('proclaim');
  const watcher = await zkl.connect(servers());
  try {
    const observer = watcher.observe(p);
    const leader = a.election(p, { id: 'alpha' });
    const follower = b.election(p, { id: 'beta' });
    const term = await leader.campaign({ timeout: 10000 });
    const queued = follower.campaign();
    queued.catch(() => {});
    await until(() => observer.leader === 'alpha', 10000, 'observer sees alpha');
    assert.equal(observer.term, term);
    await within(leader.proclaim('alpha@v2'), 20000);
    await until(() => observer.leader === 'alpha@v2', 10000, 'observer sees the new value');
    assert.equal(observer.term, term, 'the same term');
    assert.equal(leader.isLeader, true);
    await rejectsWith(follower.proclaim(Buffer.from('beta@v2')), 'ZKL_ENOTHELD');
    await leader.release();
    await within(queued, 20000);
    await follower.release();
    observer.close();
    leader.close();
    follower.close();
  } finally {
    await watcher.close();
  }
});

test('fence_check_current_and_stale', async () => {
  const p = uniquePath('fence');
  await rejectsWith(a.fenceCheck(p, 1n), 'ZKL_ESTALE');  // nobody holds
  const first = await a.lock(p);
  const t1 = first.fencingToken;
  await within(b.fenceCheck(p, t1), 20000);  // current
  await first.release();
  const second = await b.lock(p);
  const t2 = second.fencingToken;
  assert.ok(t2 > t1);
  await rejectsWith(a.fenceCheck(p, t1), 'ZKL_ESTALE');
  await a.fenceCheck(p, t2, { kind: 'fair', timeout: 5000 });
  await second.release();
  await rejectsWith(a.fenceCheck(p, t2), 'ZKL_ESTALE');
  // Elections: election: true.
  const ep = `${p}-election`;
  const e = a.election(ep, { id: 'one' });
  const term = await e.campaign({ timeout: 10000 });
  await b.fenceCheck(ep, term, { election: true });
  await e.release();
  await rejectsWith(b.fenceCheck(ep, term, { election: true }), 'ZKL_ESTALE');
  e.close();
  await assert.rejects(a.fenceCheck(p, -1), TypeError);
});

// --- the binding's own details -----------------------------------------------

test('ops builder checks each operation at once', () => {
  const ops = new zkl.Ops();
  const throwsCode = (fn, code) => assert.throws(fn, (err) => err.code === code);
  throwsCode(() => ops.create('relative'), 'ZKL_EBADPATH');
  throwsCode(() => ops.create('/a\0b'), 'ZKL_EBADPATH');
  throwsCode(() => ops.set('/a', 'x', { version: -2 }), 'ZKL_EINVAL');
  assert.throws(() => ops.set('/a', 42), TypeError);
  assert.throws(() => ops.check('/a', { version: '1' }), TypeError);
  assert.throws(() => ops.delete(7), TypeError);
  assert.equal(ops.length, 0);
  throwsCode(() => ops.set('/a', Buffer.alloc(1024 * 1024 + 1)), 'ZKL_ETOOBIG');
  const big = Buffer.alloc(600000);
  ops.set('/a', big);
  throwsCode(() => ops.set('/b', big), 'ZKL_ETOOBIG');
  assert.equal(ops.length, 1);
});

test('write takes an Ops, and an empty one is refused', async () => {
  const p = uniquePath('gw-types');
  const lock = await a.lock(p);
  await assert.rejects(lock.write([{ create: `${p}/x` }]), TypeError);
  await rejectsWith(lock.write(new zkl.Ops()), 'ZKL_EINVAL');
  await lock.release();
});

test('writes in flight on several handles are answered by their own request ids', async () => {
  const base = uniquePath('gw-ids');
  const lock = await a.lock(`${base}/l`);
  const e = a.election(`${base}/e`, { id: 'me' });
  await e.campaign({ timeout: 10000 });
  const calls = [];
  for (let i = 0; i < 5; i++) {
    calls.push(lock.write(new zkl.Ops().create(`${base}/l/n${i}`, String(i))));
    calls.push(e.write(new zkl.Ops().create(`${base}/e/n${i}`, String(i))));
  }
  calls.push(lock.write(new zkl.Ops().create(`${base}/l/n0`, 'again')));
  const results = await within(Promise.allSettled(calls), 20000);
  for (let i = 0; i < 5; i++) {
    assert.deepEqual(results[2 * i].value.paths, [`${base}/l/n${i}`]);
    assert.deepEqual(results[2 * i + 1].value.paths, [`${base}/e/n${i}`]);
  }
  assert.equal(results[10].status, 'rejected');
  assert.equal(results[10].reason.code, 'ZKL_EEXISTS');
  assert.equal(results[10].reason.failed, 0);
  assert.equal(a._writes.size, 0);
  await lock.release();
  await e.release();
  e.close();
});

test('a pending write is answered when its client closes', async () => {
  const p = uniquePath('gw-close');
  const c = await zkl.connect(servers());
  const lock = await c.lock(p);
  const pending = lock.write(new zkl.Ops().create(`${p}/x`));
  const closing = c.close();
  // Applied before the close, or answered by it: never left pending.
  const outcome = await within(pending.then(() => 'applied', (err) => err.code), 20000);
  assert.ok(['applied', 'ZKL_ECLOSED', 'ZKL_EINDOUBT'].includes(outcome), outcome);
  await closing;
  await rejectsWith(lock.write(new zkl.Ops().create(`${p}/y`)), 'ZKL_ECLOSED');
});

test('example guarded_write.js runs', async () => {
  const p = uniquePath('gw-example');
  const out = await new Promise((resolve, reject) => {
    const example = path.join(__dirname, '..', 'examples', 'guarded_write.js');
    execFile(process.execPath, [example, servers(), p, 'hello'], { timeout: 60000 },
             (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
  });
  assert.match(out, /wrote 'hello' to .*\/state/);
});
