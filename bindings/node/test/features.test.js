'use strict';
// The rest of the 0.2.0 surface: log and stats events, host-driven I/O,
// revocation, maximum hold time, semaphore leases per acquisition, dispose.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const zkl = require('..');
const { connectTwo, closeAll, servers, uniquePath, within, nextEvent } = require('./helpers');

let a, b;
before(async () => { [a, b] = await connectTwo(); });
after(() => closeAll(a, b));

test("log lines arrive as 'log' events on the client", async () => {
  const c = new zkl.Client(servers(), { logLevel: 'debug' });
  const records = [];
  c.on('log', (r) => records.push(r));
  const first = nextEvent(c, 'log');
  await c.connected({ timeout: 20000 });
  const [r] = await first;
  assert.ok(['error', 'warn', 'info', 'debug'].includes(r.level), r.level);
  assert.equal(typeof r.component, 'string');
  assert.ok(r.component.length > 0);
  assert.equal(typeof r.message, 'string');
  await c.close();
  assert.ok(records.length >= 1);
  assert.throws(() => new zkl.Client(servers(), { logLevel: 'loud' }), { code: 'ZKL_EINVAL' });
});

test("'stats' events every statsInterval, and handle statistics", async () => {
  const c = await zkl.connect(servers(), { statsInterval: 100 });
  const l = await c.lock(uniquePath('stats-event'));
  const [doc] = await nextEvent(c, 'stats');
  assert.equal(doc.schema, 1);
  assert.equal(typeof doc.client.requests, 'number');
  assert.ok(doc.handles.some((h) => h.path === l.path && h.held));
  await l.release();
  const e = c.election(uniquePath('stats-election'), { id: 'me' });
  await e.campaign();
  assert.equal(e.stats().type, 'election');
  await e.release();
  e.close();
  await c.close();
});

test("host-driven I/O (io: 'host'): Node's loop does zkl's I/O", async () => {
  const c = await zkl.connect(servers(), { io: 'host' });
  assert.equal(c.stats().client.io, 'host');
  const p = uniquePath('host');
  const l = await c.lock(p, { timeout: 5000 });
  assert.ok(l.validFor() > 0);
  assert.equal(await b.tryLock(p), null);
  const e = c.election(uniquePath('host-election'), { id: 'h' });
  assert.equal(typeof await e.campaign({ timeout: 5000 }), 'bigint');
  await e.release();
  const lost = nextEvent(l, 'lost');
  await c.close();
  const [err] = await lost;
  assert.equal(err.code, 'ZKL_ECLOSED');
  const again = await b.lock(p, { timeout: 5000 });
  assert.ok(again.fencingToken > l.fencingToken);
  await again.release();
});

test("revocation: 'revokeRequested' (notify), and release with ZKL_EREVOKED", async () => {
  const p = uniquePath('revoke');
  const l = await a.lock(p, { onRevoke: 'notify' });
  const asked = nextEvent(l, 'revokeRequested');
  assert.equal(await b.revoke(p), 1);
  const [token] = await asked;
  assert.equal(token, l.fencingToken);
  assert.equal(l.isHeld, true, 'notify leaves the decision to the holder');
  await l.release();

  const q = uniquePath('revoke-release');
  const m = await a.lock(q, { onRevoke: 'release' });
  const lost = nextEvent(m, 'lost');
  assert.equal(await b.revoke(q), 1);
  const [err] = await lost;
  assert.equal(err.code, 'ZKL_EREVOKED');
  const next = await b.lock(q, { timeout: 10000 });
  await next.release();
  assert.throws(() => a.createLock(q, { onRevoke: 'maybe' }), { code: 'ZKL_EINVAL' });
});

test("maxHold: zkl ends the hold, 'lost' with ZKL_EMAXHOLD", async () => {
  const p = uniquePath('max-hold');
  const l = await a.lock(p, { maxHold: 200 });
  const [err] = await nextEvent(l, 'lost', 10000);
  assert.equal(err.code, 'ZKL_EMAXHOLD');
  assert.equal(l.isHeld, false);
  const next = await b.lock(p, { timeout: 10000 });
  await next.release();
});

test('semaphore: leases per acquisition, all or none', async () => {
  const p = uniquePath('leases');
  const two = await a.semaphore(p, 3, { leases: 2 });
  assert.equal(await b.tryLock(p, { kind: 'semaphore', maxLeases: 3, leases: 2 }), null);
  const one = await b.semaphore(p, 3, { timeout: 5000 });
  const who = await a.inspect(p, { kind: 'semaphore' });
  assert.deepEqual(who.map((x) => x.leases).sort(), [1, 2]);
  await two.release();
  await one.release();
});

test('dispose: Client, Lock and Election alike', { skip: typeof Symbol.asyncDispose !== 'symbol' }, async () => {
  const c = await zkl.connect(servers());
  const p = uniquePath('dispose');
  const l = await c.lock(p);
  await l[Symbol.asyncDispose]();
  assert.equal((await b.inspect(p)).length, 0);
  const e = c.election(uniquePath('dispose-election'), { id: 'me' });
  await e.campaign();
  await e[Symbol.asyncDispose]();
  assert.equal(e.isLeader, false);
  const m = c.createLock(uniquePath('dispose-sync'));
  if (typeof Symbol.dispose === 'symbol') m[Symbol.dispose]();
  await c[Symbol.asyncDispose]();
  assert.equal(c.state, 'closed');
});
