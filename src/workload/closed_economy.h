// ClosedEconomyWorkload (workload=closedeconomy): YCSB+T's transactional
// workload that checks itself. `recordcount` accounts hold `totalcash`,
// spread evenly at load (account k gets totalcash / recordcount, the first
// totalcash % recordcount one more), as a decimal number in the one field
// `<fieldnameprefix>0`. The run mixes
//   READ               read one account (a plain read),
//   TRANSFER           one transaction: read two accounts (in key order),
//                      move 1..closedeconomy.maxtransfer (at most what the
//                      source holds) from one to the other, write both,
//   READ-MODIFY-WRITE  one transaction: read an account and write its
//                      balance back unchanged (no money moves, yet it
//                      conflicts with transfers like any write),
// and no operation creates or destroys money, so at the end of the run the
// balances must still sum to totalcash: Validate reads every account and
// says whether they do.
//
// Transactions go through Session::Begin/Commit/Abort (none at all with
// closedeconomy.unsafe_no_transactions=true, see the options). An attempt that the
// store aborts is recorded as a failed TRANSFER (or READ-MODIFY-WRITE) with
// Return=ABORTED and retried, at most tx.retries times; each attempt is
// timed on its own. The inner reads and writes of a TRANSFER are not
// recorded separately; those of a READ-MODIFY-WRITE are (READ, UPDATE), as
// in CoreWorkload.
//
// ClosedEconomyWorkload is shared by all client threads (thread-safe: the
// load sequence is atomic); each thread has its own ClosedEconomyThread.
// Once warm a thread does not allocate.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/generators.h"
#include "core/keys.h"
#include "core/properties.h"
#include "workload/workload.h"

namespace storebench {

struct ClosedEconomyOptions {
  std::string table = "usertable";
  std::string field = "field0";        // fieldnameprefix + "0"
  std::int64_t recordcount = 0;        // accounts (>= 2)
  std::int64_t insertstart = 0;        // this process loads [insertstart, insertstart + insertcount)
  std::int64_t insertcount = 0;
  std::int64_t operationcount = 0;
  std::int64_t totalcash = 0;          // default 1000 per account
  double readproportion = 0.1;
  double transferproportion = 0.8;
  double readmodifywriteproportion = 0.1;
  std::string requestdistribution = "uniform";  // uniform | zipfian
  double zipfian_constant = 0.99;
  std::int64_t maxtransfer = 100;
  std::int64_t retries = 10;           // tx.retries: extra attempts after an abort
  bool lock_reads = false;             // closedeconomy.lock=for_update
  // closedeconomy.unsafe_no_transactions=true: transfers and
  // read-modify-writes run as plain reads and writes (no Begin/Commit), on
  // any binding; Validate then reports how far the total drifted instead of
  // failing. What a store without isolation loses, measured.
  bool unsafe_no_transactions = false;
  bool ordered_inserts = false;
  std::int64_t zeropadding = 1;
  std::uint64_t seed = 0;              // 0 = from the clock

  // Reads and validates the properties. Throws ConfigError.
  static ClosedEconomyOptions FromProperties(const Properties& props);
  // What account k holds after the load.
  std::int64_t InitialBalance(std::int64_t k) const {
    return totalcash / recordcount + (k < totalcash % recordcount ? 1 : 0);
  }
};

class ClosedEconomyWorkload final : public Workload {
 public:
  explicit ClosedEconomyWorkload(const ClosedEconomyOptions& opts);
  const ClosedEconomyOptions& options() const { return opts_; }
  std::vector<OpType> OpTypes(bool loading) const override;
  std::unique_ptr<WorkloadThread> NewWorkloadThread(int thread_id) override;
  // Reads every account; passed when the balances sum to totalcash and
  // every account is there.
  std::optional<ValidationResult> Validate(Store& store) override;

 private:
  friend class ClosedEconomyThread;
  ClosedEconomyOptions opts_;
  KeyBuilder keys_;
  SharedCounter load_sequence_;
  std::uint64_t seed_;
};

}  // namespace storebench
