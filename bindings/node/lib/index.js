'use strict';
// zkl for Node.js: ZooKeeper locks, semaphores and leader election.
//
// A thin, Promise-based layer over the native addon (src/addon.cc), which
// itself is a thin layer over libzkl's C API. Every zkl event reaches this
// file on the JavaScript thread, through the client's event fd watched by
// libuv; nothing here runs on another thread.
const { EventEmitter } = require('node:events');
const path = require('node:path');

const native = require(process.env.ZKL_NODE_ADDON ||
                       path.join(__dirname, '..', 'build', 'zkl.node'));

// ZKL_E* codes (never renumbered by the library).
const codes = Object.freeze({
  OK: 0, EINVAL: -1, EBADPATH: -2, EBADHANDLE: -3, ETIMEDOUT: -4, EAGAIN: -5,
  ECANCELED: -6, ENOTHELD: -7, ENOTOWNER: -8, EBUSY: -9, EDEADLK: -10,
  ECLOSED: -11, ECONNECTION: -12, ESESSION: -13, ELOST: -14, EMISMATCH: -15,
  EAUTH: -16, ETOOBIG: -17, ENOMEM: -18, EZOOKEEPER: -19, EVERSION: -20,
  ENOTFOUND: -21, EINTERNAL: -22, ERANGE: -23,
});
const codeNames = new Map(Object.entries(codes).map(([k, v]) => [v, k]));

// Event types and session states of zkl.h.
const EV = { SESSION: 1, ACQUIRED: 2, ACQUIRE_FAILED: 3, SUSPENDED: 4, RESTORED: 5,
             LOST: 6, RELEASED: 7, ELECTED: 8, NOT_ELECTED: 9, LEADER_CHANGED: 10 };
const SESSION_STATES = [undefined, 'connecting', 'connected', 'suspended', 'reconnected',
                        'lost', 'closed', 'authFailed'];
const LOCK_KINDS = { fair: 1, reentrant: 2, nonfair: 3, read: 4, write: 5, semaphore: 6 };
const ELECTION_KINDS = { fair: 1, unfair: 2 };
const ACLS = { open: 0, creator: 1 };
const INSPECT_ELECTION_BASE = 100;
const MAX_U64 = (1n << 64n) - 1n;

/** An error from zkl: `code` is 'ZKL_ETIMEDOUT' etc., `errno` the number. */
class ZklError extends Error {
  constructor(errno, context, options) {
    const text = native.strerror(errno);
    super(context ? `${context}: ${text}` : text, options);
    this.name = 'ZklError';
    this.errno = errno;
    this.code = codeNames.has(errno) ? `ZKL_${codeNames.get(errno)}` : 'ZKL_EUNKNOWN';
  }
}

function check(rc, context) {
  if (typeof rc === 'number' && rc < 0) throw new ZklError(rc, context);
  return rc;
}

function abortError(signal) {
  const err = new ZklError(codes.ECANCELED, 'The operation was aborted', { cause: signal?.reason });
  err.name = 'AbortError';
  return err;
}

function toOwner(owner, fallback = 1n) {
  if (owner === undefined || owner === null) return fallback;
  if (typeof owner === 'number' && Number.isSafeInteger(owner) && owner >= 0) return BigInt(owner);
  if (typeof owner === 'bigint' && owner >= 0n && owner <= MAX_U64) return owner;
  throw new TypeError('owner must be a BigInt or a safe integer in [0, 2^64)');
}

function toTimeout(timeout) {
  if (timeout === undefined || timeout === null || timeout === Infinity) return -1;
  if (typeof timeout !== 'number' || Number.isNaN(timeout)) {
    throw new TypeError('timeout must be a number of milliseconds');
  }
  return timeout < 0 ? -1 : Math.floor(timeout);
}

function checkPath(p) {
  if (typeof p !== 'string') throw new TypeError('path must be a string');
  return p;
}

function kindOf(table, kind, what) {
  const k = table[kind ?? 'fair'];
  if (k === undefined) throw new ZklError(codes.EINVAL, `unknown ${what} kind '${kind}'`);
  return k;
}

let nextUid = 1;

// Clients not closed yet. On process exit (natural or process.exit()) their
// sessions are closed synchronously, so that their ephemeral nodes (held
// locks, queue places) go at once instead of at session expiry.
const liveClients = new Set();
process.on('exit', () => {
  for (const client of liveClients) native.clientDestroy(client._ctx);
  liveClients.clear();
});

// Something that keeps the process alive while it is "active" (an acquire
// pending, a lock held, an election running...). Subclasses define _busy().
class Handle extends EventEmitter {
  constructor(client, p) {
    super();
    if (client._closing) throw new ZklError(codes.ECLOSED, 'client closed');
    this._client = client;
    this._uid = nextUid++;
    this._active = false;
    this._closed = false;
    this.path = p;
  }

  _sync() {
    const busy = !this._closed && this._busy();
    if (busy === this._active) return;
    this._active = busy;
    if (busy) this._client._retain(); else this._client._unretain();
  }

  _register() {
    this._client._handles.set(this._uid, this);
  }

  _forget() {
    this._closed = true;
    this._client._handles.delete(this._uid);
    this._sync();
  }
}

/**
 * A lock handle on one path (any recipe). One handle is one contender: it is
 * held by at most one owner at a time (a reentrant lock counts that owner's
 * holds). Use several handles for several concurrent contenders.
 *
 * Events: 'suspended' (disconnected: the lock MAY be lost), 'restored'
 * (reconnected in time), 'lost' (ZklError: stop using it).
 */
class Lock extends Handle {
  constructor(client, p, options = {}, oneShot = false) {
    super(client, checkPath(p));
    this.kind = options.kind ?? 'fair';
    const kind = kindOf(LOCK_KINDS, this.kind, 'lock');
    const leases = options.maxLeases ?? 1;
    if (!Number.isInteger(leases)) throw new TypeError('maxLeases must be an integer');
    let data = options.data;
    if (typeof data === 'string') data = Buffer.from(data);
    else if (data instanceof Uint8Array && !Buffer.isBuffer(data)) data = Buffer.from(data);
    else if (data !== undefined && data !== null && !Buffer.isBuffer(data)) {
      throw new TypeError('data must be a string, Buffer or Uint8Array');
    }
    const h = native.lockNew(client._h, p, kind, leases, data ?? undefined, this._uid);
    check(h, `lock ${JSON.stringify(p)}`);
    this._h = h;
    this._oneShot = oneShot;
    this._acquires = [];  // pending acquires, answered in order by events
    this._releases = [];  // last-hold releases waiting for RELEASED
    this._held = false;   // a hold exists, as far as the events told us
    this._owner = null;
    this._token = null;
    this._controller = null;
    this._register();
  }

  _busy() {
    return this._held || this._acquires.length > 0 || this._releases.length > 0;
  }

  /** 1 while held and the session is known to be good. */
  get isHeld() { return native.lockIsHeld(this._h) === 1; }
  /** Holds of the current owner (reentrant locks count; 0 when not held). */
  get holdCount() { return Math.max(0, native.lockHoldCount(this._h)); }
  /** Fencing token (BigInt) of the latest acquisition, or null before one. */
  get fencingToken() { return this._token; }
  /** Owner token of the current hold, or null. */
  get owner() { return this._held ? this._owner : null; }
  /** An AbortSignal aborted (reason: a ZklError) when this hold is lost. */
  get signal() { return this._controller ? this._controller.signal : null; }

  _gotHold(owner, token) {
    this._held = true;
    this._owner = owner;
    this._token = token;
    if (!this._controller || this._controller.signal.aborted) this._controller = new AbortController();
  }

  /**
   * Acquires the lock: resolves with this lock once held. Options: timeout
   * (ms; default: wait forever), signal (AbortSignal: cancels the acquire,
   * and no node is left behind), owner (BigInt/number token; default 1n).
   */
  async acquire({ timeout, signal, owner } = {}) {
    const own = toOwner(owner);
    let ms = toTimeout(timeout);
    if (signal?.aborted) throw abortError(signal);
    if (this._client._noSession()) {
      // Work-around for a core bug: an acquire submitted before the session
      // is up creates its node twice (see README). Wait for the session.
      const t0 = Date.now();
      await this._client.connected({ timeout: ms, signal });
      if (this._closed) throw new ZklError(codes.ECANCELED, `lock closed: ${this.path}`);
      if (ms >= 0) ms = Math.max(0, ms - (Date.now() - t0));
    }
    return this._acquire(own, ms, signal);
  }

  _acquire(own, ms, signal) {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) throw abortError(signal);
      check(native.lockAcquireAsync(this._h, own, ms), `acquire ${this.path}`);
      const rec = { resolve, reject, owner: own, signal, aborted: false, onAbort: null };
      if (signal) {
        rec.onAbort = () => {
          if (rec.aborted) return;
          rec.aborted = true;
          // 0: ACQUIRE_FAILED (ECANCELED) follows, the node is deleted.
          // ENOTHELD: the acquire already succeeded; ACQUIRED follows and
          // the hold is given back there.
          native.lockCancel(this._h);
        };
        signal.addEventListener('abort', rec.onAbort, { once: true });
      }
      this._acquires.push(rec);
      this._sync();
    });
  }

  /**
   * One attempt without waiting in line (one round trip): true when
   * acquired, false when another holder is in the way. (An acquire with
   * timeout 0: it never waits, and fails with ETIMEDOUT when taken.)
   */
  async tryAcquire({ owner } = {}) {
    const own = toOwner(owner);
    if (this._client._noSession()) await this._client.connected({ timeout: 30000 });
    if (this._closed) throw new ZklError(codes.ECANCELED, `lock closed: ${this.path}`);
    try {
      await this._acquire(own, 0);
      return true;
    } catch (err) {
      if (err instanceof ZklError && err.errno === codes.ETIMEDOUT) return false;
      throw err;
    }
  }

  /**
   * Releases one hold of `owner` (default: the current holder). Resolves
   * once ZooKeeper confirmed the delete (last hold) — then the next
   * contender may hold it. Rejects with ZKL_ELOST once if the lock was lost,
   * ZKL_ENOTHELD if not held, ZKL_ENOTOWNER for another owner.
   */
  release({ owner } = {}) {
    return new Promise((resolve, reject) => {
      const own = toOwner(owner, this._owner ?? 1n);
      const done = () => {
        if (this._oneShot) this.close();
        resolve();
      };
      const count = native.lockHoldCount(this._h);
      const rc = native.lockReleaseAsync(this._h, own);
      if (rc < 0) {
        if (rc === codes.ELOST || rc === codes.ENOTHELD) this._held = false;
        if (this._oneShot && rc !== codes.ENOTOWNER) this.close();
        this._sync();
        reject(new ZklError(rc, `release ${this.path}`));
        return;
      }
      if (count > 1) {  // one of several holds: nothing to send
        resolve();
        return;
      }
      this._held = false;
      if (count === 1) this._releases.push({ resolve: done, reject });
      else done();
      this._sync();
    });
  }

  /**
   * Frees the handle: a hold is released and a pending acquire cancelled
   * (rejected with ZKL_ECANCELED) in the background.
   */
  close() {
    if (this._closed) return;
    native.lockDestroy(this._h);
    this._end(codes.ECANCELED, 'lock closed');
  }

  _onClientClosed() {
    if (this._closed) return;
    native.lockDestroy(this._h);
    this._end(codes.ECLOSED, 'client closed');
  }

  _end(errno, why) {
    this._held = false;
    const acquires = this._acquires.splice(0);
    const releases = this._releases.splice(0);
    this._forget();
    for (const rec of acquires) {
      this._settled(rec);
      rec.reject(rec.aborted ? abortError(rec.signal) : new ZklError(errno, `${why}: ${this.path}`));
    }
    for (const rec of releases) rec.resolve();  // the node goes with the handle
  }

  _settled(rec) {
    if (rec.signal && rec.onAbort) rec.signal.removeEventListener('abort', rec.onAbort);
  }

  _onSessionGone() {
    // The session's nodes are gone with it: pending releases are complete.
    for (const rec of this._releases.splice(0)) rec.resolve();
    this._sync();
  }

  _onEvent(ev) {
    switch (ev.type) {
      case EV.ACQUIRED: {
        this._onSessionGone();  // an earlier release is over by now
        const rec = this._acquires.shift();
        this._gotHold(ev.owner, ev.token);
        if (rec) {
          this._settled(rec);
          if (rec.aborted) {
            // Aborted too late: give this hold back, then report the abort.
            const count = native.lockHoldCount(this._h);
            if (native.lockReleaseAsync(this._h, rec.owner) === 0 && count <= 1) {
              this._held = false;
              if (count === 1) this._releases.push({ resolve() {}, reject() {} });
            }
            rec.reject(abortError(rec.signal));
          } else {
            rec.resolve(this);
          }
        }
        break;
      }
      case EV.ACQUIRE_FAILED: {
        const rec = this._acquires.shift();
        if (rec) {
          this._settled(rec);
          rec.reject(rec.aborted && ev.error === codes.ECANCELED
            ? abortError(rec.signal) : new ZklError(ev.error, `acquire ${this.path}`));
        }
        break;
      }
      case EV.SUSPENDED:
        this.emit('suspended');
        break;
      case EV.RESTORED:
        this.emit('restored');
        break;
      case EV.LOST: {
        this._held = false;
        const err = new ZklError(ev.error || codes.ELOST, `lock ${this.path} lost`);
        if (this._controller) this._controller.abort(err);
        this.emit('lost', err);
        break;
      }
      case EV.RELEASED: {
        const rec = this._releases.shift();
        if (rec) {
          if (ev.error) rec.reject(new ZklError(ev.error, `release ${this.path}`));
          else rec.resolve();
        }
        break;
      }
      default:
        break;
    }
    this._sync();
  }
}

if (typeof Symbol.asyncDispose === 'symbol') {
  // `await using lock = await client.lock(...)`: released at scope exit.
  Lock.prototype[Symbol.asyncDispose] = async function dispose() {
    try {
      if (this._held && !this._closed) await this.release();
    } finally {
      this.close();
    }
  };
}

/**
 * A participant in a leader election. Events: 'elected' (fencing token),
 * 'notElected' (queued behind a leader), 'suspended', 'lost' (ZklError;
 * the participant rejoins by itself when the session is back).
 */
class Election extends Handle {
  constructor(client, p, options = {}) {
    super(client, checkPath(p));
    const { id } = options;
    if (typeof id !== 'string') throw new TypeError('election id must be a string');
    this.id = id;
    this.kind = options.kind ?? 'fair';
    const h = native.electionNew(client._h, p, kindOf(ELECTION_KINDS, this.kind, 'election'), id,
                                 this._uid);
    check(h, `election ${JSON.stringify(p)}`);
    this._h = h;
    this._started = false;
    this._leader = false;
    this._token = null;
    this._campaigns = new Set();
    this._register();
  }

  _busy() { return this._started; }

  /** True while leader and the session is known to be good. */
  get isLeader() { return native.electionIsLeader(this._h) === 1; }
  /** Fencing token (BigInt) of the current or latest term, or null. */
  get fencingToken() { return this._token; }

  /** Joins the election (no-op when running); results arrive as events. */
  start() {
    if (this._closed) check(codes.EBADHANDLE, `election ${this.path}`);
    if (this._client._noSession()) {
      // As for locks: join once the session is up (core work-around).
      if (!this._started) {
        this._client.connected().then(() => {
          if (this._started && !this._closed) native.electionStart(this._h);
        }, () => {});
      }
    } else {
      check(native.electionStart(this._h), `election ${this.path}`);
    }
    this._started = true;
    this._sync();
    return this;
  }

  /**
   * Joins and resolves with the term's fencing token once elected. On
   * timeout (ZKL_ETIMEDOUT) or abort, a participant that this call joined
   * leaves again; one that start() had joined stays in line (as in libzkl).
   */
  campaign({ timeout, signal } = {}) {
    return new Promise((resolve, reject) => {
      const ms = toTimeout(timeout);
      if (signal?.aborted) throw abortError(signal);
      const joined = this._started;
      this.start();
      if (this._leader && this.isLeader) {
        resolve(this._token);
        return;
      }
      const rec = { resolve, reject, timer: null, signal, onAbort: null };
      const giveUp = (err) => {
        if (!this._campaigns.delete(rec)) return;
        this._unwatch(rec);
        if (!joined && this._campaigns.size === 0 && !this._leader) this.resign().catch(() => {});
        reject(err);
      };
      if (ms >= 0) {
        rec.timer = setTimeout(() => giveUp(new ZklError(codes.ETIMEDOUT, `campaign ${this.path}`)), ms);
      }
      if (signal) {
        rec.onAbort = () => giveUp(abortError(signal));
        signal.addEventListener('abort', rec.onAbort, { once: true });
      }
      this._campaigns.add(rec);
    });
  }

  _unwatch(rec) {
    if (rec.timer) clearTimeout(rec.timer);
    if (rec.signal && rec.onAbort) rec.signal.removeEventListener('abort', rec.onAbort);
  }

  _failCampaigns(errno, why) {
    const recs = [...this._campaigns];
    this._campaigns.clear();
    for (const rec of recs) {
      this._unwatch(rec);
      rec.reject(new ZklError(errno, `${why}: ${this.path}`));
    }
  }

  /** Leaves the election (gives up leadership if held). */
  async resign() {
    this._started = false;
    this._leader = false;
    this._failCampaigns(codes.ECANCELED, 'resigned');
    this._sync();
    const rc = await native.electionResign(this._h);
    if (rc !== codes.EBADHANDLE || !this._closed) check(rc, `resign ${this.path}`);
  }

  /** Leaves the election and frees the handle. */
  close() {
    if (this._closed) return;
    native.electionDestroy(this._h);
    this._end(codes.ECANCELED, 'election closed');
  }

  _onClientClosed() {
    if (this._closed) return;
    native.electionDestroy(this._h);
    this._end(codes.ECLOSED, 'client closed');
  }

  _end(errno, why) {
    this._started = false;
    this._leader = false;
    this._forget();
    this._failCampaigns(errno, why);
  }

  _onSessionGone() {}

  _onEvent(ev) {
    if (!this._started) return;  // queued before a resign
    switch (ev.type) {
      case EV.ELECTED: {
        this._leader = true;
        this._token = ev.token;
        const recs = [...this._campaigns];
        this._campaigns.clear();
        for (const rec of recs) {
          this._unwatch(rec);
          rec.resolve(ev.token);
        }
        this.emit('elected', ev.token);
        break;
      }
      case EV.NOT_ELECTED:
        this._leader = false;
        this.emit('notElected');
        break;
      case EV.SUSPENDED:
        this.emit('suspended');
        break;
      case EV.LOST:
        this._leader = false;
        this.emit('lost', new ZklError(ev.error || codes.ELOST, `leadership of ${this.path} lost`));
        break;
      default:
        break;
    }
  }
}

/**
 * Watches the leader of an election without taking part. Event 'leader'
 * (the leader's id, or null when there is none). Keeps the process alive
 * until closed.
 */
class LeaderObserver extends Handle {
  constructor(client, p, options = {}) {
    super(client, checkPath(p));
    this.kind = options.kind ?? 'fair';
    const h = native.observerNew(client._h, p, kindOf(ELECTION_KINDS, this.kind, 'election'),
                                 this._uid);
    check(h, `observe ${JSON.stringify(p)}`);
    this._h = h;
    this._register();
    this._sync();
  }

  _busy() { return true; }

  /** The current leader's id, or null. */
  get leader() {
    const v = native.observerLeader(this._h);
    return typeof v === 'number' ? null : v;
  }

  close() {
    if (this._closed) return;
    native.observerDestroy(this._h);
    this._forget();
  }

  _onClientClosed() { this.close(); }
  _onSessionGone() {}

  _onEvent(ev) {
    if (ev.type === EV.LEADER_CHANGED) this.emit('leader', ev.data ? ev.data : null);
  }
}

/**
 * A ZooKeeper session. Connects in the background; operations started
 * before the session is up wait for it. Events: 'session' (state name),
 * and each state by name: 'connected', 'suspended', 'reconnected', 'lost',
 * 'closed', 'authFailed'.
 *
 * Options: sessionTimeout (ms, default 10000), lostAfter (ms, client-side
 * deadline; default a quarter of the session timeout), chroot, digestAuth
 * ('user:password'), acl ('open' | 'creator').
 */
class Client extends EventEmitter {
  constructor(servers, options = {}) {
    super();
    if (typeof servers !== 'string') throw new TypeError('servers must be a string');
    const acl = ACLS[options.acl ?? 'open'];
    if (acl === undefined) throw new ZklError(codes.EINVAL, `unknown acl '${options.acl}'`);
    const r = native.clientNew({
      servers,
      chroot: options.chroot,
      sessionTimeout: options.sessionTimeout,
      lostAfter: options.lostAfter,
      digestAuth: options.digestAuth,
      acl,
    }, (batch) => this._onEvents(batch));
    check(r, 'client');
    [this._ctx, this._h] = r;
    this._handles = new Map();
    this._refs = 0;
    this._waiters = new Set();
    this._closing = null;
    liveClients.add(this);
  }

  /** 'connecting' | 'connected' | 'suspended' | 'reconnected' | 'lost' | 'closed' | 'authFailed' */
  get state() {
    const s = native.clientState(this._h);
    return s > 0 ? SESSION_STATES[s] : 'closed';
  }

  /** The current session id (BigInt; 0n while there is none). */
  get sessionId() {
    const id = native.clientSessionId(this._h);
    return typeof id === 'bigint' ? id : 0n;
  }

  /** The negotiated session timeout in ms (0 while not connected). */
  get sessionTimeout() { return Math.max(0, native.clientSessionTimeout(this._h)); }

  /** Library counters: 'requests', 'watchEvents', 'events', 'sessions', 'heartbeats'. */
  counter(name) {
    const which = { requests: 1, watchEvents: 2, events: 3, sessions: 4, heartbeats: 5 }[name];
    if (!which) throw new TypeError(`unknown counter ${name}`);
    return check(native.clientCounter(this._h, which), 'counter');
  }

  // No session right now (none yet, or a lost one being replaced).
  _noSession() {
    const s = this.state;
    return s === 'connecting' || s === 'lost';
  }

  _retain() {
    if (this._refs++ === 0) native.clientRef(this._ctx, true);
  }

  _unretain() {
    if (--this._refs === 0) native.clientRef(this._ctx, false);
  }

  _onEvents(batch) {
    for (const ev of batch) {
      try {
        if (ev.type === EV.SESSION) {
          this._onSession(ev.state);
        } else {
          const h = this._handles.get(ev.uid);
          if (h) h._onEvent(ev);
        }
      } catch (err) {
        // A listener threw: report it as uncaught, after the other events.
        process.nextTick(() => { throw err; });
      }
    }
  }

  _onSession(state) {
    const name = SESSION_STATES[state];
    if (!name) return;
    if (name === 'connected' || name === 'reconnected') this._settleWaiters(null);
    else if (name === 'authFailed') this._settleWaiters(codes.EAUTH);
    else if (name === 'closed') this._settleWaiters(codes.ECLOSED);
    if (name === 'lost' || name === 'closed' || name === 'authFailed') {
      for (const h of this._handles.values()) h._onSessionGone();
    }
    this.emit('session', name);
    this.emit(name);
  }

  _settleWaiters(errno) {
    for (const w of [...this._waiters]) w(errno);
  }

  /** Resolves once the session is connected. Options: timeout (ms), signal. */
  connected({ timeout, signal } = {}) {
    return new Promise((resolve, reject) => {
      const ms = toTimeout(timeout);
      if (signal?.aborted) throw abortError(signal);
      const s = this.state;
      if (s === 'connected' || s === 'reconnected') return resolve();
      if (s === 'closed' || this._closing) throw new ZklError(codes.ECLOSED, 'connect');
      if (s === 'authFailed') throw new ZklError(codes.EAUTH, 'connect');
      let timer = null;
      const onAbort = () => settle(abortError(signal));
      const settle = (errno) => {
        if (!this._waiters.delete(settle)) return;
        this._unretain();
        if (timer) clearTimeout(timer);
        if (signal) signal.removeEventListener('abort', onAbort);
        if (errno === null) resolve();
        else reject(errno instanceof Error ? errno : new ZklError(errno, 'connect'));
      };
      this._waiters.add(settle);
      this._retain();
      if (ms >= 0) timer = setTimeout(() => settle(codes.ETIMEDOUT), ms);
      if (signal) signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** A lock handle (not acquired). Options: kind, maxLeases, data. */
  createLock(p, options = {}) {
    return new Lock(this, p, options);
  }

  /**
   * Acquires a lock and resolves with it; `release()` frees it afterwards.
   * Options: kind ('fair' | 'reentrant' | 'nonfair' | 'read' | 'write' |
   * 'semaphore'), maxLeases, data, timeout, signal, owner.
   */
  async lock(p, options = {}) {
    const lock = new Lock(this, p, options, true);
    try {
      return await lock.acquire(options);
    } catch (err) {
      lock.close();
      throw err;
    }
  }

  /** One attempt (one round trip): the lock, or null when it is taken. */
  async tryLock(p, options = {}) {
    const lock = new Lock(this, p, options, true);
    let ok = false;
    try {
      ok = await lock.tryAcquire(options);
    } finally {
      if (!ok) lock.close();
    }
    return ok ? lock : null;
  }

  readLock(p, options = {}) { return this.lock(p, { ...options, kind: 'read' }); }
  writeLock(p, options = {}) { return this.lock(p, { ...options, kind: 'write' }); }
  /** One of `maxLeases` leases (all participants must agree on the number). */
  semaphore(p, maxLeases, options = {}) {
    return this.lock(p, { ...options, kind: 'semaphore', maxLeases });
  }

  /** An election participant (not started). Options: id (required), kind. */
  election(p, options) {
    return new Election(this, p, options);
  }

  /** Observes the leader of an election. Options: kind ('fair' | 'unfair'). */
  observe(p, options = {}) {
    return new LeaderObserver(this, p, options);
  }

  /**
   * Who holds and who waits on `p`, in queue order. Options: kind (lock
   * kind, or election kind with election: true), timeout (ms).
   */
  async inspect(p, { kind, election = false, timeout = 10000 } = {}) {
    checkPath(p);
    const k = election ? INSPECT_ELECTION_BASE + kindOf(ELECTION_KINDS, kind, 'election')
                       : kindOf(LOCK_KINDS, kind, 'lock');
    const r = await native.inspect(this._h, p, k, toTimeout(timeout));
    check(r, `inspect ${p}`);
    return r;
  }

  /**
   * Closes the session (its nodes are deleted), ends pending acquires with
   * ZKL_ECLOSED and frees the native client. Idempotent.
   */
  close() {
    if (!this._closing) this._closing = this._close();
    return this._closing;
  }

  async _close() {
    this._retain();  // until done
    const rc = await native.clientClose(this._h);
    this._onEvents(native.clientDrain(this._ctx));
    for (const h of [...this._handles.values()]) h._onClientClosed();
    this._settleWaiters(codes.ECLOSED);
    this._unretain();
    liveClients.delete(this);
    native.clientDestroy(this._ctx);
    if (rc < 0 && rc !== codes.EBADHANDLE) throw new ZklError(rc, 'close');
  }
}

/** Creates a client and resolves once connected (options.connectTimeout, default 30 s). */
async function connect(servers, options = {}) {
  const client = new Client(servers, options);
  try {
    await client.connected({ timeout: options.connectTimeout ?? 30000, signal: options.signal });
  } catch (err) {
    await client.close().catch(() => {});
    throw err;
  }
  return client;
}

module.exports = {
  connect,
  Client,
  Lock,
  Election,
  LeaderObserver,
  ZklError,
  codes,
  version: native.version(),
  strerror: native.strerror,
};
