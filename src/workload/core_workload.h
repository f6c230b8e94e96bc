// CoreWorkload: YCSB's site.ycsb.workloads.CoreWorkload, same properties,
// defaults and semantics, turned into operations on a MeasuredSession.
//
// CoreWorkloadOptions holds every property, parsed and validated once
// (ConfigError with the property's origin on bad input). CoreWorkload is
// shared by all client threads and holds the shared counters (load key
// sequence, acknowledged insert sequence, sequential chooser); it is
// thread-safe. Each thread gets its own CoreWorkloadThread with its own Rng
// and generators and reusable buffers: DoInsert/DoTransaction do not
// allocate once warm.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/generators.h"
#include "core/keys.h"
#include "core/properties.h"
#include "measure/op_type.h"
#include "workload/measured_session.h"
#include "workload/workload.h"

namespace storebench {

struct CoreWorkloadOptions {
  std::string table = "usertable";
  std::int64_t fieldcount = 10;
  std::string fieldnameprefix = "field";
  std::int64_t fieldlength = 100;
  std::int64_t minfieldlength = 1;
  std::string fieldlengthdistribution = "constant";  // constant | uniform | zipfian | histogram
  std::string fieldlengthhistogram = "hist.txt";
  bool readallfields = true;
  bool writeallfields = false;
  double readproportion = 0.95;
  double updateproportion = 0.05;
  double insertproportion = 0;
  double scanproportion = 0;
  double readmodifywriteproportion = 0;
  // Batch puts (not in YCSB): the share of BATCH-INSERT operations, each
  // writing batch_size new records, and the batch size of `load` too
  // (1 = load record by record, as YCSB).
  double batchinsertproportion = 0;
  // Batch reads (not in YCSB; Yardstick's getAll): the share of BATCH-READ
  // operations, each reading batch_size records chosen by the request
  // distribution in one call.
  double batchreadproportion = 0;
  std::int64_t batch_size = 1;  // batch.size
  std::string requestdistribution = "uniform";  // uniform|zipfian|latest|hotspot|sequential|exponential
  double zipfian_constant = 0.99;
  std::int64_t minscanlength = 1;
  std::int64_t maxscanlength = 1000;
  std::string scanlengthdistribution = "uniform";  // uniform | zipfian
  bool ordered_inserts = false;  // insertorder=ordered
  std::int64_t zeropadding = 1;
  std::int64_t recordcount = 0;
  std::int64_t operationcount = 0;
  std::int64_t insertstart = 0;
  std::int64_t insertcount = 0;  // defaults to recordcount - insertstart
  double hotspotdatafraction = 0.2;
  double hotspotopnfraction = 0.8;
  double exponential_percentile = 95;
  double exponential_frac = 0.8571428571;
  bool dataintegrity = false;
  // Extension (tx.operations=true): every read, update, insert and
  // read-modify-write runs in a transaction of its own (Begin, the
  // operation(s), Commit), retried up to tx.retries times when the store
  // aborts it; its latency spans Begin to Commit. Yardstick's put-tx and
  // getAndPut-tx. Needs a binding with transactions.
  bool tx_operations = false;
  std::int64_t tx_retries = 10;
  std::int64_t insertion_retry_limit = 0;
  double insertion_retry_interval_s = 3;
  std::uint64_t seed = 0;  // extension: 0 = from the clock
  // Extension (client.runinsertstart, default recordcount): the key number
  // that the run phase's first insert gets. Run-phase key numbers from
  // recordcount up (inserts, and reads of inserted records) are shifted by
  // run_insert_start - recordcount, so that N client processes (--part)
  // insert into disjoint ranges; each process sees the loaded records plus
  // its own inserts.
  std::int64_t run_insert_start = -1;  // -1: recordcount
  // Not a property: the logical key number of the run phase's first insert
  // (YCSB: recordcount); logical numbers from here up are shifted to
  // run_insert_start. `bench --part` sets it to insertstart + insertcount,
  // so that a part's run (on its own slice) sees its newest records.
  std::int64_t run_insert_base = -1;  // -1: recordcount

  // Reads and validates all CoreWorkload properties. Throws ConfigError.
  static CoreWorkloadOptions FromProperties(const Properties& props);
};

class CoreWorkloadThread;

class CoreWorkload final : public Workload {
 public:
  explicit CoreWorkload(const CoreWorkloadOptions& opts);
  ~CoreWorkload() override;
  const CoreWorkloadOptions& options() const { return opts_; }
  // Operation types this workload can issue in the given phase.
  std::vector<OpType> OpTypes(bool loading) const override;
  std::unique_ptr<CoreWorkloadThread> NewThread(int thread_id);
  std::unique_ptr<WorkloadThread> NewWorkloadThread(int thread_id) override;
  std::string BuildKey(std::int64_t keynum) const { return keys_.Build(keynum); }

 private:
  friend class CoreWorkloadThread;
  CoreWorkloadOptions opts_;
  KeyBuilder keys_;
  SharedCounter load_sequence_;
  AcknowledgedCounter insert_sequence_;
  SharedCounter sequential_counter_;
  std::vector<std::string> field_names_;
  std::unique_ptr<HistogramGenerator> length_histogram_;  // parsed once when used
  std::uint64_t seed_;
  std::string random_bytes_;  // printable random bytes shared by all clients; values are views into it
};

class CoreWorkloadThread final : public WorkloadThread, private RecordVerifier {
 public:
  CoreWorkloadThread(CoreWorkload& w, int thread_id);
  // Load phase: inserts the next record of the shared load sequence, or
  // with batch.size > 1 the next min(batch.size, max_records) records in
  // one BATCH-INSERT. Returns the number of records written (or tried).
  std::uint64_t DoInsert(MeasuredSession& db, std::uint64_t max_records = UINT64_MAX) override;
  // Run phase: one operation chosen by the proportions.
  void DoTransaction(MeasuredSession& db) override;
  // tx.operations=true: `op` in a transaction of its own (see the option).
  void DoInTransaction(MeasuredSession& db, OpType op);

  // Exposed for tests: the next key number the chooser would pick.
  std::int64_t NextKeynum();
  // The deterministic value of (key, field) used by dataintegrity (YCSB's
  // buildDeterministicValue: key:field then ':' + Java hashCode repeated).
  static void DeterministicValue(std::string_view key, std::string_view field, std::size_t size,
                                 std::string* out);

 private:
  bool Verify(std::string_view key, const RecordSet& rec, std::size_t r, bool only) override;
  using RecordVerifier::Verify;
  void BuildValues(std::string_view key, bool all_fields);
  std::string_view KeyFor(std::int64_t keynum);
  // KeyFor in the run phase: applies run_insert_start (see the options).
  std::string_view RunKeyFor(std::int64_t keynum);
  void ChooseReadFields();
  // Fills batch_ with n records, keys key(first) .. key(first + n - 1).
  void BuildBatch(std::int64_t first, std::int64_t n, bool run_keys);

  CoreWorkload& w_;
  const CoreWorkloadOptions& o_;
  Rng rng_;
  std::unique_ptr<NumberGenerator> key_chooser_;
  bool exponential_ = false;
  std::unique_ptr<NumberGenerator> field_length_;
  std::unique_ptr<NumberGenerator> scan_length_;
  UniformGenerator field_chooser_;
  DiscreteGenerator op_chooser_;

  char key_buf_[KeyBuilder::kMaxKeyLength];
  std::span<const Field> Values() const { return {values_.data(), value_count_}; }
  std::vector<Field> values_;  // fieldcount slots; the first value_count_ are in use
  std::size_t value_count_ = 0;
  std::vector<std::string> value_store_;  // dataintegrity: owned values
  std::string_view one_field_[1];
  FieldSelector read_fields_;
  RecordSet result_;
  std::string expected_;  // scratch for Verify
  std::vector<std::string> batch_keys_;  // a BATCH-READ's keys
  std::vector<std::string_view> batch_key_views_;
  RecordBatch batch_;     // reused by every batch insert
};

}  // namespace storebench
