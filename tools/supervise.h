/*
 * Child supervision for `zkl lock` and `zkl elect`: starting CMD, passing on
 * signals, stopping it (SIGTERM, SIGKILL after a grace period), and the lease
 * truth — noticing that a hold is no longer provable even before an event
 * says so (e.g. zkl itself was frozen past its lease).
 */
#ifndef ZKL_TOOLS_SUPERVISE_H
#define ZKL_TOOLS_SUPERVISE_H

#include <stdint.h>
#include <sys/signalfd.h>
#include <sys/types.h>

struct child {
  pid_t pid;          /* 0: not running */
  int own_group;      /* CMD leads its own process group (default) */
  int stopping;       /* SIGTERM sent because the hold ended */
  int64_t kill_at;    /* monotonic ms for SIGKILL, -1 none */
  int status;         /* wait status once exited */
};

void child_init(struct child *ch, int foreground);
/* Starts CMD with our environment plus the "K=V" strings of extra (which
 * replace variables of the same name; secrets in ZKL_AUTH,
 * ZKL_SASL_PASSWORD and ZKL_TLS_KEY_PASSWORD are not passed on). Returns 0,
 * or EXIT_NOEXEC / EXIT_NOTFOUND after printing why. Frees extra's strings. */
int child_start(struct child *ch, char **argv, char **extra);
/* Reaps CMD if it ended: returns 1 then (ch->status set, ch->pid = 0). */
int child_reap(struct child *ch);
/* The shell's convention: exit status, or 128 + the signal that killed it. */
int child_exit_code(const struct child *ch);
/* Asks CMD to stop (SIGTERM now, SIGKILL after the grace period). */
void child_stop(struct child *ch, int64_t grace_ms);
/* Sends the SIGKILL once the grace period is over. */
void child_check_kill(struct child *ch);
/* A signal to zkl while CMD runs: pass it on. */
void child_forward(struct child *ch, const struct signalfd_siginfo *si);

/*
 * The lease truth of a hold. `until` is the monotonic time up to which the
 * library last said the hold is provably valid (*_valid_for). zkl wakes up
 * at half the remaining time to ask again, so in a running zkl `until` is
 * always ahead; finding it passed with the library answering 0, and no
 * suspension reported, means the lease lapsed unnoticed (zkl was frozen,
 * or starved of CPU, past it): the hold is no longer provable. While
 * SUSPENDED (disconnected, or the quorum has not confirmed the session in
 * time) the last `until` still bounds the hold: past it without RESTORED,
 * the other side may already be granted, so CMD is stopped then.
 */
struct lease {
  int active;      /* held, CMD running, not being stopped */
  int suspended;   /* SUSPENDED seen, no RESTORED yet: the lease runs out at
                      `until` unless RESTORED comes first */
  int64_t until;   /* -1: not yet known */
};

void lease_start(struct lease *l);
void lease_suspended(struct lease *l);
void lease_restored(struct lease *l);
void lease_end(struct lease *l);
/* The monotonic time to ask again (-1: no need). */
int64_t lease_wakeup(const struct lease *l);
/* Feeds the answer of *_valid_for (rc, ms); returns 1 if the lease lapsed. */
int lease_lapsed(struct lease *l, int rc, int64_t ms);

/* The hold ended while CMD runs: ends its lease and asks CMD to stop. */
void supervise_stop(struct lease *l, struct child *ch, int64_t grace_ms);

/* Waits until ZooKeeper (zfd) or a signal (sfd) has something to read, or
 * until the monotonic deadline wake (-1: none); then sends CMD's SIGKILL if
 * it is due. Returns 1 when signals wait on sfd. */
int supervise_wait(int zfd, int sfd, int64_t wake, struct child *ch);

/* The earlier of two monotonic deadlines (-1: none). */
int64_t earliest(int64_t a, int64_t b);

#endif
