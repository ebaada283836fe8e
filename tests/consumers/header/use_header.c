/* The public header compiles as strict C99 and as C++ (see test.sh), and
 * links: every constant and type used here is part of the documented API. */
#include <zkl.h>
#include <zkl.h> /* include guard */

#include <stdio.h>

static void on_event(const zkl_event *ev, void *user_data) {
  (void)ev;
  (void)user_data;
}

int main(void) {
  zkl_client_options co;
  zkl_lock_options lo;
  zkl_election_options eo;
  zkl_event_cb cb = on_event;
  int rc = zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION);
  rc |= zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION);
  rc |= zkl_election_options_init(&eo, ZKL_ELECTION_OPTIONS_VERSION);
  co.cb = cb;
  lo.kind = ZKL_LOCK_SEMAPHORE;
  eo.kind = ZKL_ELECTION_NONFAIR;
  if (rc != 0 || zkl_version() != ZKL_VERSION_MAJOR * 10000 + ZKL_VERSION_MINOR * 100 + ZKL_VERSION_PATCH) {
    printf("header mismatch: rc %d, library %d\n", rc, zkl_version());
    return 1;
  }
  if (zkl_lock_new(NULL, "/x", &lo, NULL) != ZKL_EBADHANDLE && zkl_lock_new(NULL, "/x", &lo, NULL) != ZKL_EINVAL) {
    printf("bad handle not rejected\n");
    return 1;
  }
  printf("%s\n", zkl_strerror(ZKL_EBADHANDLE));
  return 0;
}
