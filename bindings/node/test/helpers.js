'use strict';
// Test support: real ZooKeeper servers (scripts/zk-server), unique paths,
// bounded waits, child processes read line by line, and the zkl-hold tool.
const { spawn, spawnSync, execFileSync } = require('node:child_process');
const net = require('node:net');
const { once } = require('node:events');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');

const sourceDir = process.env.ZKL_SOURCE_DIR || path.resolve(__dirname, '..', '..', '..');
const zkServer = path.join(sourceDir, 'scripts', 'zk-server');

function zk(...args) {
  return execFileSync(zkServer, args, {
    encoding: 'utf8',
    env: { ...process.env, ZK_OWNER_PID: String(process.pid) },
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

const started = new Set();
process.on('exit', () => {
  for (const dir of started) spawnSync(zkServer, ['stop', dir], { stdio: 'ignore' });
});

/** Starts a standalone server of our own (stopped at exit or by stop()). */
function startServer() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zkl-node-zk-'));
  const connect = zk('start', dir);
  started.add(dir);
  return {
    connect,
    dir,
    pause: () => zk('pause', dir),
    resume: () => zk('resume', dir),
    stop() {
      zk('stop', dir);
      started.delete(dir);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

let shared = null;
/** The connect string of the shared server: ZKL_TEST_SERVERS (test.sh), or one of our own. */
function servers() {
  if (process.env.ZKL_TEST_SERVERS) return process.env.ZKL_TEST_SERVERS;
  if (!shared) shared = startServer();
  return shared.connect;
}

let counter = 0;
/** A fresh lock path, unique across processes and runs. */
function uniquePath(name) {
  counter += 1;
  return `/zkl-node-test/${process.pid}-${Date.now().toString(36)}-${counter}-${name}`;
}

/** `promise`, or a rejection after `ms` (every wait in the tests is bounded). */
function within(promise, ms, what = 'operation') {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The next `event` of `emitter` (its arguments), within `ms`. */
function nextEvent(emitter, event, ms = 10000) {
  return within(once(emitter, event), ms, `event '${event}'`);
}

/** Waits (polling `probe` on ZooKeeper round trips, bounded) until it returns true. */
async function until(probe, ms = 10000, what = 'condition') {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`${what}: not true within ${ms} ms`);
    await new Promise((r) => setImmediate(r));
  }
}

/** A child process whose stdout is read line by line. */
class Child {
  constructor(cmd, args, options = {}) {
    this.proc = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'], ...options });
    this.lines = [];
    this.waiters = [];
    this.exited = new Promise((resolve) => {
      this.proc.on('exit', (code, signal) => resolve({ code, signal }));
    });
    this.exitCode = null;
    this.exited.then(({ code }) => { this.exitCode = code; });
    if (this.proc.stdout) {
      readline.createInterface({ input: this.proc.stdout }).on('line', (line) => {
        this.lines.push(line);
        for (const w of [...this.waiters]) w();
      });
    }
  }

  /** The first line (from index `from`) matching `re`, within `ms`. */
  line(re, ms = 20000, from = 0) {
    return within(new Promise((resolve, reject) => {
      const check = () => {
        const found = this.lines.slice(from).find((l) => re.test(l));
        if (found !== undefined) {
          this.waiters = this.waiters.filter((w) => w !== check);
          resolve(found);
        }
      };
      this.waiters.push(check);
      this.exited.then(({ code }) => {
        check();
        reject(new Error(`child exited (${code}) without a line matching ${re}; output: ${this.lines.join(' | ')}`));
      });
      check();
    }), ms, `line ${re}`);
  }

  /** Closes stdin (a holder with --hold -1 then releases). */
  endInput() { this.proc.stdin.end(); }

  wait(ms = 30000) { return within(this.exited, ms, 'child exit'); }

  kill() { if (this.exitCode === null) this.proc.kill('SIGKILL'); }
}

let holdBinary = null;
/** The zkl-hold C contender: ZKL_HOLD, or built from the source tree once. */
function zklHold() {
  if (process.env.ZKL_HOLD) return process.env.ZKL_HOLD;
  if (holdBinary) return holdBinary;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zkl-hold-'));
  const out = path.join(dir, 'zkl-hold');
  const flags = execFileSync('pkg-config', ['--cflags', '--libs', 'zkl'], { encoding: 'utf8' })
    .trim().split(/\s+/).filter(Boolean);
  const libdir = execFileSync('pkg-config', ['--variable=libdir', 'zkl'], { encoding: 'utf8' }).trim();
  execFileSync('cc', [path.join(sourceDir, 'tests', 'tools', 'zkl_hold.c'), ...flags,
                      `-Wl,-rpath,${libdir}`, '-o', out], { stdio: 'inherit' });
  holdBinary = out;
  return out;
}

// One attempt to close the session `sid` as its owner would (ZooKeeper's
// jute wire format: connect with the session's id and password, then
// closeSession, pipelined on one socket). True once the server confirmed the
// close or answered that the session is gone.
function closeSessionOnce(host, port, sid, passwd) {
  return new Promise((resolve, reject) => {
    const connect = Buffer.alloc(4 + 8 + 4 + 8 + 4 + 16 + 1);
    let o = 0;
    o = connect.writeInt32BE(0, o);             // protocol version
    o = connect.writeBigInt64BE(0n, o);         // last zxid seen
    o = connect.writeInt32BE(30000, o);         // timeout
    o = connect.writeBigUInt64BE(sid, o);       // session id
    o = connect.writeInt32BE(16, o);
    passwd.copy(connect, o); o += 16;
    connect.writeUInt8(0, o);                   // read-only: false
    const close = Buffer.alloc(8);
    close.writeInt32BE(1, 0);                   // xid 1
    close.writeInt32BE(-11, 4);                 // OpCode.closeSession
    const framed = (b) => { const n = Buffer.alloc(4); n.writeInt32BE(b.length); return [n, b]; };
    const s = net.connect({ host, port });
    let buf = Buffer.alloc(0);
    const packets = [];
    const timer = setTimeout(() => { s.destroy(); reject(new Error('closeSession: no answer')); }, 5000);
    const finish = (v) => { clearTimeout(timer); s.destroy(); resolve(v); };
    s.on('error', (e) => { clearTimeout(timer); reject(e); });
    s.on('connect', () => s.write(Buffer.concat([...framed(connect), ...framed(close)])));
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
        packets.push(buf.subarray(4, 4 + buf.readInt32BE(0)));
        buf = buf.subarray(4 + buf.readInt32BE(0));
      }
      if (packets.length >= 1) {
        const r = packets[0];
        if (r.readInt32BE(4) <= 0 || r.readBigUInt64BE(8) !== sid) return finish(true);
      }
      if (packets.length >= 2) {
        const h = packets[1];
        finish(h.readInt32BE(0) === 1 && h.readInt32BE(12) === 0);
      }
    });
    s.on('end', () => finish(false));
  });
}

/** Expires `client`'s session on the server for real (bounded). */
async function expireSession(servers, client, ms = 20000) {
  const sid = client.sessionId;
  const passwd = client.sessionPassword;
  if (sid === 0n) throw new Error('no session to expire');
  const [host, port] = servers.split(',')[0].split(':');
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      if (await closeSessionOnce(host, Number(port), sid, passwd)) return;
    } catch { /* retry */ }
  }
  throw new Error(`could not expire session 0x${sid.toString(16)} within ${ms} ms`);
}

const fixture = (name) => path.join(__dirname, 'fixtures', name);

/** Two sessions, connected one after the other: two independent contenders. */
async function connectTwo() {
  const zkl = require('..');
  const a = await zkl.connect(servers());
  const b = await zkl.connect(servers());
  return [a, b];
}

/** Closes every client given (skipping the ones never connected), in order. */
async function closeAll(...clients) {
  for (const c of clients) await c?.close();
}

module.exports = {
  connectTwo, closeAll, servers, startServer, uniquePath, within, nextEvent, until, Child, zklHold, fixture, expireSession,
};
