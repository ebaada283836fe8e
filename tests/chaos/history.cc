#include "history.h"

#include <time.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

namespace zkl_chaos {

namespace {

struct RecipeEntry {
  Recipe recipe;
  const char *name;
};

constexpr RecipeEntry kRecipes[] = {
    {Recipe::kFair, "fair"},
    {Recipe::kReentrant, "reentrant"},
    {Recipe::kNonFair, "nonfair"},
    {Recipe::kRead, "read"},
    {Recipe::kWrite, "write"},
    {Recipe::kSemaphore, "semaphore"},
    {Recipe::kElectionFair, "election-fair"},
    {Recipe::kElectionUnfair, "election-unfair"},
};

bool ParseU64(const std::string &s, uint64_t *out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

bool ParseToken(const std::string &s, uint64_t *out) {
  if (s == "-") {
    *out = kUnknownToken;
    return true;
  }
  return ParseU64(s, out) && *out != kUnknownToken;
}

bool ParseI64(const std::string &s, int64_t *out) {
  uint64_t v = 0;
  if (!ParseU64(s, &v) || v > static_cast<uint64_t>(INT64_MAX)) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

std::string Where(const Origin &o) {
  if (o.source.empty() && o.line == 0) return "";
  return " (" + o.source + ":" + std::to_string(o.line) + ")";
}

}  // namespace

const char *RecipeName(Recipe r) {
  for (const auto &e : kRecipes) {
    if (e.recipe == r) return e.name;
  }
  return "?";
}

bool ParseRecipe(const std::string &name, Recipe *out) {
  for (const auto &e : kRecipes) {
    if (name == e.name) {
      *out = e.recipe;
      return true;
    }
  }
  return false;
}

bool IsExclusive(Recipe r) { return r != Recipe::kRead && r != Recipe::kSemaphore; }

int64_t MonotonicNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// ------------------------------------------------------------------------
// History

std::string History::Key(const std::string &worker, uint64_t hold) {
  return worker + "\x1f" + std::to_string(hold);
}

void History::Acquire(const std::string &worker, uint64_t hold, Recipe recipe,
                      const std::string &path, uint64_t token, int64_t t_ns, int leases,
                      const Origin &origin) {
  std::string key = Key(worker, hold);
  if (holds_.count(key)) {
    problems_.push_back("acquire of hold " + std::to_string(hold) + " by " + worker +
                        " recorded twice" + Where(origin));
    return;
  }
  Segment s;
  s.worker = worker;
  s.hold = hold;
  s.recipe = recipe;
  s.path = path;
  s.token = token;
  s.leases = leases;
  s.begin_ns = t_ns;
  s.origin = origin;
  segments_.push_back(s);
  holds_[key] = HoldState{segments_.size() - 1, true};
  ++acquisitions_[recipe];
}

void History::Resume(const std::string &worker, uint64_t hold, uint64_t token, int64_t t_ns,
                     const Origin &origin) {
  auto it = holds_.find(Key(worker, hold));
  if (it == holds_.end()) {
    problems_.push_back("resume of unknown hold " + std::to_string(hold) + " by " + worker +
                        Where(origin));
    return;
  }
  if (it->second.open) {
    problems_.push_back("resume of hold " + std::to_string(hold) + " by " + worker +
                        " that was not ended" + Where(origin));
    return;
  }
  Segment s = segments_[it->second.last_segment];
  if (t_ns < s.end_ns) {
    problems_.push_back("resume of hold " + std::to_string(hold) + " by " + worker +
                        " before its previous end" + Where(origin));
  }
  if (token != kUnknownToken && s.token != kUnknownToken && token != s.token) {
    problems_.push_back("hold " + std::to_string(hold) + " by " + worker + " resumed with token " +
                        std::to_string(token) + " instead of " + std::to_string(s.token) +
                        Where(origin));
  }
  if (s.token == kUnknownToken) s.token = token;
  s.begin_ns = t_ns;
  s.end_ns = kOpenEnd;
  s.end_reason.clear();
  s.origin = origin;
  segments_.push_back(s);
  it->second = HoldState{segments_.size() - 1, true};
}

void History::End(const std::string &worker, uint64_t hold, int64_t t_ns,
                  const std::string &reason, const Origin &origin) {
  auto it = holds_.find(Key(worker, hold));
  if (it == holds_.end() || !it->second.open) {
    problems_.push_back("end of " + std::string(it == holds_.end() ? "unknown" : "already ended") +
                        " hold " + std::to_string(hold) + " by " + worker + Where(origin));
    return;
  }
  Segment &s = segments_[it->second.last_segment];
  if (t_ns < s.begin_ns) {
    problems_.push_back("hold " + std::to_string(hold) + " by " + worker +
                        " ends before it begins" + Where(origin));
  }
  s.end_ns = t_ns;
  s.end_reason = reason;
  it->second.open = false;
}

void History::Fence(const std::string &worker, const std::string &path, uint64_t token,
                    int64_t t_ns, bool accepted, const Origin &origin, uint64_t order) {
  fences_.push_back(FenceUse{worker, path, token, t_ns, accepted, origin, order});
}

void History::Held(const std::string &worker, uint64_t hold, int64_t before_ns, int64_t after_ns,
                   const Origin &origin) {
  auto it = holds_.find(Key(worker, hold));
  if (it == holds_.end()) {
    problems_.push_back("held answer for unknown hold " + worker + "#" + std::to_string(hold) +
                        Where(origin));
    return;
  }
  const Segment &s = segments_[it->second.last_segment];
  held_answers_.push_back(HeldAnswer{worker, hold, s.path, s.recipe, s.leases, before_ns, after_ns, origin});
}

bool History::AddLine(const std::string &line, std::string *error, const Origin &origin) {
  std::istringstream in(line);
  std::vector<std::string> f;
  for (std::string w; in >> w;) f.push_back(w);
  if (f.empty() || f[0][0] == '#' || f[0] == "note") return true;
  auto fail = [&](const std::string &why) {
    if (error) *error = why + Where(origin) + ": " + line;
    return false;
  };
  const std::string &kind = f[0];
  if (kind == "acquire") {
    // acquire WORKER HOLD RECIPE PATH TOKEN T_NS [LEASES]
    if (f.size() != 7 && f.size() != 8) return fail("acquire needs 6 or 7 fields");
    uint64_t hold, token, leases = 0;
    int64_t t;
    Recipe r;
    if (!ParseU64(f[2], &hold)) return fail("bad hold id");
    if (!ParseRecipe(f[3], &r)) return fail("unknown recipe");
    if (f[4].empty() || f[4][0] != '/') return fail("bad path");
    if (!ParseToken(f[5], &token)) return fail("bad token");
    if (!ParseI64(f[6], &t)) return fail("bad time");
    if (f.size() == 8 && (!ParseU64(f[7], &leases) || leases > 1000000)) {
      return fail("bad lease count");
    }
    if (r == Recipe::kSemaphore && leases == 0) return fail("semaphore needs its lease count");
    Acquire(f[1], hold, r, f[4], token, t, static_cast<int>(leases), origin);
    return true;
  }
  if (kind == "resume") {
    // resume WORKER HOLD TOKEN T_NS
    if (f.size() != 5) return fail("resume needs 4 fields");
    uint64_t hold, token;
    int64_t t;
    if (!ParseU64(f[2], &hold) || !ParseToken(f[3], &token) || !ParseI64(f[4], &t)) {
      return fail("bad number");
    }
    Resume(f[1], hold, token, t, origin);
    return true;
  }
  if (kind == "end") {
    // end WORKER HOLD T_NS REASON
    if (f.size() != 5) return fail("end needs 4 fields");
    uint64_t hold;
    int64_t t;
    if (!ParseU64(f[2], &hold) || !ParseI64(f[3], &t)) return fail("bad number");
    End(f[1], hold, t, f[4], origin);
    return true;
  }
  if (kind == "fence") {
    // fence WORKER PATH TOKEN T_NS accepted|rejected [ORDER]
    if (f.size() != 6 && f.size() != 7) return fail("fence needs 5 or 6 fields");
    uint64_t token, order = 0;
    int64_t t;
    if (f[2].empty() || f[2][0] != '/') return fail("bad path");
    if (!ParseU64(f[3], &token) || !ParseI64(f[4], &t)) return fail("bad number");
    if (f[5] != "accepted" && f[5] != "rejected") return fail("fence outcome must be accepted|rejected");
    if (f.size() == 7 && (!ParseU64(f[6], &order) || order == 0 || f[5] != "accepted")) {
      return fail("ORDER must be a number > 0, of an accepted use");
    }
    Fence(f[1], f[2], token, t, f[5] == "accepted", origin, order);
    return true;
  }
  if (kind == "held") {
    // held WORKER HOLD T_BEFORE_NS T_AFTER_NS
    if (f.size() != 5) return fail("held needs 4 fields");
    uint64_t hold;
    int64_t before, after;
    if (!ParseU64(f[2], &hold) || !ParseI64(f[3], &before) || !ParseI64(f[4], &after)) {
      return fail("bad number");
    }
    if (after < before) return fail("held: T_AFTER before T_BEFORE");
    Held(f[1], hold, before, after, origin);
    return true;
  }
  return fail("unknown record '" + kind + "'");
}

bool History::AddFile(const std::string &file, std::string *error) {
  std::ifstream in(file);
  if (!in) {
    if (error) *error = "cannot open " + file;
    return false;
  }
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    // A line cut short by a crash is the last one and has no newline: the
    // parser rejects it as malformed, which is what we want to see.
    if (!AddLine(line, error, Origin{file, n})) return false;
  }
  return true;
}

// ------------------------------------------------------------------------
// Check

namespace {

// A "yes" answer is stale when, even at the earliest moment it can have
// been computed, another holder already held the path (for semaphores:
// max_leases others).
void CheckHeldAnswers(const History &h, const std::map<std::string, std::vector<const Segment *>> &by_path,
                      Verdict *v) {
  std::map<std::string, std::vector<const HeldAnswer *>> answers;
  for (const HeldAnswer &a : h.held_answers()) answers[a.path].push_back(&a);
  for (auto &[path, list] : answers) {
    std::stable_sort(list.begin(), list.end(), [](const HeldAnswer *a, const HeldAnswer *b) {
      return a->before_ns < b->before_ns;
    });
    auto segs_it = by_path.find(path);
    if (segs_it == by_path.end()) continue;
    const std::vector<const Segment *> &segs = segs_it->second;  // in begin order
    size_t next = 0;
    std::vector<const Segment *> active;
    for (const HeldAnswer *a : list) {
      ++v->held_answers;
      int64_t t = a->before_ns;
      while (next < segs.size() && segs[next]->begin_ns <= t) active.push_back(segs[next++]);
      active.erase(std::remove_if(active.begin(), active.end(),
                                  [&](const Segment *s) { return s->end_ns <= t; }),
                   active.end());
      int others = 0;
      const Segment *culprit = nullptr;
      for (const Segment *s : active) {
        if (s->worker == a->worker && s->hold == a->hold) continue;
        if (a->recipe == Recipe::kRead && s->recipe == Recipe::kRead) continue;
        ++others;
        culprit = s;
      }
      int allowed = a->recipe == Recipe::kSemaphore ? std::max(a->leases - 1, 0) : 0;
      if (others <= allowed || culprit == nullptr) continue;
      Violation x;
      x.kind = "stale-held";
      x.path = path;
      x.at_ns = t;
      std::ostringstream m;
      m << path << ": " << a->worker << "#" << a->hold << " was told it holds" << Where(a->origin)
        << " while " << culprit->worker << "#" << culprit->hold << " held it (since "
        << (t - culprit->begin_ns) / 1000 << " us)";
      x.message = m.str();
      x.segments = {*culprit};
      v->violations.push_back(std::move(x));
    }
  }
}

bool Conflict(const Segment &a, const Segment &b) {
  if (a.worker == b.worker && a.hold == b.hold) return false;  // segments of one hold
  if (a.recipe == Recipe::kRead && b.recipe == Recipe::kRead) return false;
  return true;
}

void CheckExclusion(const std::string &path, const std::vector<const Segment *> &segs,
                    Verdict *v) {
  // Sweep in begin order; `active` holds segments that have not ended yet.
  std::vector<const Segment *> active;
  int max_readers = 0;
  for (const Segment *s : segs) {
    active.erase(std::remove_if(active.begin(), active.end(),
                                [&](const Segment *a) { return a->end_ns <= s->begin_ns; }),
                 active.end());
    int readers = s->recipe == Recipe::kRead ? 1 : 0;
    for (const Segment *a : active) {
      if (a->recipe == Recipe::kRead) ++readers;
      if (!Conflict(*a, *s)) continue;
      Violation x;
      x.kind = "overlap";
      x.path = path;
      x.at_ns = s->begin_ns;
      std::ostringstream m;
      m << path << ": " << RecipeName(s->recipe) << " holder " << s->worker << "#" << s->hold
        << " began while " << RecipeName(a->recipe) << " holder " << a->worker << "#" << a->hold
        << " still held it (overlap "
        << (std::min(a->end_ns, s->end_ns) == kOpenEnd
                ? std::string("unbounded")
                : std::to_string((std::min(a->end_ns, s->end_ns) - s->begin_ns) / 1000) + " us")
        << ")";
      x.message = m.str();
      x.segments = {*a, *s};
      v->violations.push_back(std::move(x));
    }
    max_readers = std::max(max_readers, readers);
    active.push_back(s);
  }
  if (max_readers > 0) v->max_concurrency[path] = max_readers;
}

void CheckSemaphore(const std::string &path, const std::vector<const Segment *> &segs,
                    Verdict *v) {
  int n = segs.front()->leases;
  for (const Segment *s : segs) {
    if (s->recipe != Recipe::kSemaphore) {
      Violation x;
      x.kind = "history";
      x.path = path;
      x.at_ns = s->begin_ns;
      x.message = path + ": " + RecipeName(s->recipe) + " hold on a semaphore path";
      x.segments = {*s};
      v->violations.push_back(std::move(x));
      return;
    }
    if (s->leases != n) {
      Violation x;
      x.kind = "history";
      x.path = path;
      x.at_ns = s->begin_ns;
      x.message = path + ": lease counts disagree (" + std::to_string(n) + " and " +
                  std::to_string(s->leases) + ")";
      x.segments = {*segs.front(), *s};
      v->violations.push_back(std::move(x));
      return;
    }
  }
  // Sweep over begin/end points; at equal times ends go first.
  std::vector<const Segment *> active;
  bool over = false;  // report each over-count episode once
  int max_count = 0;
  for (const Segment *s : segs) {
    active.erase(std::remove_if(active.begin(), active.end(),
                                [&](const Segment *a) { return a->end_ns <= s->begin_ns; }),
                 active.end());
    if (over && static_cast<int>(active.size()) < n) over = false;
    active.push_back(s);
    max_count = std::max(max_count, static_cast<int>(active.size()));
    if (static_cast<int>(active.size()) > n && !over) {
      over = true;
      Violation x;
      x.kind = "semaphore";
      x.path = path;
      x.at_ns = s->begin_ns;
      x.message = path + ": " + std::to_string(active.size()) + " lease holders at once (N = " +
                  std::to_string(n) + ")";
      for (const Segment *a : active) x.segments.push_back(*a);
      v->violations.push_back(std::move(x));
    }
  }
  v->max_concurrency[path] = max_count;
}

void CheckTokens(const std::string &path, const std::vector<const Segment *> &segs,
                 Verdict *v) {
  const Segment *prev = nullptr;
  for (const Segment *s : segs) {
    // Compared with the last holder whose token is known (an unknown one
    // in between proves nothing either way).
    if (!IsExclusive(s->recipe) || s->token == kUnknownToken) continue;
    if (prev != nullptr) {
      bool same_hold = prev->worker == s->worker && prev->hold == s->hold;
      bool bad = same_hold ? s->token != prev->token : s->token <= prev->token;
      if (bad) {
        Violation x;
        x.kind = "token";
        x.path = path;
        x.at_ns = s->begin_ns;
        x.message = path + ": fencing token " + std::to_string(s->token) + " of " + s->worker +
                    "#" + std::to_string(s->hold) +
                    (same_hold ? " changed within the hold (was "
                               : " does not increase over the previous holder's ") +
                    std::to_string(prev->token) + (same_hold ? ")" : "");
        x.segments = {*prev, *s};
        v->violations.push_back(std::move(x));
      }
    }
    prev = s;
  }
}

void CheckFences(const History &h, Verdict *v) {
  // Per path, in time order: an accepted token never below an earlier one.
  std::map<std::string, std::vector<const FenceUse *>> by_path;
  for (const FenceUse &f : h.fences()) {
    by_path[f.path].push_back(&f);
    if (f.accepted) ++v->fence_accepted;
    else ++v->fence_rejected;
  }
  for (auto &[path, all] : by_path) {
    // The accepted uses in the resource's order when it gave one for each
    // (a client times only the sending of a write), else in time order.
    std::vector<const FenceUse *> uses;
    for (const FenceUse *f : all) {
      if (f->accepted) uses.push_back(f);
    }
    bool ordered = !uses.empty() && std::all_of(uses.begin(), uses.end(),
                                                [](const FenceUse *f) { return f->order != 0; });
    std::stable_sort(uses.begin(), uses.end(), [ordered](const FenceUse *a, const FenceUse *b) {
      return ordered ? a->order < b->order : a->t_ns < b->t_ns;
    });
    const FenceUse *highest = nullptr;
    for (const FenceUse *f : uses) {
      if (highest != nullptr && f->token < highest->token) {
        Violation x;
        x.kind = "fence";
        x.path = path;
        x.at_ns = f->t_ns;
        x.message = path + ": the resource accepted stale token " + std::to_string(f->token) +
                    " from " + f->worker + " after token " + std::to_string(highest->token) +
                    " from " + highest->worker +
                    (ordered ? " (in the resource's order: " + std::to_string(highest->order) +
                                   " then " + std::to_string(f->order) + ")"
                             : "");
        x.fences = {*highest, *f};
        v->violations.push_back(std::move(x));
      }
      if (highest == nullptr || f->token > highest->token) highest = f;
    }
  }
  // Every use lies inside a segment of its user with the same path and token.
  std::map<std::tuple<std::string, std::string>, std::vector<const Segment *>> segs;
  for (const Segment &s : h.segments()) segs[{s.worker, s.path}].push_back(&s);
  for (auto &[key, list] : segs) {
    std::sort(list.begin(), list.end(),
              [](const Segment *a, const Segment *b) { return a->begin_ns < b->begin_ns; });
  }
  for (const FenceUse &f : h.fences()) {
    auto it = segs.find({f.worker, f.path});
    bool inside = false;
    if (it != segs.end()) {
      const auto &list = it->second;
      auto up = std::upper_bound(list.begin(), list.end(), f.t_ns,
                                 [](int64_t t, const Segment *s) { return t < s->begin_ns; });
      if (up != list.begin()) {
        const Segment *s = *(up - 1);
        inside = f.t_ns <= s->end_ns && (s->token == kUnknownToken || s->token == f.token);
      }
    }
    if (!inside) {
      Violation x;
      x.kind = "fence";
      x.path = f.path;
      x.at_ns = f.t_ns;
      x.message = f.path + ": " + f.worker + " used the resource with token " +
                  std::to_string(f.token) + " outside of its own hold";
      x.fences = {f};
      v->violations.push_back(std::move(x));
    }
  }
}

std::string Ms(int64_t t, int64_t base) {
  if (t == kOpenEnd) return "(open)";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%+.3f", static_cast<double>(t - base) / 1e9);
  return buf;
}

std::string Describe(const Segment &s, int64_t base) {
  std::ostringstream o;
  o << "  " << RecipeName(s.recipe) << " " << s.path << " " << s.worker << "#" << s.hold
    << " token=" << (s.token == kUnknownToken ? std::string("-") : std::to_string(s.token));
  if (s.leases) o << " N=" << s.leases;
  o << " [" << Ms(s.begin_ns, base) << " s .. " << Ms(s.end_ns, base) << " s]";
  if (!s.end_reason.empty()) o << " ended: " << s.end_reason;
  o << Where(s.origin);
  return o.str();
}

std::string Describe(const FenceUse &f, int64_t base) {
  std::ostringstream o;
  o << "  fence " << f.path << " " << f.worker << " token=" << f.token << " at "
    << Ms(f.t_ns, base) << " s " << (f.accepted ? "accepted" : "rejected") << Where(f.origin);
  return o.str();
}

}  // namespace

namespace {

// A segment's effective end. A worker uses what it holds right after it
// was told it holds it (a "held" record), then asks again; it cannot use
// anything while it is frozen. So when the history has "held" answers or
// fenced uses in a segment, the last of them ends the segment's use — not
// the later "end" record, which a worker frozen past its session timeout
// writes only on its first look after the thaw (that look must say no:
// the stale-held check). Segments without them keep their end record.
// Fenced writes count only when the resource accepted them.
std::vector<Segment> EffectiveSegments(const History &h) {
  std::vector<Segment> out = h.segments();
  std::map<std::string, std::vector<Segment *>> by_hold;
  for (Segment &s : out) by_hold[s.worker + "#" + std::to_string(s.hold)].push_back(&s);
  std::map<const Segment *, int64_t> last_use;
  auto note = [&](Segment *s, int64_t t) {
    auto [it, fresh] = last_use.emplace(s, t);
    if (!fresh) it->second = std::max(it->second, t);
  };
  for (const HeldAnswer &a : h.held_answers()) {
    auto it = by_hold.find(a.worker + "#" + std::to_string(a.hold));
    if (it == by_hold.end()) continue;
    for (Segment *s : it->second) {
      if (s->begin_ns <= a.after_ns && a.before_ns <= s->end_ns) note(s, a.after_ns);
    }
  }
  std::map<std::pair<std::string, std::string>, std::vector<Segment *>> by_user;
  for (Segment &s : out) by_user[{s.worker, s.path}].push_back(&s);
  for (const FenceUse &f : h.fences()) {
    // A write the resource rejected used nothing: that is the fence doing
    // its job for a holder frozen between its last "held" answer and the
    // write (CheckFences judges the resource itself).
    if (!f.accepted) continue;
    auto it = by_user.find({f.worker, f.path});
    if (it == by_user.end()) continue;
    for (Segment *s : it->second) {
      if (s->begin_ns <= f.t_ns && f.t_ns <= s->end_ns) note(s, f.t_ns);
    }
  }
  for (auto &[s, t] : last_use) const_cast<Segment *>(s)->end_ns = std::min(s->end_ns, t);
  return out;
}

}  // namespace

Verdict Check(const History &h) { return Check(h, CheckOptions{}); }

Verdict Check(const History &h, const CheckOptions &options) {
  Verdict v;
  v.acquisitions = h.acquisitions();
  for (const auto &[r, n] : v.acquisitions) v.holds += n;
  v.segments = h.segments().size();
  for (const std::string &p : h.problems()) {
    Violation x;
    x.kind = "history";
    x.message = p;
    v.violations.push_back(std::move(x));
  }
  std::map<std::string, std::vector<const Segment *>> by_path;
  std::vector<Segment> effective = EffectiveSegments(h);
  for (const Segment &s : effective) {
    by_path[s.path].push_back(&s);
    if (s.end_ns == kOpenEnd) ++v.open_segments;
  }
  for (auto &[path, segs] : by_path) {
    std::stable_sort(segs.begin(), segs.end(), [](const Segment *a, const Segment *b) {
      return a->begin_ns < b->begin_ns;
    });
    bool semaphore = std::any_of(segs.begin(), segs.end(), [](const Segment *s) {
      return s->recipe == Recipe::kSemaphore;
    });
    if (semaphore) {
      CheckSemaphore(path, segs, &v);
    } else {
      CheckExclusion(path, segs, &v);
      CheckTokens(path, segs, &v);
    }
  }
  CheckFences(h, &v);
  CheckHeldAnswers(h, by_path, &v);
  if (!options.only.empty()) {
    std::vector<Violation> kept;
    for (Violation &x : v.violations) {
      bool wanted = x.kind == "history" ||
                    std::find(options.only.begin(), options.only.end(), x.kind) != options.only.end();
      if (wanted) kept.push_back(std::move(x));
      else ++v.ignored[x.kind];
    }
    v.violations = std::move(kept);
  }
  return v;
}

std::vector<Handover> Handovers(const History &h) {
  const std::vector<Segment> &segs = h.segments();
  // The last yes of every hold, and the last segment of every hold.
  std::map<std::pair<std::string, uint64_t>, int64_t> last_yes;
  for (const HeldAnswer &a : h.held_answers()) {
    auto [it, fresh] = last_yes.emplace(std::make_pair(a.worker, a.hold), a.after_ns);
    if (!fresh) it->second = std::max(it->second, a.after_ns);
  }
  std::map<std::pair<std::string, uint64_t>, const Segment *> last_segment;
  for (const Segment &s : segs) {
    auto key = std::make_pair(s.worker, s.hold);
    auto it = last_segment.find(key);
    if (it == last_segment.end() || it->second->begin_ns <= s.begin_ns) last_segment[key] = &s;
  }
  std::map<std::string, std::vector<const Segment *>> by_path;
  for (const Segment &s : segs) by_path[s.path].push_back(&s);
  std::vector<Handover> out;
  for (auto &[path, list] : by_path) {
    if (std::any_of(list.begin(), list.end(),
                    [](const Segment *s) { return s->recipe == Recipe::kSemaphore; })) {
      continue;
    }
    std::stable_sort(list.begin(), list.end(), [](const Segment *a, const Segment *b) {
      return a->begin_ns < b->begin_ns;
    });
    for (size_t i = 0; i < list.size(); ++i) {
      const Segment *s = list[i];
      if (s->end_ns == kOpenEnd || s->end_reason == "released" || s->end_reason == "resigned") {
        continue;
      }
      if (last_segment[{s->worker, s->hold}] != s) continue;  // resumed later
      const Segment *next = nullptr;
      for (size_t j = i + 1; j < list.size() && next == nullptr; ++j) {
        if (Conflict(*s, *list[j])) next = list[j];
      }
      if (next == nullptr) continue;
      Handover x;
      x.path = path;
      x.earlier_worker = s->worker;
      x.earlier_hold = s->hold;
      x.earlier_recipe = s->recipe;
      x.earlier_end_reason = s->end_reason;
      x.later_worker = next->worker;
      x.later_hold = next->hold;
      x.later_recipe = next->recipe;
      auto yes = last_yes.find({s->worker, s->hold});
      x.last_yes_ns = yes != last_yes.end() ? yes->second : s->begin_ns;
      x.acquire_ns = next->begin_ns;
      out.push_back(std::move(x));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Handover &a, const Handover &b) {
    return a.acquire_ns < b.acquire_ns;
  });
  return out;
}

MarginSummary SmallestHandoverMargin(const History &h) {
  MarginSummary m;
  for (const Handover &x : Handovers(h)) {
    ++m.handovers;
    if (!m.found || x.margin_ns() < m.smallest.margin_ns()) {
      m.found = true;
      m.smallest = x;
    }
  }
  return m;
}

std::string Verdict::Summary() const {
  std::ostringstream o;
  o << "history: " << (ok() ? "OK" : "FAILED") << " — " << holds << " acquisitions (";
  bool first = true;
  for (const auto &[r, n] : acquisitions) {
    o << (first ? "" : ", ") << RecipeName(r) << " " << n;
    first = false;
  }
  o << "), " << segments << " hold intervals, " << held_answers << " is-held answers, fenced writes "
    << fence_accepted << " accepted / " << fence_rejected << " rejected, " << violations.size()
    << " violations";
  if (!ignored.empty()) {
    o << " (not checked:";
    for (const auto &[kind, n] : ignored) o << " " << kind << " " << n;
    o << ")";
  }
  return o.str();
}

std::string Report(const History &h, const Verdict &v, size_t max_violations) {
  int64_t base = kOpenEnd;
  for (const Segment &s : h.segments()) base = std::min(base, s.begin_ns);
  for (const FenceUse &f : h.fences()) base = std::min(base, f.t_ns);
  if (base == kOpenEnd) base = 0;
  std::ostringstream o;
  o << v.Summary() << "\n";
  if (v.ok()) return o.str();
  o << "times are seconds since the first record (" << base << " ns, CLOCK_MONOTONIC)\n";
  size_t shown = 0;
  for (const Violation &x : v.violations) {
    if (shown++ == max_violations) {
      o << "... and " << (v.violations.size() - max_violations) << " more violations\n";
      break;
    }
    o << "VIOLATION [" << x.kind << "] " << x.message << "\n";
    for (const Segment &s : x.segments) o << Describe(s, base) << "\n";
    for (const FenceUse &f : x.fences) o << Describe(f, base) << "\n";
    if (x.path.empty()) continue;
    // The path's history around the violation (holds touching +-2 s).
    const int64_t window = 2000000000;
    std::vector<const Segment *> near;
    for (const Segment &s : h.segments()) {
      if (s.path != x.path) continue;
      if (s.end_ns >= x.at_ns - window && s.begin_ns <= x.at_ns + window) near.push_back(&s);
    }
    std::sort(near.begin(), near.end(),
              [](const Segment *a, const Segment *b) { return a->begin_ns < b->begin_ns; });
    o << "  history of " << x.path << " around " << Ms(x.at_ns, base) << " s (" << near.size()
      << " intervals):\n";
    size_t k = 0;
    for (const Segment *s : near) {
      if (k++ == 40) {
        o << "    ...\n";
        break;
      }
      o << "  " << Describe(*s, base) << "\n";
    }
  }
  return o.str();
}

}  // namespace zkl_chaos
