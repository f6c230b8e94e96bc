// A scripted store for the runner's tests: every operation "takes"
// service_ns of a FakeClock (none with a real clock), operation number
// `stall_at` (counted over the whole store) takes stall_ns instead, and
// every `fail_every`-th operation fails (NOT_FOUND on reads, ERROR
// otherwise). A fault-injecting double in the way LevelDB's tests wrap Env;
// the real stores are tested in tests/db.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "db/binding.h"
#include "measure/clock.h"
#include "workload/core_workload.h"

namespace storebench::test_util {

class ScriptedStore final : public Store {
 public:
  struct Script {
    std::int64_t service_ns = 0;
    std::int64_t stall_at = -1;  // -1: no stall
    std::int64_t stall_ns = 0;
    std::int64_t fail_every = 0;  // 0: never
  };
  ScriptedStore(Clock& clock, Script script) : clock_(dynamic_cast<FakeClock*>(&clock)), script_(script) {}

  class S final : public Session {
   public:
    explicit S(ScriptedStore& s) : s_(s) {}
    Status Op(Status failure) {
      const std::int64_t n = s_.ops_.fetch_add(1);
      if (s_.clock_ != nullptr) s_.clock_->Advance(n == s_.script_.stall_at ? s_.script_.stall_ns : s_.script_.service_ns);
      return s_.script_.fail_every > 0 && (n + 1) % s_.script_.fail_every == 0 ? failure : Status::Ok();
    }
    Status Read(std::string_view, std::string_view, const FieldSelector&, RecordSet* out) override {
      out->Clear();
      return Op(Status(Status::kNotFound));
    }
    Status Scan(std::string_view, std::string_view, std::uint64_t, const FieldSelector&, RecordSet*) override {
      return Op(Status::Error());
    }
    Status Update(std::string_view, std::string_view, std::span<const Field>) override { return Op(Status::Error()); }
    Status Insert(std::string_view, std::string_view, std::span<const Field>) override { return Op(Status::Error()); }
    Status Delete(std::string_view, std::string_view) override { return Op(Status::Error()); }

   private:
    ScriptedStore& s_;
  };
  std::unique_ptr<Session> NewSession(int) override { return std::make_unique<S>(*this); }

 private:
  FakeClock* clock_;  // null with a real clock
  Script script_;
  std::atomic<std::int64_t> ops_{0};
};

// CoreWorkload's options for `records` records, reads with the given share
// and updates for the rest.
inline CoreWorkloadOptions ReadsAndUpdates(std::int64_t records, double read_proportion, std::uint64_t seed = 42) {
  CoreWorkloadOptions o;
  o.recordcount = records;
  o.insertcount = records;
  o.readproportion = read_proportion;
  o.updateproportion = 1 - read_proportion;
  o.seed = seed;
  return o;
}

}  // namespace storebench::test_util
