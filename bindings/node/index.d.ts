// Type declarations for zkl (Node binding of libzkl).
/// <reference types="node" />
import { EventEmitter } from 'node:events';

export type SessionState =
  | 'connecting' | 'connected' | 'suspended' | 'reconnected' | 'lost' | 'closed' | 'authFailed';

export type LockKind = 'fair' | 'reentrant' | 'nonfair' | 'read' | 'write' | 'semaphore';
export type ElectionKind = 'fair' | 'unfair';

/** Owner token of a hold: any value in [0, 2^64). Numbers must be safe integers. */
export type Owner = bigint | number;

export type ErrorCode =
  | 'ZKL_EINVAL' | 'ZKL_EBADPATH' | 'ZKL_EBADHANDLE' | 'ZKL_ETIMEDOUT' | 'ZKL_EAGAIN'
  | 'ZKL_ECANCELED' | 'ZKL_ENOTHELD' | 'ZKL_ENOTOWNER' | 'ZKL_EBUSY' | 'ZKL_EDEADLK'
  | 'ZKL_ECLOSED' | 'ZKL_ECONNECTION' | 'ZKL_ESESSION' | 'ZKL_ELOST' | 'ZKL_EMISMATCH'
  | 'ZKL_EAUTH' | 'ZKL_ETOOBIG' | 'ZKL_ENOMEM' | 'ZKL_EZOOKEEPER' | 'ZKL_EVERSION'
  | 'ZKL_ENOTFOUND' | 'ZKL_EINTERNAL' | 'ZKL_ERANGE' | 'ZKL_EUNKNOWN';

/** An error reported by zkl. An aborted operation has name 'AbortError' and code 'ZKL_ECANCELED'. */
export class ZklError extends Error {
  constructor(errno: number, context?: string, options?: { cause?: unknown });
  /** 'ZKL_ETIMEDOUT' etc. */
  readonly code: ErrorCode;
  /** The negative ZKL_E* number of zkl.h, e.g. -4. */
  readonly errno: number;
}

/** ZKL_E* numbers by name without the prefix: codes.ETIMEDOUT === -4. */
export const codes: Readonly<{
  OK: 0; EINVAL: -1; EBADPATH: -2; EBADHANDLE: -3; ETIMEDOUT: -4; EAGAIN: -5; ECANCELED: -6;
  ENOTHELD: -7; ENOTOWNER: -8; EBUSY: -9; EDEADLK: -10; ECLOSED: -11; ECONNECTION: -12;
  ESESSION: -13; ELOST: -14; EMISMATCH: -15; EAUTH: -16; ETOOBIG: -17; ENOMEM: -18;
  EZOOKEEPER: -19; EVERSION: -20; ENOTFOUND: -21; EINTERNAL: -22; ERANGE: -23;
}>;

/** The libzkl version, e.g. '0.1.0'. */
export const version: string;
export function strerror(errno: number): string;

export interface ClientOptions {
  /** Requested session timeout in ms (default 10000; the server may adjust it). */
  sessionTimeout?: number;
  /** Client-side deadline in ms after a disconnect (default and maximum: a quarter of the session timeout). */
  lostAfter?: number;
  /** Chroot path, e.g. '/apps/x'. */
  chroot?: string;
  /** 'user:password' for digest authentication. */
  digestAuth?: string;
  /** ACL of created nodes: 'open' (default) or 'creator' (requires digestAuth). */
  acl?: 'open' | 'creator';
}

export interface ConnectOptions extends ClientOptions {
  /** ms to wait for the session (default 30000). */
  connectTimeout?: number;
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** ms; omitted, negative or Infinity: wait forever. */
  timeout?: number;
  /** Aborting rejects with an AbortError (code 'ZKL_ECANCELED'); nothing is left on the server. */
  signal?: AbortSignal;
}

export interface AcquireOptions extends WaitOptions {
  /** Owner token (default 1n). */
  owner?: Owner;
}

export interface LockOptions {
  /** Recipe (default 'fair'). */
  kind?: LockKind;
  /** Semaphore: number of leases (all participants must agree). */
  maxLeases?: number;
  /** Node data, e.g. a holder id (<= 1 MiB). */
  data?: string | Uint8Array;
}

export interface Participant {
  name: string;
  isHolder: boolean;
  fencingToken: bigint;
  sessionId: bigint;
  /** Node creation time, ms since the epoch. */
  ctime: number;
  data: string;
}

export interface InspectOptions {
  kind?: LockKind | ElectionKind;
  /** true: `kind` is an election kind. */
  election?: boolean;
  /** ms (default 10000). */
  timeout?: number;
}

export class Client extends EventEmitter {
  /** Starts connecting in the background; see connect() to wait for the session. */
  constructor(servers: string, options?: ClientOptions);
  readonly state: SessionState;
  /** 0n while there is no session. */
  readonly sessionId: bigint;
  /** Negotiated session timeout in ms (0 while not connected). */
  readonly sessionTimeout: number;
  counter(name: 'requests' | 'watchEvents' | 'events' | 'sessions' | 'heartbeats'): bigint;

  connected(options?: WaitOptions): Promise<void>;
  /** A lock handle, not acquired. */
  createLock(path: string, options?: LockOptions): Lock;
  /** Creates and acquires a lock; its release() also frees the handle. */
  lock(path: string, options?: LockOptions & AcquireOptions): Promise<Lock>;
  /** One attempt: the lock, or null when another holder is in the way. */
  tryLock(path: string, options?: LockOptions & { owner?: Owner }): Promise<Lock | null>;
  readLock(path: string, options?: Omit<LockOptions, 'kind'> & AcquireOptions): Promise<Lock>;
  writeLock(path: string, options?: Omit<LockOptions, 'kind'> & AcquireOptions): Promise<Lock>;
  semaphore(path: string, maxLeases: number,
            options?: Omit<LockOptions, 'kind' | 'maxLeases'> & AcquireOptions): Promise<Lock>;
  election(path: string, options: { id: string; kind?: ElectionKind }): Election;
  observe(path: string, options?: { kind?: ElectionKind }): LeaderObserver;
  inspect(path: string, options?: InspectOptions): Promise<Participant[]>;
  /** Closes the session (its nodes go), ends pending acquires with ZKL_ECLOSED. Idempotent. */
  close(): Promise<void>;

  on(event: 'session', listener: (state: SessionState) => void): this;
  on(event: 'connecting' | 'connected' | 'suspended' | 'reconnected' | 'lost' | 'closed' | 'authFailed',
     listener: () => void): this;
  once(event: 'session', listener: (state: SessionState) => void): this;
  once(event: 'connecting' | 'connected' | 'suspended' | 'reconnected' | 'lost' | 'closed' | 'authFailed',
       listener: () => void): this;
}

/** Creates a client and resolves once its session is connected. */
export function connect(servers: string, options?: ConnectOptions): Promise<Client>;

export class Lock extends EventEmitter {
  readonly path: string;
  readonly kind: LockKind;
  /** Held, and the session is known to be good (false while suspended). */
  readonly isHeld: boolean;
  /** Holds of the current owner (0 when not held). */
  readonly holdCount: number;
  /** Fencing token of the latest acquisition (null before the first). */
  readonly fencingToken: bigint | null;
  /** Owner token of the current hold, or null. */
  readonly owner: bigint | null;
  /** Aborted (reason: a ZklError) when the current hold is lost; null before the first hold. */
  readonly signal: AbortSignal | null;

  acquire(options?: AcquireOptions): Promise<this>;
  tryAcquire(options?: { owner?: Owner }): Promise<boolean>;
  /** Releases one hold; resolves when ZooKeeper confirmed the delete. Rejects ZKL_ELOST once after a loss. */
  release(options?: { owner?: Owner }): Promise<void>;
  /** Frees the handle (a hold is released, a pending acquire cancelled, in the background). */
  close(): void;
  [Symbol.asyncDispose](): Promise<void>;

  on(event: 'suspended' | 'restored', listener: () => void): this;
  on(event: 'lost', listener: (err: ZklError) => void): this;
  once(event: 'suspended' | 'restored', listener: () => void): this;
  once(event: 'lost', listener: (err: ZklError) => void): this;
}

export class Election extends EventEmitter {
  readonly path: string;
  readonly id: string;
  readonly kind: ElectionKind;
  readonly isLeader: boolean;
  /** Fencing token of the current or latest term. */
  readonly fencingToken: bigint | null;
  /** Joins; results arrive as events. */
  start(): this;
  /**
   * Joins and resolves with the term's fencing token once elected. On timeout or abort, a
   * participant that this call joined leaves again; one that start() had joined stays in line.
   */
  campaign(options?: WaitOptions): Promise<bigint>;
  resign(): Promise<void>;
  close(): void;

  on(event: 'elected', listener: (fencingToken: bigint) => void): this;
  on(event: 'notElected' | 'suspended', listener: () => void): this;
  on(event: 'lost', listener: (err: ZklError) => void): this;
  once(event: 'elected', listener: (fencingToken: bigint) => void): this;
  once(event: 'notElected' | 'suspended', listener: () => void): this;
  once(event: 'lost', listener: (err: ZklError) => void): this;
}

export class LeaderObserver extends EventEmitter {
  readonly path: string;
  readonly kind: ElectionKind;
  /** The current leader's id, or null. */
  readonly leader: string | null;
  close(): void;
  on(event: 'leader', listener: (id: string | null) => void): this;
  once(event: 'leader', listener: (id: string | null) => void): this;
}
