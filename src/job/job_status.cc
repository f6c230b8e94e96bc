#include "job/job_status.h"

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "job/mpi_job.h"

namespace storebench {

bool JobStatusLines::Combine(Figures& f) {
  constexpr int k = kNumOpTypes;
  using R = MpiJob::Reduction;
  auto& latency = *f.latency;
  // Sums: done, planned, processes still running, then each type's value sum.
  std::uint64_t sums[3 + k] = {f.done, f.planned, f.finished ? 0u : 1u};
  // Maxima: each type's number of bucket slots used (top index + 1), then its max.
  std::uint64_t maxima[2 * k] = {};
  std::uint64_t minima[k];
  std::vector<std::pair<std::uint32_t, std::uint64_t>> buckets[k];
  for (int i = 0; i < k; ++i) {
    minima[i] = std::numeric_limits<std::uint64_t>::max();
    const Histogram* h = latency[i].get();
    if (h == nullptr || h->count() == 0) continue;
    buckets[i] = h->NonEmptyBuckets();
    sums[3 + i] = h->sum();
    maxima[i] = buckets[i].back().first + 1u;
    maxima[k + i] = h->max();
    minima[i] = h->min();
  }
  MpiJob::AllReduce(sums, 3 + k, R::kSum);
  MpiJob::AllReduce(maxima, 2 * k, R::kMax);
  MpiJob::AllReduce(minima, k, R::kMin);
  // Every rank lays out the same array: type i's slots 0 .. maxima[i]-1.
  std::size_t total = 0;
  for (int i = 0; i < k; ++i) total += maxima[i];
  std::vector<std::uint64_t> counts(total, 0);
  std::size_t at = 0;
  for (int i = 0; i < k; ++i) {
    for (const auto& [index, n] : buckets[i]) counts[at + index] = n;
    at += maxima[i];
  }
  MpiJob::SumToRoot(counts.data(), static_cast<int>(counts.size()));
  f.done = sums[0];
  f.planned = sums[1];
  f.finished = sums[2] == 0;
  if (MpiJob::Rank() != 0) return false;
  at = 0;
  for (int i = 0; i < k; ++i) {
    if (maxima[i] == 0) continue;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> merged;
    for (std::uint64_t index = 0; index < maxima[i]; ++index) {
      if (counts[at + index] != 0) merged.emplace_back(static_cast<std::uint32_t>(index), counts[at + index]);
    }
    at += maxima[i];
    latency[i] = std::make_unique<Histogram>(Histogram::FromBuckets(merged, minima[i], maxima[k + i], sums[3 + i]));
  }
  return true;
}

}  // namespace storebench
