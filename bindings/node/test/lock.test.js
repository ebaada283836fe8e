'use strict';
// Every lock recipe, timeouts, try, AbortSignal and error codes, against a
// real ZooKeeper server.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const zkl = require('..');
const { connectTwo, closeAll, servers, uniquePath, within } = require('./helpers');

let a, b;  // two sessions: two independent contenders
before(async () => { [a, b] = await connectTwo(); });
after(() => closeAll(a, b));

// Participants on the server, as seen by `client` (one round trip, ordered
// after every request `client` sent before).
async function nodes(client, p, kind = 'fair') {
  return (await client.inspect(p, { kind })).length;
}

async function rejectsWith(promise, code) {
  await assert.rejects(within(promise, 20000), (err) => {
    assert.ok(err instanceof zkl.ZklError, `not a ZklError: ${err}`);
    assert.equal(err.code, code);
    assert.equal(err.errno, zkl.codes[code.slice(4)]);
    return true;
  });
}

test('fair lock: acquire, fencing token, release, next holder', async () => {
  const p = uniquePath('fair');
  const l1 = await a.lock(p, { timeout: 5000 });
  assert.equal(typeof l1.fencingToken, 'bigint');
  assert.ok(l1.fencingToken > 0n);
  assert.equal(l1.isHeld, true);
  assert.equal(l1.holdCount, 1);
  assert.equal(l1.signal.aborted, false);

  const waiting = b.lock(p, { timeout: 10000 });
  let granted = false;
  waiting.then(() => { granted = true; }, () => {});
  await within((async () => { while (await nodes(a, p) < 2); })(), 10000, 'second contender queued');
  assert.equal(granted, false, 'the second contender must wait');

  await l1.release();
  assert.equal(l1.isHeld, false);
  const l2 = await within(waiting, 10000, 'second acquire');
  assert.ok(l2.fencingToken > l1.fencingToken, 'fencing tokens strictly increase');
  await l2.release();
  assert.equal(await nodes(a, p), 0);
});

test('fair lock: FIFO order among waiters', async () => {
  const p = uniquePath('fifo');
  const holder = await a.lock(p);
  const order = [];
  const waiters = [];
  for (let i = 0; i < 3; i++) {
    const w = b.lock(p, { timeout: 20000 }).then(async (l) => {
      order.push(i);
      await l.release();
    });
    waiters.push(w);
    // Queue them one after the other.
    await within((async () => { while (await nodes(b, p) < i + 2); })(), 10000, 'queued');
  }
  await holder.release();
  await within(Promise.all(waiters), 20000, 'waiters');
  assert.deepEqual(order, [0, 1, 2]);
});

test('timeout: ZKL_ETIMEDOUT, and the node is gone', async () => {
  const p = uniquePath('timeout');
  const holder = await a.lock(p);
  const t0 = Date.now();
  await rejectsWith(b.lock(p, { timeout: 300 }), 'ZKL_ETIMEDOUT');
  assert.ok(Date.now() - t0 >= 250, 'waited about the timeout');
  assert.equal(await nodes(b, p), 1, 'only the holder is left');
  await holder.release();
});

test('try: null when taken, the lock when free', async () => {
  const p = uniquePath('try');
  const holder = await a.lock(p);
  assert.equal(await b.tryLock(p), null);
  assert.equal(await nodes(b, p), 1, 'a failed try leaves no node');
  await holder.release();
  const got = await b.tryLock(p);
  assert.ok(got);
  assert.equal(typeof got.fencingToken, 'bigint');
  assert.ok(got.fencingToken > holder.fencingToken);
  await got.release();
});

test('AbortSignal cancels a waiting acquire and leaves no node', async () => {
  const p = uniquePath('abort');
  const holder = await a.lock(p);
  const ac = new AbortController();
  const waiting = b.lock(p, { signal: ac.signal });
  await within((async () => { while (await nodes(b, p) < 2); })(), 10000, 'queued');
  ac.abort(new Error('changed my mind'));
  await assert.rejects(within(waiting, 10000), (err) => {
    assert.equal(err.name, 'AbortError');
    assert.equal(err.code, 'ZKL_ECANCELED');
    assert.equal(err.cause.message, 'changed my mind');
    return true;
  });
  // Same session: the inspect is ordered after the cancel's delete.
  assert.equal(await nodes(b, p), 1, 'no node left behind');
  await holder.release();
  assert.equal(await nodes(a, p), 0);
});

test('AbortSignal.timeout and an already aborted signal', async () => {
  const p = uniquePath('abort-timeout');
  const holder = await a.lock(p);
  await assert.rejects(within(b.lock(p, { signal: AbortSignal.timeout(200) }), 10000),
                       { name: 'AbortError', code: 'ZKL_ECANCELED' });
  await assert.rejects(b.lock(p, { signal: AbortSignal.abort() }), { name: 'AbortError' });
  assert.equal(await nodes(b, p), 1);
  await holder.release();
});

test('abort after the lock was granted does not release it', async () => {
  const p = uniquePath('abort-late');
  const ac = new AbortController();
  const l = await a.lock(p, { signal: ac.signal });
  ac.abort();
  assert.equal(l.isHeld, true);
  await l.release();
});

test('reentrant lock: holds counted per owner token', async () => {
  const p = uniquePath('reentrant');
  const m = a.createLock(p, { kind: 'reentrant' });
  await m.acquire({ owner: 7n });
  const token = m.fencingToken;
  await m.acquire({ owner: 7 });  // numbers are accepted as owner tokens too
  assert.equal(m.holdCount, 2);
  assert.equal(m.fencingToken, token, 'a re-entry keeps the fencing token');
  assert.equal(m.owner, 7n);
  assert.equal(await m.tryAcquire({ owner: 7n }), true);
  assert.equal(m.holdCount, 3);
  await rejectsWith(m.acquire({ owner: 8n }), 'ZKL_EBUSY');
  await rejectsWith(m.release({ owner: 8n }), 'ZKL_ENOTOWNER');
  await m.release({ owner: 7n });
  await m.release({ owner: 7n });
  assert.equal(m.holdCount, 1);
  assert.equal(await nodes(a, p), 1);
  await m.release({ owner: 7n });
  assert.equal(m.holdCount, 0);
  assert.equal(await nodes(a, p), 0);
  await rejectsWith(m.release({ owner: 7n }), 'ZKL_ENOTHELD');
  // The handle is reusable by another owner now.
  await m.acquire({ owner: 8n });
  assert.ok(m.fencingToken > token);
  await m.release({ owner: 8n });
  m.close();
});

test('fair lock is not reentrant: ZKL_EDEADLK', async () => {
  const p = uniquePath('deadlk');
  const m = a.createLock(p);
  await m.acquire();
  await rejectsWith(m.acquire(), 'ZKL_EDEADLK');
  await m.release();
  m.close();
});

test('non-fair lock: exclusion, try and hand-over', async () => {
  const p = uniquePath('nonfair');
  const l1 = await a.lock(p, { kind: 'nonfair' });
  assert.equal(await b.tryLock(p, { kind: 'nonfair' }), null);
  const waiting = b.lock(p, { kind: 'nonfair', timeout: 10000 });
  await l1.release();
  const l2 = await within(waiting, 10000, 'non-fair hand-over');
  assert.ok(l2.fencingToken > l1.fencingToken);
  await l2.release();
});

test('read/write lock: readers share, a writer excludes', async () => {
  const p = uniquePath('rw');
  const r1 = await a.readLock(p);
  const r2 = await b.readLock(p, { timeout: 5000 });  // shared
  assert.equal(r1.isHeld && r2.isHeld, true);
  assert.equal(await b.tryLock(p, { kind: 'write' }), null);
  let written = false;
  const writer = b.writeLock(p, { timeout: 10000 }).then((w) => { written = true; return w; });
  await within((async () => { while (await nodes(b, p, 'write') < 3); })(), 10000, 'writer queued');
  await r1.release();
  assert.equal(written, false, 'a reader still holds');
  await r2.release();
  const w = await within(writer, 10000, 'writer');
  assert.equal(await a.tryLock(p, { kind: 'read' }), null, 'readers wait for the writer');
  await w.release();
  const r3 = await a.readLock(p, { timeout: 5000 });
  assert.ok(r3.fencingToken > w.fencingToken);
  await r3.release();
});

test('semaphore: max leases, and the count must agree', async () => {
  const p = uniquePath('sem');
  const s1 = await a.semaphore(p, 2);
  const s2 = await b.semaphore(p, 2, { timeout: 5000 });
  assert.equal(await a.tryLock(p, { kind: 'semaphore', maxLeases: 2 }), null);
  const third = b.semaphore(p, 2, { timeout: 10000 });
  await s1.release();
  const s3 = await within(third, 10000, 'third lease');
  assert.ok(s3.fencingToken > s2.fencingToken);
  await rejectsWith(a.semaphore(p, 3, { timeout: 5000 }), 'ZKL_EMISMATCH');
  await s2.release();
  await s3.release();
});

test('error codes for bad input', async () => {
  await rejectsWith(a.lock('/has\0nul'), 'ZKL_EBADPATH');
  await rejectsWith(a.lock('relative'), 'ZKL_EBADPATH');
  await rejectsWith(a.lock('/trailing/'), 'ZKL_EBADPATH');
  assert.throws(() => a.createLock('/x\0'), { code: 'ZKL_EBADPATH', errno: -2 });
  await rejectsWith(a.lock('/x', { kind: 'nope' }), 'ZKL_EINVAL');
  await rejectsWith(a.semaphore('/x', 0), 'ZKL_EINVAL');
  await rejectsWith(a.lock('/x', { data: Buffer.alloc(1024 * 1024 + 1) }), 'ZKL_ETOOBIG');
  assert.throws(() => a.election('/e', { id: 'a\0b' }), { code: 'ZKL_EINVAL' });
  assert.throws(() => a.election('/e', { id: 'x', kind: 'unfair' }), { code: 'ZKL_EINVAL' });
  await assert.rejects(a.lock(42), TypeError);
  await assert.rejects(a.lock('/x', { owner: -1 }), TypeError);
  await assert.rejects(a.lock('/x', { timeout: 'soon' }), TypeError);
  const l = a.createLock(uniquePath('notheld'));
  await rejectsWith(l.release(), 'ZKL_ENOTHELD');
  l.close();
  await rejectsWith(l.acquire(), 'ZKL_EBADHANDLE');
  await rejectsWith(l.release(), 'ZKL_ENOTHELD');
  const e = new zkl.ZklError(-4);
  assert.equal(e.code, 'ZKL_ETIMEDOUT');
  assert.match(e.message, /timed out/);
});

test('lock data is stored in the node', async () => {
  const p = uniquePath('data');
  const l = await a.lock(p, { data: 'holder-42' });
  const [entry] = await b.inspect(p);
  assert.equal(entry.data, 'holder-42');
  assert.equal(entry.isHolder, true);
  assert.equal(entry.fencingToken, l.fencingToken);
  assert.equal(entry.sessionId, a.sessionId);
  await l.release();
});

test('close() of a lock handle cancels its pending acquire', async () => {
  const p = uniquePath('close-pending');
  const holder = await a.lock(p);
  const m = b.createLock(p);
  const waiting = m.acquire();
  await within((async () => { while (await nodes(b, p) < 2); })(), 10000, 'queued');
  m.close();
  await rejectsWith(waiting, 'ZKL_ECANCELED');
  assert.equal(await nodes(b, p), 1);
  await holder.release();
});

test('Symbol.asyncDispose releases the lock', { skip: typeof Symbol.asyncDispose !== 'symbol' }, async () => {
  const p = uniquePath('dispose');
  const l = await a.lock(p);
  await l[Symbol.asyncDispose]();
  assert.equal(await nodes(a, p), 0);
});

test('client.close() ends pending acquires with ZKL_ECLOSED', async () => {
  const p = uniquePath('close-client');
  const c = await zkl.connect(servers());
  const holder = await a.lock(p);
  const sessions = [];
  c.on('session', (s) => sessions.push(s));
  const waiting = c.lock(p);
  await within((async () => { while (await nodes(a, p) < 2); })(), 10000, 'queued');
  const failed = rejectsWith(waiting, 'ZKL_ECLOSED');
  await c.close();
  await failed;
  assert.deepEqual(sessions, ['closed']);
  assert.equal(c.state, 'closed');
  await rejectsWith(c.lock(p), 'ZKL_ECLOSED');
  await c.close();  // idempotent
  await holder.release();
});

test('client options: chroot, digest authentication with creator ACL', async () => {
  const root = uniquePath('chroot');
  const keep = await a.lock(`${root}/keep`);  // the chroot must exist
  const c = await zkl.connect(servers(), { chroot: root, sessionTimeout: 8000 });
  try {
    const l = await c.lock('/inner', { timeout: 5000 });
    assert.equal(await nodes(a, `${root}/inner`), 1, 'the node is under the chroot');
    await l.release();
  } finally {
    await c.close();
    await keep.release();
  }
  const d = await zkl.connect(servers(), { digestAuth: 'node-test:secret', acl: 'creator' });
  try {
    const p = uniquePath('acl');
    const l = await d.lock(p);
    const [entry] = await a.inspect(p);  // world can read
    assert.equal(entry.isHolder, true);
    assert.equal(entry.fencingToken, l.fencingToken);
    await l.release();
  } finally {
    await d.close();
  }
  assert.throws(() => new zkl.Client(servers(), { acl: 'nope' }), { code: 'ZKL_EINVAL' });
});

test('timeout 0 is one attempt: ZKL_ETIMEDOUT when taken, the lock when free', async () => {
  const p = uniquePath('timeout-zero');
  const holder = await a.lock(p);
  await rejectsWith(b.lock(p, { timeout: 0 }), 'ZKL_ETIMEDOUT');
  assert.equal(await nodes(b, p), 1);
  await holder.release();
  const l = await b.lock(p, { timeout: 0 });
  assert.ok(l.fencingToken > holder.fencingToken);
  await l.release();
});
