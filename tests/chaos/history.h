// History checker for lock/election safety (zkl chaos tests; reusable).
//
// A history is what every contender observed, in one time base (the
// system-wide CLOCK_MONOTONIC, in nanoseconds, so processes on one machine
// can be merged): when it came to believe it held a lock (or led an
// election), when it stopped believing so, and what a resource guarded by
// fencing tokens accepted or rejected. The text format (one record per
// line) is described in README.md next to this file; History can also be
// fed through its methods.
//
// Check() verifies:
//   - no two exclusive holders of a path overlap in time (fair, reentrant,
//     non-fair, write, elections), readers never overlap a writer;
//   - a semaphore path never has more than N concurrent lease holders;
//   - fencing tokens strictly increase across successive exclusive holders
//     of a path (and stay equal within one hold);
//   - the fenced resource never accepted a token lower than one it had
//     accepted before, and was only used inside its user's hold interval;
//   - the history itself is consistent (no end without a start, ...).
//
// A holder's interval is its own view, taken conservatively by the
// recorder: it starts when the holder learnt of the acquisition and ends at
// the first moment it saw a reason to stop (release call, SUSPENDED, LOST,
// is_held() == 0). A hold that is suspended and then restored is several
// segments of one hold (same hold id, same token).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace zkl_chaos {

enum class Recipe {
  kFair,
  kReentrant,
  kNonFair,
  kRead,
  kWrite,
  kSemaphore,
  kElectionFair,
  kElectionUnfair,
};

const char *RecipeName(Recipe r);
bool ParseRecipe(const std::string &name, Recipe *out);
// Exclusive: excludes every other holder of the path (not read, semaphore).
bool IsExclusive(Recipe r);

// Monotonic nanoseconds (CLOCK_MONOTONIC), the time base of histories.
int64_t MonotonicNs();

constexpr int64_t kOpenEnd = std::numeric_limits<int64_t>::max();
// A token the recorder could not learn ("-" in the text format). Every
// other value, 0 included, is a real token and is checked.
constexpr uint64_t kUnknownToken = std::numeric_limits<uint64_t>::max();

// Where a record came from, for reports.
struct Origin {
  std::string source;  // file name or "" for programmatic input
  size_t line = 0;
};

// One interval of belief ("I hold it now") of one hold.
struct Segment {
  std::string worker;
  uint64_t hold = 0;     // per-worker hold id
  Recipe recipe = Recipe::kFair;
  std::string path;
  uint64_t token = kUnknownToken;  // fencing token
  int leases = 0;        // semaphore: N
  int64_t begin_ns = 0;
  int64_t end_ns = kOpenEnd;  // kOpenEnd: never ended (counts as forever)
  std::string end_reason;
  Origin origin;         // of the begin record
};

// One "yes" of is_held()/is_leader() for a hold: the library computed it
// at some moment between before_ns and after_ns.
struct HeldAnswer {
  std::string worker;
  uint64_t hold = 0;
  std::string path;  // of the hold (from its acquire record)
  Recipe recipe = Recipe::kFair;
  int leases = 0;
  int64_t before_ns = 0;
  int64_t after_ns = 0;
  Origin origin;
};

// One use of a resource guarded by fencing tokens.
struct FenceUse {
  std::string worker;
  std::string path;
  uint64_t token = 0;
  int64_t t_ns = 0;
  bool accepted = false;
  Origin origin;
  // The resource's own order of its accepted writes (e.g. a database's log
  // id), 0 when the recorder has none. A client can only time when it sent
  // a write, not when the resource applied it: when every accepted use of a
  // path carries an order, the fence check follows it instead of t_ns.
  uint64_t order = 0;
};

class History {
 public:
  // Parses one text line (see README.md). Blank lines, '#' comments and
  // "note" records are ignored. Returns false with *error on a malformed
  // line (consistency problems are reported by Check instead).
  bool AddLine(const std::string &line, std::string *error, const Origin &origin = {});
  // Every line of a file; false with *error (naming file:line) on failure.
  bool AddFile(const std::string &file, std::string *error);

  // Programmatic recording (same meaning as the text records).
  void Acquire(const std::string &worker, uint64_t hold, Recipe recipe, const std::string &path,
               uint64_t token, int64_t t_ns, int leases = 0, const Origin &origin = {});
  void Resume(const std::string &worker, uint64_t hold, uint64_t token, int64_t t_ns,
              const Origin &origin = {});
  void End(const std::string &worker, uint64_t hold, int64_t t_ns, const std::string &reason,
           const Origin &origin = {});
  void Fence(const std::string &worker, const std::string &path, uint64_t token, int64_t t_ns,
             bool accepted, const Origin &origin = {}, uint64_t order = 0);
  void Held(const std::string &worker, uint64_t hold, int64_t before_ns, int64_t after_ns,
            const Origin &origin = {});

  const std::vector<Segment> &segments() const { return segments_; }
  const std::vector<FenceUse> &fences() const { return fences_; }
  const std::vector<HeldAnswer> &held_answers() const { return held_answers_; }
  // Consistency problems found while recording.
  const std::vector<std::string> &problems() const { return problems_; }
  // Distinct holds (acquire records) per recipe.
  const std::map<Recipe, uint64_t> &acquisitions() const { return acquisitions_; }

 private:
  struct HoldState {
    size_t last_segment = 0;  // index into segments_
    bool open = false;
  };
  static std::string Key(const std::string &worker, uint64_t hold);

  std::vector<Segment> segments_;
  std::vector<FenceUse> fences_;
  std::vector<HeldAnswer> held_answers_;
  std::vector<std::string> problems_;
  std::map<std::string, HoldState> holds_;
  std::map<Recipe, uint64_t> acquisitions_;
};

struct Violation {
  std::string kind;     // "overlap", "semaphore", "token", "fence", "stale-held", "history"
  std::string message;
  std::vector<Segment> segments;  // the offending segments
  std::vector<FenceUse> fences;
  std::string path;
  int64_t at_ns = 0;    // where to look in the path's history
};

struct Verdict {
  std::vector<Violation> violations;
  uint64_t segments = 0;
  uint64_t holds = 0;
  uint64_t open_segments = 0;
  uint64_t fence_accepted = 0;
  uint64_t fence_rejected = 0;
  uint64_t held_answers = 0;  // "yes" answers checked
  std::map<Recipe, uint64_t> acquisitions;
  std::map<std::string, int> max_concurrency;  // per path (semaphores, readers)
  // Violations of the kinds CheckOptions::only left out, counted by kind
  // (not failures: e.g. the overlaps of a run whose is_held lies on purpose).
  std::map<std::string, uint64_t> ignored;

  bool ok() const { return violations.empty(); }
  // One-line summary: "history: OK ..." or "history: FAILED ...".
  std::string Summary() const;
};

// Which properties decide the verdict. `only` empty: all of them. Else only
// violations of the kinds named ("overlap", "semaphore", "token", "fence",
// "stale-held"; "history", the records' own consistency, always counts);
// the others are counted in Verdict::ignored.
struct CheckOptions {
  std::vector<std::string> only;
};

Verdict Check(const History &h);
Verdict Check(const History &h, const CheckOptions &options);

// A handover on an exclusive path (not a semaphore path): an earlier hold
// whose tenure ended by a suspension or a loss (an end reason other than
// "released"/"resigned", and no later resume), and the first conflicting
// hold of another holder that began after it. The margin is the time from
// the earlier holder's last "held" yes (its T_AFTER; the tenure's begin when
// it has none) to the later holder's acquire: how long before the other
// side's grant the cut-off holder had stopped saying yes. Check() fails any
// history where a margin is negative (the yes extends the earlier segment
// into the later one: an overlap).
struct Handover {
  std::string path;
  std::string earlier_worker;
  uint64_t earlier_hold = 0;
  Recipe earlier_recipe = Recipe::kFair;
  std::string earlier_end_reason;
  std::string later_worker;
  uint64_t later_hold = 0;
  Recipe later_recipe = Recipe::kFair;
  int64_t last_yes_ns = 0;    // the earlier holder's last yes (T_AFTER)
  int64_t acquire_ns = 0;     // the later holder's acquire
  int64_t margin_ns() const { return acquire_ns - last_yes_ns; }
};

// Every such handover, ordered by the later acquire.
std::vector<Handover> Handovers(const History &h);

struct MarginSummary {
  size_t handovers = 0;  // how many handovers after a suspension/loss
  bool found = false;    // false: none (smallest is empty)
  Handover smallest;
};

// The handover with the smallest margin (see Handover).
MarginSummary SmallestHandoverMargin(const History &h);

// The verdict, and for each violation (at most `max_violations`) the
// offending records and the path's history around it.
std::string Report(const History &h, const Verdict &v, size_t max_violations = 10);

}  // namespace zkl_chaos
