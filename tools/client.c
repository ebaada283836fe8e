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

zkl_client *client_new(struct common *co) {
  zkl_client_options o;
  int rc = zkl_client_options_init(&o, ZKL_CLIENT_OPTIONS_VERSION);
  if (rc != 0) die(EXIT_ZKL, "zkl_client_options_init: %s", zkl_strerror(rc));
  o.servers = co->servers;
  o.session_timeout_ms = (int32_t)co->session_timeout_ms;
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
  rc = zkl_client_new(&o, &c);
  common_wipe(co);
  if (rc == ZKL_EINVAL) {
    die(EXIT_ZKL, "invalid server list '%s' (want host:port[,host:port...])", co->servers);
  }
  if (rc == ZKL_ECERT && co->tls_ca) {
    /* At creation ECERT is about the local files, not the server's chain. */
    die(EXIT_ZKL, "cannot use the TLS files: --tls-ca, --tls-cert or --tls-key is unreadable or "
        "not PEM, the key does not match the certificate, or the key is encrypted and its "
        "passphrase (--tls-key-password-file, $ZKL_TLS_KEY_PASSWORD) is missing or wrong");
  }
  if (rc == ZKL_ENOTSUP && (co->tls_ca || co->sasl_mechanism)) {
    die(EXIT_ZKL, "cannot use %s%s%s: %s", co->tls_ca ? "TLS" : "", co->tls_ca && co->sasl_mechanism ? " and " : "",
        co->sasl_mechanism ? "SASL" : "", zkl_strerror(rc));
  }
  if (rc != 0) die(EXIT_ZKL, "cannot create a ZooKeeper client for '%s': %s", co->servers, zkl_strerror(rc));
  return c;
}

static int is_tls_error(int err) {
  return err == ZKL_ETLS || err == ZKL_ECERT || err == ZKL_EHOSTNAME || err == ZKL_ECLIENTCERT;
}

/* err: the library's reason (zkl_client_wait_connected), ZKL_EAUTH if it
 * gave none for a failed authentication. */
static void connect_failed(zkl_client *c, const struct common *co, int err) {
  zkl_client_destroy(c);
  if (err == ZKL_EAUTH && co->sasl_mechanism) {
    /* The KDC, the keytab and the server's principal all fail the same way. */
    die(EXIT_ZKL, "SASL %s authentication with ZooKeeper at %s failed: the server rejected the "
        "credentials, or none could be obtained%s", co->sasl_mechanism, co->servers,
        strcmp(co->sasl_mechanism, "GSSAPI") == 0
            ? " (check --sasl-user, --sasl-keytab or --sasl-ccache, KRB5_CONFIG, and that the "
              "server's principal is zookeeper/HOST: see --sasl-host)"
            : " (check --sasl-user and the password)");
  }
  if (err == ZKL_EAUTH) { /* without SASL only digest auth (co->auth, wiped by now) can fail */
    die(EXIT_ZKL, "ZooKeeper at %s rejected the credentials given with --auth", co->servers);
  }
  if (co->tls_ca && is_tls_error(err)) {
    die(EXIT_ZKL, "TLS connection to ZooKeeper at %s failed: %s", co->servers, zkl_strerror(err));
  }
  die(EXIT_ZKL, "cannot connect to ZooKeeper at %s: %s", co->servers, zkl_strerror(err));
}

void wait_connected(zkl_client *c, const struct common *co, int sfd) {
  int64_t deadline = now_ms() + co->connect_timeout_ms;
  int zfd = zkl_client_fd(c);
  info("connecting to %s", co->servers);
  for (;;) {
    int st = zkl_client_state(c);
    if (st == ZKL_SESSION_CONNECTED || st == ZKL_SESSION_RECONNECTED) break;
    /* The reason is asked of the library, not taken from the event: the
     * state can change before the event is read. */
    if (st == ZKL_SESSION_AUTH_FAILED) connect_failed(c, co, zkl_client_wait_connected(c, 0));
    if (now_ms() >= deadline) {
      char d[32];
      format_duration(co->connect_timeout_ms, d, sizeof d);
      /* Why the last attempt failed, when the library knows (TLS). */
      int why = zkl_client_wait_connected(c, 0);
      if (why != 0 && why != ZKL_ETIMEDOUT && why != ZKL_ECONNECTION) connect_failed(c, co, why);
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

zkl_client *connect_for_query(struct common *co, int *sfd) {
  *sfd = setup_signals();
  zkl_client *c = client_new(co);
  wait_connected(c, co, *sfd);
  return c;
}
