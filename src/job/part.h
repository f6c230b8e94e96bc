// Splitting one benchmark's work over N client processes ("parts"), for
// `--part K/N` / `-p client.id=K -p client.count=N`.
//
// Promises: the split is deterministic and even. SplitRange cuts
// [start, start+count) into N contiguous slices that tile it exactly, in
// order; slice K has count/N items, and the first count%N slices one more.
// Every process computes its own slice from (K, N) alone, with no
// coordination.
#pragma once

#include <cstdint>
#include <string>

namespace storebench {

struct Slice {
  std::int64_t start = 0;
  std::int64_t count = 0;
  bool operator==(const Slice&) const = default;
};

// Slice k (0-based, k < n) of [start, start+count). Requires n >= 1,
// 0 <= k < n, count >= 0.
Slice SplitRange(std::int64_t start, std::int64_t count, std::int64_t k, std::int64_t n);

struct PartSpec {
  std::int64_t id = 0;     // K
  std::int64_t count = 1;  // N
};

// Parses "K/N" (decimal, 0 <= K < N). Throws ConfigError naming `what`
// (e.g. "--part '3/2'") otherwise.
PartSpec ParsePart(const std::string& text, const std::string& what);

}  // namespace storebench
