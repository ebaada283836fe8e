/*
 * zkl-hold: a minimal C contender used by the bindings' cross-language tests.
 *
 *   zkl-hold [--kind fair|reentrant|nonfair|read|write|semaphore:N|
 *                   election-fair|election-unfair] [--id ID]
 *            [--timeout MS] [--hold MS] SERVERS PATH
 *
 * Acquires the lock (blocking, up to --timeout, default 30000), prints
 * "acquired <fencing token>", holds it for --hold ms (default 1000) or until
 * stdin reaches EOF when --hold is -1, releases, prints "released".
 * Elections print "elected <token>" instead and resign at the end.
 * Exit status: 0 done, 2 timed out, 1 any other error (message on stderr).
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zkl.h>

#define ELECTION_KIND(k) (100 + (k))

/* Holds for hold_ms, or until stdin reaches EOF when hold_ms < 0. */
static void hold(long hold_ms) {
  if (hold_ms < 0) {
    char buf[256];
    while (read(0, buf, sizeof buf) > 0) {}
  } else {
    poll(NULL, 0, (int)hold_ms);
  }
}

static int parse_kind(const char *s, int *kind, int *leases) {
  if (strcmp(s, "fair") == 0) *kind = ZKL_LOCK_FAIR;
  else if (strcmp(s, "election-fair") == 0) *kind = ELECTION_KIND(ZKL_ELECTION_FAIR);
  else if (strcmp(s, "election-unfair") == 0) *kind = ELECTION_KIND(ZKL_ELECTION_NONFAIR);
  else if (strcmp(s, "reentrant") == 0) *kind = ZKL_LOCK_REENTRANT;
  else if (strcmp(s, "nonfair") == 0) *kind = ZKL_LOCK_NONFAIR;
  else if (strcmp(s, "read") == 0) *kind = ZKL_LOCK_READ;
  else if (strcmp(s, "write") == 0) *kind = ZKL_LOCK_WRITE;
  else if (strncmp(s, "semaphore:", 10) == 0) {
    *kind = ZKL_LOCK_SEMAPHORE;
    *leases = atoi(s + 10);
  } else return -1;
  return 0;
}

int main(int argc, char **argv) {
  int kind = ZKL_LOCK_FAIR, leases = 1;
  long timeout_ms = 30000, hold_ms = 1000;
  const char *id = "zkl-hold";
  int i = 1;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
    if (i + 1 >= argc) break;
    if (strcmp(argv[i], "--kind") == 0) {
      if (parse_kind(argv[i + 1], &kind, &leases) != 0) {
        fprintf(stderr, "zkl-hold: bad kind %s\n", argv[i + 1]);
        return 1;
      }
    } else if (strcmp(argv[i], "--id") == 0) {
      id = argv[i + 1];
    } else if (strcmp(argv[i], "--timeout") == 0) {
      timeout_ms = atol(argv[i + 1]);
    } else if (strcmp(argv[i], "--hold") == 0) {
      hold_ms = atol(argv[i + 1]);
    } else {
      fprintf(stderr, "zkl-hold: unknown option %s\n", argv[i]);
      return 1;
    }
  }
  if (argc - i != 2) {
    fprintf(stderr, "usage: zkl-hold [--kind K] [--timeout MS] [--hold MS] SERVERS PATH\n");
    return 1;
  }
  zkl_client_options co;
  zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION);
  co.servers = argv[i];
  zkl_client *c = NULL;
  int rc = zkl_client_new(&co, &c);
  if (rc == 0) rc = zkl_client_wait_connected(c, 20000);
  if (rc != 0) {
    fprintf(stderr, "zkl-hold: connect: %s\n", zkl_strerror(rc));
    return 1;
  }
  if (kind > 100) {
    zkl_election_options eo;
    zkl_election_options_init(&eo, ZKL_ELECTION_OPTIONS_VERSION);
    eo.kind = kind - 100;
    eo.id = id;
    zkl_election *e = NULL;
    rc = zkl_election_new(c, argv[i + 1], &eo, &e);
    if (rc == 0) rc = zkl_election_acquire(e, timeout_ms);
    if (rc != 0) {
      fprintf(stderr, "zkl-hold: campaign: %s\n", zkl_strerror(rc));
      zkl_client_destroy(c);
      return rc == ZKL_ETIMEDOUT ? 2 : 1;
    }
    uint64_t term = 0;
    zkl_election_fencing_token(e, &term);
    printf("elected %llu\n", (unsigned long long)term);
    fflush(stdout);
    hold(hold_ms);
    rc = zkl_election_release(e);
    printf("resigned\n");
    fflush(stdout);
    zkl_election_destroy(e);
    zkl_client_destroy(c);
    return rc == 0 ? 0 : 1;
  }
  zkl_lock_options lo;
  zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION);
  lo.kind = kind;
  lo.max_leases = leases;
  zkl_lock *l = NULL;
  rc = zkl_lock_new(c, argv[i + 1], &lo, &l);
  if (rc == 0) rc = zkl_lock_acquire(l, 1, timeout_ms);
  if (rc != 0) {
    fprintf(stderr, "zkl-hold: acquire: %s\n", zkl_strerror(rc));
    zkl_client_destroy(c);
    return rc == ZKL_ETIMEDOUT ? 2 : 1;
  }
  uint64_t token = 0;
  zkl_lock_fencing_token(l, &token);
  printf("acquired %llu\n", (unsigned long long)token);
  fflush(stdout);
  hold(hold_ms);
  rc = zkl_lock_release(l, 1);
  printf("released\n");
  fflush(stdout);
  zkl_lock_destroy(l);
  zkl_client_destroy(c);
  return rc == 0 ? 0 : 1;
}
