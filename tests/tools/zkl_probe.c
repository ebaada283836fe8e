/*
 * zkl-probe: a holder that keeps asking "do I still hold it?".
 *
 *   zkl-probe [--election] [--io thread|host] [--session-timeout MS]
 *             [--for MS] SERVERS PATH
 *
 * Takes a fair lock (or wins a fair election) on PATH, prints
 * "held <token>", then every 2 ms prints "probe <t> <answer> <valid_for>"
 * (t: CLOCK_MONOTONIC ns taken before the is_held/is_leader call) and
 * every event as "event <type> <error>", until LOST was seen and 100 more
 * probes were printed, or --for passes (default 60 s). The lease tests
 * freeze it with SIGSTOP and check every answer given after the thaw.
 */
#include <zkl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void pause_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
  int election = 0, io = ZKL_IO_THREAD;
  long session_ms = 4000, for_ms = 60000;
  int i = 1;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; ++i) {
    if (strcmp(argv[i], "--election") == 0) {
      election = 1;
    } else if (strcmp(argv[i], "--io") == 0 && i + 1 < argc) {
      io = strcmp(argv[++i], "host") == 0 ? ZKL_IO_HOST : ZKL_IO_THREAD;
    } else if (strcmp(argv[i], "--session-timeout") == 0 && i + 1 < argc) {
      session_ms = atol(argv[++i]);
    } else if (strcmp(argv[i], "--for") == 0 && i + 1 < argc) {
      for_ms = atol(argv[++i]);
    } else {
      fprintf(stderr, "zkl-probe: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (argc - i != 2) {
    fprintf(stderr, "usage: zkl-probe [--election] [--io thread|host] [--session-timeout MS] "
                    "[--for MS] SERVERS PATH\n");
    return 2;
  }
  zkl_client_options co;
  zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION);
  co.servers = argv[i];
  co.session_timeout_ms = (int32_t)session_ms;
  co.io = io;
  zkl_client *c = NULL;
  int rc = zkl_client_new(&co, &c);
  if (rc == 0) rc = zkl_client_wait_connected(c, 20000);
  if (rc != 0) {
    fprintf(stderr, "zkl-probe: connect: %s\n", zkl_strerror(rc));
    return 1;
  }
  zkl_lock *l = NULL;
  zkl_election *e = NULL;
  uint64_t token = 0;
  if (election) {
    zkl_election_options eo;
    zkl_election_options_init(&eo, ZKL_ELECTION_OPTIONS_VERSION);
    eo.id = "probe";
    rc = zkl_election_new(c, argv[i + 1], &eo, &e);
    if (rc == 0) rc = zkl_election_acquire(e, 20000);
    if (rc == 0) rc = zkl_election_fencing_token(e, &token);
  } else {
    zkl_lock_options lo;
    zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION);
    rc = zkl_lock_new(c, argv[i + 1], &lo, &l);
    if (rc == 0) rc = zkl_lock_acquire(l, ZKL_DEFAULT_OWNER, 20000);
    if (rc == 0) rc = zkl_lock_fencing_token(l, &token);
  }
  if (rc != 0) {
    fprintf(stderr, "zkl-probe: acquire: %s\n", zkl_strerror(rc));
    return 1;
  }
  printf("held %llu\n", (unsigned long long)token);
  fflush(stdout);

  long long end = now_ns() + for_ms * 1000000LL;
  int after_lost = -1;
  while (now_ns() < end && after_lost < 100) {
    long long t = now_ns();
    int64_t valid = 0;
    int answer = election ? zkl_election_is_leader(e) : zkl_lock_is_held(l);
    if (election) {
      zkl_election_valid_for(e, &valid);
    } else {
      zkl_lock_valid_for(l, &valid);
    }
    printf("probe %lld %d %lld\n", t, answer, (long long)valid);
    zkl_event *ev = NULL;
    while (zkl_client_next_event(c, &ev) == 0) {
      int type = zkl_event_type(ev);
      printf("event %d %d\n", type, zkl_event_error(ev));
      if (type == ZKL_EVENT_LOST && after_lost < 0) after_lost = 0;
      zkl_event_free(ev);
    }
    if (after_lost >= 0) ++after_lost;
    fflush(stdout);
    pause_ms(2);
  }
  zkl_client_destroy(c);
  return after_lost >= 0 ? 0 : 3;
}
