/*
 * zkl lock: run CMD while holding a lock (or several: a multi-lock).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <zkl.h>

#include "../client.h"
#include "../metrics.h"
#include "../options.h"
#include "../supervise.h"
#include "../util.h"
#include "cmds.h"

const char lock_help[] =
    "Usage: zkl lock [OPTIONS] PATH [--] CMD [ARGS...]\n"
    "       zkl lock [OPTIONS] PATH PATH... -- CMD [ARGS...]\n"
    "\n"
    "Runs CMD while holding the lock PATH (a ZooKeeper path such as /locks/backup)\n"
    "and exits with CMD's exit status. The lock is released when CMD ends.\n"
    "CMD gets ZKL_FENCING_TOKEN (a number that strictly increases across\n"
    "successive holders: pass it to the resource you protect), ZKL_LOCK_PATH and\n"
    "ZKL_ID in its environment. If the lock is lost while CMD runs (session\n"
    "expired), or is no longer provably held (its lease, which only the\n"
    "ZooKeeper quorum renews, ran out: disconnected or cut off from the quorum\n"
    "too long, or zkl was frozen), CMD gets SIGTERM, then SIGKILL after the\n"
    "grace period, and zkl exits with 75.\n"
    "SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are forwarded to CMD.\n"
    "\n"
    "Several PATHs (followed by --) are one multi-lock: all or none, taken in\n"
    "sorted order so that overlapping multi-locks never deadlock. Then\n"
    "ZKL_FENCING_TOKEN is the token of the first PATH in sorted order, and\n"
    "ZKL_FENCING_TOKENS lists every PATH=TOKEN, separated by spaces (also set\n"
    "for one PATH); ZKL_LOCK_PATHS lists the paths.\n"
    "\n"
    "Lock options:\n"
    "  --timeout D        give up waiting for the lock after D (exit 124),\n"
    "                     counted once connected; 0 = try once (like flock -n);\n"
    "                     default: wait forever\n"
    "  --shared, --read   the shared (read) side of a read/write lock\n"
    "  --exclusive, --write  the exclusive (write) side of a read/write lock\n"
    "  --non-fair         a non-fair lock (one node; waiters race, no queue)\n"
    "  --semaphore N      take one of N leases (all users must agree on N)\n"
    "                     (default: a fair FIFO lock, compatible with Apache\n"
    "                     Curator's InterProcessMutex)\n"
    "  --id ID            who we are, shown by `zkl status` (default HOST:PID)\n"
    "  --grace D          time between SIGTERM and SIGKILL (default 10s)\n"
    "  --stop-on-suspend  stop CMD as soon as the connection is lost, not only\n"
    "                     once the lock is known to be lost\n"
    "  --revocable        honour `zkl revoke` (and Curator's Revoker): stop CMD\n"
    "                     as if the lock were lost, then release it (exit 75)\n"
    "  --max-hold D       hold the lock at most D: then stop CMD, then release\n"
    "                     (exit 75)\n"
    "  --metrics-file F   at exit, write this run's lock statistics to F in the\n"
    "                     Prometheus text format (atomically, by rename)\n"
    "  --foreground       run CMD in zkl's process group (for interactive\n"
    "                     commands); by default CMD gets its own process group\n"
    "                     and signals go to the whole group\n"
    "\n"
    "%s"
    "\n"
    "Exit status:\n"
    "  CMD's status       CMD ran and ended (128+N if killed by signal N)\n"
    "  75                 CMD was stopped: the lock was lost, revoked\n"
    "                     (--revocable) or held for --max-hold (stderr says which)\n"
    "  124                --timeout passed before the lock was acquired\n"
    "  125                zkl failed (bad usage, path or duration, cannot connect)\n"
    "  126                CMD could not be executed\n"
    "  127                CMD was not found\n"
    "  128+N              zkl got signal N while waiting for the lock\n"
    "\n"
    "Examples:\n"
    "  zkl lock /locks/nightly-report -- /usr/local/bin/report --send\n"
    "  zkl lock --timeout 0 /locks/cron/backup -- backup.sh   # skip if running\n"
    "  zkl lock --shared /locks/schema -- run-migration-check\n"
    "  zkl lock /accounts/a /accounts/b -- transfer.sh        # both or none\n";

/* One lock, or a multi-lock of several. */
struct hold {
  const struct run_opts *ro;
  zkl_client *c;
  zkl_lock *locks[MAX_PATHS]; /* in the order given; members of m if n > 1 */
  zkl_multilock *m;
  int n;
};

static const char *lock_kind_name(int kind) {
  switch (kind) {
    case ZKL_LOCK_FAIR: return "fair lock";
    case ZKL_LOCK_NONFAIR: return "non-fair lock";
    case ZKL_LOCK_READ: return "read lock";
    case ZKL_LOCK_WRITE: return "write lock";
    case ZKL_LOCK_SEMAPHORE: return "semaphore lease";
    default: return "lock";
  }
}

static void hold_new(struct hold *h, const struct run_opts *ro, zkl_client *c, const char *id) {
  memset(h, 0, sizeof *h);
  h->ro = ro;
  h->c = c;
  h->n = ro->npaths;
  for (int i = 0; i < h->n; i++) {
    zkl_lock_options lo;
    zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION);
    lo.kind = ro->kind;
    lo.max_leases = ro->leases;
    lo.data = id;
    lo.data_len = strlen(id);
    lo.on_revoke = ro->revocable ? ZKL_REVOKE_NOTIFY : ZKL_REVOKE_IGNORE;
    /* zkl stops CMD at --max-hold itself, then releases; the library's own
     * limit is only a backstop should that stall (past the grace period). */
    if (ro->max_hold_ms > 0) lo.max_hold_ms = ro->max_hold_ms + ro->grace_ms + 5000;
    int rc = zkl_lock_new(c, ro->paths[i], &lo, &h->locks[i]);
    if (rc != 0) {
      zkl_client_destroy(c);
      bad_path(ro->paths[i], rc);
    }
  }
  if (h->n > 1) {
    zkl_multilock_options mo;
    zkl_multilock_options_init(&mo, ZKL_MULTILOCK_OPTIONS_VERSION);
    int rc = zkl_multilock_new(c, h->locks, (size_t)h->n, &mo, &h->m);
    if (rc != 0) {
      zkl_client_destroy(c);
      die(EXIT_ZKL, "cannot make a multi-lock of these paths: %s", zkl_strerror(rc));
    }
  }
}

/* Our events: the lock's, or the multi-lock's (not its members'). */
static int hold_event(const struct hold *h, const zkl_event *ev) {
  if (zkl_event_type(ev) == ZKL_EVENT_SESSION) return 1;
  if (h->m) {
    zkl_multilock *m = NULL;
    return zkl_event_multilock(ev, &m) == 0 && m == h->m;
  }
  zkl_lock *l = NULL;
  return zkl_event_lock(ev, &l) == 0 && l == h->locks[0];
}

static int hold_valid_for(struct hold *h, int64_t *ms) {
  return h->m ? zkl_multilock_valid_for(h->m, ms) : zkl_lock_valid_for(h->locks[0], ms);
}

/* The path of member i in canonical order. */
static const char *member_path(const struct hold *h, size_t i, zkl_lock **out) {
  zkl_lock *l = h->locks[0];
  if (h->m) zkl_multilock_member(h->m, i, &l);
  if (out) *out = l;
  for (int k = 0; k < h->n; k++) {
    if (h->locks[k] == l) return h->ro->paths[k];
  }
  return h->ro->path;
}

/* CMD's environment: the tokens and paths. */
static void hold_env(const struct hold *h, const char *id, char **extra) {
  char *tokens = xasprintf("ZKL_FENCING_TOKENS=");
  char *paths = xasprintf("ZKL_LOCK_PATHS=");
  uint64_t first = 0;
  for (int i = 0; i < h->n; i++) {
    zkl_lock *l;
    const char *p = member_path(h, (size_t)i, &l);
    uint64_t t = 0;
    zkl_lock_fencing_token(l, &t);
    if (i == 0) first = t;
    char *nt = xasprintf("%s%s%s=%" PRIu64, tokens, i ? " " : "", p, t);
    char *np = xasprintf("%s%s%s", paths, i ? " " : "", p);
    free(tokens);
    free(paths);
    tokens = nt;
    paths = np;
  }
  extra[0] = xasprintf("ZKL_FENCING_TOKEN=%" PRIu64, first);
  extra[1] = xasprintf("ZKL_LOCK_PATH=%s", member_path(h, 0, NULL));
  extra[2] = xasprintf("ZKL_ID=%s", id);
  extra[3] = tokens;
  extra[4] = paths;
  extra[5] = NULL;
}

static void write_metrics(struct hold *h, int code) {
  if (!h->ro->metrics_file) return;
  struct metrics_entry e[MAX_PATHS] = {{NULL, NULL}};
  size_t n = 0;
  for (int i = 0; i < h->n; i++) {
    zkl_lock *l;
    e[n].path = member_path(h, (size_t)i, &l);
    e[n].json = NULL;
    if (zkl_lock_stats(l, &e[n].json, NULL) == 0 && e[n].json) n++;
  }
  if (metrics_write(h->ro->metrics_file, e, n, code) != 0) {
    error_msg("cannot write --metrics-file '%s': %s", h->ro->metrics_file, strerror(errno));
  }
  for (size_t i = 0; i < n; i++) zkl_free(e[i].json);
}

/* Every exit once the handles exist: release (or not), metrics, cleanup. */
static int finish(struct hold *h, int code, int release) {
  if (release) {
    int rc = h->m ? zkl_multilock_release(h->m, OWNER) : zkl_lock_release(h->locks[0], OWNER);
    if (rc == ZKL_ELOST) {
      /* Lost at the very end (LOST not yet seen): say so. */
      error_msg("lock %s was lost while the command ran", h->ro->path);
      code = EXIT_LOST;
    } else if (rc != 0) {
      info("release: %s (the session's close removes the node)", zkl_strerror(rc));
    } else {
      info("released %s", h->ro->path);
    }
  }
  write_metrics(h, code);
  if (h->m) zkl_multilock_destroy(h->m);
  else zkl_lock_destroy(h->locks[0]);
  zkl_client_destroy(h->c);
  return code;
}

static int acquire_failed(struct hold *h, int rc) {
  const struct run_opts *ro = h->ro;
  if (rc == ZKL_ETIMEDOUT || rc == ZKL_EAGAIN) {
    if (ro->timeout_ms == 0) {
      error_msg("%s is held by someone else (--timeout 0)", ro->path);
    } else {
      char d[32];
      format_duration(ro->timeout_ms, d, sizeof d);
      error_msg("timed out after %s waiting for %s", d, ro->path);
    }
    return finish(h, EXIT_TIMEOUT, 0);
  }
  if (rc == ZKL_EMISMATCH) {
    error_msg("cannot acquire %s: the other holders use a different lease count than %d", ro->path,
              ro->leases);
  } else {
    char why[1200];
    error_msg("cannot acquire %s: %s", ro->path, why_failed(h->c, rc, why, sizeof why));
  }
  return finish(h, EXIT_ZKL, 0);
}

/* Why CMD is being stopped (0: it is not). */
enum { STOP_NONE, STOP_LOST, STOP_REVOKED, STOP_MAX_HOLD };

int cmd_lock(int argc, char **argv) {
  struct common co;
  struct run_opts ro;
  common_init(&co);
  parse_run("lock ", argc, argv, &co, &ro, 0, lock_help);
  char *id = ro.id ? (char *)ro.id : default_id();

  int sfd = setup_signals();
  zkl_client *c = client_new(&co);
  struct hold h;
  hold_new(&h, &ro, c, id);
  wait_connected(c, &co, sfd);

  int zfd = zkl_client_fd(c);
  struct child ch;
  child_init(&ch, ro.foreground);
  struct lease lease = {0, 0, -1};
  int held = 0, started = 0, ended = 0, stop = STOP_NONE, rc;
  int64_t max_hold_at = -1;

  if (ro.timeout_ms == 0) {
    info("trying %s %s", lock_kind_name(ro.kind), ro.path);
    rc = h.m ? zkl_multilock_try_acquire(h.m, OWNER) : zkl_lock_try_acquire(h.locks[0], OWNER);
    if (rc != 0) return acquire_failed(&h, rc);
    held = 1;
  } else {
    info("waiting for %s %s%s", lock_kind_name(ro.kind), ro.path, h.n > 1 ? " (and the other paths)" : "");
    rc = h.m ? zkl_multilock_acquire_async(h.m, OWNER, ro.timeout_ms)
             : zkl_lock_acquire_async(h.locks[0], OWNER, ro.timeout_ms);
    if (rc < 0) return acquire_failed(&h, rc);
  }

  for (;;) {
    if (held && stop && !started) {
      error_msg("lock %s was lost before the command could start (exit %d)", ro.path, EXIT_LOST);
      return finish(&h, EXIT_LOST, 0);
    }
    if (held && !started) {
      started = 1;
      char *extra[6];
      hold_env(&h, id, extra);
      info("acquired %s, fencing token %s", ro.path, extra[0] + strlen("ZKL_FENCING_TOKEN="));
      int src = child_start(&ch, ro.cmd, extra);
      if (src != 0) return finish(&h, src, 1);
      lease_start(&lease);
      if (ro.max_hold_ms > 0) max_hold_at = now_ms() + ro.max_hold_ms;
    }
    if (ended) break;

    int64_t wake = earliest(earliest(ch.kill_at, lease_wakeup(&lease)), stop ? -1 : max_hold_at);
    int signals = supervise_wait(zfd, sfd, wake, &ch);

    /* The lease truth first: after a freeze, before the events explain it. */
    if (started && !stop) {
      int64_t ms = 0;
      int vrc = hold_valid_for(&h, &ms);
      if (lease_lapsed(&lease, vrc, ms)) {
        error_msg("lock %s is no longer provably held (its lease lapsed without word from "
                  "the ZooKeeper quorum): stopping the command", ro.path);
        stop = STOP_LOST;
      } else if (max_hold_at >= 0 && now_ms() >= max_hold_at) {
        char d[32];
        format_duration(ro.max_hold_ms, d, sizeof d);
        error_msg("lock %s held for --max-hold %s: stopping the command", ro.path, d);
        stop = STOP_MAX_HOLD;
      }
      if (stop) {
        supervise_stop(&lease, &ch, ro.grace_ms);
      }
    }

    if (signals) {
      struct signalfd_siginfo si;
      for (int sig; (sig = read_signal(sfd, &si)) != 0;) {
        if (sig == SIGCHLD) {
          if (child_reap(&ch)) ended = 1;
          continue;
        }
        if (!held) {
          info("got signal %d (%s) while waiting: giving up", sig, strsignal(sig));
          return finish(&h, 128 + sig, 0);
        }
        child_forward(&ch, &si);
      }
    }

    zkl_event *ev = NULL;
    while (zkl_client_next_event(c, &ev) == 0) {
      int type = zkl_event_type(ev);
      int err = zkl_event_error(ev);
      if (!hold_event(&h, ev)) type = 0;
      switch (type) {
        case ZKL_EVENT_SESSION: {
          int st = zkl_event_session_state(ev);
          info("session %s", session_state_name(st));
          if (st == ZKL_SESSION_AUTH_FAILED && !held) {
            zkl_event_free(ev);
            error_msg("ZooKeeper rejected the credentials given with --auth");
            return finish(&h, EXIT_ZKL, 0);
          }
          break;
        }
        case ZKL_EVENT_ACQUIRED:
          held = 1;
          break;
        case ZKL_EVENT_ACQUIRE_FAILED:
          zkl_event_free(ev);
          return acquire_failed(&h, err);
        case ZKL_EVENT_SUSPENDED:
          lease_suspended(&lease);
          if (ro.stop_on_suspend && !stop) {
            error_msg("connection to ZooKeeper lost: the lock may be lost; stopping the command "
                      "(--stop-on-suspend)");
            stop = STOP_LOST;
            child_stop(&ch, ro.grace_ms);
          } else {
            info("the lock may be lost (disconnected, or not confirmed by the quorum in time): "
                 "waiting until its lease ends for the session to be confirmed again");
          }
          break;
        case ZKL_EVENT_RESTORED:
          lease_restored(&lease);
          info("reconnected in time: the lock is still held");
          break;
        case ZKL_EVENT_REVOKE_REQUESTED:
          if (!stop && started) {
            error_msg("revocation of %s requested: stopping the command (--revocable)", ro.path);
            stop = STOP_REVOKED;
            supervise_stop(&lease, &ch, ro.grace_ms);
          }
          break;
        case ZKL_EVENT_LOST:
          if (stop != STOP_LOST) {
            if (!stop) error_msg("lock %s lost (%s): stopping the command", ro.path, zkl_strerror(err));
            stop = STOP_LOST;
            supervise_stop(&lease, &ch, ro.grace_ms);
          }
          break;
        default:
          break;
      }
      zkl_event_free(ev);
    }
  }

  /* CMD ended. */
  switch (stop) {
    case STOP_LOST:
      error_msg("the command was stopped because the lock was lost (exit %d)", EXIT_LOST);
      return finish(&h, EXIT_LOST, 0);
    case STOP_REVOKED:
      error_msg("the command was stopped because revocation was requested (exit %d)", EXIT_LOST);
      return finish(&h, EXIT_LOST, 1);
    case STOP_MAX_HOLD:
      error_msg("the command was stopped because it held the lock for --max-hold (exit %d)", EXIT_LOST);
      return finish(&h, EXIT_LOST, 1);
    default:
      return finish(&h, child_exit_code(&ch), 1);
  }
}
