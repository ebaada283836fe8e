/* Option parsing shared by every zkl command (see options.h). */
#define _GNU_SOURCE
#include "options.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zkl.h>

#include "util.h"

static const char *env_or(const char *name, const char *dflt) {
  const char *v = getenv(name);
  return v && v[0] ? v : dflt;
}

/* A setting that turns a protection on (TLS, SASL, credentials): unset is
 * NULL, but set and empty is an error, not "off" -- most often a script's
 * variable that expanded to nothing, which must not silently drop TLS. */
static const char *env_strict(const char *name) {
  const char *v = getenv(name);
  if (v && !v[0]) {
    die(EXIT_ZKL, "$%s is set but empty: unset it, or give it a value", name);
  }
  return v;
}

const char *origin(const char *value, const char *flag, const char *var) {
  const char *e = getenv(var + 1);
  return value && value == e ? var : flag;
}

static int sasl_mechanism_ok(const char *m) {
  return strcmp(m, "DIGEST-MD5") == 0 || strcmp(m, "GSSAPI") == 0;
}

void common_init(struct common *co) {
  memset(co, 0, sizeof *co);
  co->servers = env_or("ZKL_SERVERS", "127.0.0.1:2181");
  co->connect_timeout_ms = 10000;
  co->acl = ZKL_ACL_OPEN;
  co->auth_file = env_strict("ZKL_AUTH_FILE");
  co->tls_ca = env_strict("ZKL_TLS_CA");
  co->tls_cert = env_strict("ZKL_TLS_CERT");
  co->tls_key = env_strict("ZKL_TLS_KEY");
  co->tls_key_password_file = env_strict("ZKL_TLS_KEY_PASSWORD_FILE");
  co->tls_skip_hostname_check = env_bool("ZKL_TLS_INSECURE_SKIP_HOSTNAME_CHECK", 0);
  co->sasl_mechanism = env_strict("ZKL_SASL_MECHANISM");
  if (co->sasl_mechanism && !sasl_mechanism_ok(co->sasl_mechanism)) {
    die(EXIT_ZKL, "bad $ZKL_SASL_MECHANISM '%s' (DIGEST-MD5 or GSSAPI)", co->sasl_mechanism);
  }
  co->sasl_user = env_strict("ZKL_SASL_USER");
  co->sasl_keytab = env_strict("ZKL_SASL_KEYTAB");
  co->sasl_ccache = env_strict("ZKL_SASL_CCACHE");
  co->sasl_host = env_strict("ZKL_SASL_HOST");
  co->sasl_password_file = env_strict("ZKL_SASL_PASSWORD_FILE");
}

const char common_help[] =
    "Connection options (every command):\n"
    "  --servers HOST:PORT[,...]  ZooKeeper servers (default: $ZKL_SERVERS,\n"
    "                             else 127.0.0.1:2181)\n"
    "  --session-timeout D        requested session timeout (default 10s)\n"
    "  --connect-timeout D        give up connecting after D (default 10s)\n"
    "  --attempt-timeout D        give up one server's connection attempt after D\n"
    "                             (default: --connect-timeout shared among the servers)\n"
    "  --auth-file FILE           digest authentication: USER:PASSWORD read from\n"
    "                             FILE (default: $ZKL_AUTH_FILE, or $ZKL_AUTH itself)\n"
    "  --auth USER:PASSWORD       the same on the command line: works, but warns\n"
    "                             (every local user sees argv in ps)\n"
    "  --acl open|creator         ACL of created nodes (default open; creator\n"
    "                             needs authentication: others may read, not delete)\n"
    "  --tls-ca FILE              CA bundle (PEM); turns TLS on ($ZKL_TLS_CA)\n"
    "  --tls-cert FILE            client certificate for mutual TLS ($ZKL_TLS_CERT)\n"
    "  --tls-key FILE             its private key ($ZKL_TLS_KEY)\n"
    "  --tls-key-password-file FILE  passphrase of an encrypted key\n"
    "                             ($ZKL_TLS_KEY_PASSWORD_FILE, $ZKL_TLS_KEY_PASSWORD)\n"
    "  --tls-insecure-skip-hostname-check  accept a certificate for any host name\n"
    "                             (dangerous; $ZKL_TLS_INSECURE_SKIP_HOSTNAME_CHECK=1)\n"
    "  --sasl-mechanism M         DIGEST-MD5 or GSSAPI ($ZKL_SASL_MECHANISM)\n"
    "  --sasl-user USER           SASL user or principal ($ZKL_SASL_USER)\n"
    "  --sasl-keytab FILE         GSSAPI: the principal's keytab ($ZKL_SASL_KEYTAB)\n"
    "  --sasl-ccache NAME         GSSAPI: a credential cache ($ZKL_SASL_CCACHE)\n"
    "  --sasl-host HOST           the server's host name in its principal\n"
    "                             (default: the host connected to; $ZKL_SASL_HOST)\n"
    "  --sasl-password-file FILE  DIGEST-MD5 password ($ZKL_SASL_PASSWORD_FILE,\n"
    "                             $ZKL_SASL_PASSWORD)\n"
    "  -v, --verbose              progress on stderr (never secrets)\n"
    "  -h, --help                 this help\n"
    "Durations: 500ms, 5s, 1.5s, 2m, 1h; a plain number is seconds.\n"
    "Yes/no flags also take --flag=BOOL: 1/0, true/false, yes/no, on/off, as\n"
    "the boolean variables do (anything else is an error).\n"
    "Passwords are never taken from options other than --auth: only from files\n"
    "or the environment, and never printed.\n";

/* Reads a secret from FILE: its first line (without the line end). */
static char *read_secret(const char *cmd, const char *opt, const char *file) {
  int fd = open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0) usage_error(cmd, "cannot read %s '%s': %s", opt, file, strerror(errno));
  char buf[4096];
  size_t n = 0;
  for (;;) {
    ssize_t r = read(fd, buf + n, sizeof buf - 1 - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int e = errno;
      close(fd);
      usage_error(cmd, "cannot read %s '%s': %s", opt, file, strerror(e));
    }
    if (r == 0 || (n += (size_t)r) == sizeof buf - 1) break;
  }
  close(fd);
  buf[n] = '\0';
  buf[strcspn(buf, "\r\n")] = '\0';
  char *s = strdup(buf);
  explicit_bzero(buf, sizeof buf);
  if (!s) die(EXIT_ZKL, "out of memory");
  if (!s[0]) usage_error(cmd, "%s '%s' is empty", opt, file);
  return s;
}

static char *env_secret(const char *name) {
  const char *v = getenv(name);
  if (!v || !v[0]) return NULL;
  char *s = strdup(v);
  if (!s) die(EXIT_ZKL, "out of memory");
  return s;
}

void common_finish(struct common *co, const char *cmd) {
  if (!co->auth && co->auth_file) {
    co->auth = read_secret(cmd, origin(co->auth_file, "--auth-file", "$ZKL_AUTH_FILE"), co->auth_file);
  }
  if (!co->auth) co->auth = env_secret("ZKL_AUTH");
  if (co->auth && !strchr(co->auth, ':')) {
    usage_error(cmd, "--auth wants USER:PASSWORD (also in --auth-file and $ZKL_AUTH)");
  }
  if (co->tls_key_password_file) {
    co->tls_key_password = read_secret(cmd, origin(co->tls_key_password_file, "--tls-key-password-file",
                                                   "$ZKL_TLS_KEY_PASSWORD_FILE"),
                                       co->tls_key_password_file);
  } else {
    co->tls_key_password = env_secret("ZKL_TLS_KEY_PASSWORD");
  }
  if (co->sasl_password_file) {
    co->sasl_password = read_secret(cmd, origin(co->sasl_password_file, "--sasl-password-file",
                                                "$ZKL_SASL_PASSWORD_FILE"),
                                    co->sasl_password_file);
  } else {
    co->sasl_password = env_secret("ZKL_SASL_PASSWORD");
  }
  if ((co->tls_cert != NULL) != (co->tls_key != NULL)) {
    usage_error(cmd, "--tls-cert and --tls-key go together");
  }
  if ((co->tls_cert || co->tls_skip_hostname_check) && !co->tls_ca) {
    usage_error(cmd, "TLS options need --tls-ca (or $ZKL_TLS_CA)");
  }
  if ((co->sasl_user || co->sasl_password || co->sasl_keytab || co->sasl_ccache || co->sasl_host) &&
      !co->sasl_mechanism) {
    usage_error(cmd, "--sasl-user, --sasl-keytab, --sasl-ccache, --sasl-host and a SASL password need --sasl-mechanism");
  }
}

static void wipe(char **p) {
  if (!*p) return;
  explicit_bzero(*p, strlen(*p));
  free(*p);
  *p = NULL;
}

void common_wipe(struct common *co) {
  wipe(&co->auth);
  wipe(&co->tls_key_password);
  wipe(&co->sasl_password);
}

void scan_init(struct scan *s, int argc, char **argv, const char *cmd) {
  memset(s, 0, sizeof *s);
  s->argc = argc;
  s->argv = argv;
  s->cmd = cmd;
}

void scan_split(struct scan *s) {
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

int is(const struct scan *s, const char *name) { return strcmp(s->name, name) == 0; }

int is_help(const struct scan *s) { return is(s, "-h") || is(s, "--help"); }

int next_option(struct scan *s, struct common *co, const char **path, const char *help) {
  if (s->started) s->i++;  /* past the option the command just judged */
  s->started = 1;
  for (; s->i < s->argc; s->i++) {
    const char *a = s->argv[s->i];
    if (!is_option(a)) {
      if (*path) usage_error(s->cmd, "unexpected argument '%s' (one PATH only)", a);
      *path = a;
      continue;
    }
    scan_split(s);
    if (is_help(s)) {
      show_help(help);
      exit(0);
    }
    if (!common_option(s, co)) return 1;
  }
  return 0;
}

void unknown_option(const struct scan *s) { usage_error(s->cmd, "unknown option '%s'", s->argv[s->i]); }

void require_path(const struct scan *s, const char *path) {
  if (!path) usage_error(s->cmd, "missing PATH");
  if (path[0] != '/') usage_error(s->cmd, "bad path '%s': ZooKeeper paths are absolute (start with '/')", path);
}

const char *value(struct scan *s) {
  if (s->inline_v) return s->inline_v;
  if (s->i + 1 >= s->argc) usage_error(s->cmd, "option %s needs a value", s->name);
  return s->argv[++s->i];
}

void no_value(struct scan *s) {
  if (s->inline_v) usage_error(s->cmd, "option %s takes no value", s->name);
}

/* A value that must not be empty (a file, a name): "--tls-ca=" (or an
 * empty variable in a script) must not quietly mean "none". */
static const char *nonempty_value(struct scan *s) {
  const char *v = value(s);
  if (!v[0]) usage_error(s->cmd, "%s is empty", s->name);
  return v;
}

int flag_value(struct scan *s) {
  if (!s->inline_v) return 1;
  int b = parse_bool(s->inline_v);
  if (b < 0) {
    usage_error(s->cmd, "bad value '%s' for %s (1/0, true/false, yes/no, on/off; or the flag alone)",
                s->inline_v, s->name);
  }
  return b;
}

int64_t duration_value(struct scan *s) {
  const char *v = value(s);
  int64_t ms;
  if (parse_duration(v, &ms) != 0) {
    usage_error(s->cmd, "bad duration '%s' for %s (examples: 500ms, 5s, 2m; plain number = seconds)",
                v, s->name);
  }
  return ms;
}

long count_value(struct scan *s, long min, long max, const char *what) {
  const char *v = value(s);
  char *end;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (errno || end == v || *end || n < min || n > max) {
    usage_error(s->cmd, "bad %s '%s' for %s (a number >= %ld)", what, v, s->name, min);
  }
  return n;
}

int common_option(struct scan *s, struct common *co) {
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
  } else if (is(s, "--attempt-timeout")) {
    co->attempt_timeout_ms = duration_value(s);
    if (co->attempt_timeout_ms < 1 || co->attempt_timeout_ms > INT32_MAX) {
      usage_error(s->cmd, "--attempt-timeout out of range");
    }
  } else if (is(s, "--auth")) {
    const char *v = value(s);
    if (!strchr(v, ':')) usage_error(s->cmd, "--auth wants USER:PASSWORD");
    error_msg("warning: --auth puts the password on the command line, where every local user "
              "can read it (ps); use --auth-file FILE or $ZKL_AUTH");
    free(co->auth);
    co->auth = strdup(v);
    if (!co->auth) die(EXIT_ZKL, "out of memory");
  } else if (is(s, "--auth-file")) {
    co->auth_file = nonempty_value(s);
  } else if (is(s, "--acl")) {
    const char *v = value(s);
    if (strcmp(v, "open") == 0) co->acl = ZKL_ACL_OPEN;
    else if (strcmp(v, "creator") == 0) co->acl = ZKL_ACL_CREATOR;
    else usage_error(s->cmd, "bad --acl '%s' (open or creator)", v);
  } else if (is(s, "--tls-ca")) {
    co->tls_ca = nonempty_value(s);
  } else if (is(s, "--tls-cert")) {
    co->tls_cert = nonempty_value(s);
  } else if (is(s, "--tls-key")) {
    co->tls_key = nonempty_value(s);
  } else if (is(s, "--tls-key-password-file")) {
    co->tls_key_password_file = nonempty_value(s);
  } else if (is(s, "--tls-insecure-skip-hostname-check")) {
    co->tls_skip_hostname_check = flag_value(s);
  } else if (is(s, "--sasl-mechanism")) {
    co->sasl_mechanism = nonempty_value(s);
    if (!sasl_mechanism_ok(co->sasl_mechanism)) {
      usage_error(s->cmd, "bad --sasl-mechanism '%s' (DIGEST-MD5 or GSSAPI)", co->sasl_mechanism);
    }
  } else if (is(s, "--sasl-user")) {
    co->sasl_user = nonempty_value(s);
  } else if (is(s, "--sasl-keytab")) {
    co->sasl_keytab = nonempty_value(s);
  } else if (is(s, "--sasl-ccache")) {
    co->sasl_ccache = nonempty_value(s);
  } else if (is(s, "--sasl-host")) {
    co->sasl_host = nonempty_value(s);
  } else if (is(s, "--sasl-password-file")) {
    co->sasl_password_file = nonempty_value(s);
  } else if (is(s, "--sasl-password") || is(s, "--tls-key-password") || is(s, "--password")) {
    /* Not even looked at: the value would already be in argv. */
    usage_error(s->cmd, "%s is not accepted: a secret on the command line is visible to every "
                "local user (ps); use %s-file FILE or the environment", s->name, s->name);
  } else if (is(s, "-v") || is(s, "--verbose")) {
    verbose = flag_value(s);
  } else {
    return 0;
  }
  return 1;
}

int is_option(const char *a) { return a[0] == '-' && a[1] != '\0'; }

void show_help(const char *help) { printf(help, common_help); }

/* True if "--" comes in argv[from..argc). */
static int dashdash_follows(int argc, char **argv, int from) {
  for (int i = from; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return 1;
  }
  return 0;
}

static int run_kind_option(struct scan *s, struct run_opts *ro, int election, const char **kind_opt) {
  int k;
  if (!election && is(s, "--semaphore")) {
    ro->leases = (int)count_value(s, 1, 1000000, "lease count");
    k = ZKL_LOCK_SEMAPHORE;
  } else if (!election && (is(s, "--shared") || is(s, "--read"))) {
    k = ZKL_LOCK_READ;
  } else if (!election && (is(s, "--exclusive") || is(s, "--write"))) {
    k = ZKL_LOCK_WRITE;
  } else if (!election && (is(s, "--non-fair") || is(s, "--nonfair"))) {
    k = ZKL_LOCK_NONFAIR;
  } else if (is(s, "--fair")) {
    k = election ? ZKL_ELECTION_FAIR : ZKL_LOCK_FAIR;
  } else if (election && is(s, "--unfair")) {
    k = ZKL_ELECTION_NONFAIR;
  } else {
    return 0;
  }
  if (k != ZKL_LOCK_SEMAPHORE) no_value(s);
  if (*kind_opt && ro->kind != k) {
    if (election) usage_error(s->cmd, "--fair and --unfair exclude each other");
    usage_error(s->cmd, "%s and %s exclude each other", *kind_opt, s->name);
  }
  *kind_opt = s->argv[s->i];
  ro->kind = k;
  return 1;
}

void parse_run(const char *sub, int argc, char **argv, struct common *co, struct run_opts *ro,
               int election, const char *help) {
  memset(ro, 0, sizeof *ro);
  ro->kind = election ? ZKL_ELECTION_FAIR : ZKL_LOCK_FAIR;
  ro->timeout_ms = -1;
  ro->grace_ms = 10000;
  const char *kind_opt = NULL;
  struct scan s;
  scan_init(&s, argc, argv, sub);
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
      /* The first word is PATH. More PATHs (a multi-lock) must be absolute
       * and followed by "--"; otherwise CMD starts at the second word. */
      if (!ro->path || (!election && a[0] == '/' && dashdash_follows(argc, argv, i + 1))) {
        if (ro->npaths == MAX_PATHS) usage_error(sub, "too many PATHs (at most %d)", MAX_PATHS);
        ro->paths[ro->npaths++] = a;
        ro->path = ro->paths[0];
        continue;
      }
      break; /* CMD starts here */
    }
    scan_split(&s);
    if (is_help(&s)) {
      show_help(help);
      exit(0);
    } else if (common_option(&s, co) || run_kind_option(&s, ro, election, &kind_opt)) {
    } else if (!election && is(&s, "--timeout")) {
      ro->timeout_ms = duration_value(&s);
    } else if (is(&s, "--grace")) {
      ro->grace_ms = duration_value(&s);
    } else if (is(&s, "--id")) {
      ro->id = value(&s);
    } else if (is(&s, "--stop-on-suspend")) {
      ro->stop_on_suspend = flag_value(&s);
    } else if (is(&s, "--foreground")) {
      ro->foreground = flag_value(&s);
    } else if (election && is(&s, "--rejoin")) {
      ro->rejoin = flag_value(&s);
    } else if (!election && is(&s, "--revocable")) {
      ro->revocable = flag_value(&s);
    } else if (!election && is(&s, "--max-hold")) {
      ro->max_hold_ms = duration_value(&s);
      if (ro->max_hold_ms < 1) usage_error(sub, "--max-hold must be more than 0");
    } else if (!election && is(&s, "--metrics-file")) {
      ro->metrics_file = value(&s);
      if (!ro->metrics_file[0]) usage_error(sub, "--metrics-file is empty");
    } else {
      usage_error(sub, "unknown option '%s'", a);
    }
    i = s.i;
  }
  if (!ro->path) usage_error(sub, "missing PATH (a ZooKeeper path such as /locks/myjob)");
  if (i >= argc) usage_error(sub, "missing CMD to run (zkl %sPATH -- CMD [ARGS...])", sub);
  ro->cmd = argv + i;
  for (int k = 0; k < ro->npaths; k++) {
    const char *p = ro->paths[k];
    if (p[0] != '/') usage_error(sub, "bad path '%s': ZooKeeper paths are absolute (start with '/')", p);
    if (ro->npaths > 1 && strpbrk(p, " \t,=")) {
      usage_error(sub, "bad path '%s' in a multi-lock: no spaces, commas or '=' (they separate "
                  "$ZKL_FENCING_TOKENS)", p);
    }
    for (int j = 0; j < k; j++) {
      if (strcmp(ro->paths[j], p) == 0) usage_error(sub, "PATH '%s' given twice", p);
    }
  }
  if (ro->npaths > 1 && ro->kind == ZKL_LOCK_NONFAIR) {
    usage_error(sub, "--non-fair cannot be used with several PATHs (a multi-lock takes fair, "
                "read, write and semaphore locks)");
  }
  common_finish(co, sub);
}
