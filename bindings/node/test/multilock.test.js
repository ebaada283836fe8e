'use strict';
// The multi-lock (client.multiLock): all or none, one deadline, fencing
// tokens per member path, release, the loss of one member as the loss of
// the whole, and bad input as typed errors; against a real ZooKeeper server.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const zkl = require('..');
const { servers, uniquePath, within, nextEvent, until } = require('./helpers');

let a, b;  // two sessions: two independent contenders

before(async () => {
  a = await zkl.connect(servers());
  b = await zkl.connect(servers());
});

after(async () => {
  await a?.close();
  await b?.close();
});

async function nodes(client, p, kind = 'fair') {
  return (await client.inspect(p, { kind })).length;
}

function isZklError(code) {
  return (err) => {
    assert.ok(err instanceof zkl.ZklError, `not a ZklError: ${err}`);
    assert.equal(err.code, code);
    assert.equal(err.errno, zkl.codes[code.slice(4)]);
    return true;
  };
}

test('multi-lock: acquire all, a fencing token per path, release', async () => {
  const p1 = uniquePath('ml-b');
  const p2 = uniquePath('ml-a');
  const m = a.multiLock([p1, p2]);
  assert.ok(m instanceof zkl.MultiLock);
  assert.deepEqual([...m.paths], [p1, p2].sort(), 'members in canonical order (by path)');
  assert.equal(m.isHeld, false);
  assert.equal(m.validFor(), 0);
  assert.throws(() => m.fencingToken(p1), isZklError('ZKL_ENOTHELD'));

  assert.equal(await within(m.acquire({ timeout: 5000 }), 10000), m);
  assert.equal(m.isHeld, true);
  assert.ok(m.validFor() > 0);
  assert.equal(m.owner, zkl.DEFAULT_OWNER);
  assert.equal(m.signal.aborted, false);
  const t1 = m.fencingToken(p1);
  const t2 = m.fencingToken(p2);
  assert.equal(typeof t1, 'bigint');
  assert.ok(t1 > 0n && t2 > 0n && t1 !== t2, 'one token per member path');
  assert.deepEqual(m.fencingTokens, { [p1]: t1, [p2]: t2 });
  assert.throws(() => m.fencingToken(uniquePath('not-a-member')), isZklError('ZKL_ENOTFOUND'));
  assert.equal(await nodes(b, p1), 1);
  assert.equal(await nodes(b, p2), 1);
  assert.equal(await b.tryLock(p1), null, 'held by the multi-lock');

  await within(m.release(), 10000, 'release');
  assert.equal(m.isHeld, false);
  assert.equal(await nodes(a, p1), 0);
  assert.equal(await nodes(a, p2), 0);
  await assert.rejects(m.release(), isZklError('ZKL_ENOTHELD'));

  // Again: the tokens grow.
  await m.acquire({ timeout: 5000 });
  assert.ok(m.fencingToken(p1) > t1 && m.fencingToken(p2) > t2);
  await m.release();
  m.close();
  m.close();  // idempotent
});

test('multi-lock: all or nothing: a member held elsewhere, the acquire times out and holds none', async () => {
  const free = uniquePath('ml-free');
  const taken = uniquePath('ml-taken');
  const other = await b.lock(taken, { timeout: 5000 });
  const m = a.multiLock([free, taken]);
  const started = Date.now();
  await assert.rejects(within(m.acquire({ timeout: 500 }), 10000), isZklError('ZKL_ETIMEDOUT'));
  assert.ok(Date.now() - started >= 400, 'one deadline, waited for');
  assert.equal(m.isHeld, false);
  // The member taken first is released again, in the background (one round
  // trip; zkl.h): only the other holder is left.
  await until(async () => (await nodes(a, free)) === 0 && (await nodes(a, taken)) === 1, 10000,
              'the member taken first released again');
  assert.equal(await m.tryAcquire(), false);
  await until(async () => (await nodes(a, free)) === 0, 10000, 'the try\'s node deleted');

  // Once the other holder is gone, the whole is taken.
  const waiting = m.acquire({ timeout: 10000 });
  await other.release();
  await within(waiting, 10000, 'acquire after the other release');
  assert.equal(m.isHeld, true);
  await m.release();
  assert.equal(await m.tryAcquire(), true);
  await m.release();
  m.close();
});

test('multi-lock: AbortSignal cancels the acquire, nothing is left behind', async () => {
  const p1 = uniquePath('ml-abort-1');
  const p2 = uniquePath('ml-abort-2');
  const other = await b.lock(p2);
  const m = a.multiLock([p1, p2]);
  const ac = new AbortController();
  const pending = m.acquire({ signal: ac.signal });
  await within((async () => { while (await nodes(a, p2) < 2); })(), 10000, 'queued on the taken member');
  ac.abort();
  await assert.rejects(within(pending, 10000), (err) => err.name === 'AbortError' && err.code === 'ZKL_ECANCELED');
  // The cancelled members' nodes are deleted in the background (one round trip).
  await until(async () => (await nodes(a, p1)) === 0 && (await nodes(a, p2)) === 1, 10000, 'nodes deleted');
  await other.release();
  m.close();
});

test('multi-lock: Lock handles as members, any mix of kinds; the members are taken over', async () => {
  const p1 = uniquePath('ml-write');
  const p2 = uniquePath('ml-sem');
  const w = a.createLock(p1, { kind: 'write' });
  const s = a.createLock(p2, { kind: 'semaphore', maxLeases: 2 });
  const m = a.multiLock([s, w]);
  assert.deepEqual([...m.members], [w, s].sort((x, y) => (x.path < y.path ? -1 : 1)));
  await assert.rejects(w.acquire({ timeout: 100 }), isZklError('ZKL_EBUSY'));
  await m.acquire({ timeout: 5000 });
  assert.equal(w.isHeld, true, 'member getters still work');
  assert.equal(await nodes(b, p1, 'write'), 1);
  assert.equal(await nodes(b, p2, 'semaphore'), 1);
  // A reader waits for the multi-lock's writer.
  assert.equal(await b.tryLock(p1, { kind: 'read' }), null);
  await m.release();
  m.close();
  assert.equal(w.isHeld, false);
  assert.throws(() => a.multiLock([w]), isZklError('ZKL_EBADHANDLE'));
});

test('multi-lock: the loss of one member is the loss of the whole', async () => {
  const p1 = uniquePath('ml-lost-1');
  const p2 = uniquePath('ml-lost-2');
  const m = a.multiLock([p1, p2], { onRevoke: 'release' });
  await m.acquire({ timeout: 5000 });
  const events = [];
  for (const name of ['suspended', 'restored', 'lost']) m.on(name, (err) => events.push([name, err?.code]));
  const lost = nextEvent(m, 'lost');
  // Another client asks the holder of one member to let go: that member's
  // node is deleted by its holder (ZKL_EREVOKED), the other is released.
  assert.equal(await b.revoke(p2), 1);
  const [err] = await lost;
  assert.ok(err instanceof zkl.ZklError);
  assert.equal(err.code, 'ZKL_EREVOKED');
  assert.equal(m.isHeld, false);
  assert.equal(m.signal.aborted, true);
  assert.equal(m.signal.reason, err);
  assert.throws(() => m.fencingToken(p1), isZklError('ZKL_ENOTHELD'));
  // The other member is released too: another client gets both.
  const other = b.multiLock([p1, p2]);
  await within(other.acquire({ timeout: 10000 }), 15000, 'the whole is free again');
  await other.release();
  other.close();
  assert.deepEqual(events, [['lost', 'ZKL_EREVOKED']]);
  // The loss is reported once by release(), then it is simply not held.
  await assert.rejects(m.release(), isZklError('ZKL_ELOST'));
  await assert.rejects(m.release(), isZklError('ZKL_ENOTHELD'));
  m.close();
});

test("multi-lock: client.close() delivers 'lost' with ZKL_ECLOSED, a pending acquire fails with it", async () => {
  const c = await zkl.connect(servers());
  const p1 = uniquePath('ml-close-1');
  const p2 = uniquePath('ml-close-2');
  const m = c.multiLock([p1, p2]);
  await m.acquire({ timeout: 5000 });
  const lost = nextEvent(m, 'lost');

  const q = uniquePath('ml-close-taken');
  const other = await b.lock(q);
  const w = c.multiLock([uniquePath('ml-close-free'), q]);
  const waiting = w.acquire();
  waiting.catch(() => {});
  await within((async () => { while (await nodes(b, q) < 2); })(), 10000, 'queued');

  await c.close();
  const [err] = await within(lost, 10000, "'lost'");
  assert.equal(err.code, 'ZKL_ECLOSED');
  assert.equal(m.isHeld, false);
  assert.equal(m.validFor(), 0);
  await assert.rejects(waiting, isZklError('ZKL_ECLOSED'));
  // The session's nodes are gone.
  assert.equal(await nodes(b, p1), 0);
  assert.equal(await nodes(b, p2), 0);
  await other.release();
  assert.throws(() => c.multiLock([uniquePath('after-close')]), isZklError('ZKL_ECLOSED'));
});

test('multi-lock: bad input gives typed errors', async () => {
  const p = uniquePath('ml-bad');
  assert.throws(() => a.multiLock([]), isZklError('ZKL_EINVAL'));
  assert.throws(() => a.multiLock('not-an-array'), TypeError);
  assert.throws(() => a.multiLock([42]), TypeError);
  assert.throws(() => a.multiLock([p, p]), isZklError('ZKL_EINVAL'), 'duplicate paths');
  const [l1, l2] = [a.createLock(p), a.createLock(p)];
  assert.throws(() => a.multiLock([l1, l2]), isZklError('ZKL_EINVAL'));
  const foreign = b.createLock(uniquePath('ml-foreign'));
  assert.throws(() => a.multiLock([l1, foreign]), isZklError('ZKL_EINVAL'),
    'a handle of another client');
  for (const lk of [l1, l2]) lk.close();
  assert.throws(() => a.multiLock([p], { kind: 'reentrant' }), isZklError('ZKL_EINVAL'));
  assert.throws(() => a.multiLock([p], { kind: 'bogus' }), isZklError('ZKL_EINVAL'));
  // A member already in a multi-lock, or held, is busy.
  const lk = a.createLock(uniquePath('ml-busy'));
  const m = a.multiLock([lk]);
  assert.throws(() => a.multiLock([lk]), isZklError('ZKL_EBUSY'));
  const held = await a.lock(uniquePath('ml-held'));
  assert.throws(() => a.multiLock([held]), isZklError('ZKL_EBUSY'));
  await held.release();
  // A second acquire while one is pending or held.
  await m.acquire({ timeout: 5000 });
  await assert.rejects(m.acquire({ timeout: 100 }), isZklError('ZKL_EDEADLK'));
  await assert.rejects(m.release({ owner: 7n }), isZklError('ZKL_ENOTOWNER'));
  assert.throws(() => m.fencingToken(42), TypeError);
  await m.release();
  m.close();
  await assert.rejects(m.acquire(), isZklError('ZKL_EBADHANDLE'));
  foreign.close();
});
