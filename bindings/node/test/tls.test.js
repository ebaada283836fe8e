'use strict';
// The TLS scenarios of bindings/CONFORMANCE.md, against the mutual-TLS
// ZooKeeper that test.sh starts (ZKL_TEST_TLS_SERVERS, ZKL_TEST_TLS_DIR).
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zkl = require('..');
const { uniquePath, nextEvent } = require('./helpers');

const ATTEMPT = 3000; // connect timeout of one attempt (ms), TLS handshake included
const BOUND = 10000; // a failing connect must end within this (no hang)

const servers = process.env.ZKL_TEST_TLS_SERVERS;
const certs = process.env.ZKL_TEST_TLS_DIR;
const why = 'ZKL_TEST_TLS_SERVERS / ZKL_TEST_TLS_DIR unset (test.sh starts the TLS server)';
if ((!servers || !certs) && process.env.CI) throw new Error(why);
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

/** Connecting with `options` fails with ZklError `code`, within the bound. */
async function connectFails(options, code) {
  const t0 = Date.now();
  // Waits past one attempt: the error says why the attempts failed. Each
  // retried attempt logs an error: not in the test output.
  await assert.rejects(connect({ ...options, logLevel: 'off' }, ATTEMPT + 2000), (err) => {
    assert.ok(err instanceof zkl.ZklError, `not a ZklError: ${err}`);
    assert.equal(err.code, code);
    return true;
  });
  assert.ok(Date.now() - t0 < BOUND, `failed after ${Date.now() - t0} ms`);
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

test('tls_no_client_cert', { skip }, async () => {
  // The server requires a client certificate (ZK_TLS_CLIENT_AUTH=need).
  await connectFails({ cert: null, key: null }, 'ZKL_ECLIENTCERT');
});
