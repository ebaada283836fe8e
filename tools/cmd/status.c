/*
 * zkl status: who holds a lock and who waits; --stats: the client statistics.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <zkl.h>

#include "../client.h"
#include "../options.h"
#include "../util.h"
#include "cmds.h"

const char status_help[] =
    "Usage: zkl status [OPTIONS] PATH\n"
    "\n"
    "Shows who holds the lock PATH and who waits, in queue order: fencing token,\n"
    "session id (hex), how long ago each joined the queue (AGE, from the node's\n"
    "creation time) and its id (the --id of zkl lock/elect).\n"
    "\n"
    "Status options:\n"
    "  --kind K     fair (default; also reentrant locks and Curator\n"
    "               InterProcessMutex), read-write, semaphore, nonfair,\n"
    "               election-fair (alias: election), election-unfair\n"
    "  --leases N   semaphore: the lease count, to tell holders from waiters\n"
    "               (without it every participant is listed as a holder)\n"
    "  --json       one JSON object on stdout (for scripts)\n"
    "  --stats      print instead the statistics JSON of zkl's own client for\n"
    "               this query (zkl_client_stats: session, requests, round-trip\n"
    "               times; schema in docs/STATISTICS.md)\n"
    "\n"
    "%s"
    "\n"
    "Non-fair locks and unfair elections keep no queue: only the holder shows.\n"
    "Exit status: 0 shown (also when nobody holds), 125 error.\n"
    "Example:\n"
    "  zkl status /locks/backup --json | jq '.participants[0].fencing_token'\n";

static const char *status_kinds[] = {"fair", "read-write", "semaphore", "nonfair",
                                     "election-fair", "election-unfair"};

int parse_kind(const char *cmd, const char **kind) {
  const char *k = *kind;
  if (strcmp(k, "election") == 0) k = "election-fair";
  if (strcmp(k, "rw") == 0) k = "read-write";
  if (strcmp(k, "non-fair") == 0) k = "nonfair";
  if (strcmp(k, "reentrant") == 0) k = "fair";
  *kind = k;
  if (strcmp(k, "fair") == 0) return ZKL_LOCK_FAIR;
  if (strcmp(k, "read-write") == 0) return ZKL_LOCK_WRITE;
  if (strcmp(k, "semaphore") == 0) return ZKL_LOCK_SEMAPHORE;
  if (strcmp(k, "nonfair") == 0) return ZKL_LOCK_NONFAIR;
  if (strcmp(k, "election-fair") == 0) return -ZKL_ELECTION_FAIR;
  if (strcmp(k, "election-unfair") == 0) return -ZKL_ELECTION_NONFAIR;
  char list[200] = "";
  for (size_t i = 0; i < sizeof status_kinds / sizeof status_kinds[0]; i++) {
    strcat(list, i ? ", " : "");
    strcat(list, status_kinds[i]);
  }
  usage_error(cmd, "bad --kind '%s' (one of %s)", k, list);
}

zkl_inspect_options inspect_options(int kind, int64_t timeout_ms) {
  zkl_inspect_options io;
  zkl_inspect_options_init(&io, ZKL_INSPECT_OPTIONS_VERSION);
  if (kind < 0) io.election_kind = -kind; else io.lock_kind = kind;
  io.timeout_ms = timeout_ms;
  return io;
}

struct participant {
  const char *name, *data;
  size_t dlen;
  uint64_t token, sid;
  int64_t ctime;
};

static void get(const zkl_participants *p, int i, struct participant *out) {
  memset(out, 0, sizeof *out);
  out->name = out->data = "";
  zkl_participants_name(p, (size_t)i, &out->name);
  zkl_participants_data(p, (size_t)i, &out->data, &out->dlen);
  zkl_participants_fencing_token(p, (size_t)i, &out->token);
  zkl_participants_session_id(p, (size_t)i, &out->sid);
  zkl_participants_ctime_ms(p, (size_t)i, &out->ctime);
}

static void print_json(const char *path, const char *kind, int rw, const zkl_participants *p,
                       const int *holds, int count, int holders) {
  int64_t now = wall_ms();
  printf("{\"path\":");
  json_string(stdout, path, strlen(path));
  printf(",\"kind\":\"%s\",\"holders\":%d,\"waiters\":%d,\"participants\":[", kind, holders,
         count - holders);
  for (int i = 0; i < count; i++) {
    struct participant x;
    get(p, i, &x);
    printf("%s{\"position\":%d,\"holder\":%s,\"fencing_token\":%" PRIu64
           ",\"session_id\":\"0x%" PRIx64 "\",\"ctime_ms\":%" PRId64 ",\"age_ms\":%" PRId64 ",\"id\":",
           i ? "," : "", i + 1, holds[i] ? "true" : "false", x.token, x.sid, x.ctime,
           now - x.ctime < 0 ? 0 : now - x.ctime);
    json_string(stdout, x.data, x.dlen);
    if (rw) printf(",\"mode\":\"%s\"", strstr(x.name, "__WRIT__") ? "write" : "read");
    printf(",\"node\":");
    json_string(stdout, x.name, strlen(x.name));
    printf("}");
  }
  printf("]}\n");
}

static void print_table(const char *path, const char *kind, int ikind, long leases, int rw,
                        const zkl_participants *p, const int *holds, int count, int holders) {
  int64_t now = wall_ms();
  int waiters = count - holders;
  printf("%s (%s): ", path, kind);
  if (count == 0) printf("free, nobody holds or waits\n");
  else printf("%d holder%s, %d waiter%s\n", holders, holders == 1 ? "" : "s", waiters, waiters == 1 ? "" : "s");
  if (ikind == ZKL_LOCK_SEMAPHORE && leases == 0 && count > 0) {
    printf("(lease count unknown: pass --leases N to tell holders from waiters)\n");
  }
  if (count > 0) {
    printf("  %-3s %-7s %s%-20s %-20s %-8s %s%s\n", "#", "STATE", rw ? "MODE   " : "", "FENCING TOKEN",
           "SESSION", "AGE", "ID", verbose ? "  NODE" : "");
  }
  for (int i = 0; i < count; i++) {
    struct participant x;
    get(p, i, &x);
    char age[32], sidbuf[32], tok[32], idbuf[256];
    format_duration(now - x.ctime, age, sizeof age);
    snprintf(sidbuf, sizeof sidbuf, "0x%" PRIx64, x.sid);
    snprintf(tok, sizeof tok, "%" PRIu64, x.token);
    printable(x.data, x.dlen, idbuf, sizeof idbuf);
    printf("  %-3d %-7s %s%-20s %-20s %-8s %s%s%s\n", i + 1, holds[i] ? "holds" : "waits",
           rw ? (strstr(x.name, "__WRIT__") ? "write  " : "read   ") : "", tok, sidbuf, age,
           idbuf[0] ? idbuf : "-", verbose ? "  " : "", verbose ? x.name : "");
  }
}

int cmd_status(int argc, char **argv) {
  struct common co;
  common_init(&co);
  const char *path = NULL, *kind = "fair";
  int json = 0, stats = 0;
  long leases = 0;
  struct scan s;
  scan_init(&s, argc, argv, "status ");
  while (next_option(&s, &co, &path, status_help)) {
    if (is(&s, "--json")) {
      json = flag_value(&s);
    } else if (is(&s, "--stats")) {
      stats = flag_value(&s);
    } else if (is(&s, "--kind")) {
      kind = value(&s);
    } else if (is(&s, "--leases")) {
      const char *v = value(&s);
      char *end;
      errno = 0;
      leases = strtol(v, &end, 10);
      if (errno || end == v || *end || leases < 1) usage_error(s.cmd, "bad --leases '%s'", v);
    } else {
      unknown_option(&s);
    }
  }
  require_path(&s, path);
  int ikind = parse_kind(s.cmd, &kind);
  if (leases && ikind != ZKL_LOCK_SEMAPHORE) usage_error(s.cmd, "--leases is for --kind semaphore");
  if (json && stats) usage_error(s.cmd, "--json and --stats exclude each other");
  int rw = ikind == ZKL_LOCK_WRITE;
  common_finish(&co, s.cmd);

  int sfd;
  zkl_client *c = connect_for_query(&co, &sfd);
  zkl_participants *p = NULL;
  zkl_inspect_options io = inspect_options(ikind, co.connect_timeout_ms);
  int rc = zkl_inspect(c, path, &io, &p);
  if (rc != 0) {
    char why[1200];
    why_failed(c, rc, why, sizeof why);
    zkl_client_destroy(c);
    if (rc == ZKL_EBADPATH) bad_path(path, rc);
    die(EXIT_ZKL, "cannot read %s: %s", path, why);
  }
  if (stats) {
    char *doc = NULL;
    rc = zkl_client_stats(c, &doc, NULL);
    if (rc != 0) {
      zkl_client_destroy(c);
      die(EXIT_ZKL, "cannot read the client statistics: %s", zkl_strerror(rc));
    }
    printf("%s\n", doc);
    zkl_free(doc);
    zkl_participants_free(p);
    zkl_client_destroy(c);
    return 0;
  }
  int count = zkl_participants_count(p);
  int holders = 0, writers_ahead = 0;
  int *holds = calloc((size_t)count + 1, sizeof *holds);
  if (!holds) die(EXIT_ZKL, "out of memory");
  for (int i = 0; i < count; i++) {
    const char *name = "";
    zkl_participants_name(p, (size_t)i, &name);
    if (rw) {
      /* Computed here from the node names: a writer holds at the head of the
       * queue, a reader while no writer is ahead of it. */
      int is_writer = strstr(name, "__WRIT__") != NULL;
      holds[i] = is_writer ? i == 0 : writers_ahead == 0;
      writers_ahead += is_writer;
    } else if (ikind == ZKL_LOCK_SEMAPHORE && leases > 0) {
      holds[i] = i < leases;
    } else {
      holds[i] = zkl_participants_is_holder(p, (size_t)i) == 1;
    }
    holders += holds[i];
  }
  if (json) print_json(path, kind, rw, p, holds, count, holders);
  else print_table(path, kind, ikind, leases, rw, p, holds, count, holders);
  fflush(stdout);
  free(holds);
  zkl_participants_free(p);
  zkl_client_destroy(c);
  return 0;
}
