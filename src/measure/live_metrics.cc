#include "measure/live_metrics.h"

namespace storebench {

void LiveLatency::Add(const Histogram& h) {
  if (h.count() == 0) return;
  count += h.count();
  sum_ns += h.sum();
  // A bucket counts at the bounds at or above its lowest value: a value
  // equal to a bound is under it, and one up to 0.1% above a bound (in the
  // bound's own bucket) is taken as under it too.
  for (const auto& [index, n] : h.NonEmptyBuckets()) {
    const std::uint64_t lowest = Histogram::BucketLowest(index);
    for (std::size_t b = 0; b < kLiveLatencyBoundsNs.size(); ++b) {
      if (lowest <= kLiveLatencyBoundsNs[b]) at_or_below[b] += n;
    }
  }
}

void LiveMetrics::SetLabels(std::string binding, std::string label, std::string part) {
  std::lock_guard<std::mutex> lock(mu_);
  s_.binding = std::move(binding);
  s_.label = std::move(label);
  s_.part = std::move(part);
}

void LiveMetrics::BeginPhase(const std::string& phase, int threads, double target_ops_per_s,
                             std::uint64_t operations_planned) {
  std::lock_guard<std::mutex> lock(mu_);
  s_.phase = phase;
  s_.running = true;
  s_.threads = threads;
  s_.target_ops_per_s = target_ops_per_s;
  s_.actual_ops_per_s = 0;
  s_.elapsed_s = 0;
  s_.operations = 0;
  s_.operations_planned = operations_planned;
  s_.errors = 0;
  ops_ = {};
  seen_ = {};
}

void LiveMetrics::Publish(double elapsed_s, std::uint64_t operations, double interval_ops_per_s,
                          const std::array<std::unique_ptr<Histogram>, kNumOpTypes>& service,
                          const std::array<std::unique_ptr<Histogram>, kNumOpTypes>* intended,
                          const std::array<std::array<std::uint64_t, Status::kNumCodes>, kNumOpTypes>& by_status) {
  std::lock_guard<std::mutex> lock(mu_);
  s_.elapsed_s = elapsed_s;
  s_.operations = operations;
  s_.actual_ops_per_s = interval_ops_per_s;
  s_.errors = 0;
  for (int i = 0; i < kNumOpTypes; ++i) {
    LiveOp& op = ops_[i];
    std::uint64_t seen = 0;
    for (int k = 0; k < Status::kNumCodes; ++k) {
      seen += by_status[i][k];
      if (k != Status::kOk) s_.errors += by_status[i][k];
    }
    if (seen == 0 && !seen_[i]) continue;
    if (!seen_[i]) {
      seen_[i] = true;
      op.name = std::string(OpName(static_cast<OpType>(i)));
      op.has_intended = intended != nullptr;
    }
    op.by_status = by_status[i];
    if (service[i]) op.service.Add(*service[i]);
    if (intended != nullptr && (*intended)[i]) op.intended.Add(*(*intended)[i]);
  }
}

void LiveMetrics::EndPhase() {
  std::lock_guard<std::mutex> lock(mu_);
  s_.running = false;
}

LiveSnapshot LiveMetrics::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  LiveSnapshot out = s_;
  for (int i = 0; i < kNumOpTypes; ++i) {
    if (seen_[i]) out.ops.push_back(ops_[i]);
  }
  return out;
}

}  // namespace storebench
