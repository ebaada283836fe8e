// Unit tests of the history checker itself: a correct history passes, and
// each kind of broken history is caught and reported.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "history.h"

using namespace zkl_chaos;

namespace {

constexpr int64_t kMs = 1000000;

History Parse(const std::string &text) {
  History h;
  std::istringstream in(text);
  std::string line, error;
  size_t n = 0;
  while (std::getline(in, line)) {
    EXPECT_TRUE(h.AddLine(line, &error, Origin{"text", ++n})) << error;
  }
  return h;
}

bool HasKind(const Verdict &v, const std::string &kind) {
  for (const Violation &x : v.violations) {
    if (x.kind == kind) return true;
  }
  return false;
}

TEST(HistoryChecker, CorrectHistoryPasses) {
  History h = Parse(R"(# a correct history of every recipe
acquire w1 1 fair /f 100 1000000
fence w1 /f 100 2000000 accepted
end w1 1 3000000 released
acquire w2 1 fair /f 105 3500000
fence w2 /f 105 3600000 accepted
end w2 1 4000000 suspended
resume w2 1 105 4500000
fence w2 /f 105 4600000 accepted
end w2 1 5000000 released
note w2 5000001 anything goes here
acquire w1 2 read /rw 10 1000000
acquire w2 2 read /rw 11 1500000
end w1 2 2000000 released
end w2 2 2500000 released
acquire w3 1 write /rw 12 2600000
end w3 1 2700000 released
acquire w1 3 read /rw 13 2800000
end w1 3 2900000 lost
acquire w1 4 semaphore /s 20 1000000 2
acquire w2 3 semaphore /s 21 1100000 2
end w1 4 1200000 released
acquire w3 2 semaphore /s 22 1200000 2
end w2 3 1300000 released
end w3 2 1400000 released
acquire w4 1 election-fair /e 30 1000000
end w4 1 2000000 resigned
acquire w5 1 election-fair /e 31 2000001
end w5 1 3000000 lost
)");
  Verdict v = Check(h);
  EXPECT_TRUE(v.ok()) << Report(h, v);
  EXPECT_EQ(v.holds, 11u);
  EXPECT_EQ(v.acquisitions[Recipe::kSemaphore], 3u);
  EXPECT_EQ(v.max_concurrency["/s"], 2);
  EXPECT_EQ(v.max_concurrency["/rw"], 2);
  EXPECT_EQ(v.fence_accepted, 3u);
}

TEST(HistoryChecker, ExclusiveOverlapIsCaught) {
  History h;
  h.Acquire("w1", 1, Recipe::kFair, "/f", 100, 1 * kMs);
  h.Acquire("w2", 1, Recipe::kFair, "/f", 101, 5 * kMs);
  h.End("w1", 1, 6 * kMs, "released");  // ends after w2 began
  h.End("w2", 1, 7 * kMs, "released");
  Verdict v = Check(h);
  ASSERT_FALSE(v.ok());
  EXPECT_TRUE(HasKind(v, "overlap"));
  std::string report = Report(h, v);
  EXPECT_NE(report.find("w1#1"), std::string::npos) << report;
  EXPECT_NE(report.find("w2#1"), std::string::npos) << report;
  EXPECT_NE(report.find("FAILED"), std::string::npos) << report;
}

TEST(HistoryChecker, HoldNeverEndedOverlapsLaterHolders) {
  History h;
  h.Acquire("w1", 1, Recipe::kNonFair, "/n", 100, 1 * kMs);  // no end: open forever
  h.Acquire("w2", 1, Recipe::kNonFair, "/n", 101, 5 * kMs);
  h.End("w2", 1, 7 * kMs, "released");
  Verdict v = Check(h);
  EXPECT_TRUE(HasKind(v, "overlap"));
  EXPECT_EQ(v.open_segments, 1u);
}

TEST(HistoryChecker, EndOfSuspensionNotRestoredIsRespected) {
  // w1 is suspended at 3 ms (stops using the lock); w2 acquires at 4 ms:
  // fine. Had w1 resumed at 3.5 ms, it would overlap w2.
  History ok;
  ok.Acquire("w1", 1, Recipe::kFair, "/f", 100, 1 * kMs);
  ok.End("w1", 1, 3 * kMs, "suspended");
  ok.Acquire("w2", 1, Recipe::kFair, "/f", 101, 4 * kMs);
  ok.End("w2", 1, 5 * kMs, "released");
  EXPECT_TRUE(Check(ok).ok());

  History bad;
  bad.Acquire("w1", 1, Recipe::kFair, "/f", 100, 1 * kMs);
  bad.End("w1", 1, 3 * kMs, "suspended");
  bad.Resume("w1", 1, 100, 3500000);
  bad.Acquire("w2", 1, Recipe::kFair, "/f", 101, 4 * kMs);
  bad.End("w2", 1, 5 * kMs, "released");
  bad.End("w1", 1, 6 * kMs, "released");
  EXPECT_TRUE(HasKind(Check(bad), "overlap"));
}

TEST(HistoryChecker, TokenRegressionIsCaught) {
  History h;
  h.Acquire("w1", 1, Recipe::kFair, "/f", 200, 1 * kMs);
  h.End("w1", 1, 2 * kMs, "released");
  h.Acquire("w2", 1, Recipe::kFair, "/f", 150, 3 * kMs);  // lower than 200
  h.End("w2", 1, 4 * kMs, "released");
  h.Acquire("w3", 1, Recipe::kFair, "/f", 150, 5 * kMs);  // equal: not increasing
  h.End("w3", 1, 6 * kMs, "released");
  Verdict v = Check(h);
  EXPECT_FALSE(HasKind(v, "overlap"));
  int tokens = 0;
  for (const Violation &x : v.violations) tokens += x.kind == "token";
  EXPECT_EQ(tokens, 2) << Report(h, v);
}

TEST(HistoryChecker, TokenChangeWithinOneHoldIsCaught) {
  History h;
  h.Acquire("w1", 1, Recipe::kElectionUnfair, "/e", 200, 1 * kMs);
  h.End("w1", 1, 2 * kMs, "suspended");
  h.Resume("w1", 1, 300, 3 * kMs);
  h.End("w1", 1, 4 * kMs, "resigned");
  Verdict v = Check(h);
  EXPECT_TRUE(HasKind(v, "history")) << Report(h, v);
}

TEST(HistoryChecker, SemaphoreOverCountIsCaught) {
  History h;
  h.Acquire("w1", 1, Recipe::kSemaphore, "/s", 1, 1 * kMs, 2);
  h.Acquire("w2", 1, Recipe::kSemaphore, "/s", 2, 2 * kMs, 2);
  h.Acquire("w3", 1, Recipe::kSemaphore, "/s", 3, 3 * kMs, 2);  // third lease of 2
  h.End("w1", 1, 4 * kMs, "released");
  h.End("w2", 1, 5 * kMs, "released");
  h.End("w3", 1, 6 * kMs, "released");
  Verdict v = Check(h);
  ASSERT_TRUE(HasKind(v, "semaphore")) << Report(h, v);
  EXPECT_EQ(v.violations.size(), 1u);
  EXPECT_EQ(v.violations[0].segments.size(), 3u);
  EXPECT_EQ(v.max_concurrency["/s"], 3);
}

TEST(HistoryChecker, SemaphoreLeaseCountMismatchIsCaught) {
  History h;
  h.Acquire("w1", 1, Recipe::kSemaphore, "/s", 1, 1 * kMs, 2);
  h.End("w1", 1, 2 * kMs, "released");
  h.Acquire("w2", 1, Recipe::kSemaphore, "/s", 2, 3 * kMs, 3);
  h.End("w2", 1, 4 * kMs, "released");
  EXPECT_TRUE(HasKind(Check(h), "history"));
}

TEST(HistoryChecker, ReaderOverlappingWriterIsCaught) {
  History h;
  h.Acquire("w1", 1, Recipe::kRead, "/rw", 10, 1 * kMs);
  h.Acquire("w2", 1, Recipe::kRead, "/rw", 11, 2 * kMs);    // readers share: fine
  h.Acquire("w3", 1, Recipe::kWrite, "/rw", 12, 3 * kMs);   // writer while readers hold
  h.End("w1", 1, 4 * kMs, "released");
  h.End("w2", 1, 5 * kMs, "released");
  h.End("w3", 1, 6 * kMs, "released");
  h.Acquire("w1", 2, Recipe::kRead, "/rw", 13, 5500000);    // reader while writer holds
  h.End("w1", 2, 7 * kMs, "released");
  Verdict v = Check(h);
  int overlaps = 0;
  for (const Violation &x : v.violations) overlaps += x.kind == "overlap";
  EXPECT_EQ(overlaps, 3) << Report(h, v);  // w3 vs w1, w3 vs w2, w1#2 vs w3
}

TEST(HistoryChecker, WritersOverlappingEachOtherAreCaught) {
  History h;
  h.Acquire("w1", 1, Recipe::kWrite, "/rw", 10, 1 * kMs);
  h.Acquire("w2", 1, Recipe::kWrite, "/rw", 11, 2 * kMs);
  h.End("w1", 1, 3 * kMs, "released");
  h.End("w2", 1, 4 * kMs, "released");
  EXPECT_TRUE(HasKind(Check(h), "overlap"));
}

TEST(HistoryChecker, StaleTokenAcceptedByResourceIsCaught) {
  History h;
  h.Acquire("w1", 1, Recipe::kFair, "/f", 100, 1 * kMs);
  h.Fence("w1", "/f", 100, 2 * kMs, true);
  h.End("w1", 1, 3 * kMs, "released");
  h.Acquire("w2", 1, Recipe::kFair, "/f", 200, 4 * kMs);
  h.Fence("w2", "/f", 200, 5 * kMs, true);
  h.End("w2", 1, 9 * kMs, "released");
  // A broken resource: accepts 100 after 200.
  h.Fence("w1", "/f", 100, 6 * kMs, true);
  Verdict v = Check(h);
  ASSERT_TRUE(HasKind(v, "fence")) << Report(h, v);
  std::string report = Report(h, v);
  EXPECT_NE(report.find("stale token 100"), std::string::npos) << report;
}

TEST(HistoryChecker, RejectedStaleWriteIsCountedNotAViolation) {
  History h;
  h.Acquire("w1", 1, Recipe::kFair, "/f", 200, 1 * kMs);
  h.Fence("w1", "/f", 200, 2 * kMs, true);
  h.Fence("w1", "/f", 200, 3 * kMs, false);  // someone else was faster: refused
  h.End("w1", 1, 4 * kMs, "released");
  Verdict v = Check(h);
  EXPECT_TRUE(v.ok()) << Report(h, v);
  EXPECT_EQ(v.fence_rejected, 1u);
}

TEST(HistoryChecker, AWriteRejectedAfterAFreezeDoesNotStretchTheHold) {
  // w1 was told "held", then froze before its write (a client freeze
  // longer than the lease); w2 was granted meanwhile; w1 thawed, wrote with
  // its old token, and the resource refused it. Seen in a CI chaos round
  // (ZooKeeper 3.5.10): the fence did its job, so no overlap.
  History h = Parse(R"(acquire w1 1 election-unfair /e 100 1000000
held w1 1 1100000 1100050
fence w1 /e 100 1100100 accepted
acquire w2 1 election-unfair /e 105 5000000
held w2 1 5000100 5000150
fence w2 /e 105 5000200 accepted
fence w1 /e 100 5500000 rejected
end w1 1 5500100 resigned
end w2 1 6000000 resigned
)");
  Verdict v = Check(h);
  EXPECT_TRUE(v.ok()) << Report(h, v);
  EXPECT_EQ(v.fence_rejected, 1u);
  // Accepted, the same late write is a violation.
  History accepted = Parse(R"(acquire w1 1 election-unfair /e 100 1000000
held w1 1 1100000 1100050
acquire w2 1 election-unfair /e 105 5000000
fence w2 /e 105 5000200 accepted
fence w1 /e 100 5500000 accepted
end w1 1 5500100 resigned
end w2 1 6000000 resigned
)");
  EXPECT_FALSE(Check(accepted).ok());
}

TEST(HistoryChecker, ResourceUseOutsideTheHoldIsCaught) {
  History h;
  h.Acquire("w1", 1, Recipe::kFair, "/f", 100, 1 * kMs);
  h.End("w1", 1, 2 * kMs, "lost");
  h.Fence("w1", "/f", 100, 3 * kMs, true);  // wrote after it knew it lost
  EXPECT_TRUE(HasKind(Check(h), "fence"));
}

TEST(HistoryChecker, InconsistentHistoryIsCaught) {
  History h;
  h.End("w1", 7, 1 * kMs, "released");               // never acquired
  h.Acquire("w1", 1, Recipe::kFair, "/f", 1, 2 * kMs);
  h.Acquire("w1", 1, Recipe::kFair, "/f", 1, 3 * kMs);  // twice
  h.Resume("w1", 1, 1, 4 * kMs);                     // not ended
  Verdict v = Check(h);
  int n = 0;
  for (const Violation &x : v.violations) n += x.kind == "history";
  EXPECT_EQ(n, 3) << Report(h, v);
}

TEST(HistoryChecker, ZeroTokenIsARealTokenUnknownIsSkipped) {
  History h = Parse(R"(acquire w1 1 fair /f 100 1000000
end w1 1 2000000 released
acquire w2 1 fair /f - 3000000
end w2 1 4000000 released
acquire w3 1 fair /f 0 5000000
end w3 1 6000000 released
)");
  Verdict v = Check(h);
  ASSERT_EQ(v.violations.size(), 1u) << Report(h, v);
  EXPECT_EQ(v.violations[0].kind, "token");
  EXPECT_NE(v.violations[0].message.find("token 0 "), std::string::npos);
}

TEST(HistoryChecker, MalformedLinesAreRejected) {
  History h;
  std::string error;
  EXPECT_FALSE(h.AddLine("acquire w1 1 fair /f 10", &error));
  EXPECT_FALSE(h.AddLine("acquire w1 1 bogus /f 10 20", &error));
  EXPECT_FALSE(h.AddLine("acquire w1 1 semaphore /s 10 20", &error));  // no N
  EXPECT_FALSE(h.AddLine("acquire w1 x fair /f 10 20", &error));
  EXPECT_FALSE(h.AddLine("fence w1 /f 10 20 maybe", &error));
  EXPECT_FALSE(h.AddLine("hold w1 1", &error));
  EXPECT_NE(error.find("unknown record"), std::string::npos);
  EXPECT_TRUE(h.AddLine("", &error));
  EXPECT_TRUE(h.AddLine("# comment", &error));
}

TEST(HistoryChecker, FilesOfSeveralWorkersMerge) {
  std::string dir = ::testing::TempDir();
  std::string a = dir + "/zkl-history-a.txt", b = dir + "/zkl-history-b.txt";
  std::ofstream(a) << "acquire w1 1 fair /f 1 1000\nend w1 1 5000 released\n";
  std::ofstream(b) << "acquire w2 1 fair /f 2 4000\nend w2 1 6000 released\n";
  History h;
  std::string error;
  ASSERT_TRUE(h.AddFile(a, &error)) << error;
  ASSERT_TRUE(h.AddFile(b, &error)) << error;
  Verdict v = Check(h);
  ASSERT_TRUE(HasKind(v, "overlap"));
  std::string report = Report(h, v);
  EXPECT_NE(report.find("zkl-history-a.txt:1"), std::string::npos) << report;
  std::remove(a.c_str());
  std::remove(b.c_str());
}

}  // namespace

namespace {

// "held" records: every yes of is_held must fall outside other holders'
// tenures (issue 12).
TEST(HistoryChecker, HeldAnswersInsideOwnTenurePass) {
  History h = Parse(R"(acquire w1 1 fair /h 100 1000000
held w1 1 1100000 1100050
held w1 1 1900000 1900050
end w1 1 2000000 released
acquire w2 1 fair /h 105 2500000
held w2 1 2600000 2600050
end w2 1 3000000 released
acquire w1 2 semaphore /hs 1 1000000 2
acquire w2 2 semaphore /hs 2 1000500 2
held w1 2 1200000 1200010
end w1 2 2000000 released
end w2 2 2000000 released
)");
  Verdict v = Check(h);
  EXPECT_TRUE(v.ok()) << Report(h, v);
  EXPECT_EQ(v.held_answers, 4u);
}

TEST(HistoryChecker, StaleHeldAnswerIsAViolation) {
  // w1 froze while holding; w2 was granted; w1 thawed and was told "held"
  // (its own interval was already ended by the recorder, so only the held
  // record shows the lie).
  History h = Parse(R"(acquire w1 1 fair /h 100 1000000
end w1 1 1500000 not-held
acquire w2 1 fair /h 105 2500000
held w1 1 2600000 2600100
end w2 1 3000000 released
)");
  Verdict v = Check(h);
  EXPECT_FALSE(v.ok());
  EXPECT_TRUE(HasKind(v, "stale-held")) << Report(h, v);
}

TEST(HistoryChecker, HeldAnswerOverASemaphoreFullOfOthers) {
  History h = Parse(R"(acquire w1 1 semaphore /hs 1 1000000 2
end w1 1 1100000 not-held
acquire w2 1 semaphore /hs 2 1200000 2
acquire w3 1 semaphore /hs 3 1300000 2
held w1 1 1400000 1400010
end w2 1 2000000 released
end w3 1 2000000 released
)");
  Verdict v = Check(h);
  EXPECT_TRUE(HasKind(v, "stale-held")) << Report(h, v);
}

TEST(HistoryChecker, SmallestHandoverMarginAfterSuspensionsAndLosses) {
  // /m: w1 suspended (its last yes at 3.0 ms), w2 granted at 5.5 ms: 2.5 ms.
  //     w2 released: not a handover. w3 lost (last yes 10.2 ms), w1 granted
  //     at 11 ms: 0.8 ms, the smallest.
  // /r: w4 suspended and resumed (not the end of its tenure), then released.
  // /rw: a reader lost (no yes recorded: its acquire counts), a second
  //     reader is no conflict, the writer at 30 ms is: 10 ms.
  // /s: semaphores are not exclusive paths: left out.
  History h = Parse(R"(acquire w1 1 fair /m 1 1000000
held w1 1 2000000 2000100
held w1 1 2900000 3000000
end w1 1 3100000 suspended
acquire w2 1 fair /m 2 5500000
held w2 1 5600000 5600100
end w2 1 6000000 released
acquire w3 1 fair /m 3 7000000
held w3 1 10100000 10200000
end w3 1 10300000 lost
acquire w1 2 fair /m 4 11000000
end w1 2 12000000 released
acquire w4 1 nonfair /r 1 1000000
held w4 1 1500000 1500100
end w4 1 2000000 suspended
resume w4 1 1 2100000
held w4 1 2200000 2200100
end w4 1 2300000 released
acquire w5 1 nonfair /r 2 2400000
end w5 1 2500000 released
acquire w1 3 read /rw 1 20000000
end w1 3 21000000 lost
acquire w2 2 read /rw 2 25000000
end w2 2 26000000 released
acquire w3 2 write /rw 3 30000000
end w3 2 31000000 released
acquire w1 4 semaphore /s 1 1000000 2
end w1 4 1100000 lost
acquire w2 3 semaphore /s 2 1100001 2
end w2 3 1200000 released
)");
  Verdict v = Check(h);
  ASSERT_TRUE(v.ok()) << Report(h, v);
  std::vector<Handover> all = Handovers(h);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].path, "/m");
  EXPECT_EQ(all[0].earlier_worker, "w1");
  EXPECT_EQ(all[0].later_worker, "w2");
  EXPECT_EQ(all[0].earlier_end_reason, "suspended");
  EXPECT_EQ(all[0].margin_ns(), 2500000);
  EXPECT_EQ(all[1].margin_ns(), 800000);
  EXPECT_EQ(all[2].path, "/rw");
  EXPECT_EQ(all[2].later_worker, "w3");
  EXPECT_EQ(all[2].later_recipe, Recipe::kWrite);
  EXPECT_EQ(all[2].margin_ns(), 10000000);
  MarginSummary m = SmallestHandoverMargin(h);
  EXPECT_EQ(m.handovers, 3u);
  ASSERT_TRUE(m.found);
  EXPECT_EQ(m.smallest.path, "/m");
  EXPECT_EQ(m.smallest.earlier_worker, "w3");
  EXPECT_EQ(m.smallest.earlier_hold, 1u);
  EXPECT_EQ(m.smallest.later_worker, "w1");
  EXPECT_EQ(m.smallest.later_hold, 2u);
  EXPECT_EQ(m.smallest.margin_ns(), 800000);
  EXPECT_FALSE(SmallestHandoverMargin(Parse("acquire w1 1 fair /x 1 1000\nend w1 1 2000 released\n")).found);
}

TEST(HistoryChecker, HeldForUnknownHoldIsAHistoryProblem) {
  History h = Parse("held w9 7 1000 2000\n");
  EXPECT_TRUE(HasKind(Check(h), "history"));
}

}  // namespace
