#include "measure/thread_stats.h"

namespace storebench {

void ThreadStats::StartMeasuring(std::int64_t phase_start_ns) {
  for (auto& p : ops_) {
    if (!p) continue;
    p->service.Reset();
    p->intended.Reset();
    p->failed_service.reset();
    p->failed_intended.reset();
    p->interval.Reset();
    p->interval_failed.reset();
    p->return_codes.fill(0);
  }
  integrity_failures = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& h : published_) {
      if (h) h->Reset();
    }
  }
  origin_ns_ = phase_start_ns;
  next_boundary_ns_ = phase_start_ns + interval_ns_;
}

void ThreadStats::PublishInterval(std::int64_t now_ns, bool force) {
  if (next_boundary_ns_ == INT64_MAX && !force) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int i = 0; i < kNumOpTypes; ++i) {
      OpStats* s = ops_[i].get();
      if (!s) continue;
      const bool failures = s->interval_failed && s->interval_failed->count() > 0;
      if (s->interval.count() == 0 && !failures) continue;
      if (!published_[i]) published_[i] = std::make_unique<Histogram>();
      if (s->interval.count() > 0) {
        published_[i]->Merge(s->interval);
        (series_uses_intended_ ? s->intended : s->service).Merge(s->interval);
        s->interval.Reset();
      }
      if (failures) {
        published_[i]->Merge(*s->interval_failed);
        s->interval_failed->Reset();
      }
    }
  }
  if (next_boundary_ns_ != INT64_MAX) {
    // The next boundary strictly after now, on the grid origin + k*interval.
    std::int64_t k = (now_ns - origin_ns_) / interval_ns_ + 1;
    next_boundary_ns_ = origin_ns_ + k * interval_ns_;
  }
}

void ThreadStats::TakeInterval(std::array<std::unique_ptr<Histogram>, kNumOpTypes>& into) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int i = 0; i < kNumOpTypes; ++i) {
    Histogram* h = published_[i].get();
    if (!h || h->count() == 0) continue;
    if (!into[i]) into[i] = std::make_unique<Histogram>();
    into[i]->Merge(*h);
    h->Reset();
  }
}

}  // namespace storebench
