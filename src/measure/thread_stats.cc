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
    if (p->interval_other) p->interval_other->Reset();
    p->interval_failed_other.reset();
    p->return_codes.fill(0);
  }
  integrity_failures = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& h : published_) {
      if (h) h->Reset();
    }
    for (auto& h : published_other_) {
      if (h) h->Reset();
    }
    published_failed_.fill(0);
    for (auto& c : published_codes_) c.fill(0);
  }
  origin_ns_ = phase_start_ns;
  next_boundary_ns_ = phase_start_ns + interval_ns_;
}

void ThreadStats::RecordFailure(OpStats& s, std::uint64_t service, std::uint64_t intended, std::uint64_t series,
                                std::uint64_t n) {
  if (!s.failed_service) {
    s.failed_service = std::make_unique<Histogram>();
    s.failed_intended = std::make_unique<Histogram>();
    s.interval_failed = std::make_unique<Histogram>();
    if (s.interval_other) s.interval_failed_other = std::make_unique<Histogram>();
  }
  s.failed_service->RecordN(service, n);
  s.failed_intended->RecordN(intended, n);
  s.interval_failed->RecordN(series, n);
  if (s.interval_failed_other) s.interval_failed_other->RecordN(series_uses_intended_ ? service : intended, n);
}

namespace {
// Adds `h` into `*into` (made on first use) and clears `h`.
void MoveInto(Histogram& h, std::unique_ptr<Histogram>& into) {
  if (h.count() == 0) return;
  if (!into) into = std::make_unique<Histogram>();
  into->Merge(h);
  h.Reset();
}
}  // namespace

void ThreadStats::PublishInterval(std::int64_t now_ns, bool force) {
  if (next_boundary_ns_ == INT64_MAX && !force) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int i = 0; i < kNumOpTypes; ++i) {
      OpStats* s = ops_[i].get();
      if (!s) continue;
      published_codes_[i] = s->return_codes;
      const bool failures = s->interval_failed && s->interval_failed->count() > 0;
      if (s->interval.count() == 0 && !failures) continue;
      if (s->interval.count() > 0) {
        (series_uses_intended_ ? s->intended : s->service).Merge(s->interval);
        MoveInto(s->interval, published_[i]);
      }
      if (s->interval_other && s->interval_other->count() > 0) {
        (series_uses_intended_ ? s->service : s->intended).Merge(*s->interval_other);
        MoveInto(*s->interval_other, published_other_[i]);
      }
      if (failures) {
        published_failed_[i] += s->interval_failed->count();
        MoveInto(*s->interval_failed, published_[i]);
        if (s->interval_failed_other) MoveInto(*s->interval_failed_other, published_other_[i]);
      }
    }
  }
  if (next_boundary_ns_ != INT64_MAX) {
    // The next boundary strictly after now, on the grid origin + k*interval.
    std::int64_t k = (now_ns - origin_ns_) / interval_ns_ + 1;
    next_boundary_ns_ = origin_ns_ + k * interval_ns_;
  }
}

void ThreadStats::TakeInterval(Taken& into) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int i = 0; i < kNumOpTypes; ++i) {
    if (published_[i]) MoveInto(*published_[i], into.all[i]);
    if (published_other_[i]) MoveInto(*published_other_[i], into.other[i]);
    into.failed[i] += published_failed_[i];
    published_failed_[i] = 0;
    for (int k = 0; k < Status::kNumCodes; ++k) into.codes[i][k] += published_codes_[i][k];
  }
}

void ThreadStats::Taken::ResetInterval() {
  for (auto& h : all) {
    if (h) h->Reset();
  }
  for (auto& h : other) {
    if (h) h->Reset();
  }
  failed.fill(0);
}

}  // namespace storebench
