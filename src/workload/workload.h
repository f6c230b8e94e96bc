// Workload: what the runner drives. A workload kind (workload=core, the
// default, YCSB's CoreWorkload; workload=closedeconomy; workload=sqlquery)
// is one Workload shared by all client threads (thread-safe), which hands
// each client its own WorkloadThread (used by that client only). The
// threads turn "one more operation" into calls on a MeasuredSession; they
// do not allocate once warm.
#pragma once

#include <initializer_list>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "db/binding.h"
#include "measure/op_type.h"
#include "measure/result.h"
#include "workload/measured_session.h"

namespace storebench {

class WorkloadThread {
 public:
  virtual ~WorkloadThread() = default;
  // Load phase: the next record(s) of the shared load sequence, at most
  // max_records of them (a workload may write several at once, e.g. in one
  // batch). Returns how many records it wrote (or tried to).
  virtual std::uint64_t DoInsert(MeasuredSession& db, std::uint64_t max_records = UINT64_MAX) = 0;
  // Run phase: one operation chosen by the workload's proportions.
  virtual void DoTransaction(MeasuredSession& db) = 0;
};

// The operation types of a run phase: each type whose share is above zero, in
// the order given (what Workload::OpTypes returns when not loading).
inline std::vector<OpType> OpTypesWithShare(std::initializer_list<std::pair<double, OpType>> shares) {
  std::vector<OpType> out;
  for (const auto& [share, type] : shares) {
    if (share > 0) out.push_back(type);
  }
  return out;
}

class Workload {
 public:
  virtual ~Workload() = default;
  // Operation types this workload can issue in the given phase.
  virtual std::vector<OpType> OpTypes(bool loading) const = 0;
  // The state of client `thread_id` (0-based over all clients of the process).
  virtual std::unique_ptr<WorkloadThread> NewWorkloadThread(int thread_id) = 0;
  // Before the first phase: sets the store up (sqlquery: drops and creates
  // its tables when `loading`). Throws SetupError.
  virtual void Prepare(Store&, bool /*loading*/) {}
  // After the run phase: checks what the run left in the store through a
  // session of its own (closed economy: the sum of the balances). nullopt
  // when the workload has nothing to check. Throws SetupError when the
  // session cannot be made.
  virtual std::optional<ValidationResult> Validate(Store&) { return std::nullopt; }
};

}  // namespace storebench
