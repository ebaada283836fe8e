/*
 * zkl write: take a lock (or win an election), write nodes in its tree with
 * a guarded write (applied only while the hold is real at the quorum),
 * release. And zkl fence-check: is a fencing token still the holder's?
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zkl.h>

#include "../client.h"
#include "../options.h"
#include "../util.h"
#include "cmds.h"

const char write_help[] =
    "Usage: zkl write [OPTIONS] PATH --put NAME=VALUE [--put ...] ...\n"
    "\n"
    "Takes the lock PATH, writes nodes below it, releases. The writes go to\n"
    "ZooKeeper in one transaction together with a check of the lock's own\n"
    "node: all of them are applied only if the lock is really held at that\n"
    "moment (by the quorum's word, not this client's), none otherwise. NAME is\n"
    "a path relative to PATH (\"state\" is PATH/state, \"a/b\" PATH/a/b), never\n"
    "a node of the lock itself.\n"
    "\n"
    "Operations (in order; at least one):\n"
    "  --put NAME=VALUE       set NAME to VALUE, creating it if it is missing\n"
    "  --put-file NAME=FILE   the same with FILE's contents (- for stdin)\n"
    "  --create NAME=VALUE    create NAME (fails if it exists)\n"
    "  --set NAME=VALUE       set NAME (fails if it is missing)\n"
    "  --delete NAME          delete NAME (fails if missing or not empty)\n"
    "  --if-version N         --set/--delete/--put apply only at data version N\n"
    "\n"
    "Lock options:\n"
    "  --kind K       fair (default), nonfair, semaphore, read-write (the write\n"
    "                 side), election, election-unfair (write as its leader)\n"
    "  --leases N     --kind semaphore: the lease count all holders agree on\n"
    "  --timeout D    give up waiting for the lock after D (exit 124; 0: try once)\n"
    "  --id ID        who we are while holding (default HOST:PID)\n"
    "\n"
    "%s"
    "\n"
    "Exit status: 0 written; 1 an operation failed (exists, missing, version,\n"
    "not empty: nothing written); 75 the lock was lost before the write was\n"
    "applied (nothing written); 76 the connection broke during the write (it\n"
    "may or may not have been applied); 124 lock timeout; 125 error.\n"
    "Example:\n"
    "  zkl write /locks/deploy --put state=running --put owner=$(hostname)\n";

const char fence_check_help[] =
    "Usage: zkl fence-check [OPTIONS] PATH TOKEN   (TOKEN last)\n"
    "\n"
    "Says whether TOKEN (a fencing token, as `zkl lock` gives its command in\n"
    "ZKL_FENCING_TOKEN) is the token of a current holder of PATH. The answer\n"
    "is read after a sync with the ZooKeeper leader. It is a snapshot: a\n"
    "resource that must never accept a stale holder compares tokens itself\n"
    "(docs/FENCING.md).\n"
    "\n"
    "Options:\n"
    "  --kind K       the recipe of PATH, as for zkl status (default fair)\n"
    "\n"
    "%s"
    "\n"
    "Exit status: 0 current (prints \"current\"), 1 stale (prints \"stale\"),\n"
    "125 error.\n";

#define EXIT_OPFAILED 1
#define EXIT_INDOUBT 76
#define MAX_OPS 64

enum op_kind { OP_PUT, OP_CREATE, OP_SET, OP_DELETE };

struct op {
  enum op_kind kind;
  char *path;  /* PATH/NAME */
  char *value; /* owned */
  size_t len;
  int created; /* a --put that turned into a create */
};

static char *read_all(const char *file, size_t *len) {
  FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "rb");
  if (!f) die(EXIT_ZKL, "cannot read '%s': %s", file, strerror(errno));
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  if (!buf) die(EXIT_ZKL, "out of memory");
  int failed = ferror(f);
  if (f != stdin) fclose(f);
  if (failed) die(EXIT_ZKL, "cannot read '%s'", file);
  *len = n;
  return buf;
}

/* NAME=VALUE (or just NAME for --delete) into op, below lock path `base`. */
static void parse_op(const struct scan *s, enum op_kind kind, const char *arg, const char *base,
                     int from_file, struct op *op) {
  const char *eq = kind == OP_DELETE ? NULL : strchr(arg, '=');
  if (kind != OP_DELETE && !eq) usage_error(s->cmd, "%s needs NAME=%s", s->name, from_file ? "FILE" : "VALUE");
  size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
  if (nlen == 0 || arg[0] == '/') usage_error(s->cmd, "bad NAME in %s '%s' (a path relative to PATH)", s->name, arg);
  op->kind = kind;
  op->path = xasprintf("%s/%.*s", strcmp(base, "/") == 0 ? "" : base, (int)nlen, arg);
  op->created = 0;
  if (!eq) {
    op->value = NULL;
    op->len = 0;
  } else if (from_file) {
    op->value = read_all(eq + 1, &op->len);
  } else {
    op->value = strdup(eq + 1);
    op->len = strlen(eq + 1);
  }
}

static int add_op(zkl_ops *ops, const struct op *op, int version) {
  switch (op->kind) {
    case OP_CREATE: return zkl_ops_create(ops, op->path, op->value, op->len, ZKL_CREATE_PERSISTENT);
    case OP_SET: return zkl_ops_set(ops, op->path, op->value, op->len, version);
    case OP_PUT:
      return op->created ? zkl_ops_create(ops, op->path, op->value, op->len, ZKL_CREATE_PERSISTENT)
                         : zkl_ops_set(ops, op->path, op->value, op->len, version);
    case OP_DELETE: return zkl_ops_delete(ops, op->path, version);
  }
  return ZKL_EINVAL;
}

/* The hold: a lock, or an election's leadership. */
struct holder {
  zkl_lock *l;
  zkl_election *e;
};

static int holder_write(const struct holder *h, zkl_ops *ops) {
  return h->l ? zkl_lock_write(h->l, OWNER, ops) : zkl_election_write(h->e, ops);
}

static void holder_release(const struct holder *h) {
  if (h->l) {
    zkl_lock_release(h->l, OWNER);
    zkl_lock_destroy(h->l);
  } else {
    zkl_election_release(h->e);
    zkl_election_destroy(h->e);
  }
}

/* Waits for the async acquire's outcome; signals end the wait (128+N). */
static int await_hold(zkl_client *c, int sfd, const struct holder *h, int *exit_status) {
  int zfd = zkl_client_fd(c);
  for (;;) {
    struct pollfd p[2] = {{zfd, POLLIN, 0}, {sfd, POLLIN, 0}};
    if (poll(p, 2, -1) < 0 && errno != EINTR) die(EXIT_ZKL, "poll: %s", strerror(errno));
    if (p[1].revents & POLLIN) {
      struct signalfd_siginfo si;
      int sig;
      while ((sig = read_signal(sfd, &si)) != 0) {
        if (sig == SIGCHLD) continue;
        *exit_status = 128 + sig;
        return -1;
      }
    }
    zkl_event *ev = NULL;
    while (zkl_client_next_event(c, &ev) == 0) {
      zkl_lock *l = NULL;
      zkl_election *e = NULL;
      zkl_event_lock(ev, &l);
      zkl_event_election(ev, &e);
      int type = zkl_event_type(ev), err = zkl_event_error(ev);
      zkl_event_free(ev);
      if ((h->l && l != h->l) || (h->e && e != h->e)) continue;
      if (type == ZKL_EVENT_ACQUIRED || type == ZKL_EVENT_ELECTED) return 0;
      if (type == ZKL_EVENT_ACQUIRE_FAILED) return err;
    }
  }
}

int cmd_write(int argc, char **argv) {
  struct common co;
  common_init(&co);
  const char *path = NULL, *kind = "fair", *id = NULL;
  long leases = 0, version = -1;
  int64_t timeout_ms = -1;
  struct op ops_given[MAX_OPS];
  int nops = 0;
  struct scan s;
  scan_init(&s, argc, argv, "write ");
  /* Operations name PATH: collect the raw arguments first. */
  struct {
    enum op_kind kind;
    const char *arg;
    int file;
  } raw[MAX_OPS];
  while (next_option(&s, &co, &path, write_help)) {
    enum op_kind k;
    int file = 0;
    if (is(&s, "--put")) {
      k = OP_PUT;
    } else if (is(&s, "--put-file")) {
      k = OP_PUT;
      file = 1;
    } else if (is(&s, "--create")) {
      k = OP_CREATE;
    } else if (is(&s, "--set")) {
      k = OP_SET;
    } else if (is(&s, "--delete")) {
      k = OP_DELETE;
    } else if (is(&s, "--if-version")) {
      version = count_value(&s, 0, 0x7fffffff, "--if-version");
      continue;
    } else if (is(&s, "--kind")) {
      kind = value(&s);
      continue;
    } else if (is(&s, "--leases")) {
      leases = count_value(&s, 1, 1 << 20, "--leases");
      continue;
    } else if (is(&s, "--timeout")) {
      timeout_ms = duration_value(&s);
      continue;
    } else if (is(&s, "--id")) {
      id = value(&s);
      continue;
    } else {
      unknown_option(&s);
      continue;
    }
    if (nops == MAX_OPS) usage_error(s.cmd, "at most %d operations", MAX_OPS);
    raw[nops].kind = k;
    raw[nops].file = file;
    raw[nops].arg = value(&s);
    nops++;
  }
  require_path(&s, path);
  if (nops == 0) usage_error(s.cmd, "nothing to write (--put, --create, --set or --delete)");
  int ikind = parse_kind(s.cmd, &kind);
  if (ikind == ZKL_LOCK_SEMAPHORE && leases == 0) usage_error(s.cmd, "--kind semaphore needs --leases N");
  if (leases && ikind != ZKL_LOCK_SEMAPHORE) usage_error(s.cmd, "--leases is for --kind semaphore");
  for (int i = 0; i < nops; i++) {
    static const char *const flags[] = {"--put", "--create", "--set", "--delete"};
    s.name = raw[i].file ? "--put-file" : flags[raw[i].kind];
    parse_op(&s, raw[i].kind, raw[i].arg, path, raw[i].file, &ops_given[i]);
  }
  common_finish(&co, s.cmd);
  char *who = id ? (char *)id : default_id();

  int sfd;
  zkl_client *c = connect_for_query(&co, &sfd);
  struct holder h = {NULL, NULL};
  int rc;
  if (ikind > 0) {
    zkl_lock_options lo;
    zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION);
    lo.kind = ikind;
    lo.max_leases = (int32_t)leases;
    lo.data = who;
    lo.data_len = strlen(who);
    rc = zkl_lock_new(c, path, &lo, &h.l);
  } else {
    zkl_election_options eo;
    zkl_election_options_init(&eo, ZKL_ELECTION_OPTIONS_VERSION);
    eo.kind = -ikind;
    eo.id = who;
    rc = zkl_election_new(c, path, &eo, &h.e);
  }
  if (rc != 0) {
    zkl_client_destroy(c);
    bad_path(path, rc);
  }

  rc = h.l ? zkl_lock_acquire_async(h.l, OWNER, timeout_ms) : zkl_election_acquire_async(h.e, timeout_ms);
  int status = 0;
  if (rc > 0) rc = await_hold(c, sfd, &h, &status);  /* started: rc is its request id */
  if (rc != 0) {
    if (rc == -1) {
      info("interrupted while waiting for %s", path);
    } else if (rc == ZKL_ETIMEDOUT) {
      error_msg("timed out waiting for %s", path);
      status = EXIT_TIMEOUT;
    } else {
      char why[1200];
      error_msg("cannot acquire %s: %s", path, why_failed(c, rc, why, sizeof why));
      status = EXIT_ZKL;
    }
    holder_release(&h);
    zkl_client_destroy(c);
    return status;
  }

  /* A --put of a missing node becomes its create, and the write is tried
   * again (still guarded): once per --put at most. */
  for (int attempt = 0;; attempt++) {
    zkl_ops *ops = NULL;
    if (zkl_ops_new(&ops) != 0) die(EXIT_ZKL, "out of memory");
    for (int i = 0; i < nops; i++) {
      rc = add_op(ops, &ops_given[i], (int)version);
      if (rc != 0) {
        holder_release(&h);
        zkl_client_destroy(c);
        if (rc == ZKL_EBADPATH) bad_path(ops_given[i].path, rc);
        die(EXIT_ZKL, "cannot write %s: %s", ops_given[i].path, zkl_strerror(rc));
      }
    }
    rc = holder_write(&h, ops);
    int failed = zkl_ops_failed(ops);
    zkl_ops_free(ops);
    if (rc == ZKL_ENOTFOUND && failed >= 0 && ops_given[failed].kind == OP_PUT &&
        !ops_given[failed].created && attempt < nops) {
      ops_given[failed].created = 1;
      continue;
    }
    if (rc == 0) {
      info("wrote %d operation%s below %s", nops, nops == 1 ? "" : "s", path);
      status = 0;
    } else if (failed >= 0) {
      error_msg("nothing written: %s: %s", ops_given[failed].path, zkl_strerror(rc));
      status = EXIT_OPFAILED;
    } else if (rc == ZKL_EBADPATH) {
      error_msg("nothing written: an operation is outside the tree of %s, or on one of its lock nodes",
                path);
      status = EXIT_ZKL;
    } else if (rc == ZKL_ELOST || rc == ZKL_ENOTHELD || rc == ZKL_ESESSION) {
      error_msg("nothing written: the lock %s was lost before the write (%s)", path, zkl_strerror(rc));
      status = EXIT_LOST;
    } else if (rc == ZKL_EINDOUBT) {
      error_msg("the connection broke during the write: it may or may not have been applied");
      status = EXIT_INDOUBT;
    } else {
      char why[1200];
      error_msg("nothing written: %s", why_failed(c, rc, why, sizeof why));
      status = EXIT_ZKL;
    }
    break;
  }
  for (int i = 0; i < nops; i++) {
    free(ops_given[i].path);
    free(ops_given[i].value);
  }
  holder_release(&h);
  zkl_client_destroy(c);
  if (!id) free(who);
  return status;
}

int cmd_fence_check(int argc, char **argv) {
  struct common co;
  common_init(&co);
  const char *path = NULL, *kind = "fair", *token_arg = NULL;
  struct scan s;
  scan_init(&s, argc, argv, "fence-check ");
  /* PATH TOKEN: the scanner takes one positional; TOKEN is the last. */
  if (argc >= 2 && !is_option(argv[argc - 1])) {
    token_arg = argv[argc - 1];
    s.argc = argc - 1;
  }
  while (next_option(&s, &co, &path, fence_check_help)) {
    if (is(&s, "--kind")) {
      kind = value(&s);
    } else {
      unknown_option(&s);
    }
  }
  require_path(&s, path);
  if (!token_arg) usage_error(s.cmd, "missing TOKEN");
  char *end = NULL;
  errno = 0;
  unsigned long long token = strtoull(token_arg, &end, 10);
  if (errno || !end || *end || token_arg[0] == '-' || !token_arg[0]) {
    usage_error(s.cmd, "bad TOKEN '%s' (a fencing token: a whole number)", token_arg);
  }
  int ikind = parse_kind(s.cmd, &kind);
  common_finish(&co, s.cmd);

  int sfd;
  zkl_client *c = connect_for_query(&co, &sfd);
  zkl_inspect_options io = inspect_options(ikind, co.connect_timeout_ms);
  int rc = zkl_fence_check(c, path, &io, (uint64_t)token);
  char why[1200];
  if (rc < 0 && rc != ZKL_ESTALE) why_failed(c, rc, why, sizeof why);
  zkl_client_destroy(c);
  if (rc == 0) {
    printf("current\n");
    return 0;
  }
  if (rc == ZKL_ESTALE) {
    printf("stale\n");
    return 1;
  }
  if (rc == ZKL_EBADPATH) bad_path(path, rc);
  die(EXIT_ZKL, "cannot check the token of %s: %s", path, why);
}
