/*
 * zkl — run a command while holding a ZooKeeper lock or while elected leader,
 * and show who holds a lock and who waits.
 *
 * Built on the public C API (zkl.h) only. One thread: a poll(2) loop over the
 * client's event fd and a signalfd (SIGCHLD tells when the command ends).
 * See `zkl --help` and tools/README.md.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zkl.h>

/* Exit statuses (documented in --help and tools/README.md). */
#define EXIT_LOST 75       /* lock / leadership lost while CMD ran */
#define EXIT_TIMEOUT 124   /* --timeout passed before the lock was acquired */
#define EXIT_ZKL 125       /* zkl itself failed (usage, connection, ZooKeeper) */
#define EXIT_NOEXEC 126    /* CMD found but could not be executed */
#define EXIT_NOTFOUND 127  /* CMD not found */
#define EXIT_NOLEADER 1    /* `zkl leader`: there is no leader */

#define OWNER 1 /* the one owner token this process uses */

extern char **environ;

static const char *prog = "zkl";
static int verbose = 0;
/* zkl's own messages go here: the real stderr. The ZooKeeper C client logs
 * to fd 2, which zkl points at /dev/null (see quiet_zookeeper_log). */
static FILE *errf;
static int err_fd = 2;
static sigset_t orig_mask;
static pid_t zkl_pid;

/* ------------------------------------------------------------------------ */
/* Messages                                                                 */
/* ------------------------------------------------------------------------ */

static void vmsg(const char *fmt, va_list ap) {
  char buf[2048];
  vsnprintf(buf, sizeof buf, fmt, ap);
  fprintf(errf, "%s: %s\n", prog, buf);
  fflush(errf);
}

static void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void error_msg(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vmsg(fmt, ap);
  va_end(ap);
}

static void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void info(const char *fmt, ...) {
  if (!verbose) return;
  va_list ap;
  va_start(ap, fmt);
  vmsg(fmt, ap);
  va_end(ap);
}

static void die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vmsg(fmt, ap);
  va_end(ap);
  exit(status);
}

static void usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
static void usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vmsg(fmt, ap);
  va_end(ap);
  fprintf(errf, "Try '%s %s--help' for more information.\n", prog, cmd ? cmd : "");
  exit(EXIT_ZKL);
}

/* ------------------------------------------------------------------------ */
/* Time and durations                                                       */
/* ------------------------------------------------------------------------ */

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "500ms", "1.5s", "2m", "1h"; a plain number is seconds. -1 if malformed. */
static int parse_duration(const char *s, int64_t *out) {
  if (!s || !(isdigit((unsigned char)s[0]) || (s[0] == '.' && isdigit((unsigned char)s[1])))) {
    return -1;
  }
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno != 0 || end == s) return -1;
  double mult;
  if (*end == '\0' || strcmp(end, "s") == 0) mult = 1000;
  else if (strcmp(end, "ms") == 0) mult = 1;
  else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0) mult = 60000;
  else if (strcmp(end, "h") == 0) mult = 3600000;
  else return -1;
  double ms = v * mult;
  if (!(ms >= 0) || ms > 1e12) return -1; /* also rejects NaN */
  *out = (int64_t)(ms + 0.5);
  return 0;
}

static void format_duration(int64_t ms, char *buf, size_t len) {
  if (ms < 0) ms = 0;
  if (ms < 1000) snprintf(buf, len, "%" PRId64 "ms", ms);
  else if (ms < 60000) snprintf(buf, len, "%.1fs", (double)ms / 1000.0);
  else if (ms < 3600000) snprintf(buf, len, "%" PRId64 "m%02" PRId64 "s", ms / 60000, (ms / 1000) % 60);
  else snprintf(buf, len, "%" PRId64 "h%02" PRId64 "m", ms / 3600000, (ms / 60000) % 60);
}

/* ------------------------------------------------------------------------ */
/* Options                                                                  */
/* ------------------------------------------------------------------------ */

struct common {
  const char *servers;
  int64_t session_timeout_ms; /* 0: library default */
  int64_t connect_timeout_ms;
  const char *auth;
  int acl;
};

static void common_init(struct common *co) {
  memset(co, 0, sizeof *co);
  const char *env = getenv("ZKL_SERVERS");
  co->servers = env && env[0] ? env : "127.0.0.1:2181";
  co->connect_timeout_ms = 10000;
  co->acl = ZKL_ACL_OPEN;
}

static const char common_help[] =
    "Connection options (every subcommand):\n"
    "  --servers HOST:PORT[,...]  ZooKeeper servers (default: $ZKL_SERVERS,\n"
    "                             else 127.0.0.1:2181)\n"
    "  --session-timeout D        requested session timeout (default 10s)\n"
    "  --connect-timeout D        give up connecting after D (default 10s)\n"
    "  --auth USER:PASSWORD       digest authentication (never printed)\n"
    "  --acl open|creator         ACL of created nodes (default open; creator\n"
    "                             needs --auth: others may read, not delete)\n"
    "  -v, --verbose              progress on stderr\n"
    "  -h, --help                 this help\n"
    "Durations: 500ms, 5s, 1.5s, 2m, 1h; a plain number is seconds.\n";

/* A tiny option scanner: "--name value", "--name=value", flags. */
struct scan {
  int argc;
  char **argv;
  int i;
  const char *cmd;      /* for messages */
  const char *name;     /* current option, without "=value" */
  const char *inline_v; /* value after '=', or NULL */
  char namebuf[64];
};

/* Splits argv[i] into name and inline value. */
static void scan_split(struct scan *s) {
  const char *a = s->argv[s->i];
  const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
  if (eq) {
    size_t n = (size_t)(eq - a);
    if (n >= sizeof s->namebuf) n = sizeof s->namebuf - 1;
    memcpy(s->namebuf, a, n);
    s->namebuf[n] = '\0';
    s->name = s->namebuf;
    s->inline_v = eq + 1;
  } else {
    s->name = a;
    s->inline_v = NULL;
  }
}

static int is(const struct scan *s, const char *name) { return strcmp(s->name, name) == 0; }

static const char *value(struct scan *s) {
  if (s->inline_v) return s->inline_v;
  if (s->i + 1 >= s->argc) usage_error(s->cmd, "option %s needs a value", s->name);
  return s->argv[++s->i];
}

static void no_value(struct scan *s) {
  if (s->inline_v) usage_error(s->cmd, "option %s takes no value", s->name);
}

static int64_t duration_value(struct scan *s) {
  const char *v = value(s);
  int64_t ms;
  if (parse_duration(v, &ms) != 0) {
    usage_error(s->cmd, "bad duration '%s' for %s (examples: 500ms, 5s, 2m; plain number = seconds)",
                v, s->name);
  }
  return ms;
}

/* Returns 1 if the current option is a connection option (consumed). */
static int common_option(struct scan *s, struct common *co) {
  if (is(s, "--servers")) {
    co->servers = value(s);
    if (!co->servers[0]) usage_error(s->cmd, "--servers is empty");
  } else if (is(s, "--session-timeout")) {
    co->session_timeout_ms = duration_value(s);
    if (co->session_timeout_ms < 1 || co->session_timeout_ms > INT32_MAX) {
      usage_error(s->cmd, "--session-timeout out of range");
    }
  } else if (is(s, "--connect-timeout")) {
    co->connect_timeout_ms = duration_value(s);
  } else if (is(s, "--auth")) {
    co->auth = value(s);
    if (!strchr(co->auth, ':')) usage_error(s->cmd, "--auth wants USER:PASSWORD");
  } else if (is(s, "--acl")) {
    const char *v = value(s);
    if (strcmp(v, "open") == 0) co->acl = ZKL_ACL_OPEN;
    else if (strcmp(v, "creator") == 0) co->acl = ZKL_ACL_CREATOR;
    else usage_error(s->cmd, "bad --acl '%s' (open or creator)", v);
  } else if (is(s, "-v") || is(s, "--verbose")) {
    no_value(s);
    verbose = 1;
  } else {
    return 0;
  }
  return 1;
}

static int is_option(const char *a) { return a[0] == '-' && a[1] != '\0'; }

/* ------------------------------------------------------------------------ */
/* Signals and the ZooKeeper client                                         */
/* ------------------------------------------------------------------------ */

static const int forwarded_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

/* Blocks the signals zkl handles and returns a signalfd for them. */
static int setup_signals(void) {
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < sizeof forwarded_signals / sizeof forwarded_signals[0]; ++i) {
    sigaddset(&set, forwarded_signals[i]);
  }
  sigaddset(&set, SIGCHLD);
  /* Threads created later (ZooKeeper's) inherit the mask, so every one of
   * these signals ends up on the signalfd. */
  if (sigprocmask(SIG_BLOCK, &set, &orig_mask) != 0) die(EXIT_ZKL, "sigprocmask: %s", strerror(errno));
  int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd < 0) die(EXIT_ZKL, "signalfd: %s", strerror(errno));
  return fd;
}

/* Reads one pending signal; 0 if none. */
static int read_signal(int sfd, struct signalfd_siginfo *si) {
  ssize_t n = read(sfd, si, sizeof *si);
  if (n != (ssize_t)sizeof *si) return 0;
  return (int)si->ssi_signo;
}

static const char *session_state_name(int s) {
  switch (s) {
    case ZKL_SESSION_CONNECTING: return "connecting";
    case ZKL_SESSION_CONNECTED: return "connected";
    case ZKL_SESSION_SUSPENDED: return "suspended (disconnected; the session may still live)";
    case ZKL_SESSION_RECONNECTED: return "reconnected (same session)";
    case ZKL_SESSION_LOST: return "lost (expired or disconnected too long); starting a new session";
    case ZKL_SESSION_CLOSED: return "closed";
    case ZKL_SESSION_AUTH_FAILED: return "authentication failed";
    default: return "unknown";
  }
}

static zkl_client *client_new(const struct common *co) {
  zkl_client_options o;
  int rc = zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  if (rc != 0) die(EXIT_ZKL, "zkl_client_options_init: %s", zkl_strerror(rc));
  o.servers = co->servers;
  o.session_timeout_ms = (int32_t)co->session_timeout_ms;
  o.digest_auth = co->auth;
  o.acl = co->acl;
  zkl_client *c = NULL;
  rc = zkl_client_new(&o, &c);
  if (rc == ZKL_EINVAL) {
    die(EXIT_ZKL, "invalid server list '%s' (want host:port[,host:port...])", co->servers);
  }
  if (rc != 0) die(EXIT_ZKL, "cannot create a ZooKeeper client for '%s': %s", co->servers, zkl_strerror(rc));
  return c;
}

static int poll_ms(int64_t deadline) {
  if (deadline < 0) return -1;
  int64_t left = deadline - now_ms();
  if (left < 0) left = 0;
  if (left > 1000000) left = 1000000;
  return (int)left;
}

/*
 * Waits (poll loop) until the session is up. Session events seen meanwhile
 * are consumed. A signal ends zkl with 128+signal; the connect timeout with
 * an error naming the servers.
 */
static void wait_connected(zkl_client *c, const struct common *co, int sfd) {
  int64_t deadline = now_ms() + co->connect_timeout_ms;
  int zfd = zkl_client_fd(c);
  info("connecting to %s", co->servers);
  for (;;) {
    int st = zkl_client_state(c);
    if (st == ZKL_SESSION_CONNECTED || st == ZKL_SESSION_RECONNECTED) break;
    if (st == ZKL_SESSION_AUTH_FAILED) {
      zkl_client_destroy(c);
      die(EXIT_ZKL, "ZooKeeper at %s rejected the credentials given with --auth", co->servers);
    }
    if (now_ms() >= deadline) {
      char d[32];
      format_duration(co->connect_timeout_ms, d, sizeof d);
      zkl_client_destroy(c);
      die(EXIT_ZKL, "cannot connect to ZooKeeper at %s within %s (is it running? see --servers, "
          "$ZKL_SERVERS, --connect-timeout)", co->servers, d);
    }
    struct pollfd p[2] = {{zfd, POLLIN, 0}, {sfd, POLLIN, 0}};
    int n = poll(p, 2, poll_ms(deadline));
    if (n < 0 && errno != EINTR) die(EXIT_ZKL, "poll: %s", strerror(errno));
    if (p[1].revents & POLLIN) {
      struct signalfd_siginfo si;
      int sig;
      while ((sig = read_signal(sfd, &si)) != 0) {
        if (sig == SIGCHLD) continue;
        zkl_client_destroy(c);
        exit(128 + sig);
      }
    }
    zkl_event *ev = NULL;
    while (zkl_client_next_event(c, &ev) == 0) zkl_event_free(ev);
  }
  uint64_t sid = 0;
  zkl_client_session_id(c, &sid);
  info("connected: session 0x%" PRIx64 ", timeout %dms", sid, zkl_client_session_timeout(c));
}

/* ------------------------------------------------------------------------ */
/* The child command                                                        */
/* ------------------------------------------------------------------------ */

struct child {
  pid_t pid;          /* 0: not running */
  int own_group;      /* CMD leads its own process group (default) */
  int stopping;       /* SIGTERM sent because the lock/leadership went */
  int64_t kill_at;    /* monotonic ms for SIGKILL, -1 none */
  int status;         /* wait status once exited */
};

static void child_signal(struct child *ch, int sig) {
  if (ch->pid <= 0) return;
  if (ch->own_group && kill(-ch->pid, sig) == 0) return;
  kill(ch->pid, sig);
}

/* Environment for CMD: ours without the given keys, plus "K=V" extras. */
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
    if (!drop) env[j++] = environ[i];
  }
  for (size_t x = 0; x < k; x++) env[j++] = extra[x];
  env[j] = NULL;
  return env;
}

/*
 * Starts CMD. Returns 0, or EXIT_NOEXEC / EXIT_NOTFOUND after printing why
 * (the error is reported back over a close-on-exec pipe).
 */
static int child_start(struct child *ch, char **argv, char **extra) {
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

/* Reaps CMD if it ended: returns 1 then (ch->status set, ch->pid = 0). */
static int child_reap(struct child *ch) {
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

/* The shell's convention: exit status, or 128 + the signal that killed it. */
static int child_exit_code(const struct child *ch) {
  if (WIFEXITED(ch->status)) return WEXITSTATUS(ch->status);
  if (WIFSIGNALED(ch->status)) return 128 + WTERMSIG(ch->status);
  return EXIT_ZKL;
}

/* Asks CMD to stop (SIGTERM now, SIGKILL after the grace period). */
static void child_stop(struct child *ch, int64_t grace_ms) {
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

static void child_check_kill(struct child *ch) {
  if (ch->pid > 0 && ch->kill_at >= 0 && now_ms() >= ch->kill_at) {
    error_msg("the command did not stop within the grace period: sending SIGKILL");
    child_signal(ch, SIGKILL);
    ch->kill_at = -1;
  }
}

/* A signal to zkl while CMD runs: pass it on. With --foreground, CMD shares
 * zkl's process group, so a terminal's signal (SI_KERNEL) reached it too. */
static void child_forward(struct child *ch, const struct signalfd_siginfo *si) {
  if (ch->pid <= 0) return;
  if (!ch->own_group && si->ssi_code == SI_KERNEL) return;
  info("forwarding signal %d (%s) to the command", (int)si->ssi_signo, strsignal((int)si->ssi_signo));
  child_signal(ch, (int)si->ssi_signo);
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0) die(EXIT_ZKL, "out of memory");
  va_end(ap);
  return s;
}

static char *default_id(void) {
  char host[256];
  if (gethostname(host, sizeof host) != 0) strcpy(host, "localhost");
  host[sizeof host - 1] = '\0';
  return xasprintf("%s:%d", host, (int)getpid());
}

/* ------------------------------------------------------------------------ */
/* zkl lock                                                                 */
/* ------------------------------------------------------------------------ */

static const char lock_help[] =
    "Usage: zkl lock [OPTIONS] PATH [--] CMD [ARGS...]\n"
    "\n"
    "Runs CMD while holding the lock PATH (a ZooKeeper path such as /locks/backup)\n"
    "and exits with CMD's exit status. The lock is released when CMD ends.\n"
    "CMD gets ZKL_FENCING_TOKEN (a number that strictly increases across\n"
    "successive holders: pass it to the resource you protect), ZKL_LOCK_PATH and\n"
    "ZKL_ID in its environment. If the lock is lost while CMD runs (session\n"
    "expired, or disconnected so long that it may have expired), CMD gets SIGTERM,\n"
    "then SIGKILL after the grace period, and zkl exits with 75.\n"
    "SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are forwarded to CMD.\n"
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
    "  --foreground       run CMD in zkl's process group (for interactive\n"
    "                     commands); by default CMD gets its own process group\n"
    "                     and signals go to the whole group\n"
    "\n"
    "%s"
    "\n"
    "Exit status:\n"
    "  CMD's status       CMD ran and ended (128+N if killed by signal N)\n"
    "  75                 the lock was lost while CMD ran; CMD was stopped\n"
    "  124                --timeout passed before the lock was acquired\n"
    "  125                zkl failed (bad usage, path or duration, cannot connect)\n"
    "  126                CMD could not be executed\n"
    "  127                CMD was not found\n"
    "  128+N              zkl got signal N while waiting for the lock\n"
    "\n"
    "Examples:\n"
    "  zkl lock /locks/nightly-report -- /usr/local/bin/report --send\n"
    "  zkl lock --timeout 0 /locks/cron/backup -- backup.sh   # skip if running\n"
    "  zkl lock --shared /locks/schema -- run-migration-check\n";

static const char elect_help[] =
    "Usage: zkl elect [OPTIONS] PATH [--] CMD [ARGS...]\n"
    "\n"
    "Joins the leader election PATH and runs CMD only while this process is the\n"
    "leader. CMD gets ZKL_FENCING_TOKEN (the term's token, strictly increasing\n"
    "across leaders), ZKL_ELECTION_PATH and ZKL_ID. If leadership is lost, CMD\n"
    "gets SIGTERM, then SIGKILL after the grace period; zkl then exits with 75,\n"
    "or with --rejoin waits to be elected again and restarts CMD. When CMD ends\n"
    "by itself, zkl resigns and exits with CMD's status.\n"
    "\n"
    "Election options:\n"
    "  --fair             leadership in arrival order (default; Curator\n"
    "                     LeaderLatch-style nodes)\n"
    "  --unfair           everyone races for one node when the leader goes\n"
    "  --id ID            participant id shown by `zkl leader` (default HOST:PID)\n"
    "  --rejoin           after losing leadership, stop CMD and campaign again\n"
    "  --grace D          time between SIGTERM and SIGKILL (default 10s)\n"
    "  --stop-on-suspend  stop CMD as soon as the connection is lost\n"
    "  --foreground       run CMD in zkl's process group (see zkl lock --help)\n"
    "\n"
    "%s"
    "\n"
    "Exit status:\n"
    "  CMD's status       CMD ran and ended by itself (128+N if killed by signal N)\n"
    "  75                 leadership was lost while CMD ran; CMD was stopped\n"
    "  125                zkl failed (bad usage, path or duration, cannot connect)\n"
    "  126, 127           CMD could not be executed / was not found\n"
    "  128+N              zkl got signal N while waiting to be elected\n"
    "\n"
    "Example (a leader-only daemon on every machine; one runs at a time):\n"
    "  zkl elect --rejoin --id \"$(hostname)\" /services/scheduler -- scheduler\n";

struct run_opts {
  int kind;             /* ZKL_LOCK_* or ZKL_ELECTION_* */
  int leases;
  int64_t timeout_ms;   /* < 0: forever */
  int64_t grace_ms;
  int stop_on_suspend;
  int foreground;
  int rejoin;
  const char *id;
  const char *path;
  char **cmd;
};

static void parse_run(const char *sub, int argc, char **argv, struct common *co, struct run_opts *ro,
                      int election) {
  memset(ro, 0, sizeof *ro);
  ro->kind = election ? ZKL_ELECTION_FAIR : ZKL_LOCK_FAIR;
  ro->timeout_ms = -1;
  ro->grace_ms = 10000;
  const char *kind_opt = NULL;
  struct scan s = {argc, argv, 0, sub, NULL, NULL, {0}};
  int i;
  for (i = 0; i < argc; i++) {
    s.i = i;
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      if (!ro->path) usage_error(sub, "missing PATH before '--'");
      i++;
      break;
    }
    if (!is_option(a)) {
      if (!ro->path) {
        ro->path = a;
        continue;
      }
      break; /* CMD starts here */
    }
    scan_split(&s);
    if (is(&s, "-h") || is(&s, "--help")) {
      printf(election ? elect_help : lock_help, common_help);
      exit(0);
    } else if (common_option(&s, co)) {
    } else if (!election && is(&s, "--timeout")) {
      ro->timeout_ms = duration_value(&s);
    } else if (is(&s, "--grace")) {
      ro->grace_ms = duration_value(&s);
    } else if (is(&s, "--id")) {
      ro->id = value(&s);
    } else if (is(&s, "--stop-on-suspend")) {
      no_value(&s);
      ro->stop_on_suspend = 1;
    } else if (is(&s, "--foreground")) {
      no_value(&s);
      ro->foreground = 1;
    } else if (!election && (is(&s, "--shared") || is(&s, "--read") || is(&s, "--exclusive") ||
                             is(&s, "--write") || is(&s, "--non-fair") || is(&s, "--nonfair") ||
                             is(&s, "--fair") || is(&s, "--semaphore"))) {
      int k;
      if (is(&s, "--semaphore")) {
        const char *v = value(&s);
        char *end;
        errno = 0;
        long n = strtol(v, &end, 10);
        if (errno || end == v || *end || n < 1 || n > 1000000) {
          usage_error(sub, "bad lease count '%s' for --semaphore (a number >= 1)", v);
        }
        ro->leases = (int)n;
        k = ZKL_LOCK_SEMAPHORE;
      } else {
        no_value(&s);
        if (is(&s, "--shared") || is(&s, "--read")) k = ZKL_LOCK_READ;
        else if (is(&s, "--exclusive") || is(&s, "--write")) k = ZKL_LOCK_WRITE;
        else if (is(&s, "--fair")) k = ZKL_LOCK_FAIR;
        else k = ZKL_LOCK_NONFAIR;
      }
      if (kind_opt && ro->kind != k) usage_error(sub, "%s and %s exclude each other", kind_opt, s.name);
      kind_opt = argv[i];
      ro->kind = k;
    } else if (election && (is(&s, "--fair") || is(&s, "--unfair"))) {
      no_value(&s);
      int k = is(&s, "--fair") ? ZKL_ELECTION_FAIR : ZKL_ELECTION_NONFAIR;
      if (kind_opt && ro->kind != k) usage_error(sub, "--fair and --unfair exclude each other");
      kind_opt = argv[i];
      ro->kind = k;
    } else if (election && is(&s, "--rejoin")) {
      no_value(&s);
      ro->rejoin = 1;
    } else {
      usage_error(sub, "unknown option '%s'", a);
    }
    i = s.i;
  }
  if (!ro->path) usage_error(sub, "missing PATH (a ZooKeeper path such as /locks/myjob)");
  if (i >= argc) usage_error(sub, "missing CMD to run (zkl %s PATH -- CMD [ARGS...])", sub);
  ro->cmd = argv + i;
  if (ro->path[0] != '/') usage_error(sub, "bad path '%s': ZooKeeper paths are absolute (start with '/')", ro->path);
}

static void bad_path(const char *path, int rc) {
  if (rc == ZKL_EBADPATH) {
    die(EXIT_ZKL, "bad path '%s': want an absolute ZooKeeper path like /locks/job (no trailing '/', "
        "empty, '.' or '..' segments, or control characters)", path);
  }
  die(EXIT_ZKL, "%s: %s", path, zkl_strerror(rc));
}

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

static int cmd_lock(int argc, char **argv) {
  struct common co;
  struct run_opts ro;
  common_init(&co);
  parse_run("lock ", argc, argv, &co, &ro, 0);
  char *id = ro.id ? (char *)ro.id : default_id();

  int sfd = setup_signals();
  zkl_client *c = client_new(&co);
  zkl_lock_options lo;
  zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION);
  lo.kind = ro.kind;
  lo.max_leases = ro.leases;
  lo.data = id;
  lo.data_len = strlen(id);
  zkl_lock *l = NULL;
  int rc = zkl_lock_new(c, ro.path, &lo, &l);
  if (rc != 0) {
    zkl_client_destroy(c);
    bad_path(ro.path, rc);
  }
  wait_connected(c, &co, sfd);

  int zfd = zkl_client_fd(c);
  struct child ch = {0, !ro.foreground, 0, -1, 0};
  int held = 0, lost = 0, started = 0, ended = 0;
  uint64_t token = 0;

  if (ro.timeout_ms == 0) {
    info("trying %s %s", lock_kind_name(ro.kind), ro.path);
    rc = zkl_lock_try_acquire(l, OWNER);
    if (rc == ZKL_EAGAIN) {
      zkl_client_destroy(c);
      die(EXIT_TIMEOUT, "%s is held by someone else (--timeout 0)", ro.path);
    }
    if (rc != 0) goto acquire_failed;
    held = 1;
    zkl_lock_fencing_token(l, &token);
  } else {
    info("waiting for %s %s", lock_kind_name(ro.kind), ro.path);
    rc = zkl_lock_acquire_async(l, OWNER, ro.timeout_ms);
    if (rc != 0) goto acquire_failed;
  }

  for (;;) {
    if (held && lost && !started) {
      /* Acquired and lost again before CMD could start. */
      zkl_lock_destroy(l);
      zkl_client_destroy(c);
      error_msg("lock %s was lost before the command could start (exit %d)", ro.path, EXIT_LOST);
      return EXIT_LOST;
    }
    if (held && !started) {
      started = 1;
      info("acquired %s, fencing token %" PRIu64, ro.path, token);
      char *extra[] = {xasprintf("ZKL_FENCING_TOKEN=%" PRIu64, token),
                       xasprintf("ZKL_LOCK_PATH=%s", ro.path), xasprintf("ZKL_ID=%s", id), NULL};
      int src = child_start(&ch, ro.cmd, extra);
      if (src != 0) {
        zkl_lock_release(l, OWNER);
        zkl_client_destroy(c);
        return src;
      }
    }
    if (ended) break;

    struct pollfd p[2] = {{zfd, POLLIN, 0}, {sfd, POLLIN, 0}};
    int n = poll(p, 2, poll_ms(ch.kill_at));
    if (n < 0 && errno != EINTR) die(EXIT_ZKL, "poll: %s", strerror(errno));
    child_check_kill(&ch);

    if (p[1].revents & POLLIN) {
      struct signalfd_siginfo si;
      int sig;
      while ((sig = read_signal(sfd, &si)) != 0) {
        if (sig == SIGCHLD) {
          if (child_reap(&ch)) ended = 1;
          continue;
        }
        if (!held) {
          info("got signal %d (%s) while waiting: giving up", sig, strsignal(sig));
          zkl_lock_destroy(l);
          zkl_client_destroy(c);
          return 128 + sig;
        }
        child_forward(&ch, &si);
      }
    }

    zkl_event *ev = NULL;
    while (zkl_client_next_event(c, &ev) == 0) {
      int type = zkl_event_type(ev);
      int err = zkl_event_error(ev);
      switch (type) {
        case ZKL_EVENT_SESSION: {
          int st = zkl_event_session_state(ev);
          info("session %s", session_state_name(st));
          if (st == ZKL_SESSION_AUTH_FAILED && !held) {
            zkl_event_free(ev);
            zkl_client_destroy(c);
            die(EXIT_ZKL, "ZooKeeper rejected the credentials given with --auth");
          }
          break;
        }
        case ZKL_EVENT_ACQUIRED:
          held = 1;
          zkl_event_fencing_token(ev, &token);
          break;
        case ZKL_EVENT_ACQUIRE_FAILED: {
          zkl_event_free(ev);
          rc = err;
          goto acquire_failed;
        }
        case ZKL_EVENT_SUSPENDED:
          if (ro.stop_on_suspend && !lost) {
            error_msg("connection to ZooKeeper lost: the lock may be lost; stopping the command "
                      "(--stop-on-suspend)");
            lost = 1;
            child_stop(&ch, ro.grace_ms);
          } else {
            info("connection to ZooKeeper lost: the lock may be lost (waiting to reconnect)");
          }
          break;
        case ZKL_EVENT_RESTORED:
          info("reconnected in time: the lock is still held");
          break;
        case ZKL_EVENT_LOST:
          if (!lost) {
            error_msg("lock %s lost (%s): stopping the command", ro.path, zkl_strerror(err));
            lost = 1;
            child_stop(&ch, ro.grace_ms);
          }
          break;
        default:
          break;
      }
      zkl_event_free(ev);
    }
  }

  /* CMD ended. */
  if (lost) {
    zkl_lock_destroy(l);
    zkl_client_destroy(c);
    error_msg("the command was stopped because the lock was lost (exit %d)", EXIT_LOST);
    return EXIT_LOST;
  }
  rc = zkl_lock_release(l, OWNER);
  if (rc == ZKL_ELOST) {
    /* Lost at the very end (LOST not yet seen): say so. */
    zkl_lock_destroy(l);
    zkl_client_destroy(c);
    error_msg("lock %s was lost while the command ran", ro.path);
    return EXIT_LOST;
  }
  if (rc != 0) info("release: %s (the session's close removes the node)", zkl_strerror(rc));
  else info("released %s", ro.path);
  zkl_lock_destroy(l);
  zkl_client_destroy(c);
  return child_exit_code(&ch);

acquire_failed:
  zkl_lock_destroy(l);
  zkl_client_destroy(c);
  if (rc == ZKL_ETIMEDOUT) {
    char d[32];
    format_duration(ro.timeout_ms, d, sizeof d);
    error_msg("timed out after %s waiting for %s", d, ro.path);
    return EXIT_TIMEOUT;
  }
  if (rc == ZKL_EMISMATCH) {
    die(EXIT_ZKL, "cannot acquire %s: the other holders use a different lease count than %d",
        ro.path, ro.leases);
  }
  die(EXIT_ZKL, "cannot acquire %s: %s", ro.path, zkl_strerror(rc));
}

/* ------------------------------------------------------------------------ */
/* zkl elect                                                                */
/* ------------------------------------------------------------------------ */

static int cmd_elect(int argc, char **argv) {
  struct common co;
  struct run_opts ro;
  common_init(&co);
  parse_run("elect ", argc, argv, &co, &ro, 1);
  char *id = ro.id ? (char *)ro.id : default_id();

  int sfd = setup_signals();
  zkl_client *c = client_new(&co);
  zkl_election_options eo;
  zkl_election_options_init(&eo, ZKL_ELECTION_OPTIONS_VERSION);
  eo.kind = ro.kind;
  eo.id = id;
  zkl_election *e = NULL;
  int rc = zkl_election_new(c, ro.path, &eo, &e);
  if (rc != 0) {
    zkl_client_destroy(c);
    bad_path(ro.path, rc);
  }
  wait_connected(c, &co, sfd);
  rc = zkl_election_acquire_async(e, -1);
  if (rc != 0) {
    zkl_client_destroy(c);
    die(EXIT_ZKL, "cannot join the election %s: %s", ro.path, zkl_strerror(rc));
  }
  info("joined the election %s as '%s'", ro.path, id);

  int zfd = zkl_client_fd(c);
  struct child ch = {0, !ro.foreground, 0, -1, 0};
  int running = 0;   /* CMD started in the current term and not yet reaped */
  int lost = 0;      /* the current CMD is being stopped because of a loss */
  int want_start = 0;
  uint64_t token = 0;

  for (;;) {
    if (want_start && !running) {
      want_start = 0;
      if (zkl_election_is_leader(e) == 1 && zkl_election_fencing_token(e, &token) == 0) {
        info("elected leader of %s, fencing token %" PRIu64, ro.path, token);
        char *extra[] = {xasprintf("ZKL_FENCING_TOKEN=%" PRIu64, token),
                         xasprintf("ZKL_ELECTION_PATH=%s", ro.path), xasprintf("ZKL_ID=%s", id), NULL};
        int src = child_start(&ch, ro.cmd, extra);
        if (src != 0) {
          zkl_election_destroy(e);
          zkl_client_destroy(c);
          return src;
        }
        running = 1;
        lost = 0;
      }
    }

    struct pollfd p[2] = {{zfd, POLLIN, 0}, {sfd, POLLIN, 0}};
    int n = poll(p, 2, poll_ms(ch.kill_at));
    if (n < 0 && errno != EINTR) die(EXIT_ZKL, "poll: %s", strerror(errno));
    child_check_kill(&ch);

    if (p[1].revents & POLLIN) {
      struct signalfd_siginfo si;
      int sig;
      while ((sig = read_signal(sfd, &si)) != 0) {
        if (sig == SIGCHLD) {
          if (running && child_reap(&ch)) {
            running = 0;
            if (!lost) {
              /* CMD ended by itself: its job is done; resign. */
              zkl_election_destroy(e);
              zkl_client_destroy(c);
              return child_exit_code(&ch);
            }
            if (!ro.rejoin) {
              zkl_election_destroy(e);
              zkl_client_destroy(c);
              error_msg("the command was stopped because leadership was lost (exit %d)", EXIT_LOST);
              return EXIT_LOST;
            }
            info("the command stopped; campaigning again (--rejoin)");
            lost = 0;
            want_start = 1; /* if elected again meanwhile */
          }
          continue;
        }
        if (!running) {
          info("got signal %d (%s) while not leader: leaving the election", sig, strsignal(sig));
          zkl_election_destroy(e);
          zkl_client_destroy(c);
          return 128 + sig;
        }
        child_forward(&ch, &si);
      }
    }

    zkl_event *ev = NULL;
    while (zkl_client_next_event(c, &ev) == 0) {
      int type = zkl_event_type(ev);
      int err = zkl_event_error(ev);
      switch (type) {
        case ZKL_EVENT_SESSION: {
          int st = zkl_event_session_state(ev);
          info("session %s", session_state_name(st));
          break;
        }
        case ZKL_EVENT_ELECTED:
          if (!running || lost) want_start = 1;
          break;
        case ZKL_EVENT_RESTORED:
          info("reconnected in time: still the leader");
          break;
        case ZKL_EVENT_NOT_ELECTED:
          info("not the leader: waiting in line");
          break;
        case ZKL_EVENT_SUSPENDED:
          if (running && !lost && ro.stop_on_suspend) {
            error_msg("connection to ZooKeeper lost: leadership may be lost; stopping the command "
                      "(--stop-on-suspend)");
            lost = 1;
            child_stop(&ch, ro.grace_ms);
          } else {
            info("connection to ZooKeeper lost: leadership may be lost (waiting to reconnect)");
          }
          break;
        case ZKL_EVENT_LOST:
          want_start = 0;
          if (running && !lost) {
            error_msg("leadership of %s lost (%s): stopping the command", ro.path, zkl_strerror(err));
            lost = 1;
            child_stop(&ch, ro.grace_ms);
          } else {
            info("lost the place in the election (%s); rejoining", zkl_strerror(err));
          }
          break;
        default:
          break;
      }
      zkl_event_free(ev);
    }
  }
}

/* ------------------------------------------------------------------------ */
/* zkl status / zkl leader                                                  */
/* ------------------------------------------------------------------------ */

static const char status_help[] =
    "Usage: zkl status [OPTIONS] PATH\n"
    "\n"
    "Shows who holds the lock PATH and who waits, in queue order: fencing token,\n"
    "session id (hex), how long ago each joined the queue (AGE, from the node's\n"
    "creation time) and its id (the --id of zkl lock/elect).\n"
    "\n"
    "Status options:\n"
    "  --kind K     fair (default; also reentrant locks and Curator\n"
    "               InterProcessMutex), read-write, semaphore, nonfair,\n"
    "               election-fair (alias: election), election-unfair\n"
    "  --leases N   semaphore: the lease count, to tell holders from waiters\n"
    "               (without it every participant is listed as a holder)\n"
    "  --json       one JSON object on stdout (for scripts)\n"
    "\n"
    "%s"
    "\n"
    "Non-fair locks and unfair elections keep no queue: only the holder shows.\n"
    "Exit status: 0 shown (also when nobody holds), 125 error.\n"
    "Example:\n"
    "  zkl status /locks/backup --json | jq '.participants[0].fencing_token'\n";

static const char leader_help[] =
    "Usage: zkl leader [OPTIONS] PATH\n"
    "\n"
    "Prints the id of the current leader of the election PATH, without taking\n"
    "part in it.\n"
    "\n"
    "Leader options:\n"
    "  --unfair     the election is an unfair one (zkl elect --unfair)\n"
    "  --fair       the election is a fair one (default)\n"
    "  --watch      keep running and print a line each time the leader changes\n"
    "               (\"-\" when there is none) until interrupted\n"
    "\n"
    "%s"
    "\n"
    "Exit status: 0 printed, 1 there is no leader, 125 error.\n";

static const char *status_kinds[] = {"fair", "read-write", "semaphore", "nonfair",
                                     "election-fair", "election-unfair"};

static void json_string(FILE *f, const char *s, size_t len) {
  fputc('"', f);
  for (size_t i = 0; i < len; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
    else if (ch == '\n') fputs("\\n", f);
    else if (ch == '\t') fputs("\\t", f);
    else if (ch < 0x20 || ch == 0x7f) fprintf(f, "\\u%04x", ch);
    else fputc(ch, f);
  }
  fputc('"', f);
}

/* Printable copy of node data for the table (control bytes as '?'). */
static void printable(const char *s, size_t len, char *out, size_t outlen) {
  size_t j = 0;
  for (size_t i = 0; i < len && j + 1 < outlen; i++) {
    unsigned char ch = (unsigned char)s[i];
    out[j++] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
  }
  out[j] = '\0';
}

static zkl_client *connect_for_query(struct common *co, int *sfd) {
  *sfd = setup_signals();
  zkl_client *c = client_new(co);
  wait_connected(c, co, *sfd);
  return c;
}

static int cmd_status(int argc, char **argv) {
  struct common co;
  common_init(&co);
  const char *path = NULL, *kind = "fair";
  int json = 0;
  long leases = 0;
  struct scan s = {argc, argv, 0, "status ", NULL, NULL, {0}};
  for (int i = 0; i < argc; i++) {
    s.i = i;
    if (!is_option(argv[i])) {
      if (path) usage_error(s.cmd, "unexpected argument '%s' (one PATH only)", argv[i]);
      path = argv[i];
      continue;
    }
    scan_split(&s);
    if (is(&s, "-h") || is(&s, "--help")) {
      printf(status_help, common_help);
      return 0;
    } else if (common_option(&s, &co)) {
    } else if (is(&s, "--json")) {
      no_value(&s);
      json = 1;
    } else if (is(&s, "--kind")) {
      kind = value(&s);
    } else if (is(&s, "--leases")) {
      const char *v = value(&s);
      char *end;
      errno = 0;
      leases = strtol(v, &end, 10);
      if (errno || end == v || *end || leases < 1) usage_error(s.cmd, "bad --leases '%s'", v);
    } else {
      usage_error(s.cmd, "unknown option '%s'", argv[i]);
    }
    i = s.i;
  }
  if (!path) usage_error(s.cmd, "missing PATH");
  if (path[0] != '/') usage_error(s.cmd, "bad path '%s': ZooKeeper paths are absolute (start with '/')", path);
  if (strcmp(kind, "election") == 0) kind = "election-fair";
  if (strcmp(kind, "rw") == 0) kind = "read-write";
  if (strcmp(kind, "non-fair") == 0) kind = "nonfair";
  if (strcmp(kind, "reentrant") == 0) kind = "fair";
  int32_t ikind;
  if (strcmp(kind, "fair") == 0) ikind = ZKL_LOCK_FAIR;
  else if (strcmp(kind, "read-write") == 0) ikind = ZKL_LOCK_WRITE;
  else if (strcmp(kind, "semaphore") == 0) ikind = ZKL_LOCK_SEMAPHORE;
  else if (strcmp(kind, "nonfair") == 0) ikind = ZKL_LOCK_NONFAIR;
  else if (strcmp(kind, "election-fair") == 0) ikind = -ZKL_ELECTION_FAIR;
  else if (strcmp(kind, "election-unfair") == 0) ikind = -ZKL_ELECTION_NONFAIR;
  else {
    char list[200] = "";
    for (size_t k = 0; k < sizeof status_kinds / sizeof status_kinds[0]; k++) {
      strcat(list, k ? ", " : "");
      strcat(list, status_kinds[k]);
    }
    usage_error(s.cmd, "bad --kind '%s' (one of %s)", kind, list);
  }
  if (leases && ikind != ZKL_LOCK_SEMAPHORE) usage_error(s.cmd, "--leases is for --kind semaphore");
  int rw = ikind == ZKL_LOCK_WRITE;

  int sfd;
  zkl_client *c = connect_for_query(&co, &sfd);
  zkl_participants *p = NULL;
  zkl_inspect_options io;
  zkl_inspect_options_init(&io, ZKL_INSPECT_OPTIONS_VERSION);
  if (ikind < 0) io.election_kind = -ikind; else io.lock_kind = ikind;
  io.timeout_ms = co.connect_timeout_ms;
  int rc = zkl_inspect(c, path, &io, &p);
  if (rc != 0) {
    zkl_client_destroy(c);
    if (rc == ZKL_EBADPATH) bad_path(path, rc);
    die(EXIT_ZKL, "cannot read %s: %s", path, zkl_strerror(rc));
  }
  int64_t now = wall_ms();
  int count = zkl_participants_count(p);
  int holders = 0, writers_ahead = 0;
  int *holds = calloc((size_t)count + 1, sizeof *holds);
  if (!holds) die(EXIT_ZKL, "out of memory");
  for (int i = 0; i < count; i++) {
    const char *name = "";
    zkl_participants_name(p, (size_t)i, &name);
    if (rw) {
      /* Computed here from the node names: a writer holds at the head of the
       * queue, a reader while no writer is ahead of it. */
      int is_writer = strstr(name, "__WRIT__") != NULL;
      holds[i] = is_writer ? i == 0 : writers_ahead == 0;
      writers_ahead += is_writer;
    } else if (ikind == ZKL_LOCK_SEMAPHORE && leases > 0) {
      holds[i] = i < leases;
    } else {
      holds[i] = zkl_participants_is_holder(p, (size_t)i) == 1;
    }
    holders += holds[i];
  }
  int waiters = count - holders;

  if (json) {
    printf("{\"path\":");
    json_string(stdout, path, strlen(path));
    printf(",\"kind\":\"%s\",\"holders\":%d,\"waiters\":%d,\"participants\":[", kind, holders, waiters);
    for (int i = 0; i < count; i++) {
      const char *name = "", *data = "";
      size_t dlen = 0;
      uint64_t token = 0, sid = 0;
      int64_t ctime = 0;
      zkl_participants_name(p, (size_t)i, &name);
      zkl_participants_data(p, (size_t)i, &data, &dlen);
      zkl_participants_fencing_token(p, (size_t)i, &token);
      zkl_participants_session_id(p, (size_t)i, &sid);
      zkl_participants_ctime_ms(p, (size_t)i, &ctime);
      printf("%s{\"position\":%d,\"holder\":%s,\"fencing_token\":%" PRIu64
             ",\"session_id\":\"0x%" PRIx64 "\",\"ctime_ms\":%" PRId64 ",\"age_ms\":%" PRId64 ",\"id\":",
             i ? "," : "", i + 1, holds[i] ? "true" : "false", token, sid, ctime,
             now - ctime < 0 ? 0 : now - ctime);
      json_string(stdout, data, dlen);
      if (rw) printf(",\"mode\":\"%s\"", strstr(name, "__WRIT__") ? "write" : "read");
      printf(",\"node\":");
      json_string(stdout, name, strlen(name));
      printf("}");
    }
    printf("]}\n");
  } else {
    printf("%s (%s): ", path, kind);
    if (count == 0) printf("free, nobody holds or waits\n");
    else printf("%d holder%s, %d waiter%s\n", holders, holders == 1 ? "" : "s", waiters, waiters == 1 ? "" : "s");
    if (ikind == ZKL_LOCK_SEMAPHORE && leases == 0 && count > 0) {
      printf("(lease count unknown: pass --leases N to tell holders from waiters)\n");
    }
    if (count > 0) {
      printf("  %-3s %-7s %s%-20s %-20s %-8s %s%s\n", "#", "STATE", rw ? "MODE   " : "", "FENCING TOKEN",
             "SESSION", "AGE", "ID", verbose ? "  NODE" : "");
    }
    for (int i = 0; i < count; i++) {
      const char *name = "", *data = "";
      size_t dlen = 0;
      uint64_t token = 0, sid = 0;
      int64_t ctime = 0;
      zkl_participants_name(p, (size_t)i, &name);
      zkl_participants_data(p, (size_t)i, &data, &dlen);
      zkl_participants_fencing_token(p, (size_t)i, &token);
      zkl_participants_session_id(p, (size_t)i, &sid);
      zkl_participants_ctime_ms(p, (size_t)i, &ctime);
      char age[32], sidbuf[32], tok[32], idbuf[256];
      format_duration(now - ctime, age, sizeof age);
      snprintf(sidbuf, sizeof sidbuf, "0x%" PRIx64, sid);
      snprintf(tok, sizeof tok, "%" PRIu64, token);
      printable(data, dlen, idbuf, sizeof idbuf);
      printf("  %-3d %-7s %s%-20s %-20s %-8s %s%s%s\n", i + 1, holds[i] ? "holds" : "waits",
             rw ? (strstr(name, "__WRIT__") ? "write  " : "read   ") : "", tok, sidbuf, age,
             idbuf[0] ? idbuf : "-", verbose ? "  " : "", verbose ? name : "");
    }
  }
  fflush(stdout);
  free(holds);
  zkl_participants_free(p);
  zkl_client_destroy(c);
  return 0;
}

static int cmd_leader(int argc, char **argv) {
  struct common co;
  common_init(&co);
  const char *path = NULL;
  int kind = ZKL_ELECTION_FAIR, watch = 0;
  struct scan s = {argc, argv, 0, "leader ", NULL, NULL, {0}};
  for (int i = 0; i < argc; i++) {
    s.i = i;
    if (!is_option(argv[i])) {
      if (path) usage_error(s.cmd, "unexpected argument '%s' (one PATH only)", argv[i]);
      path = argv[i];
      continue;
    }
    scan_split(&s);
    if (is(&s, "-h") || is(&s, "--help")) {
      printf(leader_help, common_help);
      return 0;
    } else if (common_option(&s, &co)) {
    } else if (is(&s, "--unfair")) {
      no_value(&s);
      kind = ZKL_ELECTION_NONFAIR;
    } else if (is(&s, "--fair")) {
      no_value(&s);
      kind = ZKL_ELECTION_FAIR;
    } else if (is(&s, "--watch")) {
      no_value(&s);
      watch = 1;
    } else {
      usage_error(s.cmd, "unknown option '%s'", argv[i]);
    }
    i = s.i;
  }
  if (!path) usage_error(s.cmd, "missing PATH");
  if (path[0] != '/') usage_error(s.cmd, "bad path '%s': ZooKeeper paths are absolute (start with '/')", path);

  int sfd;
  zkl_client *c = connect_for_query(&co, &sfd);
  if (!watch) {
    zkl_participants *p = NULL;
    zkl_inspect_options io;
    zkl_inspect_options_init(&io, ZKL_INSPECT_OPTIONS_VERSION);
    io.election_kind = kind;
    io.timeout_ms = co.connect_timeout_ms;
    int rc = zkl_inspect(c, path, &io, &p);
    if (rc != 0) {
      zkl_client_destroy(c);
      if (rc == ZKL_EBADPATH) bad_path(path, rc);
      die(EXIT_ZKL, "cannot read %s: %s", path, zkl_strerror(rc));
    }
    int status = EXIT_NOLEADER;
    for (int i = 0; i < zkl_participants_count(p); i++) {
      if (zkl_participants_is_holder(p, (size_t)i) != 1) continue;
      const char *data = "";
      size_t len = 0;
      zkl_participants_data(p, (size_t)i, &data, &len);
      fwrite(data, 1, len, stdout);
      fputc('\n', stdout);
      status = 0;
      break;
    }
    zkl_participants_free(p);
    zkl_client_destroy(c);
    if (status == EXIT_NOLEADER) error_msg("%s has no leader", path);
    return status;
  }

  zkl_observer *o = NULL;
  zkl_observer_options oo;
  zkl_observer_options_init(&oo, ZKL_OBSERVER_OPTIONS_VERSION);
  oo.kind = kind;
  int rc = zkl_observer_new(c, path, &oo, &o);
  if (rc != 0) {
    zkl_client_destroy(c);
    bad_path(path, rc);
  }
  int zfd = zkl_client_fd(c);
  for (;;) {
    struct pollfd p[2] = {{zfd, POLLIN, 0}, {sfd, POLLIN, 0}};
    if (poll(p, 2, -1) < 0 && errno != EINTR) die(EXIT_ZKL, "poll: %s", strerror(errno));
    if (p[1].revents & POLLIN) {
      struct signalfd_siginfo si;
      int sig;
      while ((sig = read_signal(sfd, &si)) != 0) {
        if (sig == SIGCHLD) continue;
        zkl_observer_destroy(o);
        zkl_client_destroy(c);
        return sig == SIGINT || sig == SIGTERM ? 0 : 128 + sig;
      }
    }
    zkl_event *ev = NULL;
    while (zkl_client_next_event(c, &ev) == 0) {
      if (zkl_event_type(ev) == ZKL_EVENT_LEADER_CHANGED || zkl_event_type(ev) == ZKL_EVENT_NO_LEADER) {
        const char *data = NULL;
        size_t len = 0;
        zkl_event_data(ev, &data, &len);
        if (len == 0) fputs("-\n", stdout);
        else {
          fwrite(data, 1, len, stdout);
          fputc('\n', stdout);
        }
        fflush(stdout);
      } else if (zkl_event_type(ev) == ZKL_EVENT_SESSION) {
        info("session %s", session_state_name(zkl_event_session_state(ev)));
      }
      zkl_event_free(ev);
    }
  }
}

/* ------------------------------------------------------------------------ */
/* main                                                                     */
/* ------------------------------------------------------------------------ */

static const char main_help[] =
    "Usage: zkl COMMAND [OPTIONS] ...\n"
    "\n"
    "Distributed locks and leader election on ZooKeeper, for shell users.\n"
    "\n"
    "Commands:\n"
    "  lock PATH -- CMD...    run CMD while holding the lock PATH\n"
    "  elect PATH -- CMD...   run CMD only while elected leader of PATH\n"
    "  status PATH            who holds the lock PATH and who waits\n"
    "  leader PATH            the current leader of the election PATH\n"
    "  version                print the versions of zkl and libzkl\n"
    "\n"
    "Run 'zkl COMMAND --help' for a command's options and exit statuses.\n"
    "\n"
    "%s"
    "\n"
    "Exit status of lock/elect: CMD's status; 75 lock or leadership lost (CMD was\n"
    "stopped); 124 lock timeout; 125 zkl error; 126/127 CMD not executable/found.\n"
    "Environment: ZKL_SERVERS (default servers); ZKL_ZOOKEEPER_LOG=1 shows the\n"
    "ZooKeeper C client's own log lines on stderr.\n";

/*
 * The ZooKeeper C client prints its own error lines (e.g. every refused
 * connection attempt) on stderr, and zkl.h has no way to turn them off. So
 * zkl keeps the real stderr on another fd for its own messages and CMD, and
 * points fd 2 at /dev/null, unless ZKL_ZOOKEEPER_LOG is set.
 */
static void quiet_zookeeper_log(void) {
  errf = stderr;
  if (getenv("ZKL_ZOOKEEPER_LOG") != NULL) return;
  int fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
  int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f || devnull < 0 || dup2(devnull, 2) < 0) {
    if (f) fclose(f);
    else if (fd >= 0) close(fd);
    if (devnull >= 0) close(devnull);
    return;
  }
  close(devnull);
  setvbuf(f, NULL, _IOLBF, 0);
  errf = f;
  err_fd = fd;
}

int main(int argc, char **argv) {
  zkl_pid = getpid();
  quiet_zookeeper_log();
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc < 2) {
    fprintf(errf, main_help, common_help);
    return EXIT_ZKL;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
    printf(main_help, common_help);
    return 0;
  }
  if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
    printf("zkl %d.%d.%d (libzkl %s)\n", ZKL_VERSION_MAJOR, ZKL_VERSION_MINOR, ZKL_VERSION_PATCH,
           zkl_version_string());
    return 0;
  }
  if (strcmp(cmd, "lock") == 0) return cmd_lock(argc - 2, argv + 2);
  if (strcmp(cmd, "elect") == 0) return cmd_elect(argc - 2, argv + 2);
  if (strcmp(cmd, "status") == 0) return cmd_status(argc - 2, argv + 2);
  if (strcmp(cmd, "leader") == 0) return cmd_leader(argc - 2, argv + 2);
  usage_error(NULL, "unknown command '%s' (lock, elect, status, leader, version)", cmd);
}
