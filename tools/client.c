/* The ZooKeeper client of a zkl command (see client.h). */
#define _GNU_SOURCE
#include "client.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

sigset_t orig_mask;

static const int handled_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCHLD};

int setup_signals(void) {
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; ++i) {
    sigaddset(&set, handled_signals[i]);
  }
  /* Threads created later (ZooKeeper's) inherit the mask, so every one of
   * these signals ends up on the signalfd. */
  if (sigprocmask(SIG_BLOCK, &set, &orig_mask) != 0) die(EXIT_ZKL, "sigprocmask: %s", strerror(errno));
  int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd < 0) die(EXIT_ZKL, "signalfd: %s", strerror(errno));
  return fd;
}

int read_signal(int sfd, struct signalfd_siginfo *si) {
  ssize_t n = read(sfd, si, sizeof *si);
  if (n != (ssize_t)sizeof *si) return 0;
  return (int)si->ssi_signo;
}

const char *session_state_name(int s) {
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

/* The library names the fields of zkl_client_options; zkl says its own
 * names: the option, or the variable the value came from. */
struct name_map {
  const char *field, *cli;
};

static int word_char(char ch) { return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'); }

/* Copies msg to out (len bytes), each field name replaced: a whole word
 * followed by a space, punctuation or the end (not a file name's part). */
static void cli_names(const char *msg, const struct name_map *map, size_t n_map, char *out,
                      size_t len) {
  size_t j = 0;
  for (size_t i = 0; msg[i] && j + 1 < len;) {
    const char *rep = NULL;
    size_t n = 0;
    if (i == 0 || !word_char(msg[i - 1])) {
      for (size_t k = 0; k < n_map; k++) {
        size_t fl = strlen(map[k].field);
        if (strncmp(msg + i, map[k].field, fl) == 0 && strchr(" :?),;", msg[i + fl])) {
          rep = map[k].cli;
          n = fl;
          break;
        }
      }
    }
    if (rep) {
      j += (size_t)snprintf(out + j, len - j, "%s", rep);
      if (j >= len) j = len - 1;
      i += n;
    } else {
      out[j++] = msg[i++];
    }
  }
  out[j] = '\0';
}

/* The library's message (or the code's meaning) in zkl's names. */
static void creation_message(const struct common *co, int rc, const char *msg, char *out, size_t len) {
  const struct name_map map[] = {
      {"tls_ca_file", origin(co->tls_ca, "--tls-ca", "$ZKL_TLS_CA")},
      {"tls_cert_file", origin(co->tls_cert, "--tls-cert", "$ZKL_TLS_CERT")},
      {"tls_key_file", origin(co->tls_key, "--tls-key", "$ZKL_TLS_KEY")},
      {"tls_key_password is not set", "no passphrase is given (--tls-key-password-file, $ZKL_TLS_KEY_PASSWORD)"},
      {"tls_key_password", "passphrase (--tls-key-password-file, $ZKL_TLS_KEY_PASSWORD)"},
      {"tls_insecure_skip_hostname_check", "--tls-insecure-skip-hostname-check"},
      {"session_timeout_ms", "--session-timeout"},
      {"connect_timeout_ms", "--attempt-timeout"},
      {"digest_auth", "--auth"},
      {"sasl_mechanism", origin(co->sasl_mechanism, "--sasl-mechanism", "$ZKL_SASL_MECHANISM")},
      {"sasl_user", origin(co->sasl_user, "--sasl-user", "$ZKL_SASL_USER")},
      {"sasl_keytab", origin(co->sasl_keytab, "--sasl-keytab", "$ZKL_SASL_KEYTAB")},
      {"sasl_ccache", origin(co->sasl_ccache, "--sasl-ccache", "$ZKL_SASL_CCACHE")},
      {"sasl_host", origin(co->sasl_host, "--sasl-host", "$ZKL_SASL_HOST")},
      {"sasl_password", "SASL password (--sasl-password-file, $ZKL_SASL_PASSWORD)"},
  };
  /* "servers: must be ..." -- only as the subject: the word is common. */
  if (strncmp(msg, "servers:", 8) == 0) {
    size_t j = (size_t)snprintf(out, len, "%s:", origin(co->servers, "--servers", "$ZKL_SERVERS"));
    if (j < len) cli_names(msg + 8, map, sizeof map / sizeof map[0], out + j, len - j);
    return;
  }
  cli_names(msg[0] ? msg : zkl_strerror(rc), map, sizeof map / sizeof map[0], out, len);
}

/* One attempt's bound: --attempt-timeout, else each server's share of
 * --connect-timeout, so that a server that accepts and never answers (a
 * frozen JVM) tried first leaves time for the others. 0 keeps the
 * library's default (session timeout / max(3, servers)) when it is the
 * smaller. */
static int32_t attempt_timeout(const struct common *co, int64_t session_timeout_ms) {
  if (co->attempt_timeout_ms > 0) return (int32_t)co->attempt_timeout_ms;
  int64_t servers = 1;
  for (const char *p = co->servers; *p; p++) servers += *p == ',';
  int64_t share = co->connect_timeout_ms / servers;
  int64_t library = session_timeout_ms / (servers > 3 ? servers : 3);
  return share > 0 && share < library ? (int32_t)share : 0;
}

zkl_client *client_new(struct common *co) {
  zkl_client_options o;
  int rc = zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  if (rc != 0) die(EXIT_ZKL, "zkl_client_options_init: %s", zkl_strerror(rc));
  o.servers = co->servers;
  if (co->session_timeout_ms > 0) o.session_timeout_ms = (int32_t)co->session_timeout_ms;
  o.connect_timeout_ms = attempt_timeout(co, o.session_timeout_ms);
  o.digest_auth = co->auth;
  o.acl = co->acl;
  o.tls_ca_file = co->tls_ca;
  o.tls_cert_file = co->tls_cert;
  o.tls_key_file = co->tls_key;
  o.tls_key_password = co->tls_key_password;
  o.tls_insecure_skip_hostname_check = co->tls_skip_hostname_check;
  o.sasl_mechanism = co->sasl_mechanism;
  o.sasl_user = co->sasl_user;
  o.sasl_keytab = co->sasl_keytab;
  o.sasl_ccache = co->sasl_ccache;
  o.sasl_host = co->sasl_host;
  o.sasl_password = co->sasl_password;
  zkl_client *c = NULL;
  /* The library's message names the option and the reason, never a secret. */
  char msg[1024] = "", why[1536];
  rc = zkl_client_create(&o, &c, msg, sizeof msg);
  common_wipe(co);
  if (rc == 0) return c;
  creation_message(co, rc, msg, why, sizeof why);
  if (rc == ZKL_ECERT && co->tls_ca) {
    /* At creation ECERT is about the local files, not the server's chain. */
    if (msg[0] && strcmp(msg, zkl_strerror(rc)) != 0) die(EXIT_ZKL, "cannot use the TLS files: %s", why);
    die(EXIT_ZKL, "cannot use the TLS files: --tls-ca, --tls-cert or --tls-key is unreadable or "
        "not PEM, the key does not match the certificate, or the key is encrypted and its "
        "passphrase (--tls-key-password-file, $ZKL_TLS_KEY_PASSWORD) is missing or wrong");
  }
  if (rc == ZKL_ENOTSUP && (co->tls_ca || co->sasl_mechanism)) {
    die(EXIT_ZKL, "cannot use %s%s%s: %s", co->tls_ca ? "TLS" : "", co->tls_ca && co->sasl_mechanism ? " and " : "",
        co->sasl_mechanism ? "SASL" : "", why);
  }
  if (strncmp(msg, "servers:", 8) == 0) die(EXIT_ZKL, "cannot create a ZooKeeper client: %s", why);
  die(EXIT_ZKL, "cannot create a ZooKeeper client for '%s': %s", co->servers, why);
}

const char *connect_detail(zkl_client *c, char *buf, size_t len) {
  char d[1024] = "";
  if (len) buf[0] = '\0';
  if (zkl_client_connect_error(c, d, sizeof d) == 0 || !d[0]) return buf;
  snprintf(buf, len, " (%s)", d);
  return buf;
}

const char *why_failed(zkl_client *c, int rc, char *buf, size_t len) {
  char detail[1100] = "";
  if (rc == ZKL_ECONNECTION || rc == ZKL_ETIMEDOUT || rc == ZKL_ESESSION) {
    connect_detail(c, detail, sizeof detail);
  }
  snprintf(buf, len, "%s%s", zkl_strerror(rc), detail);
  return buf;
}

static int is_tls_error(int err) {
  return err == ZKL_ETLS || err == ZKL_ECERT || err == ZKL_EHOSTNAME || err == ZKL_ECLIENTCERT;
}

/* Failures retrying cannot change. */
static int is_definite(int err) { return err == ZKL_ECERT || err == ZKL_EHOSTNAME || err == ZKL_ECLIENTCERT || err == ZKL_EAUTH; }

/* err: the library's reason (zkl_client_wait_connected). Says it with the
 * failure of each server (zkl_client_connect_error) and exits 125. */
static void connect_failed(zkl_client *c, const struct common *co, int err) __attribute__((noreturn));
static void connect_failed(zkl_client *c, const struct common *co, int err) {
  char detail[1100];
  connect_detail(c, detail, sizeof detail);
  zkl_client_destroy(c);
  if (err == ZKL_EAUTH && co->sasl_mechanism) {
    /* The KDC, the keytab and the server's principal all fail the same way. */
    die(EXIT_ZKL, "SASL %s authentication with ZooKeeper at %s failed%s: the server rejected the "
        "credentials, or none could be obtained%s", co->sasl_mechanism, co->servers, detail,
        strcmp(co->sasl_mechanism, "GSSAPI") == 0
            ? " (check --sasl-user, --sasl-keytab or --sasl-ccache, KRB5_CONFIG, and that the "
              "server's principal is zookeeper/HOST: see --sasl-host)"
            : " (check --sasl-user and the password)");
  }
  if (err == ZKL_EAUTH) { /* without SASL only digest auth (co->auth, wiped by now) can fail */
    die(EXIT_ZKL, "ZooKeeper at %s rejected the credentials given with --auth%s", co->servers, detail);
  }
  if (co->tls_ca && is_tls_error(err)) {
    die(EXIT_ZKL, "TLS connection to ZooKeeper at %s failed: %s%s", co->servers, zkl_strerror(err), detail);
  }
  die(EXIT_ZKL, "cannot connect to ZooKeeper at %s: %s%s", co->servers, zkl_strerror(err), detail);
}

/* The longest zkl blocks in zkl_client_wait_connected before it looks at
 * signals again. */
#define WAIT_SLICE_MS 100
/* A wait that returns this much before its slice ran out returned for a
 * failure, not for the time. */
#define WAIT_EARLY_MS 10

void wait_connected(zkl_client *c, const struct common *co, int sfd) {
  int64_t deadline = now_ms() + co->connect_timeout_ms;
  info("connecting to %s", co->servers);
  for (;;) {
    int64_t slice = deadline - now_ms();
    if (slice > WAIT_SLICE_MS) slice = WAIT_SLICE_MS;
    if (slice < 0) slice = 0;
    int64_t t0 = now_ms();
    int rc = zkl_client_wait_connected(c, slice);
    if (rc == 0) break;
    if (zkl_client_state(c) == ZKL_SESSION_AUTH_FAILED) connect_failed(c, co, rc ? rc : ZKL_EAUTH);
    if (rc == ZKL_ECLOSED || rc == ZKL_EBADHANDLE) connect_failed(c, co, rc);
    int64_t left = slice - (now_ms() - t0);
    if (left > WAIT_EARLY_MS) {
      /* Every server refused to verify (certificate, host name, client
       * certificate) or authentication failed: the library says so at
       * once, before the wait ran out; no retry can help. When the wait
       * runs out, the same codes only name the last attempt of one server:
       * others may still answer, so zkl keeps trying until its timeout. */
      if (is_definite(rc)) connect_failed(c, co, rc);
      /* Back early for another reason: the rest of the slice here. */
      struct pollfd p = {sfd, POLLIN, 0};
      if (poll(&p, 1, (int)left) < 0 && errno != EINTR) die(EXIT_ZKL, "poll: %s", strerror(errno));
    }
    struct signalfd_siginfo si;
    int sig;
    while ((sig = read_signal(sfd, &si)) != 0) {
      if (sig == SIGCHLD) continue;
      zkl_client_destroy(c);
      exit(128 + sig);
    }
    zkl_event *ev = NULL;
    while (zkl_client_next_event(c, &ev) == 0) zkl_event_free(ev);
    if (now_ms() >= deadline) {
      /* The last attempt's TLS or protocol error, when there is one. */
      if (rc != ZKL_ETIMEDOUT && rc != ZKL_ECONNECTION) connect_failed(c, co, rc);
      char d[32], detail[1100];
      format_duration(co->connect_timeout_ms, d, sizeof d);
      connect_detail(c, detail, sizeof detail);
      zkl_client_destroy(c);
      die(EXIT_ZKL, "cannot connect to ZooKeeper at %s: timed out after %s%s%s", co->servers, d, detail,
          detail[0] ? "" : " (is it running? see --servers, $ZKL_SERVERS, --connect-timeout)");
    }
  }
  uint64_t sid = 0;
  zkl_client_session_id(c, &sid);
  info("connected: session 0x%" PRIx64 ", timeout %dms", sid, zkl_client_session_timeout(c));
}

zkl_client *connect_for_query(struct common *co, int *sfd) {
  *sfd = setup_signals();
  zkl_client *c = client_new(co);
  wait_connected(c, co, *sfd);
  return c;
}
