/*
 * zkl.h — ZooKeeper coordination recipes (locks, semaphores, leader election)
 * behind a small, stable C ABI.
 *
 * This header is the whole public API. Conventions (read once):
 *
 *  - Handles are opaque. zkl_client, zkl_lock, zkl_multilock, zkl_election
 *    and zkl_observer are checked on every call: a NULL, destroyed or
 *    foreign handle gives ZKL_EBADHANDLE, never a crash. zkl_event and
 *    zkl_participants are plain owned objects (see their functions).
 *  - Every function returns an int: 0 (ZKL_OK) or a non-negative value on
 *    success, a negative ZKL_E* code on failure. Codes are never renumbered.
 *    zkl_strerror() names them. There is no thread-local "last error".
 *  - Constants are #defines of plain ints; no enum, bitfield or struct layout
 *    crosses the ABI except the versioned options structs below. Fill an
 *    options struct with its *_options_init(&opts, ZKL_*_OPTIONS_VERSION)
 *    function before setting fields (bindings pass the number).
 *  - Verbs are the same on every handle: _new, _destroy, _acquire,
 *    _try_acquire, _acquire_async, _cancel, _release, _is_held/_is_leader,
 *    _valid_for, _fencing_token.
 *  - Threads. Each client owns one ZooKeeper session. By default zkl runs
 *    one I/O thread per client (ZKL_IO_THREAD): it talks to ZooKeeper and
 *    runs the recipe state machines. With ZKL_IO_HOST zkl starts no thread
 *    at all: the host's loop polls zkl_client_fd() and calls
 *    zkl_client_dispatch(), which does the I/O. Either way everything a user
 *    observes is queued as an event, and user callbacks (event and log
 *    callbacks) run only inside zkl_client_dispatch(), on the thread that
 *    calls it — never on zkl's thread. All functions are thread-safe;
 *    callbacks may call any zkl function except zkl_client_close, including
 *    destroy on the handle whose event is being delivered (destruction is
 *    deferred safely). zkl installs no signal handler and never raises
 *    SIGPIPE in the host: around its calls into a TLS connection it blocks
 *    SIGPIPE on the calling thread and takes back one raised there.
 *  - Owners. Lock calls take a caller-chosen 64-bit owner token (not an OS
 *    thread id), so an async runtime may release from another thread than
 *    the one that acquired. A handle is held by at most one owner at a time;
 *    use one handle per concurrent contender (handles are cheap). Bindings
 *    use ZKL_DEFAULT_OWNER when the caller names none: the handle itself is
 *    then the owner, whichever thread or task calls.
 *  - Timeouts are in milliseconds: < 0 waits forever, 0 tries once without
 *    waiting (an acquire with timeout 0 behaves like a try but fails with
 *    ZKL_ETIMEDOUT), > 0 waits at most that long.
 *  - Truth. "Is it held" answers (zkl_lock_is_held, zkl_election_is_leader,
 *    *_valid_for, observers' answers) are computed at the moment of the
 *    call from the monotonic clock and the last moment the ensemble's
 *    *leader* provably refreshed this client's session (handshakes and
 *    `sync` round trips through the leader; never the word of the one
 *    server the client talks to, which may be cut off from the quorum and
 *    still answer): yes only while the leader cannot yet have expired the
 *    session. docs/SAFETY.md gives the argument and its assumptions. A
 *    process frozen past its session timeout (GC pause, SIGSTOP, VM
 *    migration) answers no on its first call after it wakes, before any
 *    event. A grant is the same kind of answer: an acquire or campaign
 *    whose node comes first only reports success (returns 0, ACQUIRED,
 *    ELECTED) once the quorum proves the session at that instant; first in
 *    line right after a freeze, it waits for the next proof (a heartbeat
 *    or two) within its timeout. The fencing token remains the real defence: pass it to the
 *    resource, and let the resource reject tokens older than the newest it
 *    has seen.
 *  - Paths are absolute ZooKeeper paths ("/a/b"), without trailing slash,
 *    empty or "." / ".." segments, NUL bytes or control characters.
 *  - Secrets (passwords, key passphrases) are copied, never logged, never
 *    put in error messages, and wiped from zkl's memory when no longer used.
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

/* The one source of the version: CMake, the SONAME, the CLI and every
 * package read it from here (scripts/version checks that they agree). */
#define ZKL_VERSION_MAJOR 0
#define ZKL_VERSION_MINOR 2
#define ZKL_VERSION_PATCH 0
/* The ABI version (the SONAME is libzkl.so.ZKL_SOVERSION). Bumped only on
 * an incompatible ABI change; additions keep it. */
#define ZKL_SOVERSION 1
/* The library's version as MAJOR*10000 + MINOR*100 + PATCH. */
ZKL_API int zkl_version(void);
/* The same as a static string such as "0.2.0". */
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
#define ZKL_ENOTHELD -7      /* not held (release, token, valid_for)         */
#define ZKL_ENOTOWNER -8     /* release by an owner that does not hold it    */
#define ZKL_EBUSY -9         /* handle busy: acquire pending, other owner,
                                or a lock that belongs to a multi-lock       */
#define ZKL_EDEADLK -10      /* re-acquire of a non-reentrant lock           */
#define ZKL_ECLOSED -11      /* the client is closed                         */
#define ZKL_ECONNECTION -12  /* no connection to ZooKeeper right now         */
#define ZKL_ESESSION -13     /* the session was lost (expired or abandoned)  */
#define ZKL_ELOST -14        /* the lock was lost while held (node gone)     */
#define ZKL_EMISMATCH -15    /* participants disagree (e.g. lease count)     */
#define ZKL_EAUTH -16        /* authentication failed or not allowed (ACL)   */
#define ZKL_ETOOBIG -17      /* data larger than 1 MiB                       */
#define ZKL_ENOMEM -18       /* out of memory                                */
#define ZKL_EZOOKEEPER -19   /* unexpected ZooKeeper error                   */
#define ZKL_EVERSION -20     /* options struct version not supported         */
#define ZKL_ENOTFOUND -21    /* nothing there (no leader, no such node)      */
#define ZKL_EINTERNAL -22    /* a bug in zkl; please report                  */
#define ZKL_ERANGE -23       /* index or buffer size out of range            */
#define ZKL_ENOTSUP -24      /* not supported (by this build, by the server,
                                or this combination of options)             */
#define ZKL_EMAXHOLD -25     /* the maximum hold time passed: zkl released
                                the lock itself (LOST carries this)          */
#define ZKL_EREVOKED -26     /* released on a revocation request (LOST
                                carries this when on_revoke is RELEASE)      */
#define ZKL_ETLS -27         /* TLS handshake failed (e.g. the server does
                                not speak TLS on that port)                  */
#define ZKL_ECERT -28        /* server certificate not trusted (unknown CA,
                                expired, bad chain) or unreadable TLS files */
#define ZKL_EHOSTNAME -29    /* server certificate does not name the host   */
#define ZKL_ECLIENTCERT -30  /* the server requires a client certificate, or
                                rejected the one given                      */
#define ZKL_EPROTOCOL -31    /* the server broke off the session handshake
                                (e.g. a plaintext client on a TLS port)      */
#define ZKL_EEXISTS -32      /* a guarded create: the node exists           */
#define ZKL_EBADVERSION -33  /* a guarded set/delete/check: the node's
                                version is not the one given                */
#define ZKL_ENOTEMPTY -34    /* a guarded delete: the node has children     */
#define ZKL_ESTALE -35       /* a fencing token that is not the current
                                holder's (zkl_fence_check)                  */
#define ZKL_EINDOUBT -36     /* the connection broke while a guarded write
                                was in flight: it may or may not have been
                                applied (read back before retrying)         */

/* A static, human-readable description of an error code. Never NULL. */
ZKL_API const char *zkl_strerror(int err);

/* Frees memory zkl returned to the caller (zkl_*_stats). NULL is accepted. */
ZKL_API void zkl_free(void *p);

/* ------------------------------------------------------------------------ */
/* Events                                                                   */
/* ------------------------------------------------------------------------ */

/* Event types (zkl_event_type). Locks, multi-locks and elections share one
 * vocabulary; elections say ELECTED / NOT_ELECTED where locks say ACQUIRED.
 * Every event carries its handle, owner, error and fencing token. The
 * events of one change become readable together: whoever takes a SESSION
 * event finds the SUSPENDED, RESTORED or LOST events of the handles that the
 * same change touched already queued behind it. */
#define ZKL_EVENT_SESSION 1        /* client session state changed          */
#define ZKL_EVENT_ACQUIRED 2       /* async acquire succeeded               */
#define ZKL_EVENT_ACQUIRE_FAILED 3 /* async acquire failed: see error       */
#define ZKL_EVENT_SUSPENDED 4      /* a hold MAY be lost: disconnected, or
                                      not proven by the quorum for as long
                                      as is safe; stop using it until
                                      RESTORED. Not LOST: zkl keeps trying
                                      to resume the same session.           */
#define ZKL_EVENT_RESTORED 5       /* the same session resumed in time and
                                      the quorum proves it: held again
                                      (locks and elections)                 */
#define ZKL_EVENT_LOST 6           /* the hold is lost: stop using it. error:
                                      ZKL_ESESSION, ZKL_ELOST, ZKL_EAUTH,
                                      ZKL_EMAXHOLD, ZKL_EREVOKED, ZKL_ECLOSED */
#define ZKL_EVENT_RELEASED 7       /* an async release finished: the node is
                                      deleted (or died with its session)    */
#define ZKL_EVENT_ELECTED 8        /* this participant became leader        */
#define ZKL_EVENT_NOT_ELECTED 9    /* joined; another participant leads     */
#define ZKL_EVENT_LEADER_CHANGED 10 /* observer: a leader is known; data is
                                      its id, fencing token its term        */
#define ZKL_EVENT_NO_LEADER 11     /* observer: no participant leads now    */
#define ZKL_EVENT_REVOKE_REQUESTED 12 /* someone asked this holder to let go
                                      (zkl_revoke, Curator's Revoker)       */
#define ZKL_EVENT_STATS 13         /* client: statistics JSON is event data
                                      (stats_interval_ms)                   */
#define ZKL_EVENT_LOG 14           /* a log line (pull form only, and only
                                      when log_cb is set: dispatch hands the
                                      lines to log_cb instead)              */
#define ZKL_EVENT_WRITTEN 15       /* a guarded write (*_write_async)
                                      finished: error 0 (applied) or why
                                      not; request id, results: zkl_event_ops */

/* Session states (zkl_client_state, zkl_event_session_state). */
#define ZKL_SESSION_CONNECTING 1   /* no session yet                         */
#define ZKL_SESSION_CONNECTED 2    /* session established                    */
#define ZKL_SESSION_SUSPENDED 3    /* disconnected; the session may live     */
#define ZKL_SESSION_RECONNECTED 4  /* reconnected to the same session        */
#define ZKL_SESSION_LOST 5         /* expired (the server said so), or no
                                      server reached for a session timeout
                                      after the connection was lost; a new
                                      session is being established           */
#define ZKL_SESSION_CLOSED 6       /* zkl_client_close/destroy was called    */
#define ZKL_SESSION_AUTH_FAILED 7  /* the server rejected the credentials
                                      (the event's error says why: ZKL_EAUTH),
                                      or, with no session yet, every server
                                      of the list refused verification
                                      (ZKL_ECERT, ZKL_EHOSTNAME,
                                      ZKL_ECLIENTCERT): zkl keeps trying
                                      those, and a later success connects  */

/* Log levels (zkl_client_options.log_level, log callback). */
#define ZKL_LOG_OFF 0
#define ZKL_LOG_ERROR 1
#define ZKL_LOG_WARN 2
#define ZKL_LOG_INFO 3
#define ZKL_LOG_DEBUG 4

typedef struct zkl_client zkl_client;
typedef struct zkl_lock zkl_lock;
typedef struct zkl_multilock zkl_multilock;
typedef struct zkl_election zkl_election;
typedef struct zkl_observer zkl_observer;
typedef struct zkl_event zkl_event;
typedef struct zkl_participants zkl_participants;
typedef struct zkl_ops zkl_ops;

/*
 * Event callback. Runs only inside zkl_client_dispatch(), on its caller's
 * thread. `ev` is valid only until the callback returns (do not free it).
 */
typedef void (*zkl_event_cb)(const zkl_event *ev, void *user_data);

/*
 * Log callback: one line of zkl or of its ZooKeeper client, with its level
 * (ZKL_LOG_*) and component ("zkl", "zookeeper", "tls", "sasl"). Runs only
 * inside zkl_client_dispatch(), like event callbacks. Lines never carry
 * secrets. Undelivered lines are bounded (the oldest are dropped and a
 * line says how many). A ZooKeeper client line that repeats (a server
 * failing every attempt) comes once per 10 s, saying how often it came. A client read with zkl_client_next_event gets the
 * lines as ZKL_EVENT_LOG events instead: set log_cb (any function; it is
 * not called in the pull form) to ask for them.
 */
typedef void (*zkl_log_cb)(int level, const char *component, const char *message,
                           void *user_data);

/* Getters. Each returns 0 or a value >= 0, or ZKL_EINVAL for a NULL event
 * or NULL out-pointer. */
ZKL_API int zkl_event_type(const zkl_event *ev);
/* The error carried by ACQUIRE_FAILED, LOST, RELEASED, SESSION
 * (AUTH_FAILED): 0 or a ZKL_E* code (ZKL_EINVAL only for a NULL event). */
ZKL_API int zkl_event_error(const zkl_event *ev);
/* ZKL_SESSION_* for SESSION events (also set on the others: the state then). */
ZKL_API int zkl_event_session_state(const zkl_event *ev);
/* The handle the event is about, or NULL when it is about another kind. */
ZKL_API int zkl_event_lock(const zkl_event *ev, zkl_lock **out);
ZKL_API int zkl_event_multilock(const zkl_event *ev, zkl_multilock **out);
ZKL_API int zkl_event_election(const zkl_event *ev, zkl_election **out);
ZKL_API int zkl_event_observer(const zkl_event *ev, zkl_observer **out);
/* The user_data given in the handle's options (or the client's). */
ZKL_API int zkl_event_user_data(const zkl_event *ev, void **out);
/* Owner token of the acquire this event answers (0 when not applicable). */
ZKL_API int zkl_event_owner(const zkl_event *ev, uint64_t *out);
/* Fencing token of the acquisition (ACQUIRED, ELECTED, RESTORED, SUSPENDED,
 * LOST, REVOKE_REQUESTED: the hold's token; LEADER_CHANGED: the leader's
 * term; 0 otherwise). */
ZKL_API int zkl_event_fencing_token(const zkl_event *ev, uint64_t *out);
/* Event data: LEADER_CHANGED the leader's id, STATS the JSON document, LOG
 * the message; empty otherwise. The pointer is valid as long as the event.
 * Not NUL-terminated in general (STATS and LOG are). */
ZKL_API int zkl_event_data(const zkl_event *ev, const char **data, size_t *len);
/* LOG events (pull form): the level and component. */
ZKL_API int zkl_event_log(const zkl_event *ev, int *level, const char **component);
/* The request id an asynchronous call returned (*_acquire_async,
 * *_release_async, *_write_async), for the events that answer it
 * (ACQUIRED / ELECTED / NOT_ELECTED / ACQUIRE_FAILED, RELEASED, WRITTEN);
 * 0 for events that answer no call (SUSPENDED, RESTORED, LOST, ...). Ids
 * are per client, from 1 up to INT_MAX, then from 1 again. */
ZKL_API int zkl_event_request_id(const zkl_event *ev, uint64_t *out);
/* WRITTEN: the write's operations with their results (borrowed: valid as
 * long as the event; read them with zkl_ops_failed / zkl_ops_path /
 * zkl_ops_version). NULL for other events. */
ZKL_API int zkl_event_ops(const zkl_event *ev, const zkl_ops **out);
/* Frees an event obtained from zkl_client_next_event. NULL is accepted. */
ZKL_API void zkl_event_free(zkl_event *ev);

/* ------------------------------------------------------------------------ */
/* Client                                                                   */
/* ------------------------------------------------------------------------ */

#define ZKL_CLIENT_OPTIONS_VERSION 1

/* Who runs the I/O (zkl_client_options.io). */
#define ZKL_IO_THREAD 0  /* one zkl I/O thread per client (default)        */
#define ZKL_IO_HOST 1    /* no thread: zkl_client_dispatch does the I/O    */

/* Node ACLs (zkl_client_options.acl). */
#define ZKL_ACL_OPEN 0         /* world:anyone:all (ZooKeeper's default)     */
#define ZKL_ACL_CREATOR 1      /* the creating identity (digest or SASL) may
                                  do everything, the world may read: other
                                  clients can see but not delete a holder's
                                  node. Requires digest_auth or SASL.       */

typedef struct zkl_client_options {
  uint32_t version;           /* ZKL_CLIENT_OPTIONS_VERSION                 */
  const char *servers;        /* "host:port,host:port" (required; an IPv6
                                 address in brackets: "[::1]:2181"). Names
                                 are resolved when a session starts, and
                                 again before every connection attempt
                                 while disconnected; never while connected.
                                 So a DNS change reaches the client at its
                                 next reconnect, and a name that does not
                                 resolve is skipped until it does. The
                                 resolution (getaddrinfo) blocks the thread
                                 that does the I/O (zkl's, or the host's in
                                 zkl_client_dispatch) for as long as the
                                 resolver takes. Not one name resolving is
                                 retried every second. To change the list
                                 itself: zkl_client_set_servers,
                                 zkl_client_follow_ensemble.                */
  const char *chroot;         /* optional, e.g. "/apps/x" (NULL = none); it
                                 must exist (else acquires: ZKL_ENOTFOUND)  */
  int32_t session_timeout_ms; /* requested; the server may adjust (10000)   */
  int32_t connect_timeout_ms; /* bound of one connection attempt, TLS
                                 handshake included (default: a share of
                                 the session timeout for each server, T /
                                 max(3, servers of the list): a silent
                                 server costs only its share)              */
  int32_t lost_after_ms;      /* The safety bound. A hold is "provably
                                 valid" for 3/4 of the negotiated session
                                 timeout after the last moment the
                                 ensemble's leader provably refreshed the
                                 session (sync heartbeats, a sixteenth of
                                 the timeout apart, keep that fresh: see
                                 docs/SAFETY.md). A disconnected session is
                                 resumed if any server of the list can be
                                 reached before the server expires it, and
                                 given up (LOST) when the server says it
                                 expired or a session timeout has passed
                                 since the connection was lost. A value > 0
                                 also ends holds this many ms after the
                                 leader last answered, and gives up a
                                 disconnected session that long after the
                                 connection was lost.                       */
  int32_t io;                 /* ZKL_IO_THREAD or ZKL_IO_HOST               */
  int32_t acl;                /* ZKL_ACL_* for created nodes (OPEN)         */
  const char *digest_auth;    /* optional "user:password" (a secret)        */

  /* TLS (all optional; tls_ca_file turns TLS on). Files are PEM. */
  const char *tls_ca_file;    /* CA bundle the server's chain must end in  */
  const char *tls_cert_file;  /* client certificate (chain), for mTLS       */
  const char *tls_key_file;   /* its private key                            */
  const char *tls_key_password; /* passphrase of an encrypted key (secret)  */
  int32_t tls_insecure_skip_hostname_check; /* 1: accept a certificate for
                                 any host name (the chain is still checked).
                                 Dangerous; default 0                       */

  /* SASL (optional; sasl_mechanism turns it on). */
  const char *sasl_mechanism; /* "DIGEST-MD5" or "GSSAPI"                   */
  const char *sasl_user;      /* DIGEST-MD5 user; GSSAPI client principal   */
  const char *sasl_password;  /* DIGEST-MD5 password (a secret)             */
  const char *sasl_keytab;    /* GSSAPI: client keytab file (optional)      */
  const char *sasl_ccache;    /* GSSAPI: credential cache (optional;
                                 default: the environment's)                */
  const char *sasl_service;   /* service name (default "zookeeper")         */
  const char *sasl_host;      /* the server's host name in its principal
                                 (default "zk-sasl-md5" for DIGEST-MD5 as
                                 the Java client; for GSSAPI the host of
                                 the server connected to)                   */

  /* Callbacks and operations. */
  zkl_event_cb cb;            /* optional: SESSION and STATS events         */
  void *user_data;
  zkl_log_cb log_cb;          /* optional: log lines (see zkl_log_cb)       */
  void *log_user_data;
  int32_t log_level;          /* ZKL_LOG_*: lines up to this level. Default
                                 WARN with a log_cb; without one, nothing is
                                 printed unless a level is set (then to
                                 stderr, from the thread that logs)         */
  int32_t stats_interval_ms;  /* > 0: a STATS event this often (0: never)   */
} zkl_client_options;

/* Fills defaults. ZKL_EVERSION if `version` is newer than this library. */
ZKL_API int zkl_client_options_init(zkl_client_options *opts, uint32_t version);

/*
 * Creates a client and starts connecting in the background (it does not
 * block). Use zkl_client_wait_connected() to block until the session is up.
 * The options are copied. *out is set on success. ZKL_ENOTSUP for TLS or
 * SASL options this build or combination cannot do; ZKL_ECERT when a TLS
 * file cannot be read; ZKL_ECONNECTION when not one name of servers
 * resolves.
 */
ZKL_API int zkl_client_new(const zkl_client_options *opts, zkl_client **out);

/*
 * zkl_client_new that says why it failed: on failure, when errbuf is not
 * NULL, writes a message of at most errbuf_size bytes (NUL included) that
 * names the option and the reason, e.g. "tls_key_file /etc/zk/client.key:
 * the key is encrypted and tls_key_password is not set". Messages are for
 * people (not for parsing) and never contain a secret. As with every zkl
 * call there is no thread-local "last error": the message comes back here.
 */
ZKL_API int zkl_client_create(const zkl_client_options *opts, zkl_client **out, char *errbuf,
                              size_t errbuf_size);

/*
 * Checks options exactly as zkl_client_new does, including that the TLS
 * files can be read and belong together, without connecting or creating
 * anything. 0, or the code zkl_client_new would return and (errbuf as in
 * zkl_client_create) the message.
 */
ZKL_API int zkl_client_options_check(const zkl_client_options *opts, char *errbuf,
                                     size_t errbuf_size);

/*
 * Closes the session (its ephemeral nodes go with it), ends pending
 * acquires with ZKL_ECLOSED and delivers LOST (error ZKL_ECLOSED) for every
 * hold; the handle stays valid until destroyed, and further calls on its
 * locks return ZKL_ECLOSED. Idempotent. Blocks for at most one round trip
 * (bounded by the connect timeout). Must not be called from a callback.
 */
ZKL_API int zkl_client_close(zkl_client *c);

/*
 * Closes the session (deleting this client's nodes), cancels pending
 * acquires, and frees the client. Its other handles stay valid but answer
 * ZKL_ECLOSED; destroy them too. Pending events are discarded.
 * May be called from a callback; then the client is freed after the
 * callback returns. Returns ZKL_EBADHANDLE when called twice.
 */
ZKL_API int zkl_client_destroy(zkl_client *c);

/*
 * Blocks until the session is connected (0), or fails:
 *  - at once, when the newest attempt on every server of the list failed
 *    for a reason retrying cannot change: ZKL_ECERT, ZKL_EHOSTNAME,
 *    ZKL_ECLIENTCERT (a verification error) or ZKL_EAUTH;
 *  - else when the wait runs out: ZKL_ETIMEDOUT, or the last attempt's TLS
 *    error (ZKL_ETLS, ...) or ZKL_EPROTOCOL.
 * zkl_client_connect_error() says why, server by server.
 */
ZKL_API int zkl_client_wait_connected(zkl_client *c, int64_t timeout_ms);

/* The layer at which a connection attempt failed (zkl_client_connect_error). */
#define ZKL_LAYER_TCP 1     /* reaching the server: refused, unreachable,
                               no answer to the TCP connect               */
#define ZKL_LAYER_TLS 2     /* the TLS handshake: certificates, host name,
                               not a TLS port, stalled                    */
#define ZKL_LAYER_SESSION 3 /* ZooKeeper's session handshake: unanswered,
                               broken off (e.g. plaintext on a TLS port)   */
#define ZKL_LAYER_SASL 4    /* SASL authentication                         */

/*
 * Why connecting fails. The client keeps the last failed attempt of each
 * server (address) of its list until that server connects again. Returns
 * the newest kept failure's code (ZKL_ECONNECTION: refused, unreachable;
 * ZKL_ETIMEDOUT: unanswered or stalled; ZKL_ETLS, ZKL_ECERT,
 * ZKL_EHOSTNAME, ZKL_ECLIENTCERT, ZKL_EPROTOCOL, ZKL_EAUTH), or 0 when none
 * is kept. When buf is not NULL, writes (at most len bytes, NUL included;
 * cut short if longer) "server (layer): reason" for each kept failure,
 * newest first, joined by "; ", e.g.
 *   127.0.0.1:2281 (tls): certificate has expired; 127.0.0.1:2282 (tcp):
 *   connection refused
 * The same failures are logged (WARN) and counted in the statistics
 * ("connect_failures", and "failing_servers" with each one's last failure).
 */
ZKL_API int zkl_client_connect_error(zkl_client *c, char *buf, size_t len);

/*
 * Replaces the server list of a running client: `servers` as
 * zkl_client_options.servers (the same check: ZKL_EINVAL for NULL, "" or a
 * malformed list); the client's chroot stays. The session and its holds
 * carry on. If the server the client is connected to is still listed the
 * connection stays, except that when the list grew the client moves with
 * the probability that spreads clients evenly over the new list (as
 * ZooKeeper's own clients do); if it is no longer listed the client
 * reconnects to one that is. A move is a disconnect: a SESSION event
 * (SUSPENDED) and the holds' SUSPENDED events, then RECONNECTED and
 * RESTORED (same tokens) when the same session resumes on the new server,
 * usually at once; is_held stays 1 unless the move outlasts the safety
 * bound. Should the session be lost later, the next one starts from
 * the new list. The names are resolved now: ZKL_ECONNECTION when not one
 * of them resolves (the old list stays); the list in force, given again,
 * is resolved again (a changed address is taken at once). A client that follows the
 * ensemble (zkl_client_follow_ensemble) takes the next configuration
 * change over this list. ZKL_ECLOSED after zkl_client_close. Any thread,
 * and callbacks, may call it.
 */
ZKL_API int zkl_client_set_servers(zkl_client *c, const char *servers);

/*
 * on = 1: the server list follows the ensemble's configuration, so that
 * servers can be added and removed (ZooKeeper 3.5+ dynamic
 * reconfiguration) without restarting or reconfiguring clients. zkl reads
 * /zookeeper/config (whatever the chroot) with a watch, now, whenever it
 * changes, and after every reconnect and new session, and replaces the list
 * (as zkl_client_set_servers does) with the client addresses of every
 * member of the ensemble, participants and observers (clients may use
 * either); a member whose client address is the wildcard (0.0.0.0, or a
 * port alone) is reached at the host of its quorum address. Each change of the list
 * is logged at INFO. A configuration that gives no client address for some
 * member (servers with a static, 3.4-style configuration:
 * "server.N=host:port:port" lines and clientPort), and a server without
 * /zookeeper/config (before 3.5), leave the list as it is: logged once at
 * INFO, and the statistics say why ("ensemble" in docs/STATISTICS.md,
 * which also gives the configuration's version). A client that does not
 * follow keeps its list: when every server of it has left the ensemble it
 * can no longer reconnect, and loses its session.
 * on = 0: stop following (the list stays as it is). ZKL_EINVAL for other
 * values; ZKL_ECLOSED after zkl_client_close.
 */
ZKL_API int zkl_client_follow_ensemble(zkl_client *c, int on);

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

/*
 * The file descriptor to poll for readability (>= 0). Stable for the
 * client's life; owned by zkl (do not close or read it). Level-triggered:
 * readable while zkl_client_dispatch() has work (draining until dispatch
 * returns 0 is also correct for edge-triggered hosts).
 *  - ZKL_IO_THREAD: readable while events are pending.
 *  - ZKL_IO_HOST: an epoll fd covering the ZooKeeper socket, zkl's timer,
 *    a wakeup fd and the event queue. The host must call dispatch when it
 *    is readable; if it stops, nothing talks to ZooKeeper: pings stop, the
 *    session expires after the session timeout, and *_is_held/_valid_for
 *    say no once the safety bound has passed.
 */
ZKL_API int zkl_client_fd(zkl_client *c);

/*
 * Does the pending work on the calling thread: with ZKL_IO_HOST first the
 * I/O and timers, then delivers up to `max_events` pending events (< 1: all
 * that are pending at entry) to their callbacks, and log lines to log_cb.
 * Events of handles without a callback are discarded. Returns the number
 * of events delivered. Never blocks.
 */
ZKL_API int zkl_client_dispatch(zkl_client *c, int max_events);

/*
 * Pull form: takes the next pending event (the caller frees it with
 * zkl_event_free), or ZKL_EAGAIN when none is pending. With ZKL_IO_HOST it
 * does the pending I/O first. Callbacks are not invoked (log lines come as
 * ZKL_EVENT_LOG events). Use either this or zkl_client_dispatch on a
 * client, not both.
 */
ZKL_API int zkl_client_next_event(zkl_client *c, zkl_event **out);

/*
 * Blocks until an event is pending (returns 1), the timeout passes or
 * zkl_client_wakeup() is called (returns 0). Does not consume events.
 * With ZKL_IO_HOST it does the I/O while it waits.
 */
ZKL_API int zkl_client_wait(zkl_client *c, int64_t timeout_ms);

/* Makes one zkl_client_wait() (current or next) return 0. Thread-safe. */
ZKL_API int zkl_client_wakeup(zkl_client *c);

/*
 * Statistics of the client and of each of its handles as one JSON document
 * (schema in docs/STATISTICS.md; its "schema" field is versioned). *json is
 * NUL-terminated; free it with zkl_free. *len may be NULL.
 */
ZKL_API int zkl_client_stats(zkl_client *c, char **json, size_t *len);

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
#define ZKL_LOCK_SEMAPHORE 6 /* `leases` of max_leases leases, FIFO        */

/* What a holder does on a revocation request (on_revoke). */
#define ZKL_REVOKE_IGNORE 0  /* not watched (no extra request per hold)    */
#define ZKL_REVOKE_NOTIFY 1  /* REVOKE_REQUESTED event; the holder decides */
#define ZKL_REVOKE_RELEASE 2 /* the event, then zkl releases by itself and
                                delivers LOST with ZKL_EREVOKED            */

/* The owner bindings use when the caller names none. */
#define ZKL_DEFAULT_OWNER 1

#define ZKL_LOCK_OPTIONS_VERSION 1

typedef struct zkl_lock_options {
  uint32_t version;    /* ZKL_LOCK_OPTIONS_VERSION                          */
  int32_t kind;        /* ZKL_LOCK_* (FAIR)                                 */
  int32_t max_leases;  /* SEMAPHORE: N >= 1; all participants must agree    */
  int32_t leases;      /* SEMAPHORE: leases taken per acquisition, all or
                          none (1..max_leases; default 1). One node: its one
                          fencing token covers them all                    */
  int64_t max_hold_ms; /* > 0: a hold ends after this long: zkl releases it
                          and delivers LOST with ZKL_EMAXHOLD (0: no limit) */
  int32_t on_revoke;   /* ZKL_REVOKE_* (IGNORE)                             */
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
 * node is deleted in the background. Safe inside a callback. ZKL_EBUSY for
 * a member of a multi-lock (destroy the multi-lock).
 */
ZKL_API int zkl_lock_destroy(zkl_lock *l);

/*
 * Blocking acquire. 0 when held; ZKL_ETIMEDOUT, ZKL_ECANCELED (zkl_lock_cancel
 * from another thread), ZKL_EDEADLK (non-reentrant, already held by this
 * owner), ZKL_EBUSY (held or being acquired by another owner on this
 * handle), ZKL_ECLOSED. On any failure the attempt's node is deleted (in
 * the background: it is gone one round trip later, or with the session; a
 * caller that checks the children at once may still see it). A reentrant
 * lock already held by `owner` only increments its hold count (no server
 * round trip). No event is queued for a blocking acquire. Like any answer,
 * 0 is true when computed: it comes only while the quorum proves the
 * session (first in line right after a freeze, the acquire waits for the
 * next proof, within its timeout). A caller frozen after it learns from
 * zkl_lock_is_held / zkl_lock_valid_for whether the hold is usable now.
 */
ZKL_API int zkl_lock_acquire(zkl_lock *l, uint64_t owner, int64_t timeout_ms);

/* Acquire without waiting: ZKL_EAGAIN if another holder is in the way (one
 * round trip; the node is removed again), ZKL_ECONNECTION when not
 * connected (a try never waits for a reconnect), or when no answer came
 * within a session timeout. */
ZKL_API int zkl_lock_try_acquire(zkl_lock *l, uint64_t owner);

/*
 * Starts an acquire and returns at once: its request id (> 0), or a
 * negative ZKL_E* code (then no event follows). The result arrives as one
 * ACQUIRED or ACQUIRE_FAILED event (error ZKL_ETIMEDOUT / ZKL_ECANCELED /
 * ZKL_ECLOSED / ...) carrying that id (zkl_event_request_id). Waiting
 * survives reconnects and session loss (the acquire restarts in the new
 * session while time remains). A reentrant lock already held by `owner`
 * answers at once (ACQUIRED, hold count + 1).
 */
ZKL_API int zkl_lock_acquire_async(zkl_lock *l, uint64_t owner,
                                   int64_t timeout_ms);

/* Cancels a pending acquire (its node is deleted). ZKL_ENOTHELD if none. */
ZKL_API int zkl_lock_cancel(zkl_lock *l);

/*
 * Releases one hold by `owner`. The last hold deletes the node and returns
 * after the server confirmed it (one round trip). ZKL_ENOTHELD if not held
 * (also a second release), ZKL_ENOTOWNER for another owner; ZKL_ELOST once
 * (for the owner) after a loss that was not yet acknowledged by a release;
 * ZKL_ETIMEDOUT when no answer came within a session timeout: released all
 * the same (the node is deleted in the background, or goes with its
 * session).
 */
ZKL_API int zkl_lock_release(zkl_lock *l, uint64_t owner);

/*
 * Like zkl_lock_release, but returns at once: its request id (> 0), or a
 * negative ZKL_E* code (then no event follows). The delete is sent, and a
 * following acquire on the same handle goes out with it in one request
 * (never ahead of it). One RELEASED event carrying the id reports the
 * outcome (for an inner hold of a reentrant lock: at once, the count
 * dropped and the node stays).
 */
ZKL_API int zkl_lock_release_async(zkl_lock *l, uint64_t owner);

/* 1 if held and provably valid at this instant (see "Truth" above), else
 * 0. Equivalent to zkl_lock_valid_for() > 0. */
ZKL_API int zkl_lock_is_held(zkl_lock *l);

/*
 * The lease deadline: *ms = how long from now (milliseconds, rounded down)
 * the hold stays provably valid even if the server is never heard from
 * again — the server cannot have expired the session and handed the lock
 * to someone else before then. 0 and *ms > 0 while held; ZKL_ENOTHELD with
 * *ms = 0 when not held, suspended, or past the bound. The pattern before a
 * write: check the deadline (or hand it to the work as its own deadline),
 * pass the fencing token to the resource, let the resource reject tokens
 * older than the newest it has seen.
 */
ZKL_API int zkl_lock_valid_for(zkl_lock *l, int64_t *ms);

/* Fencing token of the current hold: strictly increasing across successive
 * holders of the path (the node's czxid), also across deletion and
 * re-creation of the lock's parent. ZKL_ENOTHELD if not held. */
ZKL_API int zkl_lock_fencing_token(zkl_lock *l, uint64_t *out);

/* Current hold count (0 when not held). */
ZKL_API int zkl_lock_hold_count(zkl_lock *l);

/* Statistics of this handle as JSON (the client's document's entry for it);
 * free with zkl_free. */
ZKL_API int zkl_lock_stats(zkl_lock *l, char **json, size_t *len);

/* ------------------------------------------------------------------------ */
/* Multi-lock: several locks, all or none                                   */
/* ------------------------------------------------------------------------ */

#define ZKL_MULTILOCK_OPTIONS_VERSION 1

typedef struct zkl_multilock_options {
  uint32_t version;    /* ZKL_MULTILOCK_OPTIONS_VERSION                     */
  zkl_event_cb cb;     /* optional: the multi-lock's events in dispatch     */
  void *user_data;
} zkl_multilock_options;

ZKL_API int zkl_multilock_options_init(zkl_multilock_options *opts,
                                       uint32_t version);

/*
 * Groups `n` lock handles of client `c` (any mix of FAIR, READ, WRITE and
 * SEMAPHORE, on distinct paths; idle: neither held nor acquiring) into one
 * lock taken all or none. The multi-lock takes over the member handles:
 * from now on only their getters work (other calls give ZKL_EBUSY), their
 * own callbacks get no events, and zkl_multilock_destroy destroys them.
 * Members are always taken in one canonical order (by path), whatever the
 * order given, so overlapping multi-locks never deadlock.
 */
ZKL_API int zkl_multilock_new(zkl_client *c, zkl_lock *const *members, size_t n,
                              const zkl_multilock_options *opts,
                              zkl_multilock **out);
/* Releases or cancels, then destroys the multi-lock and its members. */
ZKL_API int zkl_multilock_destroy(zkl_multilock *m);
/* As the zkl_lock_* calls of the same name, with one deadline for all
 * members (the _async calls return a request id the answering event
 * carries). On timeout, cancel or loss of any member, every member already
 * taken is released. LOST of one member is delivered as LOST of the whole
 * (the others are released). */
ZKL_API int zkl_multilock_acquire(zkl_multilock *m, uint64_t owner,
                                  int64_t timeout_ms);
ZKL_API int zkl_multilock_try_acquire(zkl_multilock *m, uint64_t owner);
ZKL_API int zkl_multilock_acquire_async(zkl_multilock *m, uint64_t owner,
                                        int64_t timeout_ms);
ZKL_API int zkl_multilock_cancel(zkl_multilock *m);
ZKL_API int zkl_multilock_release(zkl_multilock *m, uint64_t owner);
ZKL_API int zkl_multilock_release_async(zkl_multilock *m, uint64_t owner);
ZKL_API int zkl_multilock_is_held(zkl_multilock *m);
/* The smallest valid_for of the members. */
ZKL_API int zkl_multilock_valid_for(zkl_multilock *m, int64_t *ms);
/* Number of members; member i in canonical order (borrowed). */
ZKL_API int zkl_multilock_count(zkl_multilock *m);
ZKL_API int zkl_multilock_member(zkl_multilock *m, size_t i, zkl_lock **out);
/* The fencing token of the member on `path`. ZKL_ENOTFOUND for a path that
 * is no member, ZKL_ENOTHELD when not held. */
ZKL_API int zkl_multilock_fencing_token(zkl_multilock *m, const char *path,
                                        uint64_t *out);

/* ------------------------------------------------------------------------ */
/* Leader election                                                          */
/* ------------------------------------------------------------------------ */

#define ZKL_ELECTION_FAIR 1    /* sequential nodes: leadership in arrival
                                  order (Curator LeaderLatch-style latch-) */
#define ZKL_ELECTION_NONFAIR 2 /* one ephemeral node PATH/leader; all race */

#define ZKL_ELECTION_OPTIONS_VERSION 1

typedef struct zkl_election_options {
  uint32_t version;    /* ZKL_ELECTION_OPTIONS_VERSION                      */
  int32_t kind;        /* ZKL_ELECTION_* (FAIR)                             */
  const char *id;      /* participant id, stored as node data (required)    */
  int32_t on_revoke;   /* ZKL_REVOKE_* (IGNORE)                             */
  zkl_event_cb cb;     /* optional: ELECTED / NOT_ELECTED / SUSPENDED /
                          RESTORED / LOST / REVOKE_REQUESTED events         */
  void *user_data;
} zkl_election_options;

ZKL_API int zkl_election_options_init(zkl_election_options *opts,
                                      uint32_t version);
ZKL_API int zkl_election_new(zkl_client *c, const char *path,
                             const zkl_election_options *opts,
                             zkl_election **out);
/* Leaves the election (resigning if leader) and frees the handle. */
ZKL_API int zkl_election_destroy(zkl_election *e);
/*
 * Campaigns: joins the election and waits to be elected: 0, or
 * ZKL_ETIMEDOUT / ZKL_ECANCELED / ZKL_ECLOSED — then this call has left the
 * election again (as a lock acquire leaves no node). ZKL_EBUSY while an
 * async campaign is pending (wait for its event, or cancel it); 0 at once
 * when already leader. Once elected, a participant stays in the election
 * until it releases: after LOST it rejoins by itself when the session is
 * back (NOT_ELECTED / ELECTED follow).
 */
ZKL_API int zkl_election_acquire(zkl_election *e, int64_t timeout_ms);
/* Without waiting: leader now (0), or ZKL_EAGAIN (left again). A leader
 * elected this way rejoins after LOST and waits in line like any other. */
ZKL_API int zkl_election_try_acquire(zkl_election *e);
/* Joins and returns at once: its request id (> 0), or a negative ZKL_E*
 * code. The events that answer it carry the id: NOT_ELECTED when queued
 * behind a leader, then ELECTED when leader, or ACQUIRE_FAILED (left) when
 * the timeout passes first (< 0: stays in line until elected). Events of a
 * rejoin after LOST answer no call (request id 0). */
ZKL_API int zkl_election_acquire_async(zkl_election *e, int64_t timeout_ms);
/* Leaves the line while not yet elected. ZKL_ENOTHELD if not waiting. */
ZKL_API int zkl_election_cancel(zkl_election *e);
/* Resigns: leaves the election, as leader or from the line (blocks for the
 * node's deletion, one round trip). ZKL_ENOTHELD if not taking part. */
ZKL_API int zkl_election_release(zkl_election *e);
/* 1 if this participant leads, provably at this instant, else 0. */
ZKL_API int zkl_election_is_leader(zkl_election *e);
/* As zkl_lock_valid_for, for the leadership. */
ZKL_API int zkl_election_valid_for(zkl_election *e, int64_t *ms);
/* Fencing token (term) of the current leadership: strictly increasing
 * across successive leaders. ZKL_ENOTHELD when not leader. */
ZKL_API int zkl_election_fencing_token(zkl_election *e, uint64_t *out);
ZKL_API int zkl_election_stats(zkl_election *e, char **json, size_t *len);

/* An observer reports the current leader and term without taking part. */
#define ZKL_OBSERVER_OPTIONS_VERSION 1

typedef struct zkl_observer_options {
  uint32_t version;    /* ZKL_OBSERVER_OPTIONS_VERSION                      */
  int32_t kind;        /* ZKL_ELECTION_* of the election observed (FAIR)    */
  zkl_event_cb cb;     /* optional: LEADER_CHANGED / NO_LEADER events       */
  void *user_data;
} zkl_observer_options;

ZKL_API int zkl_observer_options_init(zkl_observer_options *opts,
                                      uint32_t version);
ZKL_API int zkl_observer_new(zkl_client *c, const char *path,
                             const zkl_observer_options *opts,
                             zkl_observer **out);
ZKL_API int zkl_observer_destroy(zkl_observer *o);
/* Copies the current leader id into buf (NUL-terminated, truncated to
 * len-1) and returns its full length, or ZKL_ENOTFOUND without a leader
 * (also before the observer's first read; an event follows it), or
 * ZKL_ECONNECTION while the answer cannot be proven current: the client
 * is disconnected, or the quorum has not confirmed its session recently
 * enough (see "Truth"; the server it talks to may have lost the ensemble's
 * leader and still serve an old state). */
ZKL_API int zkl_observer_leader(zkl_observer *o, char *buf, size_t len);
/* The current leader's term (its fencing token). ZKL_ENOTFOUND without a
 * leader; ZKL_ECONNECTION as above. */
ZKL_API int zkl_observer_term(zkl_observer *o, uint64_t *out);

/* ------------------------------------------------------------------------ */
/* Guarded writes: ZooKeeper writes that succeed only while the hold is real */
/* ------------------------------------------------------------------------ */

/*
 * A guarded write runs the caller's operations in one ZooKeeper `multi`
 * behind a check that the holder's own node (the lock's, each member's of a
 * multi-lock, the leader's) still exists. The leader applies a session's
 * multi only while the session is alive, all or nothing, in its one order
 * of writes: so the operations are applied only if, at that point of the
 * quorum's history, the hold was real — a holder that was frozen, cut off
 * or expired writes nothing, whatever it believes (docs/FENCING.md).
 *
 * Operations live in the lock's (or election's) tree: strictly below its
 * path, never a participant's node (a child with a sequence suffix, or the
 * fixed node of a non-fair recipe) nor a sequential create directly below
 * the path (it would join the queue). Keep the data a lock guards under it,
 * e.g. /locks/job/state for the lock /locks/job.
 *
 * Results: 0 (every operation applied); nothing applied on any error:
 *   ZKL_ENOTHELD / ZKL_ENOTOWNER  not held (by this owner) when called
 *   ZKL_ELOST      the hold is gone at the quorum (the guard failed), or a
 *                  loss not yet acknowledged by a release
 *   ZKL_ESESSION   the session expired first
 *   ZKL_ENOTFOUND, ZKL_EEXISTS, ZKL_EBADVERSION, ZKL_ENOTEMPTY, ZKL_EAUTH
 *                  an operation failed (zkl_ops_failed says which)
 *   ZKL_EBADPATH   an operation outside the lock's tree (nothing sent)
 *   ZKL_ETOOBIG    the operations exceed one request (1 MiB)
 * and ZKL_EINDOUBT when the connection broke while the write was in
 * flight: it may have been applied. A guarded write never retries itself.
 * It waits for the server's answer (one round trip), or while
 * disconnected for the session to resume (it is sent then) or be lost.
 */

/* zkl_ops_create flags (ZooKeeper's create modes). */
#define ZKL_CREATE_PERSISTENT 0
#define ZKL_CREATE_EPHEMERAL 1   /* dies with this client's session        */
#define ZKL_CREATE_SEQUENTIAL 2  /* appends a sequence number: the created
                                    name is zkl_ops_path                    */
/* Version argument meaning "whatever the version". */
#define ZKL_ANY_VERSION -1
/* The most a write's operations may carry: paths and data together
 * (ZooKeeper's request limit, jute.maxbuffer, is 1 MiB). */
#define ZKL_OPS_MAX_BYTES 1000000

/* A list of operations (plain owned object, not thread-safe). */
ZKL_API int zkl_ops_new(zkl_ops **out);
ZKL_API void zkl_ops_free(zkl_ops *ops);
/* Appends one operation; ZKL_EBADPATH, ZKL_EINVAL (flags, version < -1,
 * NULL data with len > 0), ZKL_ETOOBIG (over ZKL_OPS_MAX_BYTES). */
ZKL_API int zkl_ops_create(zkl_ops *ops, const char *path, const void *data, size_t len,
                           int32_t flags);
ZKL_API int zkl_ops_set(zkl_ops *ops, const char *path, const void *data, size_t len,
                        int32_t version);
ZKL_API int zkl_ops_delete(zkl_ops *ops, const char *path, int32_t version);
ZKL_API int zkl_ops_check(zkl_ops *ops, const char *path, int32_t version);
ZKL_API int zkl_ops_count(const zkl_ops *ops);
/* After a write: the index of the operation that failed, or -1 (applied, or
 * failed for a reason of no one operation: ELOST, EINDOUBT, ...). */
ZKL_API int zkl_ops_failed(const zkl_ops *ops);
/* After a write: the path a create made (with its sequence number), into
 * buf (NUL-terminated, truncated to len-1); returns its full length.
 * ZKL_ENOTFOUND when operation i made none, ZKL_ERANGE for a bad index. */
ZKL_API int zkl_ops_path(const zkl_ops *ops, size_t i, char *buf, size_t len);
/* After a write: the node's data version after a create (0) or set. */
ZKL_API int zkl_ops_version(const zkl_ops *ops, size_t i, int32_t *out);

/* Runs `ops` guarded by the hold of `owner` (see above); the results are
 * written into `ops`. */
ZKL_API int zkl_lock_write(zkl_lock *l, uint64_t owner, zkl_ops *ops);
/* The same, returning at once: a request id (> 0), or an error when nothing
 * was sent (checked as in the blocking form). One WRITTEN event answers it
 * (zkl_event_request_id), its results in zkl_event_ops. `ops` is copied. */
ZKL_API int zkl_lock_write_async(zkl_lock *l, uint64_t owner, const zkl_ops *ops);
/* Guarded by every member's node; operations below any member's path. */
ZKL_API int zkl_multilock_write(zkl_multilock *m, uint64_t owner, zkl_ops *ops);
ZKL_API int zkl_multilock_write_async(zkl_multilock *m, uint64_t owner, const zkl_ops *ops);
/* Guarded by the leadership (ZKL_ENOTHELD when not leader). */
ZKL_API int zkl_election_write(zkl_election *e, zkl_ops *ops);
ZKL_API int zkl_election_write_async(zkl_election *e, const zkl_ops *ops);
/*
 * The leader replaces the value it publishes (its id, the node's data)
 * without leaving the election (etcd's Proclaim): observers report the new
 * value with the same term (LEADER_CHANGED). One round trip; 0, or as a
 * guarded write (ZKL_ENOTHELD when not leader, ZKL_ELOST, ZKL_EINDOUBT...).
 * A later rejoin publishes the new value too.
 */
ZKL_API int zkl_election_proclaim(zkl_election *e, const void *data, size_t len);


/* ------------------------------------------------------------------------ */
/* Inspection and revocation (for tools: who holds, who waits)              */
/* ------------------------------------------------------------------------ */

#define ZKL_INSPECT_OPTIONS_VERSION 1

typedef struct zkl_inspect_options {
  uint32_t version;      /* ZKL_INSPECT_OPTIONS_VERSION                     */
  int32_t lock_kind;     /* the path is a lock of this ZKL_LOCK_* (FAIR) ... */
  int32_t election_kind; /* ... or, when > 0, an election of this kind      */
  int64_t timeout_ms;    /* bound of the whole call (-1: none)              */
} zkl_inspect_options;

ZKL_API int zkl_inspect_options_init(zkl_inspect_options *opts,
                                     uint32_t version);

/*
 * Reads the participants under `path` (one round trip per node), in queue
 * order. The caller frees the result with zkl_participants_free.
 */
ZKL_API int zkl_inspect(zkl_client *c, const char *path,
                        const zkl_inspect_options *opts,
                        zkl_participants **out);
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
/* Semaphore leases this participant takes (1 for other recipes). */
ZKL_API int zkl_participants_leases(const zkl_participants *p, size_t i);
ZKL_API void zkl_participants_free(zkl_participants *p);

/*
 * Asks holders of `path` to let go (cooperative, as Apache Curator's
 * Revoker: it writes Curator's marker into the holder's node, which both
 * Curator and zkl holders watch when revocable). `holder` is one node name
 * as zkl_participants_name gives it, or NULL for every current holder.
 * Returns the number of holders asked (>= 0).
 */
ZKL_API int zkl_revoke(zkl_client *c, const char *path,
                       const zkl_inspect_options *opts, const char *holder);

/*
 * For resources that are not ZooKeeper: is `token` the fencing token of a
 * current holder of `path` (a lock of opts->lock_kind, or an election of
 * opts->election_kind)? 0 when it is; ZKL_ESTALE when it is not (a later
 * holder has it, or nobody); ZKL_ETIMEDOUT, ZKL_ECONNECTION... when the
 * question could not be answered. The answer is read after a `sync`, so it
 * is at least as new as the quorum's state when the call began, never one
 * lagging server's. It is a snapshot: a resource that must not accept a
 * stale holder compares tokens itself (docs/FENCING.md), and uses this
 * call to refuse early or to audit.
 */
ZKL_API int zkl_fence_check(zkl_client *c, const char *path, const zkl_inspect_options *opts,
                            uint64_t token);

#ifdef __cplusplus
}
#endif

#endif /* ZKL_H */
