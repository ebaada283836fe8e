'use strict';
// Leader election (fair and non-fair), campaign/release, and the leader observer.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { once } = require('node:events');
const zkl = require('..');
const { connectTwo, closeAll, servers, uniquePath, within, until } = require('./helpers');

let a, b;
before(async () => { [a, b] = await connectTwo(); });
after(() => closeAll(a, b));

// Resolves once the observer reports `id` (null: no leader).
async function leaderIs(observer, id, ms = 10000) {
  await within((async () => {
    while (observer.leader !== id) {
      await Promise.race([once(observer, 'leaderChanged'), once(observer, 'noLeader')]);
    }
  })(), ms, `leader ${id}`);
}

async function participants(client, p, kind) {
  return (await client.inspect(p, { kind, election: true })).length;
}

for (const kind of ['fair', 'nonfair']) {
  test(`${kind} election: campaign, notElected, release, hand-over, observer`, async () => {
    const p = uniquePath(`election-${kind}`);
    const observer = a.observe(p, { kind });
    const seen = [];
    observer.on('leaderChanged', (id) => seen.push(id));

    const e1 = a.election(p, { id: 'one', kind });
    const t1 = await e1.campaign({ timeout: 5000 });
    assert.equal(typeof t1, 'bigint');
    assert.equal(e1.isLeader, true);
    assert.equal(e1.fencingToken, t1);
    assert.equal(await e1.campaign(), t1, 'campaign while leader resolves at once');
    await leaderIs(observer, 'one');

    const e2 = b.election(p, { id: 'two', kind });
    const notElected = once(e2, 'notElected');
    const elected = once(e2, 'elected');
    const campaign = e2.campaign();
    await within(notElected, 10000, 'notElected');
    assert.equal(e2.isLeader, false);

    await e1.release();
    assert.equal(e1.isLeader, false);
    const [t2] = await within(elected, 10000, 'second participant elected');
    assert.equal(await campaign, t2);
    assert.ok(t2 > t1, 'terms have increasing fencing tokens');
    assert.equal(e2.isLeader, true);
    await leaderIs(observer, 'two');

    await e2.release();
    await leaderIs(observer, null);
    assert.ok(seen.includes('one') && seen.includes('two'));
    e1.close();
    e2.close();
    observer.close();
  });
}

test('campaign timeout: ZKL_ETIMEDOUT and the participant leaves', async () => {
  const p = uniquePath('campaign-timeout');
  const e1 = a.election(p, { id: 'leader' });
  await e1.campaign();
  const e2 = b.election(p, { id: 'waiter' });
  await assert.rejects(within(e2.campaign({ timeout: 300 }), 10000), { code: 'ZKL_ETIMEDOUT' });
  await until(async () => await participants(b, p, 'fair') === 1, 10000, 'waiter left');
  e1.close();
  e2.close();
});

test('campaign abort: AbortError and the participant leaves', async () => {
  const p = uniquePath('campaign-abort');
  const e1 = a.election(p, { id: 'leader' });
  await e1.campaign();
  const e2 = b.election(p, { id: 'waiter' });
  const ac = new AbortController();
  const campaign = e2.campaign({ signal: ac.signal });
  await until(async () => await participants(b, p, 'fair') === 2, 10000, 'waiter joined');
  ac.abort();
  await assert.rejects(within(campaign, 10000), { name: 'AbortError', code: 'ZKL_ECANCELED' });
  await until(async () => await participants(b, p, 'fair') === 1, 10000, 'waiter left');
  e1.close();
  e2.close();
});

test('closing the leader elects the next participant', async () => {
  const p = uniquePath('election-close');
  const e1 = a.election(p, { id: 'first' });
  const t1 = await e1.campaign();
  const e2 = b.election(p, { id: 'second' });
  const campaign = e2.campaign({ timeout: 10000 });
  await until(async () => await participants(b, p, 'fair') === 2, 10000, 'second joined');
  e1.close();
  const t2 = await within(campaign, 10000, 'second elected');
  assert.ok(t2 > t1);
  e2.close();
});

test('an observer of an election that does not exist yet', async () => {
  const p = uniquePath('observe-later');
  const observer = b.observe(p);
  await leaderIs(observer, null);
  const e = a.election(p, { id: 'late' });
  await e.campaign();
  await leaderIs(observer, 'late');
  e.close();
  await leaderIs(observer, null);
  observer.close();
});
