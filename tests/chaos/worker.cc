// zkl-chaos-worker: one contender process of the chaos run.
//
//   zkl-chaos-worker --id ID --servers HOST:PORT[,...] --history FILE
//                    --resource DIR [--session-file FILE] [--prefix /chaos]
//                    [--seed N] [--session-timeout MS] [--leases N]
//                    [--hold-ms MIN:MAX] [--long-hold-ms MIN:MAX]
//                    [--acquire-timeout MS]
//                    [--recipes fair,reentrant,nonfair,rw,semaphore,election-fair,election-unfair,multi]
//                    [--max-seconds S] [--max-acquisitions N]
//                    [--tls-ca FILE [--tls-cert FILE --tls-key FILE]]
//                    [--fence-sql CONNINFO]
//
// One zkl client; a loop that picks a recipe at random, acquires it (blocking,
// async or try; campaign or start for elections), holds it for a random
// while (mostly --hold-ms, one in 25 --long-hold-ms, so that faults hit
// holders) and releases it. Everything it believes is appended to the history
// file (format: README.md) with CLOCK_MONOTONIC timestamps:
//   - a hold begins at the first "yes" of zkl_lock_is_held() (or
//     is_leader) after the acquire returned / ACQUIRED was pulled: a grant
//     can be stale by then (the worker frozen right after it; zkl grants
//     only while the quorum proves the session, so it is never stale when
//     made); without a yes within the session timeout it is let go unused;
//   - it ends at the first moment the worker sees a reason to stop: before
//     it calls release, or when zkl_lock_is_held()/zkl_election_is_leader()
//     says 0 (SUSPENDED, LOST); it resumes when that says 1 again;
//   - while it believes it holds an exclusive lock it writes its fencing
//     token to a fenced register (DIR/<path>: the highest token seen, under
//     flock; lower tokens are rejected) every few milliseconds; with
//     --fence-sql, to the row key=<path> of the PostgreSQL table `fenced`
//     (value "<worker>/<hold>", fence=<token>) through the fenced upsert of
//     docs/FENCING.md, whose accepted writes the same statement appends to
//     `fenced_log` (its id, the database's own order, goes into the record).
// The session id and password are published in the session file (for the
// driver's expiry fault). SIGTERM/SIGINT stop it after the current hold.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>
#include <zkl.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "history.h"

#ifdef ZKL_CHAOS_LIBPQ
#include <libpq-fe.h>
#endif

using zkl_chaos::MonotonicNs;
using zkl_chaos::Recipe;

namespace {

volatile sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

struct Options {
  std::string id, servers, history, resource, session_file, prefix = "/chaos";
  std::string tls_ca, tls_cert, tls_key;  // TLS (mutual with cert + key) when tls_ca is set
  std::string fence_sql;  // the fenced register is this PostgreSQL database when set
  uint64_t seed = 1;
  int session_timeout = 4000;
  int leases = 2;
  int hold_min = 2, hold_max = 30;
  int long_hold_min = 1000, long_hold_max = 6000;
  int acquire_timeout = 4000;
  std::string recipes = "fair,reentrant,nonfair,rw,semaphore,election-fair,election-unfair,multi";
  int max_seconds = 3600;
  uint64_t max_acquisitions = UINT64_MAX;
};

Options g_opt;
int g_hist = -1;
zkl_client *g_client = nullptr;
std::mt19937_64 g_rng;
std::map<std::string, uint64_t> g_counts;  // for the summary

[[noreturn]] void Die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::fprintf(stderr, "zkl-chaos-worker %s: ", g_opt.id.c_str());
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
  std::exit(3);
}

// One history record per write(2): a crash never leaves half a record
// behind another one.
void Record(const char *fmt, ...) {
  char buf[8192];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf, sizeof buf - 1, fmt, ap);
  va_end(ap);
  if (n < 0 || n >= static_cast<int>(sizeof buf) - 1) Die("history record too long");
  buf[n++] = '\n';
  for (int off = 0; off < n;) {
    ssize_t w = write(g_hist, buf + off, n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) Die("write history: %s", std::strerror(errno));
    off += static_cast<int>(w);
  }
}

int Rand(int lo, int hi) {  // inclusive
  return lo + static_cast<int>(g_rng() % static_cast<uint64_t>(hi - lo + 1));
}

void Count(const std::string &what) { ++g_counts[what]; }

const char *ErrName(int rc) {
  static const char *names[] = {"OK",        "EINVAL",     "EBADPATH",  "EBADHANDLE", "ETIMEDOUT",
                                "EAGAIN",    "ECANCELED",  "ENOTHELD",  "ENOTOWNER",  "EBUSY",
                                "EDEADLK",   "ECLOSED",    "ECONNECTION", "ESESSION", "ELOST",
                                "EMISMATCH", "EAUTH",      "ETOOBIG",   "ENOMEM",     "EZOOKEEPER",
                                "EVERSION",  "ENOTFOUND",  "EINTERNAL", "ERANGE"};
  int i = -rc;
  return i >= 0 && i < static_cast<int>(sizeof names / sizeof names[0]) ? names[i] : "E?";
}

// Counter names are single words ("acquire:ETIMEDOUT") for the summary.
void CountRc(const char *op, int rc) {
  if (rc < 0) Count(std::string(op) + ":" + ErrName(rc));  // >= 0: success (async: an id)
}

// ---------------------------------------------------------------------------
// The fenced register: DIR/<path with '/' -> '_'> holds the highest token.

struct Register {
  int fd = -1;
};
std::map<std::string, Register> g_registers;

bool FenceWrite(const std::string &path, uint64_t token, int64_t *t_ns) {
  Register &r = g_registers[path];
  if (r.fd < 0) {
    std::string name = path;
    for (char &c : name) {
      if (c == '/') c = '_';
    }
    std::string file = g_opt.resource + "/" + name;
    r.fd = open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (r.fd < 0) Die("open %s: %s", file.c_str(), std::strerror(errno));
  }
  while (flock(r.fd, LOCK_EX) != 0) {
    if (errno != EINTR) Die("flock: %s", std::strerror(errno));
  }
  char buf[32] = {0};
  ssize_t n = pread(r.fd, buf, sizeof buf - 1, 0);
  uint64_t highest = n > 0 ? std::strtoull(buf, nullptr, 10) : 0;
  bool accepted = token >= highest;
  if (accepted && token != highest) {
    char out[32];
    int len = std::snprintf(out, sizeof out, "%020" PRIu64 "\n", token);
    if (pwrite(r.fd, out, len, 0) != len) Die("register write: %s", std::strerror(errno));
  }
  *t_ns = MonotonicNs();  // inside the register's critical section
  flock(r.fd, LOCK_UN);
  return accepted;
}

// The fenced register in PostgreSQL (--fence-sql): the pattern of
// docs/FENCING.md, plus the database's own record of what it accepted. One
// statement (one transaction): the upsert takes the row lock, so the log ids
// of one key follow the order in which the row accepted the writes.
// Returns true when accepted (*order: the fenced_log id).
#ifdef ZKL_CHAOS_LIBPQ
PGconn *g_db = nullptr;

const char *kSqlFencedWrite =
    "WITH w AS ("
    " INSERT INTO fenced AS f (key, value, fence) VALUES ($1, $2, $3)"
    " ON CONFLICT (key) DO UPDATE SET value = excluded.value, fence = excluded.fence"
    " WHERE f.fence <= excluded.fence"
    " RETURNING key, value, fence)"
    " INSERT INTO fenced_log (key, fence, value) SELECT key, fence, value FROM w RETURNING id";

bool SqlFenceWrite(const std::string &path, uint64_t token, uint64_t hold, uint64_t *order) {
  std::string value = g_opt.id + "/" + std::to_string(hold);
  std::string tok = std::to_string(token);
  const char *params[3] = {path.c_str(), value.c_str(), tok.c_str()};
  PGresult *r = PQexecParams(g_db, kSqlFencedWrite, 3, nullptr, params, nullptr, nullptr, 0);
  if (PQresultStatus(r) != PGRES_TUPLES_OK) {
    std::string err = PQerrorMessage(g_db);
    PQclear(r);
    Die("fenced SQL write: %s", err.c_str());
  }
  bool accepted = PQntuples(r) == 1;
  *order = accepted ? std::strtoull(PQgetvalue(r, 0, 0), nullptr, 10) : 0;
  PQclear(r);
  return accepted;
}

void SqlConnect() {
  g_db = PQconnectdb(g_opt.fence_sql.c_str());
  if (PQstatus(g_db) != CONNECTION_OK) Die("postgres: %s", PQerrorMessage(g_db));
}
#else
bool SqlFenceWrite(const std::string &, uint64_t, uint64_t, uint64_t *) { return false; }
void SqlConnect() { Die("--fence-sql: built without libpq (apt-get install libpq-dev, reconfigure)"); }
#endif

// ---------------------------------------------------------------------------
// Slots: one handle per recipe.

struct Slot {
  Recipe recipe;
  std::string path;
  int weight = 1;
  zkl_lock *lock = nullptr;
  zkl_election *election = nullptr;
  // Its last release was async and the next round follows at once (a work
  // loop): the library then sends that release and the next create as one
  // multi, and may grant by the new node's number alone.
  bool again = false;
};

std::vector<Slot> g_slots;
bool g_multi = false;  // "multi" in --recipes: multi-lock rounds too

bool IsElection(const Slot &s) {
  return s.recipe == Recipe::kElectionFair || s.recipe == Recipe::kElectionUnfair;
}

void NewHandle(Slot &s) {
  int rc;
  if (IsElection(s)) {
    zkl_election_options eo;
    zkl_election_options_init(&eo, ZKL_ELECTION_OPTIONS_VERSION);
    eo.kind = s.recipe == Recipe::kElectionFair ? ZKL_ELECTION_FAIR : ZKL_ELECTION_NONFAIR;
    eo.id = g_opt.id.c_str();
    rc = zkl_election_new(g_client, s.path.c_str(), &eo, &s.election);
  } else {
    zkl_lock_options lo;
    zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION);
    switch (s.recipe) {
      case Recipe::kFair: lo.kind = ZKL_LOCK_FAIR; break;
      case Recipe::kReentrant: lo.kind = ZKL_LOCK_REENTRANT; break;
      case Recipe::kNonFair: lo.kind = ZKL_LOCK_NONFAIR; break;
      case Recipe::kRead: lo.kind = ZKL_LOCK_READ; break;
      case Recipe::kWrite: lo.kind = ZKL_LOCK_WRITE; break;
      case Recipe::kSemaphore: lo.kind = ZKL_LOCK_SEMAPHORE; break;
      default: break;
    }
    lo.max_leases = s.recipe == Recipe::kSemaphore ? g_opt.leases : 0;
    // Fair holders are revocable: other workers ask them to let go now and
    // then (they do, early).
    if (s.recipe == Recipe::kFair) lo.on_revoke = ZKL_REVOKE_NOTIFY;
    lo.data = g_opt.id.data();
    lo.data_len = g_opt.id.size();
    rc = zkl_lock_new(g_client, s.path.c_str(), &lo, &s.lock);
  }
  if (rc != 0) Die("new handle on %s: %s", s.path.c_str(), zkl_strerror(rc));
}

// A statistics counter of the slot's handle (0 when unreadable).
uint64_t HandleCounter(const Slot &s, const std::string &key) {
  char *json = nullptr;
  int rc = IsElection(s) ? zkl_election_stats(s.election, &json, nullptr) : zkl_lock_stats(s.lock, &json, nullptr);
  if (rc != 0 || json == nullptr) return 0;
  std::string doc(json);
  zkl_free(json);
  size_t at = doc.find("\"" + key + "\":");
  return at == std::string::npos ? 0 : std::strtoull(doc.c_str() + at + key.size() + 3, nullptr, 10);
}

// Before a handle goes: what its statistics say the library did for it.
void CountHandleStats(const Slot &s) {
  if (!s.lock && !s.election) return;
  g_counts["grants-without-read"] += HandleCounter(s, "grants_without_read");
  g_counts["proof-waits"] += HandleCounter(s, "proof_waits");
}

void ReplaceHandle(Slot &s) {
  Count("handle-replaced");
  CountHandleStats(s);
  if (s.lock) zkl_lock_destroy(s.lock);
  if (s.election) zkl_election_destroy(s.election);
  s.lock = nullptr;
  s.election = nullptr;
  NewHandle(s);
}

bool Held(const Slot &s) {
  return (IsElection(s) ? zkl_election_is_leader(s.election) : zkl_lock_is_held(s.lock)) == 1;
}

// The library's token, or kUnknownToken when it has none (not held).
uint64_t TokenOf(const Slot &s) {
  uint64_t t = 0;
  int rc = IsElection(s) ? zkl_election_fencing_token(s.election, &t)
                         : zkl_lock_fencing_token(s.lock, &t);
  if (rc != 0) return zkl_chaos::kUnknownToken;
  if (t == 0) Count("zero-token");
  return t;
}

std::string TokenText(uint64_t t) {
  return t == zkl_chaos::kUnknownToken ? "-" : std::to_string(t);
}

// ---------------------------------------------------------------------------
// Events (pull form) for the operation in progress.

struct Op {
  Slot *slot = nullptr;
  zkl_multilock *multi = nullptr;  // or a multi-lock's hold
  bool got_result = false;  // ACQUIRED / ELECTED / ACQUIRE_FAILED seen
  int error = 0;
  uint64_t token = 0;
  bool lost = false;
  bool suspended = false;
  bool revoked = false;  // REVOKE_REQUESTED: let go early
};

void PublishSession() {
  static uint64_t published = 0;
  uint64_t id = 0;
  if (zkl_client_session_id(g_client, &id) != 0 || id == 0 || id == published) return;
  unsigned char pw[16];
  if (zkl_client_session_password(g_client, pw, sizeof pw) != 16) return;
  published = id;
  Record("note %s %" PRId64 " session %" PRIx64, g_opt.id.c_str(), MonotonicNs(), id);
  if (g_opt.session_file.empty()) return;
  std::string tmp = g_opt.session_file + ".tmp";
  FILE *f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) return;
  std::fprintf(f, "%" PRIx64 " ", id);
  for (unsigned char b : pw) std::fprintf(f, "%02x", b);
  std::fprintf(f, "\n");
  std::fclose(f);
  std::rename(tmp.c_str(), g_opt.session_file.c_str());
}

void Drain(Op *op) {
  zkl_event *ev = nullptr;
  while (zkl_client_next_event(g_client, &ev) == 0) {
    int type = zkl_event_type(ev);
    zkl_lock *l = nullptr;
    zkl_election *e = nullptr;
    zkl_multilock *m = nullptr;
    zkl_event_lock(ev, &l);
    zkl_event_election(ev, &e);
    zkl_event_multilock(ev, &m);
    switch (type) {
      case ZKL_EVENT_SESSION: {
        static const char *names[] = {"?", "connecting", "connected", "suspended",
                                      "reconnected", "lost", "closed", "auth-failed"};
        int st = zkl_event_session_state(ev);
        Count(std::string("session:") + (st >= 0 && st <= 7 ? names[st] : "?"));
        break;
      }
      case ZKL_EVENT_SUSPENDED: Count("event:suspended"); break;
      case ZKL_EVENT_RESTORED: Count("event:restored"); break;
      case ZKL_EVENT_LOST: Count("event:lost"); break;
      case ZKL_EVENT_REVOKE_REQUESTED: Count("event:revoke-requested"); break;
      default: break;
    }
    bool mine = op != nullptr &&
                ((op->slot != nullptr && ((l != nullptr && l == op->slot->lock) ||
                                          (e != nullptr && e == op->slot->election))) ||
                 (op->multi != nullptr && m == op->multi));
    if (mine) {
      switch (type) {
        case ZKL_EVENT_ACQUIRED:
        case ZKL_EVENT_ELECTED:
          op->got_result = true;
          op->error = 0;
          zkl_event_fencing_token(ev, &op->token);
          break;
        case ZKL_EVENT_ACQUIRE_FAILED:
          op->got_result = true;
          op->error = zkl_event_error(ev);
          break;
        case ZKL_EVENT_LOST: op->lost = true; break;
        case ZKL_EVENT_SUSPENDED: op->suspended = true; break;
        case ZKL_EVENT_REVOKE_REQUESTED: op->revoked = true; break;
        default: break;
      }
    }
    zkl_event_free(ev);
  }
}

// Waits (bounded) until the op has a result; returns false on timeout.
bool AwaitResult(Op *op, int64_t timeout_ms, bool cancel_on_stop) {
  int64_t deadline = MonotonicNs() + timeout_ms * 1000000;
  bool cancelled = false;
  while (!op->got_result) {
    if (g_stop && cancel_on_stop && !cancelled && op->slot->lock != nullptr) {
      zkl_lock_cancel(op->slot->lock);
      cancelled = true;
      deadline = std::min(deadline, MonotonicNs() + 10000 * int64_t{1000000});
    }
    if (MonotonicNs() > deadline) return false;
    zkl_client_wait(g_client, 5);
    Drain(op);
  }
  return true;
}

// ---------------------------------------------------------------------------

uint64_t g_hold_seq = 0;
uint64_t g_acquisitions = 0;
const uint64_t kOwner = 7;

// One "yes" of is_held / is_leader for `hold`, computed between `asked`
// and `answered`.
void RecordHeld(uint64_t hold, int64_t asked, int64_t answered) {
  Record("held %s %" PRIu64 " %" PRId64 " %" PRId64, g_opt.id.c_str(), hold, asked, answered);
}

// A careful user looks before the first use: a grant may be stale by the
// time the worker gets to it (frozen right after the acquire returned, or
// with ACQUIRED queued), and then is_held says no until the next proof, or
// LOST. (zkl itself never grants without the quorum's proof: a grant
// computed right after a freeze waits for it.) Waits (bounded,
// as Hold does for an outcome) for a yes; `asked` .. `answered` is when the
// library computed it, and the hold's use (its record) begins at `asked`.
// False: no yes (LOST, or none in time); the caller lets go unused.
template <typename HeldFn>
bool FirstYes(HeldFn held, Op *op, int64_t *asked, int64_t *answered) {
  int64_t limit = MonotonicNs() + int64_t{g_opt.session_timeout + 3000} * 1000000;
  for (;;) {
    *asked = MonotonicNs();
    bool yes = held();
    *answered = MonotonicNs();
    if (yes) return true;
    if (op->lost || g_stop || MonotonicNs() >= limit) return false;
    zkl_client_wait(g_client, 2);
    Drain(op);
  }
}

// Holds what `op` acquired (the acquisition is already recorded) until the
// hold time is over, a LOST arrives or the worker is stopped; then releases.
void Hold(Op &op, uint64_t hold, uint64_t token) {
  Slot &s = *op.slot;
  bool fenced = zkl_chaos::IsExclusive(s.recipe);
  bool open = true;
  int64_t last_sql_write = 0;
  auto check = [&]() {
    // Every "yes" is recorded with the window in which the library computed
    // it: the checker proves none falls inside another holder's tenure.
    int64_t asked = MonotonicNs();
    bool held = Held(s);
    int64_t t = MonotonicNs();
    if (held) RecordHeld(hold, asked, t);
    if (open && !held) {
      Record("end %s %" PRIu64 " %" PRId64 " %s", g_opt.id.c_str(), hold, t,
             op.lost ? "lost" : op.suspended ? "suspended" : "not-held");
      open = false;
    } else if (!open && held && !op.lost) {
      uint64_t now_token = TokenOf(s);
      Record("resume %s %" PRIu64 " %s %" PRId64, g_opt.id.c_str(), hold,
             TokenText(now_token).c_str(), MonotonicNs());
      Count("resumed");
      open = true;
    }
    if (open && fenced && token != zkl_chaos::kUnknownToken && g_opt.fence_sql.empty()) {
      int64_t ft = 0;
      bool ok = FenceWrite(s.path, token, &ft);
      Record("fence %s %s %" PRIu64 " %" PRId64 " %s", g_opt.id.c_str(), s.path.c_str(), token,
             ft, ok ? "accepted" : "rejected");
      if (!ok) Count("fence-rejected");
    } else if (open && fenced && token != zkl_chaos::kUnknownToken) {
      // A client can only time the sending of the statement (the write
      // takes effect at some moment after it): the record carries that
      // moment, and the database's order (the fenced_log id) for the check.
      // At most one write per 10 ms of a hold (the first at once).
      int64_t now = MonotonicNs();
      if (last_sql_write == 0 || now - last_sql_write >= 10000000) {
        last_sql_write = now;
        uint64_t order = 0;
        bool ok = SqlFenceWrite(s.path, token, hold, &order);
        if (ok) {
          Record("fence %s %s %" PRIu64 " %" PRId64 " accepted %" PRIu64, g_opt.id.c_str(),
                 s.path.c_str(), token, now, order);
        } else {
          Record("fence %s %s %" PRIu64 " %" PRId64 " rejected", g_opt.id.c_str(), s.path.c_str(),
                 token, now);
          Count("fence-rejected");
        }
      }
    }
  };
  check();
  // Mostly short holds; one in 25 long enough for a fault to hit it.
  int hold_ms = Rand(0, 24) == 0 ? Rand(g_opt.long_hold_min, g_opt.long_hold_max)
                                : Rand(g_opt.hold_min, g_opt.hold_max);
  int64_t start = MonotonicNs();
  int64_t until = start + int64_t{hold_ms} * 1000000;
  // For the driver: who is holding until when (it aims client faults).
  Record("note %s %" PRId64 " until %" PRIu64 " %" PRId64, g_opt.id.c_str(), start, hold, until);
  bool nested = s.recipe == Recipe::kReentrant && Rand(0, 1) == 1;
  bool inner_held = false;
  while (!op.lost && !op.revoked && MonotonicNs() < until && !g_stop) {
    zkl_client_wait(g_client, 2);
    Drain(&op);
    check();
    if (nested && !inner_held && MonotonicNs() > start + (until - start) / 3) {
      nested = false;
      int rc = zkl_lock_acquire(s.lock, kOwner, 1000);  // hold count 2, no round trip
      CountRc("reacquire", rc);
      if (rc == 0) {
        inner_held = true;
        Count("reentrant-nested");
        if (zkl_lock_hold_count(s.lock) != 2) Count("reentrant-bad-count");
      }
    }
    if (inner_held && MonotonicNs() > start + (until - start) * 2 / 3) {
      CountRc("release-inner", zkl_lock_release(s.lock, kOwner));
      inner_held = false;
    }
  }
  // Suspended when the time is up: like a careful user, wait (bounded) for
  // the outcome — RESTORED (use it a little more) or LOST — before letting go.
  if (!open && !op.lost && !g_stop) {
    Count("awaited-outcome");
    int64_t limit = MonotonicNs() + int64_t{g_opt.session_timeout + 3000} * 1000000;
    while (!open && !op.lost && !g_stop && MonotonicNs() < limit) {
      zkl_client_wait(g_client, 2);
      Drain(&op);
      check();
    }
    int64_t more = MonotonicNs() + 20000000;
    while (open && !op.lost && !g_stop && MonotonicNs() < more) {
      zkl_client_wait(g_client, 2);
      Drain(&op);
      check();
    }
  }
  if (open) {
    Record("end %s %" PRIu64 " %" PRId64 " %s", g_opt.id.c_str(), hold, MonotonicNs(),
           IsElection(s) ? "resigned" : "released");
  }
  if (IsElection(s)) {
    int rc = zkl_election_release(s.election);
    CountRc("resign", rc);
    if (rc != 0 && rc != ZKL_ENOTHELD) ReplaceHandle(s);
    return;
  }
  if (inner_held) CountRc("release-inner", zkl_lock_release(s.lock, kOwner));
  // Release is async or blocking at random.
  bool async = Rand(0, 3) == 0;
  int rc = async ? zkl_lock_release_async(s.lock, kOwner) : zkl_lock_release(s.lock, kOwner);
  CountRc("release", rc);
  s.again = async && rc > 0 && Rand(0, 1) == 0;
  if (rc < 0 && rc != ZKL_ELOST && rc != ZKL_ENOTHELD) ReplaceHandle(s);
  if (rc == ZKL_ELOST && !op.lost) Count("lost-without-event");
}

// The hold begins at the first yes (FirstYes), which is recorded with it.
void RecordAcquire(const Slot &s, uint64_t hold, uint64_t token, int64_t asked, int64_t answered) {
  int64_t t = asked;
  if (s.recipe == Recipe::kSemaphore) {
    Record("acquire %s %" PRIu64 " %s %s %s %" PRId64 " %d", g_opt.id.c_str(), hold,
           zkl_chaos::RecipeName(s.recipe), s.path.c_str(), TokenText(token).c_str(), t,
           g_opt.leases);
  } else {
    Record("acquire %s %" PRIu64 " %s %s %s %" PRId64, g_opt.id.c_str(), hold,
           zkl_chaos::RecipeName(s.recipe), s.path.c_str(), TokenText(token).c_str(), t);
  }
  RecordHeld(hold, asked, answered);
  ++g_acquisitions;
  Count(std::string("acquired:") + zkl_chaos::RecipeName(s.recipe));
}

void OneLockRound(Slot &s) {
  Op op;
  op.slot = &s;
  Drain(nullptr);
  int mode = Rand(0, 9);  // 0-4 blocking, 5-8 async, 9 try
  uint64_t token = 0;
  if (mode <= 4) {
    int rc = zkl_lock_acquire(s.lock, kOwner, g_opt.acquire_timeout);
    CountRc("acquire", rc);
    if (rc != 0) {
      if (rc != ZKL_ETIMEDOUT && rc != ZKL_ECONNECTION && rc != ZKL_ESESSION) ReplaceHandle(s);
      return;
    }
    token = TokenOf(s);
  } else if (mode <= 8) {
    int rc = zkl_lock_acquire_async(s.lock, kOwner, g_opt.acquire_timeout);
    CountRc("acquire-async", rc);
    if (rc < 0) {
      ReplaceHandle(s);
      return;
    }
    if (!AwaitResult(&op, g_opt.acquire_timeout + 15000, true)) {
      Count("acquire-async:no-result");
      ReplaceHandle(s);
      return;
    }
    if (op.error != 0) {
      CountRc("acquire-async-result", op.error);
      return;
    }
    token = op.token;
    if (token == 0) Count("zero-token");
  } else {
    int rc = zkl_lock_try_acquire(s.lock, kOwner);
    CountRc("try", rc);
    if (rc != 0) return;
    token = TokenOf(s);
  }
  int64_t asked = 0, answered = 0;
  if (!FirstYes([&] { return Held(s); }, &op, &asked, &answered)) {
    Count("granted-never-held");
    int rc = zkl_lock_release(s.lock, kOwner);
    CountRc("release", rc);
    if (rc < 0 && rc != ZKL_ELOST && rc != ZKL_ENOTHELD) ReplaceHandle(s);
    return;
  }
  uint64_t hold = ++g_hold_seq;
  RecordAcquire(s, hold, token, asked, answered);
  Hold(op, hold, token);
}

void OneElectionRound(Slot &s) {
  Op op;
  op.slot = &s;
  Drain(nullptr);
  if (Rand(0, 1) == 0) {
    int rc = zkl_election_acquire(s.election, g_opt.acquire_timeout);
    CountRc("campaign", rc);
    if (rc != 0) {
      if (rc != ZKL_ETIMEDOUT) {
        zkl_election_release(s.election);
        if (rc != ZKL_ECONNECTION && rc != ZKL_ESESSION) ReplaceHandle(s);
      }
      return;
    }
  } else {
    int rc = zkl_election_acquire_async(s.election, -1);
    CountRc("start", rc);
    if (rc < 0) {
      zkl_election_release(s.election);
      ReplaceHandle(s);
      return;
    }
    // ELECTED arrives when we lead; a stale one is ignored by the check.
    int64_t deadline = MonotonicNs() + int64_t{g_opt.acquire_timeout} * 1000000;
    for (;;) {
      op.got_result = false;
      if (!AwaitResult(&op, (deadline - MonotonicNs()) / 1000000, false) || g_stop) {
        Count("start:not-elected");
        CountRc("resign", zkl_election_release(s.election));
        return;
      }
      if (op.error == 0 && Held(s)) break;
    }
  }
  int64_t asked = 0, answered = 0;
  if (!FirstYes([&] { return Held(s); }, &op, &asked, &answered)) {
    Count("elected-never-held");
    CountRc("resign", zkl_election_release(s.election));
    return;
  }
  uint64_t hold = ++g_hold_seq;
  uint64_t token = TokenOf(s);
  RecordAcquire(s, hold, token, asked, answered);
  Hold(op, hold, token);
}

void ParseArgs(int argc, char **argv) {
  for (int i = 1; i < argc; i += 2) {
    std::string k = argv[i];
    if (i + 1 >= argc) Die("option %s needs a value", k.c_str());
    std::string v = argv[i + 1];
    if (k == "--id") g_opt.id = v;
    else if (k == "--servers") g_opt.servers = v;
    else if (k == "--history") g_opt.history = v;
    else if (k == "--resource") g_opt.resource = v;
    else if (k == "--session-file") g_opt.session_file = v;
    else if (k == "--prefix") g_opt.prefix = v;
    else if (k == "--seed") g_opt.seed = std::strtoull(v.c_str(), nullptr, 10);
    else if (k == "--session-timeout") g_opt.session_timeout = std::atoi(v.c_str());
    else if (k == "--leases") g_opt.leases = std::atoi(v.c_str());
    else if (k == "--acquire-timeout") g_opt.acquire_timeout = std::atoi(v.c_str());
    else if (k == "--recipes") g_opt.recipes = v;
    else if (k == "--max-seconds") g_opt.max_seconds = std::atoi(v.c_str());
    else if (k == "--tls-ca") g_opt.tls_ca = v;
    else if (k == "--tls-cert") g_opt.tls_cert = v;
    else if (k == "--tls-key") g_opt.tls_key = v;
    else if (k == "--fence-sql") g_opt.fence_sql = v;
    else if (k == "--max-acquisitions") g_opt.max_acquisitions = std::strtoull(v.c_str(), nullptr, 10);
    else if (k == "--long-hold-ms") {
      if (std::sscanf(v.c_str(), "%d:%d", &g_opt.long_hold_min, &g_opt.long_hold_max) != 2 ||
          g_opt.long_hold_min < 0 || g_opt.long_hold_max < g_opt.long_hold_min) {
        Die("bad --long-hold-ms %s", v.c_str());
      }
    } else if (k == "--hold-ms") {
      if (std::sscanf(v.c_str(), "%d:%d", &g_opt.hold_min, &g_opt.hold_max) != 2 ||
          g_opt.hold_min < 0 || g_opt.hold_max < g_opt.hold_min) {
        Die("bad --hold-ms %s", v.c_str());
      }
    } else {
      Die("unknown option %s", k.c_str());
    }
  }
  if (g_opt.id.empty() || g_opt.servers.empty() || g_opt.history.empty() ||
      g_opt.resource.empty()) {
    Die("usage: zkl-chaos-worker --id ID --servers S --history FILE --resource DIR [...]");
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// Multi-lock rounds: 2 or 3 of four shared paths, named in a random order,
// all or none. Each member is recorded as a hold of its own (the checker
// proves exclusion per path); an acquire that outlives its timeout by far
// ("overdue") means a multi-lock waited forever, which the driver fails.

struct MultiPath {
  const char *name;
  Recipe recipe;
};
const MultiPath kMultiPaths[] = {{"multi-0", Recipe::kFair},
                                 {"multi-1", Recipe::kWrite},
                                 {"multi-2", Recipe::kFair},
                                 {"multi-3", Recipe::kSemaphore}};

void OneMultilockRound() {
  std::vector<int> picks = {0, 1, 2, 3};
  std::shuffle(picks.begin(), picks.end(), g_rng);
  picks.resize(static_cast<size_t>(Rand(2, 3)));
  std::vector<zkl_lock *> locks;
  std::vector<Recipe> recipes;
  std::vector<std::string> paths;
  for (int i : picks) {
    Recipe r = kMultiPaths[i].recipe;
    if (r == Recipe::kWrite && Rand(0, 2) == 0) r = Recipe::kRead;  // the shared side now and then
    zkl_lock_options lo;
    zkl_lock_options_init(&lo, ZKL_LOCK_OPTIONS_VERSION);
    lo.kind = r == Recipe::kFair ? ZKL_LOCK_FAIR
              : r == Recipe::kWrite ? ZKL_LOCK_WRITE
              : r == Recipe::kRead ? ZKL_LOCK_READ
                                   : ZKL_LOCK_SEMAPHORE;
    lo.max_leases = r == Recipe::kSemaphore ? g_opt.leases : 1;
    std::string path = g_opt.prefix + "/" + kMultiPaths[i].name;
    zkl_lock *l = nullptr;
    if (zkl_lock_new(g_client, path.c_str(), &lo, &l) != 0) Die("multi member on %s", path.c_str());
    locks.push_back(l);
    recipes.push_back(r);
    paths.push_back(path);
  }
  zkl_multilock_options mo;
  zkl_multilock_options_init(&mo, ZKL_MULTILOCK_OPTIONS_VERSION);
  zkl_multilock *ml = nullptr;
  if (zkl_multilock_new(g_client, locks.data(), locks.size(), &mo, &ml) != 0) Die("multilock");
  int64_t asked = MonotonicNs();
  int rc = zkl_multilock_acquire(ml, kOwner, g_opt.acquire_timeout);
  CountRc("multilock", rc);
  if ((MonotonicNs() - asked) / 1000000 > g_opt.acquire_timeout + 20000) Count("multilock:overdue");
  Op op;
  op.multi = ml;
  int64_t first_asked = 0, first_answered = 0;
  if (rc == 0 && !FirstYes([&] { return zkl_multilock_is_held(ml) == 1; }, &op, &first_asked,
                           &first_answered)) {
    Count("multilock:granted-never-held");
    CountRc("multilock-release", zkl_multilock_release(ml, kOwner));
    rc = -1;
  }
  if (rc == 0) {
    std::vector<uint64_t> holds;
    for (size_t i = 0; i < paths.size(); ++i) {
      uint64_t token = 0;
      if (zkl_multilock_fencing_token(ml, paths[i].c_str(), &token) != 0) token = zkl_chaos::kUnknownToken;
      uint64_t hold = ++g_hold_seq;
      holds.push_back(hold);
      if (recipes[i] == Recipe::kSemaphore) {
        Record("acquire %s %" PRIu64 " %s %s %s %" PRId64 " %d", g_opt.id.c_str(), hold,
               zkl_chaos::RecipeName(recipes[i]), paths[i].c_str(), TokenText(token).c_str(),
               first_asked, g_opt.leases);
      } else {
        Record("acquire %s %" PRIu64 " %s %s %s %" PRId64, g_opt.id.c_str(), hold,
               zkl_chaos::RecipeName(recipes[i]), paths[i].c_str(), TokenText(token).c_str(),
               first_asked);
      }
      RecordHeld(hold, first_asked, first_answered);
    }
    ++g_acquisitions;
    Count("multilock-acquisitions");
    int64_t until = MonotonicNs() + int64_t{Rand(g_opt.hold_min, g_opt.hold_max)} * 1000000;
    // As Hold(): the tenure ends when is_held says no (not a release); then
    // a careful user waits (bounded) for the outcome — held again (same
    // session: resume) or LOST — before letting go.
    bool open = true;
    int64_t outcome_limit = 0;
    for (;;) {
      int64_t now = MonotonicNs();
      if (g_stop || (open && now >= until) || (!open && (op.lost || now >= outcome_limit))) break;
      int64_t t0 = MonotonicNs();
      bool held = zkl_multilock_is_held(ml) == 1;
      int64_t t1 = MonotonicNs();
      if (held) {
        for (uint64_t h : holds) {
          RecordHeld(h, t0, t1);
        }
        if (!open && !op.lost) {
          for (size_t i = 0; i < holds.size(); ++i) {
            uint64_t token = 0;
            if (zkl_multilock_fencing_token(ml, paths[i].c_str(), &token) != 0) {
              token = zkl_chaos::kUnknownToken;
            }
            Record("resume %s %" PRIu64 " %s %" PRId64, g_opt.id.c_str(), holds[i],
                   TokenText(token).c_str(), MonotonicNs());
          }
          Count("multilock:resumed");
          open = true;
          until = std::max(until, t1 + 20000000);  // use it a little more
        }
      } else if (open) {
        for (uint64_t h : holds) {
          Record("end %s %" PRIu64 " %" PRId64 " %s", g_opt.id.c_str(), h, t1,
                 op.lost ? "lost" : "not-held");
        }
        Count("multilock:not-held");
        open = false;
        outcome_limit = t1 + int64_t{g_opt.session_timeout + 3000} * 1000000;
      }
      zkl_client_wait(g_client, 3);
      Drain(&op);
    }
    if (open) {
      int64_t t = MonotonicNs();
      for (uint64_t h : holds) Record("end %s %" PRIu64 " %" PRId64 " released", g_opt.id.c_str(), h, t);
    }
    CountRc("multilock-release", zkl_multilock_release(ml, kOwner));
  }
  zkl_multilock_destroy(ml);
}

// Asks whoever holds one of the fair paths to let go (revocable holders do).
void RevokeSomeone() {
  for (const Slot &s : g_slots) {
    if (s.recipe != Recipe::kFair) continue;
    zkl_inspect_options io;
    zkl_inspect_options_init(&io, ZKL_INSPECT_OPTIONS_VERSION);
    io.timeout_ms = 2000;
    int rc = zkl_revoke(g_client, s.path.c_str(), &io, nullptr);
    CountRc("revoke", rc < 0 ? rc : 0);
    return;
  }
}

int main(int argc, char **argv) {
  ParseArgs(argc, argv);
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  g_rng.seed(g_opt.seed);

  g_hist = open(g_opt.history.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (g_hist < 0) Die("open %s: %s", g_opt.history.c_str(), std::strerror(errno));

  for (size_t pos = 0; pos <= g_opt.recipes.size();) {
    size_t comma = g_opt.recipes.find(',', pos);
    if (comma == std::string::npos) comma = g_opt.recipes.size();
    std::string r = g_opt.recipes.substr(pos, comma - pos);
    pos = comma + 1;
    if (r.empty()) continue;
    if (r == "rw") {
      g_slots.push_back(Slot{Recipe::kRead, g_opt.prefix + "/rw", 3});
      g_slots.push_back(Slot{Recipe::kWrite, g_opt.prefix + "/rw", 1});
      continue;
    }
    if (r == "multi") {
      g_multi = true;
      continue;
    }
    Recipe rec;
    if (!zkl_chaos::ParseRecipe(r, &rec) || rec == Recipe::kRead || rec == Recipe::kWrite) {
      Die("unknown recipe %s", r.c_str());
    }
    g_slots.push_back(Slot{rec, g_opt.prefix + "/" + r, rec == Recipe::kSemaphore ? 2 : 1});
  }
  if (g_slots.empty()) Die("no recipes");

  zkl_client_options co;
  zkl_client_options_init(&co, ZKL_CLIENT_OPTIONS_VERSION);
  co.servers = g_opt.servers.c_str();
  co.session_timeout_ms = g_opt.session_timeout;
  if (!g_opt.tls_ca.empty()) {
    co.tls_ca_file = g_opt.tls_ca.c_str();
    co.tls_cert_file = g_opt.tls_cert.empty() ? nullptr : g_opt.tls_cert.c_str();
    co.tls_key_file = g_opt.tls_key.empty() ? nullptr : g_opt.tls_key.c_str();
  }
  if (!g_opt.fence_sql.empty()) SqlConnect();
  int rc = zkl_client_new(&co, &g_client);
  if (rc != 0) Die("client: %s", zkl_strerror(rc));
  rc = zkl_client_wait_connected(g_client, 30000);
  if (rc != 0) Die("connect: %s", zkl_strerror(rc));
  for (Slot &s : g_slots) NewHandle(s);
  int multi_weight = g_multi ? 2 : 0;
  Record("note %s %" PRId64 " start pid=%d seed=%" PRIu64, g_opt.id.c_str(), MonotonicNs(),
         static_cast<int>(getpid()), g_opt.seed);

  int total_weight = 0;
  for (const Slot &s : g_slots) total_weight += s.weight;
  total_weight += multi_weight;
  int64_t end = MonotonicNs() + int64_t{g_opt.max_seconds} * 1000000000;
  while (!g_stop && MonotonicNs() < end && g_acquisitions < g_opt.max_acquisitions) {
    PublishSession();
    int pick = Rand(0, total_weight - 1);
    if (Rand(0, 49) == 0) RevokeSomeone();
    if (pick >= total_weight - multi_weight) {
      OneMultilockRound();
      continue;
    }
    Slot *s = &g_slots.front();
    for (Slot &c : g_slots) {
      if (pick < c.weight) {
        s = &c;
        break;
      }
      pick -= c.weight;
    }
    if (IsElection(*s)) {
      OneElectionRound(*s);
    } else {
      OneLockRound(*s);
      while (s->again && !g_stop) {
        Count("round-at-once");
        s->again = false;
        OneLockRound(*s);
      }
    }
    // A short think time (sometimes none) between rounds.
    int think = Rand(0, 10);
    if (think > 0) {
      zkl_client_wait(g_client, think);
      Drain(nullptr);
    }
  }

  for (Slot &s : g_slots) CountHandleStats(s);
  std::string summary;
  for (const auto &[k, n] : g_counts) summary += " " + k + "=" + std::to_string(n);
  Record("note %s %" PRId64 " summary acquisitions=%" PRIu64 "%s", g_opt.id.c_str(),
         MonotonicNs(), g_acquisitions, summary.c_str());
  for (Slot &s : g_slots) {
    if (s.lock) zkl_lock_destroy(s.lock);
    if (s.election) zkl_election_destroy(s.election);
  }
  zkl_client_destroy(g_client);
#ifdef ZKL_CHAOS_LIBPQ
  if (g_db != nullptr) PQfinish(g_db);
#endif
  close(g_hist);
  return 0;
}
