'use strict';
// Async acquires and releases are settled by the events that carry the
// request ids their C calls returned, never by the order of the calls:
// several calls in flight on one client, an acquire started while the
// previous one's failure is still queued, and the RELEASED of each release.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const zkl = require('..');
const { connectTwo, closeAll, uniquePath, within } = require('./helpers');

let a, b;  // a: the client under test; b: holds what a waits for
before(async () => { [a, b] = await connectTwo(); });
after(() => closeAll(a, b));

async function nodes(client, p) {
  return (await client.inspect(p)).length;
}

async function queued(client, p, n) {
  await within((async () => { while (await nodes(client, p) < n); })(), 10000, `${n} nodes on ${p}`);
}

// Blocks this thread, so that no event is delivered, until libzkl has queued
// one more event for `client` than it had (stats: client.events) at `since`.
function blockUntilQueued(client, since) {
  const deadline = Date.now() + 15000;
  const nap = new Int32Array(new SharedArrayBuffer(4));
  while (client.stats().client.events <= since) {
    if (Date.now() > deadline) throw new Error('no event queued within 15 s');
    Atomics.wait(nap, 0, 0, 10);
  }
}

const kinds = {
  lock: (client, p) => client.createLock(p),
  'multi-lock': (client, p) => client.multiLock([p]),
};

test('four acquires in flight on one client: each settled by its own request id', async () => {
  const paths = [0, 1, 2, 3].map((i) => uniquePath(`ids-${i}`));
  const holders = await Promise.all(paths.map((p) => b.lock(p, { timeout: 5000 })));
  const [l0, m1, l2, l3] = [a.createLock(paths[0]), a.multiLock([paths[1]]),
                            a.createLock(paths[2]), a.createLock(paths[3])];
  const ac = new AbortController();
  const waiting0 = l0.acquire({ timeout: 30000 });
  const waiting1 = m1.acquire({ timeout: 30000 });
  const timingOut = l2.acquire({ timeout: 500 });
  const aborted = l3.acquire({ timeout: 30000, signal: ac.signal });
  const ids = [l0, m1, l2, l3].map((h) => h._latest);
  assert.equal(new Set(ids).size, 4);
  assert.ok(ids.every((id) => id > 0));
  await queued(a, paths[3], 2);
  ac.abort();
  await assert.rejects(within(aborted, 10000), { name: 'AbortError', code: 'ZKL_ECANCELED' });
  let settled0 = false;
  waiting0.then(() => { settled0 = true; }, () => {});
  await holders[1].release();  // the later call is granted first
  assert.equal(await within(waiting1, 10000, 'multi-lock acquire'), m1);
  assert.equal(settled0, false);
  await holders[0].release();
  assert.equal(await within(waiting0, 10000, 'lock acquire'), l0);
  await assert.rejects(within(timingOut, 10000), { code: 'ZKL_ETIMEDOUT' });
  assert.ok(l0.isHeld && m1.isHeld && !l2.isHeld && !l3.isHeld);
  assert.equal(await nodes(a, paths[3]), 1, 'the aborted acquire left no node');
  await Promise.all([l0.release(), m1.release(), holders[2].release(), holders[3].release()]);
  for (const h of [l0, m1, l2, l3]) {
    assert.equal(h._acquires.size + h._releases.size, 0);
    h.close();
  }
});

for (const [kind, make] of Object.entries(kinds)) {
  test(`${kind}: the failure of an acquire still queued when the next one starts settles the first only`, async () => {
    const p = uniquePath(`again-${kind}`);
    const holder = await b.lock(p, { timeout: 5000 });
    const h = make(a, p);
    const ac = new AbortController();
    const since = a.stats().client.events;
    const first = h.acquire({ timeout: 300, signal: ac.signal });
    first.catch(() => {});
    blockUntilQueued(a, since);  // the first one's ACQUIRE_FAILED, not delivered yet
    const second = h.acquire({ timeout: 30000 });
    ac.abort();  // answered already: cancels nothing (not the second)
    await assert.rejects(within(first, 10000), { code: 'ZKL_ETIMEDOUT' });
    let settled = false;
    second.then(() => { settled = true; }, () => {});
    await queued(a, p, 2);
    assert.equal(settled, false, 'the second acquire still waits');
    await holder.release();
    assert.equal(await within(second, 10000, 'second acquire'), h);
    await h.release();
    h.close();
  });
}

test('each release is answered by the RELEASED of its request id, an inner reentrant hold at once', async () => {
  const p = uniquePath('releases');
  const l = a.createLock(p, { kind: 'reentrant' });
  await l.acquire();
  await l.acquire();
  assert.equal(l.holdCount, 2);
  const inner = l.release();
  const last = l.release();
  assert.equal(l._releases.size, 2);
  await within(Promise.all([inner, last]), 10000, 'both releases');
  assert.equal(l.holdCount, 0);
  assert.equal(l._releases.size, 0);
  assert.equal(await nodes(a, p), 0);
  assert.equal(l._active, false, 'nothing keeps the process alive');
  l.close();
});
