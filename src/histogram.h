// A latency histogram for the statistics: log-linear buckets (4 per power
// of two, so a percentile is off by at most ~19%), allocated on the first
// sample so that an idle handle costs one pointer.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "json.h"

namespace zkl {

class Histogram {
 public:
  void Record(int64_t value) {
    if (value < 0) value = 0;
    if (!buckets_) buckets_ = std::make_unique<std::array<uint32_t, kBuckets>>();
    ++(*buckets_)[Bucket(static_cast<uint64_t>(value))];
    ++count_;
    if (static_cast<uint64_t>(value) > max_) max_ = static_cast<uint64_t>(value);
  }
  uint64_t count() const { return count_; }

  // {"count":N,"p50":..,"p90":..,"p99":..,"max":..} (upper bucket bounds).
  void Write(JsonWriter &j) const {
    j.BeginObject();
    j.Field("count", count_);
    j.Field("p50", Percentile(0.50));
    j.Field("p90", Percentile(0.90));
    j.Field("p99", Percentile(0.99));
    j.Field("max", max_);
    j.EndObject();
  }

 private:
  static constexpr int kSub = 4;  // buckets per power of two
  static constexpr int kBuckets = 64 * kSub;

  static int Bucket(uint64_t v) {
    if (v < kSub) return static_cast<int>(v);
    int exp = 63 - __builtin_clzll(v);                                // floor(log2 v) >= 2
    int sub = static_cast<int>((v >> (exp - 2)) & (kSub - 1));        // next two bits
    return exp * kSub + sub;
  }
  // The largest value of a bucket.
  static uint64_t Upper(int b) {
    if (b < kSub) return static_cast<uint64_t>(b);
    int exp = b / kSub, sub = b % kSub;
    uint64_t base = uint64_t{1} << exp;
    return base + (base / kSub) * static_cast<uint64_t>(sub + 1) - 1;
  }
  uint64_t Percentile(double q) const {
    if (count_ == 0) return 0;
    uint64_t rank = static_cast<uint64_t>(q * static_cast<double>(count_ - 1)) + 1, seen = 0;
    for (int b = 0; b < kBuckets; ++b) {
      seen += (*buckets_)[b];
      if (seen >= rank) return Upper(b) < max_ ? Upper(b) : max_;
    }
    return max_;
  }

  std::unique_ptr<std::array<uint32_t, kBuckets>> buckets_;
  uint64_t count_ = 0;
  uint64_t max_ = 0;
};

}  // namespace zkl
