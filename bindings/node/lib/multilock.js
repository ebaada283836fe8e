'use strict';
// The multi-lock (zkl_multilock_*): several lock handles of one client taken
// all or none, with one deadline, always in one canonical order (by path) so
// that overlapping multi-locks never deadlock. LOST of one member is LOST of
// the whole (the other members are released by zkl).
//
// Built on lib/index.js's internals (Holder, the addon, error helpers),
// which index.js hands to this factory; index.js exports the class and
// Client#multiLock.

// Byte order of the UTF-8 paths: the order zkl takes the members in.
const byPath = (a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path));

module.exports = function defineMultiLock(internals) {
  const {
    native, Holder, Lock, ZklError, codes, EV, check, toOwner, toTimeout, validFor, checkPath,
    releaseAndClose,
  } = internals;

  /**
   * Several idle lock handles of one client (any mix of kinds but reentrant,
   * on distinct paths) taken all or none. The multi-lock takes the member
   * Lock objects over: from then on they are closed as far as JavaScript
   * goes (acquire/release on them fail), they get no events, and close()
   * of the multi-lock frees them.
   *
   * Events, as Lock's: 'suspended' (some member MAY be lost: stop using the
   * whole until 'restored'), 'restored' (every member is valid again),
   * 'lost' (ZklError: one member was lost, the others are released),
   * 'revokeRequested' (someone asked a holder of a member to let go).
   */
  class MultiLock extends Holder {
    constructor(client, locks) {
      if (!Array.isArray(locks)) throw new TypeError('multi-lock members must be an array of Locks');
      super(client, '', 'multi-lock');
      if (locks.length === 0) throw new ZklError(codes.EINVAL, 'multiLock: no members');
      for (const lk of locks) {
        if (!(lk instanceof Lock)) throw new TypeError('multi-lock members must be Lock handles');
        if (lk._client !== client) {
          throw new ZklError(codes.EINVAL, `multiLock: ${lk.path} belongs to another client`);
        }
        if (lk._group) throw new ZklError(codes.EBUSY, `multiLock: ${lk.path} is in a multi-lock`);
        if (lk._closed) throw new ZklError(codes.EBADHANDLE, `multiLock: ${lk.path} is closed`);
      }
      const h = native.multilockNew(client._h, locks.map((lk) => lk._h), this._uid);
      check(h, `multiLock ${locks.map((lk) => JSON.stringify(lk.path)).join(',')}`);
      this._h = h;
      /** The member locks in canonical order (by path). */
      this.members = Object.freeze([...locks].sort(byPath));
      /** The members' paths in canonical order. */
      this.paths = Object.freeze(this.members.map((lk) => lk.path));
      this.path = this.paths.join(',');
      for (const lk of locks) {
        lk._group = this;
        lk._forget();  // taken over: no events, no calls of its own
      }
      this._register();
    }

    _acquireNative(own, ms) { return native.multilockAcquireAsync(this._h, own, ms); }
    _cancelNative() { return native.multilockCancel(this._h); }
    _releaseNative(own) { return native.multilockReleaseAsync(this._h, own); }
    _holdCount() { return this._held ? 1 : 0; }

    /** Every member held and provably valid at this instant (false once closed). */
    get isHeld() { return native.multilockIsHeld(this._h) === 1; }

    /** The smallest lease of the members in ms (0 when not held, suspended or closed). */
    validFor() { return validFor(native.multilockValidFor(this._h)); }

    /**
     * The fencing token (BigInt) of the member on `path`: pass each resource
     * the token of the path that guards it. Throws ZklError ZKL_ENOTFOUND
     * for a path that is no member, ZKL_ENOTHELD when not held.
     */
    fencingToken(p) {
      checkPath(p);
      if (this._closed) throw new ZklError(codes.ENOTHELD, `fencingToken ${p}`);
      return check(native.multilockFencingToken(this._h, p), `fencingToken ${p}`);
    }

    /** { path: fencing token } of every member (throws ZKL_ENOTHELD when not held). */
    get fencingTokens() {
      return Object.fromEntries(this.paths.map((p) => [p, this.fencingToken(p)]));
    }

    /**
     * Acquires every member within one deadline: resolves with this
     * multi-lock once all are held. On timeout (ZKL_ETIMEDOUT), abort
     * (AbortError, ZKL_ECANCELED) or failure of any member, the members
     * already taken are released: it holds none. Options: timeout (ms;
     * default forever; 0: one attempt), signal, owner.
     */
    acquire({ timeout, signal, owner } = {}) {
      return this._acquire(toOwner(owner), toTimeout(timeout), signal);
    }

    /**
     * A guarded write behind every member's node: `ops` (each strictly below
     * some member's path) are applied, all or none, only while every member
     * is held at the quorum. As Lock#write. Options: owner.
     */
    write(ops, { owner } = {}) {
      const own = toOwner(owner);
      return this._client._write(this, ops, (o) => native.multilockWriteAsync(this._h, own, o),
                                 `write ${this.path}`);
    }

    /**
     * Releases every member; resolves once ZooKeeper confirmed every delete.
     * Rejects with ZKL_ENOTHELD when not held (also a second release),
     * ZKL_ENOTOWNER for another owner, and once with ZKL_ELOST after a loss.
     */
    release({ owner } = {}) {
      return this._release(toOwner(owner));
    }

    /**
     * Frees the multi-lock and its members: a hold is released and a
     * pending acquire cancelled (rejected with ZKL_ECANCELED) in the
     * background.
     */
    close() {
      this._free(codes.ECANCELED, 'multi-lock closed');
    }

    _destroyNative(h) { native.multilockDestroy(h); }

    _end(errno, why) {
      for (const lk of this.members) lk._group = null;  // destroyed with it: closed, no longer busy
      super._end(errno, why);
    }

    _onEvent(ev) {
      if (ev.type === EV.REVOKE_REQUESTED) this.emit('revokeRequested');
      else super._onEvent(ev);
    }
  }

  if (typeof Symbol.asyncDispose === 'symbol') {
    MultiLock.prototype[Symbol.asyncDispose] = releaseAndClose;
  }
  if (typeof Symbol.dispose === 'symbol') {
    MultiLock.prototype[Symbol.dispose] = function dispose() { this.close(); };
  }

  return MultiLock;
};
