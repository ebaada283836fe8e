/*
 * An install consumer that does not link libzkl: it dlopen()s the library by
 * its SONAME (ZKL_SONAME, e.g. "libzkl.so.0"), resolves every function it
 * uses with dlsym(), and acquires and releases a lock on a real server. This
 * is what a language runtime with a foreign-function interface does. The
 * header is used for types and constants only.
 *
 *   dlopen_lock SERVERS PATH
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <zkl.h>

#ifndef ZKL_SONAME
#define ZKL_SONAME "libzkl.so.0"
#endif

static struct {
  const char *(*version_string)(void);
  const char *(*strerror)(int);
  int (*client_options_init)(zkl_client_options *, uint32_t);
  int (*client_new)(const zkl_client_options *, zkl_client **);
  int (*client_wait_connected)(zkl_client *, int64_t);
  int (*client_destroy)(zkl_client *);
  int (*lock_options_init)(zkl_lock_options *, uint32_t);
  int (*lock_new)(zkl_client *, const char *, const zkl_lock_options *, zkl_lock **);
  int (*lock_acquire)(zkl_lock *, uint64_t, int64_t);
  int (*lock_is_held)(zkl_lock *);
  int (*lock_fencing_token)(zkl_lock *, uint64_t *);
  int (*lock_release)(zkl_lock *, uint64_t);
  int (*lock_destroy)(zkl_lock *);
} api;

/* dlsym returns void*; C99 has no cast from it to a function pointer, so
 * copy the bits (the POSIX-sanctioned way). */
static int resolve(void *lib, const char *name, void *slot, size_t size) {
  void *sym = dlsym(lib, name);
  if (!sym) {
    fprintf(stderr, "dlopen_lock: dlsym(%s): %s\n", name, dlerror());
    return -1;
  }
  unsigned char *dst = (unsigned char *)slot, *src = (unsigned char *)&sym;
  for (size_t i = 0; i < size; i++) dst[i] = src[i];
  return 0;
}

#define RESOLVE(field, name) \
  if (resolve(lib, name, &api.field, sizeof api.field) != 0) return 1

#define CHECK(expr, want)                                                      \
  do {                                                                         \
    int rc_ = (expr);                                                          \
    if (rc_ != (want)) {                                                       \
      fprintf(stderr, "dlopen_lock: %s = %d (%s), want %d\n", #expr, rc_,      \
              api.strerror(rc_), (want));                                      \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: dlopen_lock SERVERS PATH\n");
    return 2;
  }
  void *lib = dlopen(ZKL_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "dlopen_lock: dlopen(%s): %s\n", ZKL_SONAME, dlerror());
    return 1;
  }
  RESOLVE(version_string, "zkl_version_string");
  RESOLVE(strerror, "zkl_strerror");
  RESOLVE(client_options_init, "zkl_client_options_init");
  RESOLVE(client_new, "zkl_client_new");
  RESOLVE(client_wait_connected, "zkl_client_wait_connected");
  RESOLVE(client_destroy, "zkl_client_destroy");
  RESOLVE(lock_options_init, "zkl_lock_options_init");
  RESOLVE(lock_new, "zkl_lock_new");
  RESOLVE(lock_acquire, "zkl_lock_acquire");
  RESOLVE(lock_is_held, "zkl_lock_is_held");
  RESOLVE(lock_fencing_token, "zkl_lock_fencing_token");
  RESOLVE(lock_release, "zkl_lock_release");
  RESOLVE(lock_destroy, "zkl_lock_destroy");
  zkl_client_options co;
  CHECK(api.client_options_init(&co, 1), 0); /* version 1, as a binding passes it */
  co.servers = argv[1];
  zkl_client *c = NULL;
  CHECK(api.client_new(&co, &c), 0);
  CHECK(api.client_wait_connected(c, 20000), 0);
  zkl_lock_options lo;
  CHECK(api.lock_options_init(&lo, 1), 0);
  zkl_lock *l = NULL;
  CHECK(api.lock_new(c, argv[2], &lo, &l), 0);
  CHECK(api.lock_acquire(l, 42, 10000), 0);
  CHECK(api.lock_is_held(l), 1);
  uint64_t token = 0;
  CHECK(api.lock_fencing_token(l, &token), 0);
  CHECK(api.lock_release(l, 42), 0);
  CHECK(api.lock_is_held(l), 0);
  CHECK(api.lock_destroy(l), 0);
  CHECK(api.client_destroy(c), 0);
  printf("dlopen_lock: %s (libzkl %s): acquired %s (token %" PRIu64 ") and released it\n",
         ZKL_SONAME, api.version_string(), argv[2], token);
  dlclose(lib);
  return 0;
}
