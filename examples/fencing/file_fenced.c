/* file_fenced: a file replaced only by a holder whose fencing token is not
 * older than the last one that replaced it (docs/FENCING.md, "A file").
 *
 *   file_fenced SERVERS FILE [CONTENT]
 *       take the lock /zkl-examples/fencing-file/<basename of FILE>, replace
 *       FILE with CONTENT through the fence, release. Exit 0: replaced;
 *       3: refused (a newer holder replaced it: stop).
 *   file_fenced SERVERS FILE --stale-demo
 *       two holders in sequence, in one process: A acquires (token tA) and
 *       loses the lock (its client is closed); B acquires (tB > tA) and
 *       replaces FILE; then A, which still has tA, tries: FILE must keep B's
 *       content. Exit 0 when it does.
 *
 * The fence: FILE.fence holds the newest token that replaced FILE. A writer
 * writes the new content to a temporary file next to FILE, then, under
 * flock(2) of FILE.fence, compares its token with the stored one: not older
 * -> store its token (fsync), rename the temporary file over FILE; older ->
 * delete the temporary file and report stale. Every writer of FILE must go
 * through this (flock is advisory).
 *
 * Build: cc file_fenced.c $(pkg-config --cflags --libs zkl)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <zkl.h>

/* 1: replaced, 0: refused (stale token: the holder must stop), -1: error. */
static int fenced_replace(const char *file, const char *content, uint64_t token) {
  char tmp[4096], side[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", file);
  snprintf(side, sizeof side, "%s.fence", file);
  /* 1. The new content, complete and on disk, under a temporary name. */
  int fd = mkstemp(tmp);
  if (fd < 0) return perror("mkstemp"), -1;
  size_t len = strlen(content);
  if (write(fd, content, len) != (ssize_t)len || fsync(fd) != 0) {
    perror("write");
    close(fd);
    unlink(tmp);
    return -1;
  }
  close(fd);
  /* 2. Under the sidecar's lock: compare, then store the token and rename. */
  int sfd = open(side, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (sfd < 0) return perror(side), unlink(tmp), -1;
  while (flock(sfd, LOCK_EX) != 0) {
    if (errno != EINTR) return perror("flock"), close(sfd), unlink(tmp), -1;
  }
  char buf[32] = {0};
  ssize_t n = pread(sfd, buf, sizeof buf - 1, 0);
  int have = n > 0;
  uint64_t stored = have ? strtoull(buf, NULL, 10) : 0;
  int result;
  if (have && token < stored) {
    unlink(tmp); /* a newer holder replaced the file: ours is stale */
    result = 0;
  } else {
    /* The token first: a crash between the two leaves the newer token with
     * the older content, which refuses stale holders and lets ours retry. */
    char out[32];
    int olen = snprintf(out, sizeof out, "%" PRIu64 "\n", token);
    if (pwrite(sfd, out, (size_t)olen, 0) != olen || ftruncate(sfd, olen) != 0 ||
        fsync(sfd) != 0 || rename(tmp, file) != 0) {
      perror("replace");
      unlink(tmp);
      result = -1;
    } else {
      result = 1;
    }
  }
  flock(sfd, LOCK_UN);
  close(sfd);
  return result;
}

struct holder {
  zkl_client *client;
  zkl_lock *lock;
  uint64_t token;
};

static int acquire(const char *servers, const char *path, struct holder *h) {
  zkl_client_options co;
  zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION);
  co.servers = servers;
  int rc = zkl_client_new(&co, &h->client);
  if (rc == 0) rc = zkl_client_wait_connected(h->client, 20000);
  zkl_lock_options lo;
  zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION);
  lo.kind = ZKL_LOCK_FAIR;
  if (rc == 0) rc = zkl_lock_new(h->client, path, &lo, &h->lock);
  if (rc == 0) rc = zkl_lock_acquire(h->lock, ZKL_DEFAULT_OWNER, 30000);
  if (rc == 0) rc = zkl_lock_fencing_token(h->lock, &h->token);
  if (rc != 0) fprintf(stderr, "zkl: %s\n", zkl_strerror(rc));
  return rc;
}

static void finish(struct holder *h) {
  if (h->lock) {
    zkl_lock_release(h->lock, ZKL_DEFAULT_OWNER);
    zkl_lock_destroy(h->lock);
  }
  if (h->client) zkl_client_destroy(h->client);
  h->lock = NULL;
  h->client = NULL;
}

static int read_file(const char *file, char *buf, size_t size) {
  FILE *f = fopen(file, "r");
  if (f == NULL) return -1;
  size_t n = fread(buf, 1, size - 1, f);
  buf[n] = 0;
  fclose(f);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: file_fenced SERVERS FILE [CONTENT | --stale-demo]\n");
    return 2;
  }
  const char *servers = argv[1], *file = argv[2];
  char base[1024], path[1200];
  snprintf(base, sizeof base, "%s", file);
  snprintf(path, sizeof path, "/zkl-examples/fencing-file/%s", basename(base));
  if (argc == 4 && strcmp(argv[3], "--stale-demo") == 0) {
    struct holder a = {0}, b = {0};
    int status = 1;
    if (acquire(servers, path, &a) != 0) goto out;
    uint64_t ta = a.token;
    printf("A acquired, token %" PRIu64 "\n", ta);
    finish(&a); /* A's session and node are gone; A still has its token */
    if (acquire(servers, path, &b) != 0) goto out;
    printf("B acquired, token %" PRIu64 "\n", b.token);
    if (b.token <= ta) {
      fprintf(stderr, "FAIL: B's token is not above A's\n");
      goto out;
    }
    if (fenced_replace(file, "written by B\n", b.token) != 1) {
      fprintf(stderr, "FAIL: B's replace was refused\n");
      goto out;
    }
    printf("B replaced %s with token %" PRIu64 "\n", file, b.token);
    int w = fenced_replace(file, "written by A\n", ta);
    if (w != 0) {
      fprintf(stderr, "FAIL: A's stale replace (token %" PRIu64 ") was %s\n", ta,
              w == 1 ? "ACCEPTED" : "an error");
      goto out;
    }
    char got[256];
    if (read_file(file, got, sizeof got) != 0 || strcmp(got, "written by B\n") != 0) {
      fprintf(stderr, "FAIL: %s does not hold B's content\n", file);
      goto out;
    }
    printf("A's replace with token %" PRIu64 " refused; %s keeps B's content\n", ta, file);
    status = 0;
  out:
    finish(&a);
    finish(&b);
    return status;
  }
  struct holder h = {0};
  if (acquire(servers, path, &h) != 0) {
    finish(&h);
    return 1;
  }
  printf("acquired %s, fencing token %" PRIu64 "\n", path, h.token);
  int status;
  if (zkl_lock_is_held(h.lock) != 1) {
    printf("no longer held: not writing\n");
    status = 3;
  } else {
    int w = fenced_replace(file, argc == 4 ? argv[3] : "hello\n", h.token);
    if (w == 1) printf("replaced %s with token %" PRIu64 "\n", file, h.token);
    if (w == 0) printf("refused: token %" PRIu64 " is stale, stopping\n", h.token);
    status = w == 1 ? 0 : w == 0 ? 3 : 1;
  }
  finish(&h);
  return status;
}
