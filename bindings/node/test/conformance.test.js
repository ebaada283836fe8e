'use strict';
// The scenarios of bindings/CONFORMANCE.md, one test each, named by the
// scenario id (scripts/check-conformance looks for the ids), against a real
// ZooKeeper server.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { once } = require('node:events');
const fs = require('node:fs');
const path = require('node:path');
const v8 = require('node:v8');
const vm = require('node:vm');
const zkl = require('..');
const { connectTwo, closeAll, servers, uniquePath, within, until, nextEvent, expireSession } = require('./helpers');

let a, b;
before(async () => { [a, b] = await connectTwo(); });
after(() => closeAll(a, b));

const nodes = async (client, p, options) => (await client.inspect(p, options)).length;

async function rejectsWith(promise, code) {
  await assert.rejects(within(promise, 20000), (err) => {
    assert.ok(err instanceof zkl.ZklError, `not a ZklError: ${err}`);
    assert.equal(err.code, code);
    assert.equal(err.errno, zkl.constants[code]);
    return true;
  });
}

test('fair_lock_excludes', async () => {
  const p = uniquePath('excludes');
  const held = await a.lock(p);
  // zkl's ZKL_EAGAIN (would block) is null from tryLock, false from tryAcquire.
  assert.equal(await b.tryLock(p), null);
  const h = b.createLock(p);
  assert.equal(await h.tryAcquire(), false);
  await held.release();
  assert.equal(await h.tryAcquire(), true);
  await h.release();
  h.close();
});

test('timeout_zero_tries_once', async () => {
  const p = uniquePath('timeout-zero');
  const l = await a.lock(p, { timeout: 0 });
  const t0 = Date.now();
  await rejectsWith(b.lock(p, { timeout: 0 }), 'ZKL_ETIMEDOUT');
  assert.ok(Date.now() - t0 < 5000, 'at once');
  assert.equal(await nodes(b, p), 1, 'no node left');
  await l.release();
});

test('acquire_timeout_leaves_no_node', async () => {
  const p = uniquePath('timeout');
  const l = await a.lock(p);
  const t0 = Date.now();
  await rejectsWith(b.lock(p, { timeout: 200 }), 'ZKL_ETIMEDOUT');
  assert.ok(Date.now() - t0 >= 150);
  assert.equal(await nodes(b, p), 1, 'only the holder is left');
  await l.release();
  assert.equal(await nodes(a, p), 0);
});

test('cancel_pending_acquire', async () => {
  const p = uniquePath('cancel');
  const l = await a.lock(p);
  const ac = new AbortController();
  const waiting = b.lock(p, { signal: ac.signal });
  await until(async () => await nodes(b, p) === 2, 10000, 'queued');
  ac.abort();
  await rejectsWith(waiting, 'ZKL_ECANCELED');
  assert.equal(await nodes(b, p), 1, 'the waiter left no node');
  await l.release();
});

test('async_acquire_event', async () => {
  const p = uniquePath('async');
  const l = a.createLock(p);
  // The acquire completes through Node's own loop (libuv poll of zkl's fd).
  const got = await within(l.acquire(), 10000, 'acquire');
  assert.equal(got, l);
  assert.equal(typeof l.fencingToken, 'bigint');
  assert.ok(l.fencingToken > 0n);
  await l.release();
  l.close();
});

test('reentrant_hold_count', async () => {
  const p = uniquePath('reentrant');
  const l = a.createLock(p, { kind: 'reentrant' });
  await l.acquire({ owner: 5n });
  await l.acquire({ owner: 5n });
  assert.equal(l.holdCount, 2);
  await l.release({ owner: 5n });
  assert.equal(l.holdCount, 1);
  assert.equal(l.isHeld, true);
  await l.release({ owner: 5n });
  assert.equal(l.holdCount, 0);
  l.close();
});

test('release_twice_not_held', async () => {
  const p = uniquePath('twice');
  const one = await a.lock(p);  // one-shot: the handle goes with the release
  await one.release();
  await rejectsWith(one.release(), 'ZKL_ENOTHELD');
  const tried = await a.tryLock(p);
  await tried.release();
  await rejectsWith(tried.release(), 'ZKL_ENOTHELD');
  const h = a.createLock(p);  // reusable handle
  await h.acquire();
  await h.release();
  await rejectsWith(h.release(), 'ZKL_ENOTHELD');
  h.close();
  await rejectsWith(h.release(), 'ZKL_ENOTHELD');
});

test('release_wrong_owner', async () => {
  const p = uniquePath('owner');
  const l = a.createLock(p);
  await l.acquire({ owner: 7n });
  await rejectsWith(l.release({ owner: 8n }), 'ZKL_ENOTOWNER');
  await rejectsWith(l.release(), 'ZKL_ENOTOWNER');  // the default owner is another owner
  assert.equal(l.isHeld, true);
  await l.release({ owner: 7n });
  l.close();
});

test('default_owner_any_thread_releases', async () => {
  const p = uniquePath('default-owner');
  const l = await a.lock(p);
  assert.equal(l.owner, BigInt(zkl.constants.ZKL_DEFAULT_OWNER));
  assert.equal(zkl.DEFAULT_OWNER, 1n);
  // Another task (a later macrotask, not the acquiring one) releases it.
  await new Promise((resolve, reject) => setImmediate(() => l.release().then(resolve, reject)));
  assert.equal(await nodes(a, p), 0);
});

test('fencing_token_increases', async () => {
  const p = uniquePath('tokens');
  let last = 0n;
  for (let i = 0; i < 4; i++) {
    const l = await (i % 2 ? b : a).lock(p);
    const t = l.fencingToken;
    assert.equal(typeof t, 'bigint');
    assert.ok(t >= 0n && t < (1n << 64n), 'an unsigned 64-bit value');
    assert.ok(t > last, `${t} > ${last}`);
    last = t;
    await l.release();
  }
});

test('valid_for_while_held', async () => {
  const p = uniquePath('valid-for');
  const l = await a.lock(p);
  const ms = l.validFor();
  assert.equal(typeof ms, 'number');
  assert.ok(ms > 0, `${ms} > 0`);
  assert.ok(ms < a.sessionTimeout, `${ms} < session timeout ${a.sessionTimeout}`);
  await l.release();
  assert.equal(l.validFor(), 0);
  const e = a.election(uniquePath('valid-for-election'), { id: 'me' });
  await e.campaign();
  assert.ok(e.validFor() > 0 && e.validFor() < a.sessionTimeout);
  await e.release();
  assert.equal(e.validFor(), 0);
  e.close();
});

test('is_held_false_after_close', async () => {
  const c = await zkl.connect(servers());
  const l = await c.lock(uniquePath('held-close'));
  const lost = nextEvent(l, 'lost');
  assert.equal(l.isHeld, true);
  await c.close();
  await lost;
  assert.equal(l.isHeld, false);
  assert.equal(l.validFor(), 0);
});

test('lost_on_session_expiry', async () => {
  const c = await zkl.connect(servers());
  const p = uniquePath('expiry');
  const l = await c.lock(p);
  const lost = nextEvent(l, 'lost', 30000);
  await expireSession(servers(), c);
  const [err] = await lost;
  assert.ok(err instanceof zkl.ZklError);
  assert.equal(err.code, 'ZKL_ESESSION');
  assert.equal(l.isHeld, false);
  await c.close();
});

test('lost_on_session_expiry: a leader rejoins by itself, and campaign() waits in that line', async () => {
  const c = await zkl.connect(servers());
  const p = uniquePath('expiry-election');
  const e = c.election(p, { id: 'me' });
  const t1 = await e.campaign();
  // Another participant waits in line behind the leader before the expiry
  // (joining after it would race the leader's own rejoin).
  const other = b.election(p, { id: 'other' });
  const otherElected = within(other.campaign(), 20000, 'other elected');
  await until(async () => await nodes(b, p, { election: true }) === 2, 20000, 'other in line');
  const lost = nextEvent(e, 'lost', 30000);
  await expireSession(servers(), c);
  const [err] = await lost;
  assert.equal(err.code, 'ZKL_ESESSION');
  assert.equal(e.isLeader, false);
  // The other participant leads now; this one is back in line by itself.
  const t2 = await otherElected;
  assert.ok(t2 > t1);
  await until(async () => await nodes(b, p, { election: true }) === 2, 20000, 'rejoined');
  await rejectsWith(e.campaign({ timeout: 200 }), 'ZKL_ETIMEDOUT');
  assert.equal(await nodes(b, p, { election: true }), 1, 'the timed-out campaign left');
  await other.release();
  other.close();
  await c.close();
});

test('lost_on_client_close', async () => {
  const c = await zkl.connect(servers());
  const p = uniquePath('close-lost');
  const l = await c.lock(p);
  const e = c.election(uniquePath('close-lost-election'), { id: 'me' });
  await e.campaign();
  const events = [];
  for (const h of [l, e]) {
    for (const name of ['lost', 'restored', 'suspended']) h.on(name, (err) => events.push([name, err?.code]));
  }
  await c.close();
  assert.deepEqual(events, [['lost', 'ZKL_ECLOSED'], ['lost', 'ZKL_ECLOSED']]);
  assert.equal(l.signal.aborted, true);
  assert.equal(l.signal.reason.code, 'ZKL_ECLOSED');
  assert.equal(await nodes(a, p), 0, 'the node went with the session');
});

test('campaign_timeout_leaves_election', async () => {
  const p = uniquePath('campaign-timeout');
  const e1 = a.election(p, { id: 'leader' });
  await e1.campaign();
  const e2 = b.election(p, { id: 'waiter' });
  await rejectsWith(e2.campaign({ timeout: 200 }), 'ZKL_ETIMEDOUT');
  assert.equal(await nodes(b, p, { election: true }), 1, 'the waiter left');
  await e1.release();
  e1.close();
  e2.close();
});

test('campaign_when_leader_returns_at_once', async () => {
  const p = uniquePath('campaign-leader');
  const e = a.election(p, { id: 'me' });
  const t = await e.campaign({ timeout: 5000 });
  assert.equal(await within(e.campaign({ timeout: 0 }), 100, 'second campaign'), t);
  assert.equal(e.isLeader, true);
  await e.release();
  await rejectsWith(e.release(), 'ZKL_ENOTHELD');
  e.close();
});

test('observer_leader_and_term', async () => {
  const p = uniquePath('observer');
  const o = b.observe(p);
  const seen = [];
  o.on('leaderChanged', (id, term) => seen.push([id, term]));
  o.on('noLeader', () => seen.push([null, null]));
  const e1 = a.election(p, { id: 'one' });
  const e2 = a.election(p, { id: 'two' });
  const t1 = await e1.campaign();
  const second = e2.campaign();
  await until(async () => o.leader === 'one', 10000, 'observer sees one');
  assert.equal(o.term, t1);
  await e1.release();
  const t2 = await within(second, 10000, 'two elected');
  assert.ok(t2 > t1, 'the term grows');
  await until(async () => seen.some(([id]) => id === 'two'), 10000, "'leaderChanged' two");
  assert.deepEqual(seen.find(([id]) => id === 'two'), ['two', t2]);
  assert.deepEqual(seen.find(([id]) => id === 'one'), ['one', t1]);
  assert.equal(o.term, t2);
  await e2.release();
  await until(async () => seen.at(-1)[0] === null, 10000, "'noLeader'");
  assert.equal(o.leader, null);
  assert.equal(o.term, null);
  e1.close();
  e2.close();
  o.close();
});

test('semaphore_max_leases', async () => {
  const p = uniquePath('semaphore');
  const s1 = await a.semaphore(p, 2);
  const s2 = await b.semaphore(p, 2);
  let third = false;
  const waiting = a.semaphore(p, 2).then((s) => { third = true; return s; });
  await until(async () => await nodes(a, p, { kind: 'semaphore' }) === 3, 10000, 'third queued');
  assert.equal(third, false, 'the third waits');
  await s1.release();
  const s3 = await within(waiting, 10000, 'third lease');
  await s2.release();
  await s3.release();
});

test('read_write_lock_shared', async () => {
  const p = uniquePath('rw');
  const r1 = await a.readLock(p);
  const r2 = await b.readLock(p, { timeout: 5000 });
  let written = false;
  const writer = a.writeLock(p).then((w) => { written = true; return w; });
  await until(async () => await nodes(b, p, { kind: 'write' }) === 3, 10000, 'writer queued');
  await r1.release();
  assert.equal(written, false, 'a reader still holds');
  await r2.release();
  const w = await within(writer, 10000, 'writer');
  await w.release();
});

test('bad_path_rejected', async () => {
  for (const p of ['relative', '/trailing/', '/a//b', '/a/./b', '/nul\0']) {
    assert.throws(() => a.createLock(p), { code: 'ZKL_EBADPATH', errno: zkl.constants.ZKL_EBADPATH });
  }
});

test('destroyed_handle_errors', async () => {
  const l = a.createLock(uniquePath('destroyed'));
  await l.acquire();
  l.close();
  assert.equal(l.isHeld, false);
  assert.equal(l.validFor(), 0);
  assert.equal(l.holdCount, 0);
  await rejectsWith(l.acquire(), 'ZKL_EBADHANDLE');
  assert.throws(() => l.stats(), { code: 'ZKL_EBADHANDLE' });
  const e = a.election(uniquePath('destroyed-election'), { id: 'x' });
  e.close();
  assert.equal(e.isLeader, false);
  await rejectsWith(e.campaign(), 'ZKL_EBADHANDLE');
});

test('held_lock_outlives_dropped_reference', async () => {
  // Node's rule: a handle stays reachable from its client until released or
  // closed, so a garbage collection never releases a held lock.
  const p = uniquePath('gc');
  await (async () => { await a.lock(p); })();  // the only user reference is dropped
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  gc();
  await new Promise((r) => setImmediate(r));
  gc();
  const [holder] = await b.inspect(p);
  assert.equal(holder?.isHolder, true, 'still held after garbage collection');
  assert.equal(holder.sessionId, a.sessionId);
  // Clean up through the client: its handles are all still there.
  const still = [...a._handles.values()].find((h) => h.path === p);
  await still.release();
});

test('stats_document', async () => {
  const l = await a.lock(uniquePath('stats'));
  const s = a.stats();
  assert.equal(s.schema, 1);
  for (const k of ['state', 'requests', 'events', 'sessions', 'heartbeats']) {
    assert.ok(k in s.client, `client.${k}`);
  }
  assert.equal(s.client.state, 'connected');
  assert.ok(s.client.requests > 0);
  const mine = l.stats();
  assert.equal(mine.type, 'lock');
  assert.equal(mine.path, l.path);
  assert.equal(mine.held, true);
  await l.release();
});

test('set_servers_keeps_session', async () => {
  // The suite's server and one that refuses (127.0.0.1:1); the new list is
  // the suite's server alone, the one the client is connected to.
  const c = await zkl.connect(`${servers()},127.0.0.1:1`);
  try {
    const l = await c.lock(uniquePath('set-servers'));
    const [sid, token] = [c.sessionId, l.fencingToken];
    for (let i = 0; i < 2; i++) {  // the second time the list in force is given again
      await c.setServers(servers());
      assert.equal(c.sessionId, sid);
      assert.equal(l.isHeld, true);
      assert.equal(l.fencingToken, token);
      const s = c.stats().client;
      assert.equal(s.server_list_changes, 1);
      assert.equal(s.servers, servers());
    }
  } finally {
    await c.close();
  }
});

test('set_servers_errors', async () => {
  const c = await zkl.connect(servers());
  for (const bad of ['', 'nohostport', 'a\0b']) {
    await assert.rejects(c.setServers(bad), (err) => {
      assert.ok(err instanceof zkl.ZklError, `not a ZklError: ${err}`);
      assert.equal(err.code, 'ZKL_EINVAL');
      assert.match(err.message, /^set servers: /);
      return true;
    });
  }
  await assert.rejects(c.setServers(42), TypeError);
  assert.notEqual(c.sessionId, 0n);  // a bad list leaves the session alone
  await c.close();
  await assert.rejects(c.setServers(servers()), (err) => {
    assert.equal(err.code, 'ZKL_ECLOSED');
    assert.match(err.message, /^set servers: /);
    return true;
  });
  assert.throws(() => c.followEnsemble(true), (err) => {
    assert.equal(err.code, 'ZKL_ECLOSED');
    assert.match(err.message, /^follow ensemble: /);
    return true;
  });
});

test('follow_ensemble_standalone', async () => {
  // A standalone server has no ensemble configuration to follow: the call
  // succeeds, the list stays the suite's server, and the statistics say why
  // it is not followed.
  const c = await zkl.connect(servers());
  const f = await zkl.connect(servers(), { followEnsemble: true });
  try {
    const l = await c.lock(uniquePath('follow'));
    const sid = c.sessionId;
    c.followEnsemble(true);
    await until(() => {
      const e = c.stats().client.ensemble;
      return e.following === true && typeof e.not_followed === 'string' && e.not_followed !== '';
    }, 20000, 'ensemble.not_followed');
    assert.equal(c.stats().client.servers, servers());
    assert.equal(c.sessionId, sid);
    assert.equal(l.isHeld, true);
    c.followEnsemble(false);
    assert.equal(c.stats().client.ensemble.following, false);
    // The option does the same right after creation.
    assert.equal(f.stats().client.ensemble.following, true);
  } finally {
    await closeAll(c, f);
  }
});

test('constants_match_header', () => {
  const header = fs.readFileSync(path.join(process.env.ZKL_SOURCE_DIR
    || path.resolve(__dirname, '..', '..', '..'), 'include', 'zkl.h'), 'utf8');
  const defs = {};
  for (const m of header.matchAll(/^#define (ZKL_[A-Z0-9_]+) (-?\d+)\b/gm)) defs[m[1]] = Number(m[2]);
  assert.ok(Object.keys(defs).length > 50);
  assert.deepEqual({ ...zkl.constants }, defs);
  for (const [name, v] of Object.entries(zkl.codes)) assert.equal(v, defs[`ZKL_${name}`]);
  assert.equal(zkl.version, `${defs.ZKL_VERSION_MAJOR}.${defs.ZKL_VERSION_MINOR}.${defs.ZKL_VERSION_PATCH}`);
});
