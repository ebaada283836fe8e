/* Child supervision for `zkl lock` and `zkl elect` (see supervise.h). */
#define _GNU_SOURCE
#include "supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"
#include "util.h"

extern char **environ;

/* Secrets zkl may have taken from its environment: CMD does not get them. */
static const char *const secret_vars[] = {"ZKL_AUTH=", "ZKL_SASL_PASSWORD=", "ZKL_TLS_KEY_PASSWORD="};

void child_init(struct child *ch, int foreground) {
  memset(ch, 0, sizeof *ch);
  ch->own_group = !foreground;
  ch->kill_at = -1;
}

static void child_signal(struct child *ch, int sig) {
  if (ch->pid <= 0) return;
  if (ch->own_group && kill(-ch->pid, sig) == 0) return;
  kill(ch->pid, sig);
}

/* Environment for CMD: ours without the given keys and secrets, plus extras. */
static char **child_env(char **extra) {
  size_t n = 0, k = 0;
  while (environ[n]) n++;
  while (extra[k]) k++;
  char **env = calloc(n + k + 1, sizeof *env);
  if (!env) die(EXIT_ZKL, "out of memory");
  size_t j = 0;
  for (size_t i = 0; i < n; i++) {
    int drop = 0;
    for (size_t x = 0; x < k && !drop; x++) {
      size_t keylen = (size_t)(strchr(extra[x], '=') - extra[x]) + 1;
      drop = strncmp(environ[i], extra[x], keylen) == 0;
    }
    for (size_t x = 0; x < sizeof secret_vars / sizeof secret_vars[0] && !drop; x++) {
      drop = strncmp(environ[i], secret_vars[x], strlen(secret_vars[x])) == 0;
    }
    if (!drop) env[j++] = environ[i];
  }
  for (size_t x = 0; x < k; x++) env[j++] = extra[x];
  env[j] = NULL;
  return env;
}

int child_start(struct child *ch, char **argv, char **extra) {
  char **env = child_env(extra);
  int ep[2];
  if (pipe2(ep, O_CLOEXEC) != 0) die(EXIT_ZKL, "pipe: %s", strerror(errno));
  fflush(stdout);
  fflush(errf);
  pid_t pid = fork();
  if (pid < 0) die(EXIT_ZKL, "fork: %s", strerror(errno));
  if (pid == 0) {
    close(ep[0]);
    if (ch->own_group) setpgid(0, 0);
    /* If zkl dies (even by SIGKILL), CMD is told to stop: it would otherwise
     * run on without the lock. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != zkl_pid) _exit(EXIT_ZKL);
    if (err_fd != 2) dup2(err_fd, 2); /* CMD gets the real stderr */
    sigprocmask(SIG_SETMASK, &orig_mask, NULL);
    execvpe(argv[0], argv, env);
    int e = errno;
    ssize_t w = write(ep[1], &e, sizeof e);
    (void)w;
    _exit(e == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
  }
  if (ch->own_group) setpgid(pid, pid); /* no race with the first signal */
  close(ep[1]);
  free(env);
  for (size_t x = 0; extra[x]; x++) free(extra[x]);
  int e = 0;
  ssize_t r;
  do r = read(ep[0], &e, sizeof e); while (r < 0 && errno == EINTR);
  close(ep[0]);
  if (r == (ssize_t)sizeof e) {
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    error_msg("cannot run '%s': %s", argv[0], strerror(e));
    return e == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC;
  }
  ch->pid = pid;
  ch->stopping = 0;
  ch->kill_at = -1;
  info("started %s (pid %d)", argv[0], (int)pid);
  return 0;
}

int child_reap(struct child *ch) {
  if (ch->pid <= 0) return 0;
  int st;
  pid_t r = waitpid(ch->pid, &st, WNOHANG);
  if (r != ch->pid) return 0;
  ch->status = st;
  ch->pid = 0;
  ch->kill_at = -1;
  if (WIFEXITED(st)) info("command exited with status %d", WEXITSTATUS(st));
  else if (WIFSIGNALED(st)) info("command was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
  return 1;
}

int child_exit_code(const struct child *ch) {
  if (WIFEXITED(ch->status)) return WEXITSTATUS(ch->status);
  if (WIFSIGNALED(ch->status)) return 128 + WTERMSIG(ch->status);
  return EXIT_ZKL;
}

void child_stop(struct child *ch, int64_t grace_ms) {
  if (ch->pid <= 0 || ch->stopping) return;
  ch->stopping = 1;
  if (grace_ms == 0) {
    info("sending SIGKILL to the command");
    child_signal(ch, SIGKILL);
    return;
  }
  char d[32];
  format_duration(grace_ms, d, sizeof d);
  info("sending SIGTERM to the command (SIGKILL in %s)", d);
  child_signal(ch, SIGTERM);
  ch->kill_at = now_ms() + grace_ms;
}

void child_check_kill(struct child *ch) {
  if (ch->pid > 0 && ch->kill_at >= 0 && now_ms() >= ch->kill_at) {
    error_msg("the command did not stop within the grace period: sending SIGKILL");
    child_signal(ch, SIGKILL);
    ch->kill_at = -1;
  }
}

void child_forward(struct child *ch, const struct signalfd_siginfo *si) {
  if (ch->pid <= 0) return;
  /* With --foreground, CMD shares zkl's process group, so a terminal's
   * signal (SI_KERNEL) reached it too. */
  if (!ch->own_group && si->ssi_code == SI_KERNEL) return;
  info("forwarding signal %d (%s) to the command", (int)si->ssi_signo, strsignal((int)si->ssi_signo));
  child_signal(ch, (int)si->ssi_signo);
}

void lease_start(struct lease *l) {
  l->active = 1;
  l->suspended = 0;
  l->until = -1;
}

void lease_suspended(struct lease *l) { l->suspended = 1; }

void lease_restored(struct lease *l) {
  l->suspended = 0;
  l->until = -1; /* asked again at once */
}

void lease_end(struct lease *l) { l->active = 0; }

int64_t lease_wakeup(const struct lease *l) {
  if (!l->active) return -1;
  /* Suspended: the hold stays provable until `until` at most; wake then. */
  if (l->suspended) return l->until;
  int64_t now = now_ms();
  if (l->until < 0) return now + 100; /* not yet known: ask again soon */
  int64_t half = (l->until - now) / 2;
  return now + (half < 20 ? 20 : half);
}

int lease_lapsed(struct lease *l, int rc, int64_t ms) {
  if (!l->active) return 0;
  int64_t now = now_ms();
  /* Suspended: no RESTORED before the last lease answer ran out, so the
   * leader may have expired the session by now (docs/SAFETY.md). */
  if (l->suspended) return l->until >= 0 && now >= l->until;
  if (rc == 0 && ms > 0) {
    l->until = now + ms;
    return 0;
  }
  /* 0 while `until` is still ahead: a suspension whose event is on its way. */
  return l->until >= 0 && now >= l->until;
}

int64_t earliest(int64_t a, int64_t b) {
  if (a < 0) return b;
  if (b < 0) return a;
  return a < b ? a : b;
}

int supervise_wait(int zfd, int sfd, int64_t wake, struct child *ch) {
  struct pollfd p[2] = {{zfd, POLLIN, 0}, {sfd, POLLIN, 0}};
  int n = poll(p, 2, poll_ms(wake));
  if (n < 0 && errno != EINTR) die(EXIT_ZKL, "poll: %s", strerror(errno));
  child_check_kill(ch);
  return (p[1].revents & POLLIN) != 0;
}

void supervise_stop(struct lease *l, struct child *ch, int64_t grace_ms) {
  lease_end(l);
  child_stop(ch, grace_ms);
}
