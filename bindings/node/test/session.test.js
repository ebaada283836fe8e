'use strict';
// Session trouble: a paused server makes zkl's client-side deadline fire, so
// held locks report 'suspended' then 'lost'; pending acquires survive and
// the client gets a new session. Uses its own server (it pauses it).
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { once } = require('node:events');
const zkl = require('..');
const { startServer, uniquePath, within, nextEvent } = require('./helpers');

let server;

before(() => { server = startServer(); });
after(() => {
  server.resume();
  server.stop();
});

test('session events on connect and close', async () => {
  const c = new zkl.Client(server.connect);
  const states = [];
  c.on('session', (s) => states.push(s));
  assert.equal(c.state, 'connecting');
  await c.connected({ timeout: 20000 });
  assert.equal(c.state, 'connected');
  assert.ok(c.sessionId > 0n);
  assert.ok(c.sessionTimeout > 0);
  await c.close();
  assert.deepEqual(states, ['connected', 'closed']);
});

test('connect timeout to a server that does not answer', async () => {
  server.pause();
  try {
    await assert.rejects(zkl.connect(server.connect, { connectTimeout: 300 }), { code: 'ZKL_ETIMEDOUT' });
  } finally {
    server.resume();
  }
});

test('a held lock is lost when the server stops answering', async () => {
  // 2 s session: ZooKeeper's client notices the silence after ~1.3 s,
  // zkl declares the session lost 0.5 s later (a quarter of the timeout).
  const c = await zkl.connect(server.connect, { sessionTimeout: 2000 });
  const other = await zkl.connect(server.connect);
  const p = uniquePath('lost');
  const lock = await c.lock(p);
  const token = lock.fencingToken;
  const events = [];
  for (const e of ['suspended', 'restored', 'lost']) lock.on(e, () => events.push(e));
  const clientStates = [];
  c.on('session', (s) => clientStates.push(s));
  const lost = nextEvent(lock, 'lost', 20000);
  const aborted = once(lock.signal, 'abort');

  server.pause();
  let err;
  try {
    [err] = await lost;
  } finally {
    server.resume();
  }
  assert.deepEqual(events, ['suspended', 'lost']);
  assert.equal(err.code, 'ZKL_ESESSION');
  assert.equal(lock.isHeld, false);
  await within(aborted, 1000, 'lock.signal aborted');
  assert.equal(lock.signal.reason, err);
  assert.deepEqual(clientStates.slice(0, 2), ['suspended', 'lost']);

  // A new session comes; the lock can be taken again, with a larger token.
  await within(once(c, 'connected'), 20000, 'new session');
  await assert.rejects(lock.release(), { code: 'ZKL_ELOST' });
  const again = await other.lock(p, { timeout: 20000 });
  assert.ok(again.fencingToken > token);
  await again.release();
  await c.close();
  await other.close();
});

test('suspended, then restored when the server answers again in time', async () => {
  // 6 s session: suspended after ~4 s of silence; the lock is declared lost
  // 1.5 s later unless the client reconnects first, which it does within
  // milliseconds of the resume below.
  const c = await zkl.connect(server.connect, { sessionTimeout: 6000 });
  const p = uniquePath('restored');
  const lock = await c.lock(p);
  const election = c.election(uniquePath('restored-election'), { id: 'me' });
  const term = await election.campaign();
  const sessionId = c.sessionId;
  const events = [];
  const electionEvents = [];
  for (const e of ['suspended', 'restored', 'lost']) lock.on(e, () => events.push(e));
  for (const e of ['suspended', 'restored', 'lost', 'elected']) election.on(e, () => electionEvents.push(e));
  const suspended = nextEvent(lock, 'suspended', 20000);
  const restored = nextEvent(lock, 'restored', 20000);
  const electionRestored = nextEvent(election, 'restored', 20000);
  server.pause();
  try {
    await suspended;
    assert.equal(lock.isHeld, false, 'never "held" while suspended');
  } finally {
    server.resume();
  }
  await restored;
  await electionRestored;
  assert.deepEqual(events, ['suspended', 'restored']);
  // RESTORED, not ELECTED, after a recovered suspension: the same term.
  assert.deepEqual(electionEvents, ['suspended', 'restored']);
  assert.equal(election.isLeader, true);
  assert.equal(election.fencingToken, term);
  await election.release();
  assert.equal(lock.isHeld, true);
  assert.equal(c.sessionId, sessionId, 'same session');
  assert.equal(lock.signal.aborted, false);
  await lock.release();
  await c.close();
});

test('a pending acquire survives session loss and completes later', async () => {
  const holder = await zkl.connect(server.connect);
  const c = await zkl.connect(server.connect, { sessionTimeout: 2000 });
  const p = uniquePath('survive');
  const h = await holder.lock(p);
  const waiting = c.lock(p, { timeout: 60000 });
  await within((async () => {
    while ((await holder.inspect(p)).length < 2);
  })(), 10000, 'queued');
  const lost = nextEvent(c, 'lost', 20000);
  server.pause();
  try {
    await lost;
  } finally {
    server.resume();
  }
  await within(once(c, 'connected'), 20000, 'new session');
  // The holder's session may have been expired by the paused server too.
  await h.release().catch((e) => assert.equal(e.code, 'ZKL_ELOST'));
  const l = await within(waiting, 30000, 'acquire after session loss');
  assert.ok(l.fencingToken > h.fencingToken);
  await l.release();
  await c.close();
  await holder.close();
});
