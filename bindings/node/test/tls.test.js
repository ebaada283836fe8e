'use strict';
// The TLS scenarios of bindings/CONFORMANCE.md, against the mutual-TLS
// ZooKeeper that test.sh starts (ZKL_TEST_TLS_SERVERS, ZKL_TEST_TLS_DIR).
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zkl = require('..');
const { uniquePath, nextEvent } = require('./helpers');

const ATTEMPT = 3000; // attemptTimeout: one attempt (ms), TLS handshake included
const BOUND = 10000; // a failing connect must end within this (no hang)

// A yes/no environment variable, strictly: unset or empty is no; 1/0,
// true/false, yes/no, on/off in any case; anything else throws.
function envBool(name) {
  const v = process.env[name] ?? '';
  if (['', '0', 'false', 'no', 'off'].includes(v.toLowerCase())) return false;
  if (['1', 'true', 'yes', 'on'].includes(v.toLowerCase())) return true;
  throw new Error(`$${name} must be one of 1/0, true/false, yes/no, on/off (any case), not '${v}'`);
}

const servers = process.env.ZKL_TEST_TLS_SERVERS;
const certs = process.env.ZKL_TEST_TLS_DIR;
const why = 'ZKL_TEST_TLS_SERVERS / ZKL_TEST_TLS_DIR unset (test.sh starts the TLS server)';
if ((!servers || !certs) && envBool('CI')) throw new Error(why);
const skip = !servers || !certs ? why : false;

const at = (name) => name && path.join(certs, name);

/** Connects to the TLS server with the CA and, when given, certificate and key. */
function connect({ ca = 'ca.pem', cert = 'client.crt', key = 'client.key', ...more } = {}, wait = 20000) {
  return zkl.connect(servers, {
    sessionTimeout: 6000,
    attemptTimeout: ATTEMPT,
    connectTimeout: wait,
    ...more,
    tls: { ca: at(ca), cert: at(cert), key: at(key), ...more.tls },
  });
}

/** Connecting with `options` fails with ZklError `code`, within the bound: the error. */
async function connectFails(options, code) {
  const t0 = Date.now();
  let failed;
  // Waits past one attempt: the error says why the attempts failed. Each
  // retried attempt logs an error: not in the test output.
  await assert.rejects(connect({ ...options, logLevel: 'off' }, ATTEMPT + 2000), (err) => {
    assert.ok(err instanceof zkl.ZklError, `not a ZklError: ${err}`);
    assert.equal(err.code, code);
    failed = err;
    return true;
  });
  assert.ok(Date.now() - t0 < BOUND, `failed after ${Date.now() - t0} ms`);
  return failed;
}

test('tls_lock_and_election', { skip }, async () => {
  const [a, b] = await Promise.all([connect(), connect()]);
  try {
    const p = uniquePath('tls');
    const lock = await a.lock(`${p}/lock`);
    assert.ok(lock.isHeld && lock.fencingToken > 0n);
    await lock.release();
    assert.equal(lock.isHeld, false);
    lock.close();

    const election = a.election(`${p}/election`, { id: 'alpha' });
    const term = await election.campaign();
    assert.ok(election.isLeader);
    const observer = b.observe(`${p}/election`);
    while (observer.leader !== 'alpha') await nextEvent(observer, 'leaderChanged');
    assert.equal(observer.term, term);
    observer.close();
    await election.release();
    election.close();
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('tls_encrypted_key', { skip }, async () => {
  const keyPassword = fs.readFileSync(at('client-key.pass'), 'utf8').trim();
  const c = await connect({ key: 'client-enc.key', tls: { keyPassword } });
  try {
    const lock = await c.lock(uniquePath('tls-enc'));
    assert.ok(lock.isHeld);
    await lock.release();
    lock.close();
  } finally {
    await c.close();
  }
});

test('tls_wrong_ca', { skip }, async () => {
  // The server's chain ends in ca.pem, not in the CA trusted here.
  await connectFails({ ca: 'other-ca.pem' }, 'ZKL_ECERT');
});

test('tls_wrong_ca_ends_wait', { skip }, async () => {
  // No session yet and every server refused verification: the session's
  // 'authFailed' carries ZKL_ECERT, which ends connected() long before its
  // 20 s, with that code (not ZKL_EAUTH, not ZKL_ETIMEDOUT).
  const c = new zkl.Client(servers, {
    sessionTimeout: 6000, connectTimeout: 20000, logLevel: 'off',
    tls: { ca: at('other-ca.pem'), cert: at('client.crt'), key: at('client.key') },
  });
  try {
    const t0 = Date.now();
    await assert.rejects(c.connected(), (err) => {
      assert.ok(err instanceof zkl.ZklError, `not a ZklError: ${err}`);
      assert.equal(err.code, 'ZKL_ECERT');
      assert.ok(err.message.includes(' (tls): '), err.message);
      return true;
    });
    assert.ok(Date.now() - t0 < 5000, `failed after ${Date.now() - t0} ms (timeout 20 s)`);
    assert.equal(c.state, 'authFailed');
    // Asked again in that state, the wait answers the same at once.
    await assert.rejects(c.connected(), { code: 'ZKL_ECERT' });
  } finally {
    await c.close();
  }
});

test('tls_no_client_cert', { skip }, async () => {
  // The server requires a client certificate (ZK_TLS_CLIENT_AUTH=need).
  await connectFails({ cert: null, key: null }, 'ZKL_ECLIENTCERT');
});

// The errors_detail_* scenarios: a failure's message says why, as libzkl
// does (the option and the reason; each server's failed attempt).

test('errors_detail_key_missing', { skip }, () => {
  const key = at('missing.key');
  assert.throws(() => new zkl.Client(servers, { tls: { ca: at('ca.pem'), cert: at('client.crt'), key } }), (err) => {
    assert.ok(err instanceof zkl.ZklError, `not a ZklError: ${err}`);
    assert.equal(err.code, 'ZKL_ECERT');
    assert.ok(err.message.includes(key) && err.message.includes('No such file'), err.message);
    return true;
  });
});

test('errors_detail_refused', async () => {
  // Nothing listens on port 1: each attempt is refused; the wait runs out.
  const options = { attemptTimeout: 1000, connectTimeout: 2000, logLevel: 'off' };
  await assert.rejects(zkl.connect('127.0.0.1:1', options), (err) => {
    assert.ok(err instanceof zkl.ZklError, `not a ZklError: ${err}`);
    assert.equal(err.code, 'ZKL_ETIMEDOUT');
    assert.ok(err.message.includes('127.0.0.1:1 (tcp)') && err.message.includes('refused'), err.message);
    return true;
  });
});

test('connect_timeout_bounds_wait', async () => {
  // connectTimeout bounds the whole wait for a session, not one attempt:
  // nothing listens on port 1, each attempt is refused at once.
  for (const wait of ['connect', 'connected']) {
    const t0 = Date.now();
    const c = wait === 'connected' ? new zkl.Client('127.0.0.1:1', { connectTimeout: 2000, logLevel: 'off' }) : null;
    const p = c ? c.connected() : zkl.connect('127.0.0.1:1', { connectTimeout: 2000, logLevel: 'off' });
    await assert.rejects(p, (err) => {
      assert.ok(err instanceof zkl.ZklError, `not a ZklError: ${err}`);
      assert.equal(err.code, 'ZKL_ETIMEDOUT');
      assert.ok(err.message.includes('connection refused'), err.message);
      return true;
    });
    const took = Date.now() - t0;
    assert.ok(took >= 1900 && took < 5000, `${wait}: failed after ${took} ms (connectTimeout 2 s)`);
    if (c) await c.close();
  }
});

test('errors_detail_wrong_ca', { skip }, async () => {
  const err = await connectFails({ ca: 'other-ca.pem' }, 'ZKL_ECERT');
  assert.ok(err.message.includes(' (tls): ') && err.message.includes('certificate'), err.message);
});
