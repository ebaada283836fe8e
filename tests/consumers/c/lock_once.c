/*
 * An install consumer: acquires and releases a fair lock on a real server,
 * built against an installed libzkl (via pkg-config, or CMake's zkl::zkl).
 *
 *   lock_once SERVERS PATH
 *
 * Checks exclusion with a second handle, prints one line, exits 0 on success.
 */
#include <inttypes.h>
#include <stdio.h>
#include <zkl.h>

#define CHECK(expr, want)                                                     \
  do {                                                                        \
    int rc_ = (expr);                                                         \
    if (rc_ != (want)) {                                                      \
      fprintf(stderr, "lock_once: %s = %d (%s), want %d\n", #expr, rc_,       \
              zkl_strerror(rc_), (want));                                     \
      return 1;                                                               \
    }                                                                         \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: lock_once SERVERS PATH\n");
    return 2;
  }
  zkl_client_options co;
  CHECK(zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION), 0);
  co.servers = argv[1];
  co.session_timeout_ms = 10000;
  zkl_client *c = NULL;
  CHECK(zkl_client_new(&co, &c), 0);
  CHECK(zkl_client_wait_connected(c, 20000), 0);

  zkl_lock_options lo;
  CHECK(zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION), 0);
  zkl_lock *a = NULL, *b = NULL;
  CHECK(zkl_lock_new(c, argv[2], &lo, &a), 0);
  CHECK(zkl_lock_new(c, argv[2], &lo, &b), 0);

  CHECK(zkl_lock_acquire(a, 1, 10000), 0);
  CHECK(zkl_lock_is_held(a), 1);
  uint64_t token = 0, token2 = 0;
  CHECK(zkl_lock_fencing_token(a, &token), 0);
  CHECK(zkl_lock_try_acquire(b, 2), ZKL_EAGAIN); /* excluded while a holds */
  CHECK(zkl_lock_release(a, 1), 0);
  CHECK(zkl_lock_release(a, 1), ZKL_ENOTHELD);
  CHECK(zkl_lock_try_acquire(b, 2), 0);
  CHECK(zkl_lock_fencing_token(b, &token2), 0);
  if (!(token2 > token)) {
    fprintf(stderr, "lock_once: fencing token did not increase: %" PRIu64 " then %" PRIu64 "\n",
            token, token2);
    return 1;
  }
  CHECK(zkl_lock_release(b, 2), 0);
  CHECK(zkl_lock_destroy(a), 0);
  CHECK(zkl_lock_destroy(b), 0);
  CHECK(zkl_client_destroy(c), 0);
  printf("lock_once: libzkl %s: acquired %s (token %" PRIu64 "), excluded a second holder, "
         "released (next token %" PRIu64 ")\n", zkl_version_string(), argv[2], token, token2);
  return 0;
}
