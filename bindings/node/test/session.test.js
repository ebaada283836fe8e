'use strict';
// Session trouble: a paused server makes held locks report 'suspended' at
// once, and 'lost' once the session is surely gone (a session timeout after
// the connection was lost); pending acquires survive and the client gets a
// new session. Uses its own server (it pauses it).
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

test('frozen_server_suspends_then_loses: suspended at once, lost once surely gone', async () => {
  // Suspended is not lost. A session of T = 2 s: the hold is 'suspended',
  // and isHeld says no, before T has passed since the freeze (3/4 T after
  // the last quorum proof at the latest), so before the server could expire
  // the session and grant the lock to another. ZooKeeper's client notices
  // the silence 2/3 T after the server's last answer; zkl keeps resuming the
  // same session and gives it up ('lost', ZKL_ESESSION) a session timeout
  // after that: between T and 5/3 T (+ slack) after the freeze.
  const c = await zkl.connect(server.connect, { sessionTimeout: 2000 });
  const other = await zkl.connect(server.connect);
  const p = uniquePath('lost');
  const lock = await c.lock(p);
  const token = lock.fencingToken;
  const events = [];
  for (const e of ['suspended', 'restored', 'lost']) lock.on(e, () => events.push(e));
  const clientStates = [];
  c.on('session', (s) => clientStates.push(s));
  const timeout = c.sessionTimeout;
  const suspended = nextEvent(lock, 'suspended', 20000);
  const lost = nextEvent(lock, 'lost', 20000);
  const aborted = once(lock.signal, 'abort');

  const start = Date.now();
  server.pause();
  const frozenAt = Date.now(); // the freeze is between start and here
  let err;
  try {
    await suspended;
    assert.equal(lock.isHeld, false, 'never "held" while suspended');
    assert.ok(Date.now() - start < timeout, `suspended ${Date.now() - start} ms after the freeze (T ${timeout} ms)`);
    [err] = await lost;
    const lostAt = Date.now();
    assert.ok(lostAt - frozenAt >= timeout, `lost ${lostAt - frozenAt} ms after the freeze, before T (${timeout} ms)`);
    assert.ok(lostAt - start <= (timeout * 5) / 3 + 1500,
      `lost only ${lostAt - start} ms after the freeze (T ${timeout} ms)`);
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
  // 6 s session: suspended within 3/4 of it (4.5 s) of silence; the session
  // would be given up only a session timeout after the connection was lost
  // (~4 s + 6 s), and the client resumes it within milliseconds of the
  // resume below.
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
