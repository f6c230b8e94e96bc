#include "workload/core_workload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "core/random.h"
#include "core/error.h"

namespace storebench {

namespace {
// batch.size's upper bound: the batches in flight (threads x batch.size)
// must stay well inside AcknowledgedCounter's window of 2^20 keys.
constexpr std::int64_t kMaxBatchSize = 10000;
}  // namespace

CoreWorkloadOptions CoreWorkloadOptions::FromProperties(const Properties& p) {
  CoreWorkloadOptions o;
  std::string workload = p.GetString("workload", "site.ycsb.workloads.CoreWorkload");
  if (workload != "site.ycsb.workloads.CoreWorkload" && workload != "com.yahoo.ycsb.workloads.CoreWorkload" &&
      workload != "core") {
    throw ConfigError("property 'workload' = '" + workload + "' (" + p.OriginOf("workload") +
                      "): only CoreWorkload (site.ycsb.workloads.CoreWorkload) is supported");
  }
  o.table = p.GetString("table", o.table);
  if (o.table.empty()) throw ConfigError("property 'table' (" + p.OriginOf("table") + "): must not be empty");
  o.fieldcount = p.GetInt("fieldcount", o.fieldcount, 1, 1 << 20);
  o.fieldnameprefix = p.GetString("fieldnameprefix", o.fieldnameprefix);
  o.fieldlength = p.GetInt("fieldlength", o.fieldlength, 1, 1 << 30);
  o.minfieldlength = p.GetInt("minfieldlength", o.minfieldlength, 1, 1 << 30);
  o.fieldlengthdistribution = p.GetChoice("fieldlengthdistribution", o.fieldlengthdistribution,
                                          {"constant", "uniform", "zipfian", "histogram"});
  o.fieldlengthhistogram = p.GetString("fieldlengthhistogram", o.fieldlengthhistogram);
  if (o.fieldlengthdistribution != "constant" && o.fieldlengthdistribution != "histogram" &&
      o.minfieldlength > o.fieldlength) {
    throw ConfigError("property 'minfieldlength' = " + std::to_string(o.minfieldlength) + " (" +
                      p.OriginOf("minfieldlength") + "): must not exceed fieldlength = " +
                      std::to_string(o.fieldlength));
  }
  o.readallfields = p.GetBool("readallfields", o.readallfields);
  p.MarkKnown("readallfieldsbyname");  // YCSB >= 0.18: only changes how fields are named in the request
  o.writeallfields = p.GetBool("writeallfields", o.writeallfields);
  o.readproportion = p.GetDouble("readproportion", o.readproportion, 0);
  o.updateproportion = p.GetDouble("updateproportion", o.updateproportion, 0);
  o.insertproportion = p.GetDouble("insertproportion", o.insertproportion, 0);
  o.scanproportion = p.GetDouble("scanproportion", o.scanproportion, 0);
  o.readmodifywriteproportion = p.GetDouble("readmodifywriteproportion", o.readmodifywriteproportion, 0);
  o.batchinsertproportion = p.GetDouble("batchinsertproportion", o.batchinsertproportion, 0);
  o.batchreadproportion = p.GetDouble("batchreadproportion", o.batchreadproportion, 0);
  o.batch_size = p.GetInt("batch.size", o.batch_size, 1, kMaxBatchSize);
  const double sum = o.readproportion + o.updateproportion + o.insertproportion + o.scanproportion +
                     o.readmodifywriteproportion + o.batchinsertproportion + o.batchreadproportion;
  if (!(sum > 0)) {
    throw ConfigError(
        "the operation proportions (readproportion, updateproportion, insertproportion, scanproportion, "
        "readmodifywriteproportion, batchinsertproportion, batchreadproportion) sum to 0: at least one must be "
        "positive");
  }
  o.requestdistribution = p.GetChoice("requestdistribution", o.requestdistribution,
                                      {"uniform", "zipfian", "latest", "hotspot", "sequential", "exponential"});
  o.zipfian_constant = p.GetDouble("zipfian.constant", o.zipfian_constant, 0.0001, 0.9999);
  o.minscanlength = p.GetInt("minscanlength", o.minscanlength, 1);
  o.maxscanlength = p.GetInt("maxscanlength", o.maxscanlength, 1);
  if (o.minscanlength > o.maxscanlength) {
    throw ConfigError("property 'minscanlength' = " + std::to_string(o.minscanlength) + " (" +
                      p.OriginOf("minscanlength") + "): must not exceed maxscanlength = " +
                      std::to_string(o.maxscanlength));
  }
  o.scanlengthdistribution = p.GetChoice("scanlengthdistribution", o.scanlengthdistribution, {"uniform", "zipfian"});
  o.ordered_inserts = p.GetChoice("insertorder", "hashed", {"hashed", "ordered"}) == "ordered";
  o.zeropadding = p.GetInt("zeropadding", o.zeropadding, 1, 40);
  o.recordcount = p.GetInt("recordcount", 0, 0);
  o.operationcount = p.GetInt("operationcount", 0, 0);
  o.insertstart = p.GetInt("insertstart", 0, 0);
  o.insertcount = p.GetInt("insertcount", std::max<std::int64_t>(0, o.recordcount - o.insertstart), 0);
  o.hotspotdatafraction = p.GetDouble("hotspotdatafraction", o.hotspotdatafraction, 0, 1);
  o.hotspotopnfraction = p.GetDouble("hotspotopnfraction", o.hotspotopnfraction, 0, 1);
  o.exponential_percentile = p.GetDouble("exponential.percentile", o.exponential_percentile, 0.0001, 99.9999);
  o.exponential_frac = p.GetDouble("exponential.frac", o.exponential_frac, 1e-9);
  o.dataintegrity = p.GetBool("dataintegrity", o.dataintegrity);
  if (o.dataintegrity && o.fieldlengthdistribution != "constant") {
    throw ConfigError("dataintegrity=true needs fieldlengthdistribution=constant (it is '" +
                      o.fieldlengthdistribution + "', " + p.OriginOf("fieldlengthdistribution") + ")");
  }
  o.tx_operations = p.GetBool("tx.operations", o.tx_operations);
  o.tx_retries = p.GetInt("tx.retries", o.tx_retries, 0, 1000000);
  if (o.tx_operations && (o.scanproportion > 0 || o.batchinsertproportion > 0 || o.batchreadproportion > 0)) {
    throw ConfigError("tx.operations=true runs reads, updates, inserts and read-modify-writes in transactions; "
                      "scanproportion, batchinsertproportion and batchreadproportion must be 0");
  }
  o.insertion_retry_limit = p.GetInt("core_workload_insertion_retry_limit", 0, 0);
  o.insertion_retry_interval_s = p.GetDouble("core_workload_insertion_retry_interval", 3, 0);
  o.seed = static_cast<std::uint64_t>(p.GetInt("seed", 0, 0));
  o.run_insert_start = p.GetInt("client.runinsertstart", o.recordcount, o.recordcount);
  return o;
}

namespace {
CoreWorkloadOptions WithRunInsertRange(CoreWorkloadOptions o) {
  if (o.run_insert_base < 0) o.run_insert_base = o.recordcount;
  if (o.run_insert_start < 0) o.run_insert_start = o.run_insert_base;
  return o;
}
}  // namespace

namespace {
constexpr std::size_t kRandomBytes = 1 << 16;
}

CoreWorkload::CoreWorkload(const CoreWorkloadOptions& opts)
    : opts_(WithRunInsertRange(opts)),
      keys_(opts.ordered_inserts, static_cast<int>(opts.zeropadding)),
      load_sequence_(opts.insertstart),
      insert_sequence_(opts_.run_insert_base),
      sequential_counter_(0),
      seed_(SeedOrClock(opts.seed)) {
  for (std::int64_t i = 0; i < opts_.fieldcount; ++i) {
    field_names_.push_back(opts_.fieldnameprefix + std::to_string(i));
  }
  if (opts_.fieldlengthdistribution == "histogram") {
    length_histogram_ = std::make_unique<HistogramGenerator>(HistogramGenerator::FromFile(opts_.fieldlengthhistogram));
  }
  // Values are views into one buffer of random printable bytes, at random
  // offsets: "filled" values at the cost of one random number per field.
  // Built once and only read afterwards, so every client thread (and every
  // fiber client: thousands of connections) shares it.
  std::int64_t max_len = opts_.fieldlength;
  if (opts_.fieldlengthdistribution == "histogram") max_len = std::max<std::int64_t>(max_len, 1 << 20);
  random_bytes_.resize(kRandomBytes + static_cast<std::size_t>(max_len));
  Rng rng(seed_ ^ 0x5DEECE66Dull);
  for (char& c : random_bytes_) c = static_cast<char>(' ' + rng.Below(95));
  const bool needs_existing = opts_.readproportion > 0 || opts_.updateproportion > 0 ||
                              opts_.scanproportion > 0 || opts_.readmodifywriteproportion > 0;
  if (needs_existing && opts_.insertcount <= 0 && opts_.requestdistribution != "latest" &&
      opts_.requestdistribution != "exponential") {
    throw ConfigError("recordcount (or insertcount) must be positive: reads, updates and scans choose among the "
                      "loaded records");
  }
}

CoreWorkload::~CoreWorkload() = default;

std::vector<OpType> CoreWorkload::OpTypes(bool loading) const {
  if (loading && opts_.batch_size > 1) return {OpType::kBatchInsert, OpType::kBatchInsertPerRecord};
  if (loading) return {OpType::kInsert};
  std::vector<OpType> out;
  if (opts_.insertproportion > 0) out.push_back(OpType::kInsert);
  if (opts_.readproportion > 0 || opts_.readmodifywriteproportion > 0) out.push_back(OpType::kRead);
  if (opts_.updateproportion > 0 || opts_.readmodifywriteproportion > 0) out.push_back(OpType::kUpdate);
  if (opts_.scanproportion > 0) out.push_back(OpType::kScan);
  if (opts_.readmodifywriteproportion > 0) out.push_back(OpType::kReadModifyWrite);
  if (opts_.batchinsertproportion > 0) {
    out.push_back(OpType::kBatchInsert);
    out.push_back(OpType::kBatchInsertPerRecord);
  }
  if (opts_.batchreadproportion > 0) out.push_back(OpType::kBatchRead);
  return out;
}

std::unique_ptr<CoreWorkloadThread> CoreWorkload::NewThread(int thread_id) {
  return std::make_unique<CoreWorkloadThread>(*this, thread_id);
}

std::unique_ptr<WorkloadThread> CoreWorkload::NewWorkloadThread(int thread_id) { return NewThread(thread_id); }

CoreWorkloadThread::CoreWorkloadThread(CoreWorkload& w, int thread_id)
    : w_(w),
      o_(w.opts_),
      rng_(w.seed_ + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(thread_id + 1)),
      field_chooser_(0, w.opts_.fieldcount - 1) {
  const std::int64_t lo = o_.insertstart;
  const std::int64_t hi = o_.insertstart + std::max<std::int64_t>(o_.insertcount, 1) - 1;
  const std::string& d = o_.requestdistribution;
  if (d == "uniform") {
    key_chooser_ = std::make_unique<UniformGenerator>(lo, hi);
  } else if (d == "zipfian") {
    // A batch insert adds batch.size keys.
    const double new_keys_per_op = o_.insertproportion + o_.batchinsertproportion * static_cast<double>(o_.batch_size);
    const auto expected_new_keys =
        static_cast<std::int64_t>(static_cast<double>(o_.operationcount) * new_keys_per_op * 2.0);
    key_chooser_ = std::make_unique<ScrambledZipfianGenerator>(o_.insertstart,
                                                               o_.insertstart + o_.insertcount + expected_new_keys,
                                                               o_.zipfian_constant);
  } else if (d == "latest") {
    key_chooser_ = std::make_unique<SkewedLatestGenerator>(w.insert_sequence_, o_.zipfian_constant);
  } else if (d == "hotspot") {
    key_chooser_ = std::make_unique<HotspotGenerator>(lo, hi, o_.hotspotdatafraction, o_.hotspotopnfraction);
  } else if (d == "sequential") {
    key_chooser_ = std::make_unique<SequentialGenerator>(lo, hi, w.sequential_counter_);
  } else {
    key_chooser_ = std::make_unique<ExponentialGenerator>(o_.exponential_percentile,
                                                          static_cast<double>(o_.recordcount) * o_.exponential_frac);
    exponential_ = true;
  }
  const std::string& fl = o_.fieldlengthdistribution;
  if (fl == "constant") {
    field_length_ = std::make_unique<ConstantGenerator>(o_.fieldlength);
  } else if (fl == "uniform") {
    field_length_ = std::make_unique<UniformGenerator>(o_.minfieldlength, o_.fieldlength);
  } else if (fl == "zipfian") {
    field_length_ = std::make_unique<ZipfianGenerator>(o_.minfieldlength, o_.fieldlength);
  } else {
    field_length_ = std::make_unique<HistogramGenerator>(*w.length_histogram_);
  }
  if (o_.scanlengthdistribution == "uniform") {
    scan_length_ = std::make_unique<UniformGenerator>(o_.minscanlength, o_.maxscanlength);
  } else {
    scan_length_ = std::make_unique<ZipfianGenerator>(o_.minscanlength, o_.maxscanlength);
  }
  op_chooser_.Add(static_cast<int>(OpType::kRead), o_.readproportion);
  op_chooser_.Add(static_cast<int>(OpType::kUpdate), o_.updateproportion);
  op_chooser_.Add(static_cast<int>(OpType::kInsert), o_.insertproportion);
  op_chooser_.Add(static_cast<int>(OpType::kScan), o_.scanproportion);
  op_chooser_.Add(static_cast<int>(OpType::kReadModifyWrite), o_.readmodifywriteproportion);
  op_chooser_.Add(static_cast<int>(OpType::kBatchInsert), o_.batchinsertproportion);
  op_chooser_.Add(static_cast<int>(OpType::kBatchRead), o_.batchreadproportion);

  values_.resize(static_cast<std::size_t>(o_.fieldcount));
  if (o_.dataintegrity) value_store_.resize(static_cast<std::size_t>(o_.fieldcount));
}

std::int64_t CoreWorkloadThread::NextKeynum() {
  std::int64_t keynum;
  const std::int64_t limit = w_.insert_sequence_.Limit();
  if (exponential_) {
    do {
      keynum = limit - key_chooser_->Next(rng_);
    } while (keynum < 0);
  } else {
    do {
      keynum = key_chooser_->Next(rng_);
    } while (keynum > limit);
  }
  return keynum;
}

std::string_view CoreWorkloadThread::KeyFor(std::int64_t keynum) {
  return std::string_view(key_buf_, w_.keys_.Build(keynum, key_buf_));
}

std::string_view CoreWorkloadThread::RunKeyFor(std::int64_t keynum) {
  return KeyFor(keynum >= o_.run_insert_base ? keynum + (o_.run_insert_start - o_.run_insert_base) : keynum);
}

void CoreWorkloadThread::DeterministicValue(std::string_view key, std::string_view field, std::size_t size,
                                            std::string* out) {
  out->clear();
  out->append(key);
  out->push_back(':');
  out->append(field);
  // Java String.hashCode of the whole string so far, kept incrementally.
  std::uint32_t h = 0;
  for (char c : *out) h = 31 * h + static_cast<unsigned char>(c);
  char digits[16];
  while (out->size() < size) {
    const std::int32_t code = static_cast<std::int32_t>(h);
    out->push_back(':');
    h = 31 * h + ':';
    int n = std::snprintf(digits, sizeof digits, "%d", code);
    for (int i = 0; i < n; ++i) h = 31 * h + static_cast<unsigned char>(digits[i]);
    out->append(digits, static_cast<std::size_t>(n));
  }
  out->resize(size);
}

void CoreWorkloadThread::BuildValues(std::string_view key, bool all_fields) {
  value_count_ = 0;
  auto add = [&](std::size_t f) {
    const auto len = static_cast<std::size_t>(field_length_->Next(rng_));
    if (o_.dataintegrity) {
      DeterministicValue(key, w_.field_names_[f], len, &value_store_[f]);
      values_[value_count_++] = {w_.field_names_[f], value_store_[f]};
    } else {
      // w_.random_bytes_ holds kRandomBytes + the longest field: always in range.
      values_[value_count_++] = {w_.field_names_[f], std::string_view(w_.random_bytes_.data() + rng_.Below(kRandomBytes), len)};
    }
  };
  if (all_fields) {
    for (std::size_t f = 0; f < w_.field_names_.size(); ++f) add(f);
  } else {
    add(static_cast<std::size_t>(field_chooser_.Next(rng_)));
  }
}

void CoreWorkloadThread::ChooseReadFields() {
  if (o_.readallfields) {
    read_fields_ = FieldSelector{};
  } else {
    one_field_[0] = w_.field_names_[static_cast<std::size_t>(field_chooser_.Next(rng_))];
    read_fields_ = FieldSelector{false, std::span<const std::string_view>(one_field_, 1)};
  }
}

bool CoreWorkloadThread::Verify(std::string_view key, const RecordSet& rec, std::size_t r, bool only) {
  if (only ? rec.record_count() != 1 : r >= rec.record_count()) return false;
  const std::size_t expected_fields = read_fields_.all ? w_.field_names_.size() : 1;
  if (rec.field_count(r) != expected_fields) return false;
  for (std::size_t i = 0; i < rec.field_count(r); ++i) {
    Field f = rec.field(r, i);
    if (!read_fields_.Wants(f.name)) return false;
    DeterministicValue(key, f.name, static_cast<std::size_t>(o_.fieldlength), &expected_);
    if (f.value != expected_) return false;
  }
  return true;
}

void CoreWorkloadThread::BuildBatch(std::int64_t first, std::int64_t n, bool run_keys) {
  batch_.Clear();
  for (std::int64_t i = 0; i < n; ++i) {
    std::string_view key = run_keys ? RunKeyFor(first + i) : KeyFor(first + i);
    BuildValues(key, true);
    batch_.Add(key, Values());
  }
}

std::uint64_t CoreWorkloadThread::DoInsert(MeasuredSession& db, std::uint64_t max_records) {
  if (o_.batch_size > 1) {
    const auto n = static_cast<std::int64_t>(std::min<std::uint64_t>(static_cast<std::uint64_t>(o_.batch_size), max_records));
    if (n <= 0) return 0;
    BuildBatch(w_.load_sequence_.NextN(n), n, false);
    for (std::int64_t attempt = 0;; ++attempt) {
      Status st = db.BatchInsert(o_.table, batch_);
      if (st.ok() || attempt >= o_.insertion_retry_limit) break;
      const double s = o_.insertion_retry_interval_s * (0.8 + 0.4 * rng_.NextDouble());
      std::this_thread::sleep_for(std::chrono::duration<double>(s));
    }
    return static_cast<std::uint64_t>(n);
  }
  const std::int64_t keynum = w_.load_sequence_.Next();
  std::string_view key = KeyFor(keynum);
  BuildValues(key, true);
  for (std::int64_t attempt = 0;; ++attempt) {
    Status st = db.Insert(o_.table, key, Values());
    if (st.ok() || attempt >= o_.insertion_retry_limit) break;
    // YCSB: sleep interval * (0.8 .. 1.2) before retrying.
    const double s = o_.insertion_retry_interval_s * (0.8 + 0.4 * rng_.NextDouble());
    std::this_thread::sleep_for(std::chrono::duration<double>(s));
  }
  return 1;
}

void CoreWorkloadThread::DoInTransaction(MeasuredSession& db, OpType op) {
  Session* s = db.session();
  std::string_view key;
  std::int64_t keynum = -1;
  if (op == OpType::kInsert) {
    keynum = w_.insert_sequence_.Next();
    key = RunKeyFor(keynum);
  } else {
    key = RunKeyFor(NextKeynum());
  }
  if (op != OpType::kUpdate && op != OpType::kInsert) ChooseReadFields();
  if (op != OpType::kRead) BuildValues(key, op == OpType::kInsert || o_.writeallfields);
  for (std::int64_t n = 0;; ++n) {
    const std::int64_t start = db.Now();
    Status st = s->Begin(TxOptions{});
    if (st.ok() && (op == OpType::kRead || op == OpType::kReadModifyWrite)) {
      st = s->Read(o_.table, key, read_fields_, &result_);
      if (st.ok() && o_.dataintegrity && !Verify(key, result_)) {
        st = Status::UnexpectedState();
        db.CountIntegrityFailure();
      }
    }
    if (st.ok() && op == OpType::kUpdate) st = s->Update(o_.table, key, Values());
    if (st.ok() && op == OpType::kReadModifyWrite) st = s->Update(o_.table, key, Values());
    if (st.ok() && op == OpType::kInsert) st = s->Insert(o_.table, key, Values());
    if (st.ok()) st = s->Commit();
    if (!st.ok()) s->Abort();
    db.Record(op, st, start, db.Now());
    if (st.code() != Status::kAborted || n >= o_.tx_retries) break;
  }
  if (keynum >= 0) w_.insert_sequence_.Acknowledge(keynum);
}

void CoreWorkloadThread::DoTransaction(MeasuredSession& db) {
  RecordVerifier* verifier = o_.dataintegrity ? this : nullptr;
  const auto op = static_cast<OpType>(op_chooser_.Next(rng_));
  if (o_.tx_operations) {
    DoInTransaction(db, op);
    return;
  }
  switch (op) {
    case OpType::kRead: {
      std::string_view key = RunKeyFor(NextKeynum());
      ChooseReadFields();
      db.Read(o_.table, key, read_fields_, &result_, verifier);
      break;
    }
    case OpType::kUpdate: {
      std::string_view key = RunKeyFor(NextKeynum());
      BuildValues(key, o_.writeallfields);
      db.Update(o_.table, key, Values());
      break;
    }
    case OpType::kInsert: {
      const std::int64_t keynum = w_.insert_sequence_.Next();
      std::string_view key = RunKeyFor(keynum);
      BuildValues(key, true);
      db.Insert(o_.table, key, Values());
      w_.insert_sequence_.Acknowledge(keynum);
      break;
    }
    case OpType::kScan: {
      std::string_view key = RunKeyFor(NextKeynum());
      const auto len = static_cast<std::uint64_t>(scan_length_->Next(rng_));
      ChooseReadFields();
      db.Scan(o_.table, key, len, read_fields_, &result_);
      break;
    }
    case OpType::kReadModifyWrite: {
      std::string_view key = RunKeyFor(NextKeynum());
      ChooseReadFields();
      BuildValues(key, o_.writeallfields);
      const std::int64_t start = db.Now();
      Status st = db.Read(o_.table, key, read_fields_, &result_, verifier);
      Status st2 = db.Update(o_.table, key, Values());
      const std::int64_t end = db.Now();
      db.Record(OpType::kReadModifyWrite, st.ok() ? st2 : st, start, end);
      break;
    }
    case OpType::kBatchInsert: {
      // Fresh, contiguous keys from the insert sequence, acknowledged (as
      // inserts are, whatever the outcome) once the batch has returned.
      const std::int64_t first = w_.insert_sequence_.NextN(o_.batch_size);
      BuildBatch(first, o_.batch_size, true);
      db.BatchInsert(o_.table, batch_);
      for (std::int64_t k = first; k < first + o_.batch_size; ++k) w_.insert_sequence_.Acknowledge(k);
      break;
    }
    case OpType::kBatchRead: {
      // batch.size keys from the request distribution, each kept in its
      // own buffer (RunKeyFor's view is overwritten by the next call).
      batch_keys_.resize(static_cast<std::size_t>(o_.batch_size));
      batch_key_views_.clear();
      for (std::string& k : batch_keys_) {
        k.assign(RunKeyFor(NextKeynum()));
        batch_key_views_.push_back(k);
      }
      ChooseReadFields();
      db.BatchRead(o_.table, batch_key_views_, read_fields_, &result_, verifier);
      break;
    }
    default:
      break;
  }
}

}  // namespace storebench
