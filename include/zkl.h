/*
 * zkl.h — ZooKeeper coordination recipes (locks, semaphores, leader election)
 * behind a small, stable C ABI.
 *
 * This header is the whole public API. Conventions (read once):
 *
 *  - Handles are opaque. zkl_client, zkl_lock, zkl_election and zkl_observer
 *    are checked on every call: a NULL, destroyed or foreign handle gives
 *    ZKL_EBADHANDLE, never a crash. zkl_event and zkl_participants are plain
 *    owned objects (see their functions for who frees them).
 *  - Every function returns an int: 0 (ZKL_OK) or a non-negative value on
 *    success, a negative ZKL_E* code on failure. Codes are never renumbered.
 *    zkl_strerror() names them. There is no thread-local "last error".
 *  - Constants are #defines of plain ints; no enum, bitfield or struct layout
 *    crosses the ABI except the versioned options structs below. Fill an
 *    options struct with its *_options_init(&opts, ZKL_*_OPTIONS_VERSION)
 *    function (bindings that cannot see the macros pass the number 1).
 *  - Threads. The ZooKeeper C client runs its own I/O and completion threads;
 *    zkl's state machines run there. Everything a user observes is queued as
 *    an event on the client's queue. The queue's file descriptor
 *    (zkl_client_fd) is readable while events are pending (level-triggered;
 *    draining until ZKL_EAGAIN is also correct for edge-triggered hosts).
 *    User callbacks run only inside zkl_client_dispatch(), on the thread that
 *    calls it — never on a ZooKeeper thread. All functions are thread-safe;
 *    callbacks may call any zkl function, including destroy on the handle
 *    whose event is being delivered (destruction is deferred safely).
 *  - Owners. Lock calls take a caller-chosen 64-bit owner token (not an OS
 *    thread id), so an async runtime may release from another thread than
 *    the one that acquired. A handle is held by at most one owner at a time;
 *    use one handle per concurrent contender (handles are cheap).
 *  - Timeouts are in milliseconds: < 0 waits forever, 0 does not wait (an
 *    acquire with timeout 0 behaves like a try but fails with ZKL_ETIMEDOUT).
 *  - Paths are absolute ZooKeeper paths ("/a/b"), without trailing slash,
 *    empty or "." / ".." segments, NUL bytes or control characters.
 */
#ifndef ZKL_H
#define ZKL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ZKL_API __attribute__((visibility("default")))
#else
#define ZKL_API
#endif

/* ------------------------------------------------------------------------ */
/* Version                                                                  */
/* ------------------------------------------------------------------------ */

#define ZKL_VERSION_MAJOR 0
#define ZKL_VERSION_MINOR 1
#define ZKL_VERSION_PATCH 0
/* The library's version as MAJOR*10000 + MINOR*100 + PATCH. */
ZKL_API int zkl_version(void);
/* The same as a static string such as "0.1.0". */
ZKL_API const char *zkl_version_string(void);

/* ------------------------------------------------------------------------ */
/* Error codes (never renumbered)                                           */
/* ------------------------------------------------------------------------ */

#define ZKL_OK 0
#define ZKL_EINVAL -1        /* invalid argument: NULL pointer, bad option   */
#define ZKL_EBADPATH -2      /* malformed ZooKeeper path                     */
#define ZKL_EBADHANDLE -3    /* NULL, destroyed or unknown handle            */
#define ZKL_ETIMEDOUT -4     /* the wait ran out                             */
#define ZKL_EAGAIN -5        /* not now: lock taken (try), no event pending  */
#define ZKL_ECANCELED -6     /* the acquire was cancelled                    */
#define ZKL_ENOTHELD -7      /* release of a lock that is not held           */
#define ZKL_ENOTOWNER -8     /* release by an owner that does not hold it    */
#define ZKL_EBUSY -9         /* handle busy: acquire pending or other owner  */
#define ZKL_EDEADLK -10      /* re-acquire of a non-reentrant lock           */
#define ZKL_ECLOSED -11      /* the client is closed                         */
#define ZKL_ECONNECTION -12  /* no connection to ZooKeeper right now         */
#define ZKL_ESESSION -13     /* the session was lost (expired or abandoned)  */
#define ZKL_ELOST -14        /* the lock was lost while held                 */
#define ZKL_EMISMATCH -15    /* participants disagree (e.g. lease count)     */
#define ZKL_EAUTH -16        /* authentication failed or not allowed (ACL)   */
#define ZKL_ETOOBIG -17      /* data larger than 1 MiB                       */
#define ZKL_ENOMEM -18       /* out of memory                                */
#define ZKL_EZOOKEEPER -19   /* unexpected ZooKeeper error                   */
#define ZKL_EVERSION -20     /* options struct version not supported         */
#define ZKL_ENOTFOUND -21    /* nothing there (no leader, no such node)      */
#define ZKL_EINTERNAL -22    /* a bug in zkl; please report                  */
#define ZKL_ERANGE -23       /* index or buffer size out of range            */

/* A static, human-readable description of an error code. Never NULL. */
ZKL_API const char *zkl_strerror(int err);

/* ------------------------------------------------------------------------ */
/* Events                                                                   */
/* ------------------------------------------------------------------------ */

/* Event types (zkl_event_type). */
#define ZKL_EVENT_SESSION 1        /* client session state changed          */
#define ZKL_EVENT_ACQUIRED 2       /* async acquire succeeded               */
#define ZKL_EVENT_ACQUIRE_FAILED 3 /* async acquire failed: see error       */
#define ZKL_EVENT_SUSPENDED 4      /* held lock MAY be lost (disconnected)  */
#define ZKL_EVENT_RESTORED 5       /* reconnected in time: held again       */
#define ZKL_EVENT_LOST 6           /* held lock is lost: stop using it      */
#define ZKL_EVENT_RELEASED 7       /* zkl_lock_release_async finished: the
                                      node is deleted (or died with a lost
                                      session); one per async last release */
#define ZKL_EVENT_ELECTED 8        /* this participant became leader (again
                                      after a SUSPENDED: elections get
                                      SUSPENDED too, and ELECTED instead of
                                      RESTORED when the session survives)    */
#define ZKL_EVENT_NOT_ELECTED 9    /* joined; another participant leads     */
#define ZKL_EVENT_LEADER_CHANGED 10 /* observer: leader is now event data   */

/* Session states (zkl_client_state, zkl_event_session_state). */
#define ZKL_SESSION_CONNECTING 1   /* no session yet                         */
#define ZKL_SESSION_CONNECTED 2    /* session established                    */
#define ZKL_SESSION_SUSPENDED 3    /* disconnected; the session may live     */
#define ZKL_SESSION_RECONNECTED 4  /* reconnected to the same session        */
#define ZKL_SESSION_LOST 5         /* expired, or disconnected past the
                                      client-side deadline; a new session is
                                      being established                      */
#define ZKL_SESSION_CLOSED 6       /* zkl_client_close/destroy was called    */
#define ZKL_SESSION_AUTH_FAILED 7  /* the server rejected the credentials    */

typedef struct zkl_client zkl_client;
typedef struct zkl_lock zkl_lock;
typedef struct zkl_election zkl_election;
typedef struct zkl_observer zkl_observer;
typedef struct zkl_event zkl_event;
typedef struct zkl_participants zkl_participants;

/*
 * Event callback. Runs only inside zkl_client_dispatch(), on its caller's
 * thread. `ev` is valid only until the callback returns (do not free it).
 */
typedef void (*zkl_event_cb)(const zkl_event *ev, void *user_data);

/* Getters. Each returns 0 or a value >= 0, or ZKL_EINVAL for a NULL event
 * or NULL out-pointer. */
ZKL_API int zkl_event_type(const zkl_event *ev);
/* The error carried by ACQUIRE_FAILED, LOST, RELEASED: 0 or a ZKL_E* code
 * (so ZKL_EINVAL is ambiguous only for a NULL event). */
ZKL_API int zkl_event_error(const zkl_event *ev);
/* ZKL_SESSION_* for SESSION events (also set on the others: the state then). */
ZKL_API int zkl_event_session_state(const zkl_event *ev);
/* The lock the event is about, or NULL (session events, elections). */
ZKL_API int zkl_event_lock(const zkl_event *ev, zkl_lock **out);
ZKL_API int zkl_event_election(const zkl_event *ev, zkl_election **out);
ZKL_API int zkl_event_observer(const zkl_event *ev, zkl_observer **out);
/* The user_data given in the handle's options (or the client's). */
ZKL_API int zkl_event_user_data(const zkl_event *ev, void **out);
/* Owner token of the acquire this event answers (0 when not applicable). */
ZKL_API int zkl_event_owner(const zkl_event *ev, uint64_t *out);
/* Fencing token of the acquisition (ACQUIRED, ELECTED; 0 otherwise). */
ZKL_API int zkl_event_fencing_token(const zkl_event *ev, uint64_t *out);
/* Event data (LEADER_CHANGED: the leader's id; empty when no leader). The
 * pointer is valid as long as the event. Not NUL-terminated in general. */
ZKL_API int zkl_event_data(const zkl_event *ev, const char **data, size_t *len);
/* Frees an event obtained from zkl_client_next_event. NULL is accepted. */
ZKL_API void zkl_event_free(zkl_event *ev);

/* ------------------------------------------------------------------------ */
/* Client                                                                   */
/* ------------------------------------------------------------------------ */

#define ZKL_CLIENT_OPTIONS_VERSION 1

/* Node ACLs. */
#define ZKL_ACL_OPEN 0         /* world:anyone:all (ZooKeeper's default)     */
#define ZKL_ACL_CREATOR 1      /* creator (digest auth) all, world read:
                                  other clients can see but not delete a
                                  holder's node. Requires digest_auth.      */

typedef struct zkl_client_options {
  uint32_t version;           /* ZKL_CLIENT_OPTIONS_VERSION                 */
  const char *servers;        /* "host:port,host:port" (required)           */
  const char *chroot;         /* optional, e.g. "/apps/x" (NULL = none); it
                                 must exist (else acquires: ZKL_ENOTFOUND)  */
  int32_t session_timeout_ms; /* requested; the server may adjust (10000)   */
  int32_t lost_after_ms;      /* client-side deadline. By default a
                                 SUSPENDED session is declared LOST 3/4 of
                                 the negotiated session timeout after the
                                 server last provably heard from the client
                                 (heartbeats keep that proof fresh while a
                                 lock is held), before the server can expire
                                 it. A value > 0 declares it LOST sooner:
                                 at most this long after the disconnect.   */
  const char *digest_auth;    /* optional "user:password" (never logged)    */
  int32_t acl;                /* ZKL_ACL_* for created nodes (OPEN)         */
  zkl_event_cb session_cb;    /* optional: SESSION events in dispatch       */
  void *session_user_data;
} zkl_client_options;

/* Fills defaults. ZKL_EVERSION if `version` is newer than this library. */
ZKL_API int zkl_client_options_init(zkl_client_options *opts, uint32_t version);

/*
 * Creates a client and starts connecting in the background (it does not
 * block). Use zkl_client_wait_connected() to block until the session is up.
 * The options are copied. *out is set on success.
 */
ZKL_API int zkl_client_new(const zkl_client_options *opts, zkl_client **out);

/*
 * Closes the session (its ephemeral nodes go with it) and ends pending
 * acquires with ZKL_ECLOSED; the handle stays valid until destroyed, and
 * further calls on its locks return ZKL_ECLOSED. Idempotent. Blocks for at
 * most one round trip. Must not be called from a callback (use destroy).
 */
ZKL_API int zkl_client_close(zkl_client *c);

/*
 * Closes the session (deleting this client's nodes), cancels pending
 * acquires, and frees the client. Its lock/election/observer handles stay
 * valid but answer ZKL_ECLOSED; destroy them too. Pending events are
 * discarded.
 * May be called from a callback; then the client is freed after the
 * callback returns. Returns ZKL_EBADHANDLE when called twice.
 */
ZKL_API int zkl_client_destroy(zkl_client *c);

/* Blocks until the session is connected (0), or ZKL_ETIMEDOUT, ZKL_EAUTH. */
ZKL_API int zkl_client_wait_connected(zkl_client *c, int64_t timeout_ms);

/* Current ZKL_SESSION_* state (>= 1). */
ZKL_API int zkl_client_state(zkl_client *c);

/* Current session id (0 while none). */
ZKL_API int zkl_client_session_id(zkl_client *c, uint64_t *out);

/* The session's password (16 bytes; ZKL_ERANGE if len < 16), as kazoo's
 * client_id: with the id it lets a tool re-attach to, or expire, the
 * session. Treat it as a secret. Returns the number of bytes written. */
ZKL_API int zkl_client_session_password(zkl_client *c, void *buf, size_t len);

/* Negotiated session timeout in ms (>= 0; 0 while not connected). */
ZKL_API int zkl_client_session_timeout(zkl_client *c);

/* The event fd (>= 0). Stable for the client's life; owned by zkl (do not
 * close). Readable while events are pending. Non-blocking. */
ZKL_API int zkl_client_fd(zkl_client *c);

/*
 * Delivers up to `max_events` pending events (< 1: all that are pending at
 * entry) to their handles' callbacks on the calling thread. Events of
 * handles without a callback are discarded. Returns the number delivered.
 * Never blocks.
 */
ZKL_API int zkl_client_dispatch(zkl_client *c, int max_events);

/*
 * Pull form: takes the next pending event (the caller frees it with
 * zkl_event_free), or ZKL_EAGAIN when none is pending. Callbacks are not
 * invoked. Use either this or zkl_client_dispatch on a client, not both.
 */
ZKL_API int zkl_client_next_event(zkl_client *c, zkl_event **out);

/*
 * Blocks until an event is pending (returns 1), the timeout passes or
 * zkl_client_wakeup() is called (returns 0). Does not consume events.
 */
ZKL_API int zkl_client_wait(zkl_client *c, int64_t timeout_ms);

/* Makes one zkl_client_wait() (current or next) return 0. Thread-safe. */
ZKL_API int zkl_client_wakeup(zkl_client *c);

/* Counters, for tests and benchmarks (monotonic since zkl_client_new). */
#define ZKL_COUNTER_REQUESTS 1     /* ZooKeeper requests sent               */
#define ZKL_COUNTER_WATCH_EVENTS 2 /* node/child watch notifications seen   */
#define ZKL_COUNTER_EVENTS 3       /* user events queued                    */
#define ZKL_COUNTER_SESSIONS 4     /* sessions established (1 + re-creates) */
#define ZKL_COUNTER_HEARTBEATS 5   /* heartbeat requests (while locks held) */
ZKL_API int zkl_client_counter(zkl_client *c, int32_t which, uint64_t *out);

/* ------------------------------------------------------------------------ */
/* Locks: fair, reentrant, non-fair, read/write, semaphore                  */
/* ------------------------------------------------------------------------ */

/* Lock kinds (zkl_lock_options.kind). */
#define ZKL_LOCK_FAIR 1      /* FIFO mutex; Curator InterProcessMutex-compatible
                                nodes (_c_<uuid>-lock-<seq>)              */
#define ZKL_LOCK_REENTRANT 2 /* FAIR + hold count per owner token          */
#define ZKL_LOCK_NONFAIR 3   /* one ephemeral node PATH/lock; losers race
                                again when it goes: not FIFO               */
#define ZKL_LOCK_READ 4      /* shared side of a read/write lock (Curator
                                InterProcessReadWriteLock __READ__ nodes)  */
#define ZKL_LOCK_WRITE 5     /* exclusive side (__WRIT__ nodes)           */
#define ZKL_LOCK_SEMAPHORE 6 /* one of max_leases leases                   */

#define ZKL_LOCK_OPTIONS_VERSION 1

typedef struct zkl_lock_options {
  uint32_t version;    /* ZKL_LOCK_OPTIONS_VERSION                          */
  int32_t kind;        /* ZKL_LOCK_* (FAIR)                                 */
  int32_t max_leases;  /* SEMAPHORE: N >= 1; all participants must agree    */
  const void *data;    /* optional node data, e.g. a holder id (<= 1 MiB)   */
  size_t data_len;
  zkl_event_cb cb;     /* optional: this lock's events in dispatch          */
  void *user_data;
} zkl_lock_options;

ZKL_API int zkl_lock_options_init(zkl_lock_options *opts, uint32_t version);

/* Creates a lock handle on `path` (no server traffic yet). */
ZKL_API int zkl_lock_new(zkl_client *c, const char *path,
                         const zkl_lock_options *opts, zkl_lock **out);

/*
 * Releases (if held) or cancels (if acquiring) and frees the handle. The
 * node is deleted in the background. Safe inside a callback.
 */
ZKL_API int zkl_lock_destroy(zkl_lock *l);

/*
 * Blocking acquire. 0 when held; ZKL_ETIMEDOUT, ZKL_ECANCELED (zkl_lock_cancel
 * from another thread), ZKL_EDEADLK (non-reentrant, already held by this
 * owner), ZKL_EBUSY (held or being acquired by another owner on this
 * handle), ZKL_ECLOSED. On any failure no node is left behind. A reentrant
 * lock already held by `owner` only increments its hold count (no server
 * round trip). No event is queued for a blocking acquire.
 */
ZKL_API int zkl_lock_acquire(zkl_lock *l, uint64_t owner, int64_t timeout_ms);

/* Acquire without waiting: ZKL_EAGAIN if another holder is in the way (one
 * round trip; the node is removed again), ZKL_ECONNECTION when not
 * connected (a try never waits for a reconnect). */
ZKL_API int zkl_lock_try_acquire(zkl_lock *l, uint64_t owner);

/*
 * Starts an acquire and returns at once (0). The result arrives as one
 * ACQUIRED or ACQUIRE_FAILED event (error ZKL_ETIMEDOUT / ZKL_ECANCELED /
 * ZKL_ESESSION / ...). Waiting survives reconnects and session loss (the
 * acquire restarts in the new session while time remains).
 */
ZKL_API int zkl_lock_acquire_async(zkl_lock *l, uint64_t owner,
                                   int64_t timeout_ms);

/* Cancels a pending acquire (its node is deleted). ZKL_ENOTHELD if none. */
ZKL_API int zkl_lock_cancel(zkl_lock *l);

/*
 * Releases one hold by `owner`. The last hold deletes the node and returns
 * after the server confirmed it (one round trip). ZKL_ENOTHELD if not held
 * (also a second release), ZKL_ENOTOWNER for another owner.
 */
ZKL_API int zkl_lock_release(zkl_lock *l, uint64_t owner);

/*
 * Like zkl_lock_release, but returns at once: the delete is sent, and a
 * following acquire on the same client is ordered after it by ZooKeeper.
 * A RELEASED event reports the outcome.
 */
ZKL_API int zkl_lock_release_async(zkl_lock *l, uint64_t owner);

/* 1 if held and the session is known to be good, else 0 (never "yes" while
 * suspended or after loss). */
ZKL_API int zkl_lock_is_held(zkl_lock *l);

/* Fencing token of the current hold: strictly increasing across successive
 * holders of the path (the node's czxid). ZKL_ENOTHELD if not held. */
ZKL_API int zkl_lock_fencing_token(zkl_lock *l, uint64_t *out);

/* Current hold count (0 when not held). */
ZKL_API int zkl_lock_hold_count(zkl_lock *l);

/* ------------------------------------------------------------------------ */
/* Leader election                                                          */
/* ------------------------------------------------------------------------ */

#define ZKL_ELECTION_FAIR 1   /* sequential nodes: leadership in arrival order
                                 (Curator LeaderLatch-style latch- nodes)   */
#define ZKL_ELECTION_UNFAIR 2 /* one ephemeral node PATH/leader; all race   */

#define ZKL_ELECTION_OPTIONS_VERSION 1

typedef struct zkl_election_options {
  uint32_t version;    /* ZKL_ELECTION_OPTIONS_VERSION                      */
  int32_t kind;        /* ZKL_ELECTION_* (FAIR)                             */
  const char *id;      /* participant id, stored as node data (required)    */
  zkl_event_cb cb;     /* optional: ELECTED / NOT_ELECTED / LOST events     */
  void *user_data;
} zkl_election_options;

ZKL_API int zkl_election_options_init(zkl_election_options *opts,
                                      uint32_t version);
ZKL_API int zkl_election_new(zkl_client *c, const char *path,
                             const zkl_election_options *opts,
                             zkl_election **out);
/* Resigns if leader, leaves the election and frees the handle. */
ZKL_API int zkl_election_destroy(zkl_election *e);
/* Joins the election: NOT_ELECTED when queued behind a leader, ELECTED when
 * leader, LOST when leadership (or the place in line) is lost; after LOST
 * the handle rejoins automatically when the session is back. */
ZKL_API int zkl_election_start(zkl_election *e);
/* Blocking form: joins (if needed) and waits to be elected: 0, or
 * ZKL_ETIMEDOUT (then it leaves again, unless zkl_election_start had joined:
 * a started participant stays in line). */
ZKL_API int zkl_election_campaign(zkl_election *e, int64_t timeout_ms);
/* Leaves the election (gives up leadership if held). */
ZKL_API int zkl_election_resign(zkl_election *e);
/* 1 if this participant is the leader and the session is known good. */
ZKL_API int zkl_election_is_leader(zkl_election *e);
/* Fencing token of the current term. ZKL_ENOTHELD when not leader. */
ZKL_API int zkl_election_fencing_token(zkl_election *e, uint64_t *out);

/* An observer reports the current leader without taking part. */
ZKL_API int zkl_observer_new(zkl_client *c, const char *path, int32_t kind,
                             zkl_event_cb cb, void *user_data,
                             zkl_observer **out);
ZKL_API int zkl_observer_destroy(zkl_observer *o);
/* Copies the current leader id into buf (NUL-terminated, truncated to
 * len-1) and returns its full length, or ZKL_ENOTFOUND without a leader
 * (also before the observer's first read; LEADER_CHANGED follows it). */
ZKL_API int zkl_observer_leader(zkl_observer *o, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* Inspection (for tools: who holds, who waits)                             */
/* ------------------------------------------------------------------------ */

/*
 * Reads the participants under `path` (one round trip per node), in queue
 * order. `kind` is a ZKL_LOCK_* or, for elections, ZKL_ELECTION_* + 100.
 * The caller frees the result with zkl_participants_free.
 */
#define ZKL_INSPECT_ELECTION_BASE 100
ZKL_API int zkl_inspect(zkl_client *c, const char *path, int32_t kind,
                        int64_t timeout_ms, zkl_participants **out);
ZKL_API int zkl_participants_count(const zkl_participants *p);
/* Node name (valid while p lives). */
ZKL_API int zkl_participants_name(const zkl_participants *p, size_t i,
                                  const char **out);
/* 1 if the participant holds (or leads), 0 if it waits. */
ZKL_API int zkl_participants_is_holder(const zkl_participants *p, size_t i);
/* Its fencing token (czxid), session id, and node creation time (Unix ms). */
ZKL_API int zkl_participants_fencing_token(const zkl_participants *p,
                                           size_t i, uint64_t *out);
ZKL_API int zkl_participants_session_id(const zkl_participants *p, size_t i,
                                        uint64_t *out);
ZKL_API int zkl_participants_ctime_ms(const zkl_participants *p, size_t i,
                                      int64_t *out);
/* Node data (e.g. holder id; valid while p lives). */
ZKL_API int zkl_participants_data(const zkl_participants *p, size_t i,
                                  const char **data, size_t *len);
ZKL_API void zkl_participants_free(zkl_participants *p);

#ifdef __cplusplus
}
#endif

#endif /* ZKL_H */
