/* pg_fenced: a PostgreSQL row guarded by a zkl fencing token
 * (docs/FENCING.md, "A SQL row").
 *
 *   pg_fenced SERVERS CONNINFO [KEY [VALUE]]
 *       connect to ZooKeeper (SERVERS, e.g. 127.0.0.1:2181) and PostgreSQL
 *       (CONNINFO, e.g. "host=127.0.0.1 port=5432 user=postgres dbname=postgres"),
 *       take the lock /zkl-examples/fencing/KEY, write VALUE to row KEY of
 *       table `fenced` through the fence, release. Exit 0: written;
 *       3: the database refused the token (a newer holder wrote: stop).
 *   pg_fenced SERVERS CONNINFO --stale-demo KEY
 *       two holders in sequence, in one process: A acquires (token tA) and
 *       loses the lock (its client is closed: its session and node are
 *       gone); B acquires (tB > tA) and writes; then A, which still has tA,
 *       writes: the database must refuse it. Exit 0 when it does.
 *
 * Build: cc pg_fenced.c $(pkg-config --cflags --libs zkl libpq)
 */
#include <inttypes.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zkl.h>

/* The table. `fence` is the newest token the row has accepted. */
static const char *kSchema =
    "CREATE TABLE IF NOT EXISTS fenced ("
    "  key   text   PRIMARY KEY,"
    "  value text   NOT NULL,"
    "  fence bigint NOT NULL)";

/* The fenced write: insert, or update only if the stored token is not newer
 * than ours. `<=`: the same holder writes again and again with its token. */
static const char *kWrite =
    "INSERT INTO fenced AS f (key, value, fence) VALUES ($1, $2, $3) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value, fence = excluded.fence "
    "WHERE f.fence <= excluded.fence";

/* 1: written, 0: refused (a newer token wrote the row: the holder must
 * stop), -1: database error. */
static int fenced_write(PGconn *db, const char *key, const char *value, uint64_t token) {
  char tok[24];
  snprintf(tok, sizeof tok, "%" PRIu64, token);
  const char *params[3] = {key, value, tok};
  PGresult *r = PQexecParams(db, kWrite, 3, NULL, params, NULL, NULL, 0);
  if (PQresultStatus(r) != PGRES_COMMAND_OK) {
    fprintf(stderr, "write: %s", PQerrorMessage(db));
    PQclear(r);
    return -1;
  }
  int rows = atoi(PQcmdTuples(r)); /* rows affected: 1 or 0 */
  PQclear(r);
  return rows == 1;
}

static PGconn *db_connect(const char *conninfo) {
  PGconn *db = PQconnectdb(conninfo);
  if (PQstatus(db) != CONNECTION_OK) {
    fprintf(stderr, "postgres: %s", PQerrorMessage(db));
    PQfinish(db);
    return NULL;
  }
  PGresult *r = PQexec(db, kSchema);
  int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  if (!ok) fprintf(stderr, "schema: %s", PQerrorMessage(db));
  PQclear(r);
  if (!ok) {
    PQfinish(db);
    return NULL;
  }
  return db;
}

/* A connected client and an acquired lock, with its token. */
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
    zkl_lock_release(h->lock, ZKL_DEFAULT_OWNER); /* ZKL_ENOTHELD/ELOST: already gone */
    zkl_lock_destroy(h->lock);
  }
  if (h->client) zkl_client_destroy(h->client);
  h->lock = NULL;
  h->client = NULL;
}

static int run_once(const char *servers, const char *conninfo, const char *key,
                    const char *value) {
  char path[512];
  snprintf(path, sizeof path, "/zkl-examples/fencing/%s", key);
  PGconn *db = db_connect(conninfo);
  if (db == NULL) return 1;
  struct holder h = {0};
  if (acquire(servers, path, &h) != 0) {
    finish(&h);
    PQfinish(db);
    return 1;
  }
  printf("acquired %s, fencing token %" PRIu64 "\n", path, h.token);
  int status = 0;
  /* Ask, then write with the token: whatever happens between the two (a
   * pause, a partition), the row refuses a token older than one it took. */
  if (zkl_lock_is_held(h.lock) != 1) {
    printf("no longer held: not writing\n");
    status = 3;
  } else {
    int w = fenced_write(db, key, value, h.token);
    if (w == 1) printf("written: %s=%s with token %" PRIu64 "\n", key, value, h.token);
    if (w == 0) printf("refused: token %" PRIu64 " is stale, stopping\n", h.token);
    status = w == 1 ? 0 : w == 0 ? 3 : 1;
  }
  finish(&h);
  PQfinish(db);
  return status;
}

static int stale_demo(const char *servers, const char *conninfo, const char *key) {
  char path[512];
  snprintf(path, sizeof path, "/zkl-examples/fencing/%s", key);
  PGconn *db = db_connect(conninfo);
  if (db == NULL) return 1;
  struct holder a = {0}, b = {0};
  int status = 1;
  if (acquire(servers, path, &a) != 0) goto out;
  uint64_t ta = a.token;
  printf("A acquired, token %" PRIu64 "\n", ta);
  /* A loses the lock: its session ends (as when it expires) and the node
   * goes with it. A still has its token, and may still try to use it. */
  finish(&a);
  if (acquire(servers, path, &b) != 0) goto out;
  printf("B acquired, token %" PRIu64 "\n", b.token);
  if (b.token <= ta) {
    fprintf(stderr, "FAIL: B's token %" PRIu64 " is not above A's %" PRIu64 "\n", b.token, ta);
    goto out;
  }
  if (fenced_write(db, key, "B", b.token) != 1) {
    fprintf(stderr, "FAIL: B's write was refused\n");
    goto out;
  }
  printf("B wrote with token %" PRIu64 "\n", b.token);
  int w = fenced_write(db, key, "A", ta);
  if (w != 0) {
    fprintf(stderr, "FAIL: A's stale write (token %" PRIu64 ") was %s\n", ta,
            w == 1 ? "ACCEPTED" : "an error");
    goto out;
  }
  printf("A's write with token %" PRIu64 " refused: 0 rows affected\n", ta);
  /* The row still holds B's value and token. */
  PGresult *r = PQexecParams(db, "SELECT value, fence FROM fenced WHERE key = $1", 1, NULL,
                             &key, NULL, NULL, 0);
  if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 &&
      strcmp(PQgetvalue(r, 0, 0), "B") == 0 &&
      strtoull(PQgetvalue(r, 0, 1), NULL, 10) == b.token) {
    printf("row %s: value B, fence %" PRIu64 ": stale holder refused\n", key, b.token);
    status = 0;
  } else {
    fprintf(stderr, "FAIL: row %s does not hold B's write\n", key);
  }
  PQclear(r);
out:
  finish(&a);
  finish(&b);
  PQfinish(db);
  return status;
}

int main(int argc, char **argv) {
  if (argc >= 5 && strcmp(argv[3], "--stale-demo") == 0) return stale_demo(argv[1], argv[2], argv[4]);
  if (argc < 3 || argc > 5 || argv[argc - 1][0] == '-') {
    fprintf(stderr, "usage: pg_fenced SERVERS CONNINFO [KEY [VALUE]]\n"
                    "       pg_fenced SERVERS CONNINFO --stale-demo KEY\n");
    return 2;
  }
  return run_once(argv[1], argv[2], argc > 3 ? argv[3] : "report", argc > 4 ? argv[4] : "hello");
}
