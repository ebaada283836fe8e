// Compiled by `npm run typecheck` (tsc --noEmit) only: checks index.d.ts.
import * as zkl from '../..';

async function main(): Promise<void> {
  const client: zkl.Client = await zkl.connect('127.0.0.1:2181', { sessionTimeout: 10000, connectTimeout: 30000, attemptTimeout: 2000, logLevel: 'info' });
  client.on('log', (r: zkl.LogRecord) => console.log(r.level, r.component, r.message));
  const stats: zkl.Stats = client.stats();
  await client.setServers('127.0.0.1:2181');
  client.followEnsemble();
  client.followEnsemble(false);
  client.on('session', (state: zkl.SessionState) => console.log(state));
  client.on('lost', () => console.log('session lost'));

  const lock = await client.lock('/x', { timeout: 5000, signal: AbortSignal.timeout(6000) });
  const token: bigint | null = lock.fencingToken;
  lock.on('lost', (err: zkl.ZklError) => console.log(err.code, err.errno));
  lock.signal?.addEventListener('abort', () => {});
  const left: number = lock.validFor();
  lock.on('revokeRequested', (t: bigint) => console.log(t));
  await lock.release();

  const m = client.createLock('/y', { kind: 'reentrant', data: 'me' });
  await m.acquire({ owner: 7n });
  await m.acquire({ owner: 7 });
  const n: number = m.holdCount;
  await m.release({ owner: 7n });
  m.close();

  const maybe: zkl.Lock | null = await client.tryLock('/x');
  if (maybe) await maybe.release();
  const r = await client.readLock('/rw');
  const w = client.writeLock('/rw', { timeout: 100 });
  await r.release();
  await (await w).release();
  const s = await client.semaphore('/sem', 3);
  await s.release();

  const ml: zkl.MultiLock = client.multiLock(['/a', client.createLock('/b', { kind: 'write' })],
                                             { onRevoke: 'release' });
  ml.on('lost', (err: zkl.ZklError) => console.log(err.code));
  await ml.acquire({ timeout: 1000, signal: AbortSignal.timeout(2000) });
  const tokens: Record<string, bigint> = ml.fencingTokens;
  const ta: bigint = ml.fencingToken('/a');
  console.log(tokens, ta, ml.validFor(), ml.paths, await ml.tryAcquire());
  await ml.release();
  ml.close();

  const e = client.election('/e', { id: 'me', kind: 'nonfair' });
  e.on('elected', (t: bigint) => console.log(t));
  e.on('restored', () => console.log('restored'));
  const term: bigint = await e.campaign({ timeout: 1000 });
  console.log(e.validFor(), e.stats().held);
  await e.release();
  e.close();
  const o = client.observe('/e', { kind: 'nonfair' });
  o.on('leaderChanged', (id: string, t: bigint) => console.log(id, t));
  o.on('noLeader', () => console.log('none'));
  const leader: string | null = o.leader;
  const oterm: bigint | null = o.term;
  o.close();
  const asked: number = await client.revoke('/x');

  // Guarded writes, proclaim, fence checks.
  const gl = await client.lock('/gw');
  const ops = new zkl.Ops()
    .create('/gw/state', 'v1')
    .set('/gw/state', Buffer.from('v2'), { version: 0 })
    .create('/gw/state/item-', new Uint8Array([1]), { sequential: true, ephemeral: false })
    .check('/gw/state')
    .delete('/gw/old', { version: zkl.constants.ZKL_ANY_VERSION });
  const written: zkl.WriteResult = await gl.write(ops, { owner: 1n });
  const created: string | null = written.paths[0];
  const failedAt: number | null = written.failed;
  const opsCount: number = ops.length;
  const gm = client.multiLock(['/gw/a', '/gw/b']);
  await gm.write(new zkl.Ops().create('/gw/a/x', null));
  await e.write(new zkl.Ops().create('/e/config', 'x'));
  await e.proclaim('me@v2');
  await client.fenceCheck('/gw', gl.fencingToken ?? 0n, { kind: 'fair', timeout: 1000 });
  try {
    await gl.write(ops);
  } catch (err) {
    if (err instanceof zkl.ZklError && err.code === 'ZKL_EEXISTS') console.log(err.failed, err.result?.paths);
    if (err instanceof zkl.ZklError && err.code === 'ZKL_ESTALE') console.log('stale');
  }
  console.log(created, failedAt, opsCount, written.versions[1]);

  const who: zkl.Participant[] = await client.inspect('/x', { kind: 'fair' });
  try {
    await client.lock('/x', { timeout: 1 });
  } catch (err) {
    if (err instanceof zkl.ZklError && err.code === 'ZKL_ETIMEDOUT' && err.errno === zkl.codes.ETIMEDOUT) {
      console.log('timed out');
    }
  }
  console.log(token, n, term, leader, oterm, who.length, zkl.version, zkl.strerror(-4), left, stats.schema,
              asked, zkl.constants.ZKL_EVENT_LOST, zkl.DEFAULT_OWNER);
  await client.close();
}

void main();
