#include "workload/closed_economy.h"

#include <charconv>
#include <cstdio>
#include <chrono>
#include <span>
#include <utility>

#include "core/error.h"
#include "core/random.h"

namespace storebench {

ClosedEconomyOptions ClosedEconomyOptions::FromProperties(const Properties& p) {
  ClosedEconomyOptions o;
  o.table = p.GetString("table", o.table);
  o.field = p.GetString("fieldnameprefix", "field") + "0";
  o.recordcount = p.GetInt("recordcount", 0, 0);
  if (o.recordcount < 2) {
    throw ConfigError("property 'recordcount' = " + std::to_string(o.recordcount) + " (" + p.OriginOf("recordcount") +
                      "): workload=closedeconomy needs at least 2 accounts to transfer between");
  }
  o.insertstart = p.GetInt("insertstart", 0, 0, o.recordcount);
  o.insertcount = p.GetInt("insertcount", o.recordcount - o.insertstart, 0, o.recordcount - o.insertstart);
  o.operationcount = p.GetInt("operationcount", 0, 0);
  o.totalcash = p.GetInt("totalcash", 1000 * o.recordcount, 0, INT64_MAX / 4);
  o.readproportion = p.GetDouble("readproportion", o.readproportion, 0);
  o.transferproportion = p.GetDouble("transferproportion", o.transferproportion, 0);
  o.readmodifywriteproportion = p.GetDouble("readmodifywriteproportion", o.readmodifywriteproportion, 0);
  if (o.readproportion + o.transferproportion + o.readmodifywriteproportion <= 0) {
    throw ConfigError(
        "workload=closedeconomy: readproportion, transferproportion and readmodifywriteproportion sum to 0: at "
        "least one must be positive");
  }
  // Core properties that mean nothing here are refused, not ignored.
  for (const char* k : {"updateproportion", "insertproportion", "scanproportion"}) {
    if (p.Has(k) && p.GetDouble(k, 0) != 0) {
      throw ConfigError(std::string("property '") + k + "' (" + p.OriginOf(k) +
                        "): workload=closedeconomy has no such operation (it reads, transfers and "
                        "read-modify-writes; see readproportion, transferproportion, readmodifywriteproportion)");
    }
  }
  o.requestdistribution = p.GetChoice("requestdistribution", o.requestdistribution, {"uniform", "zipfian"});
  o.zipfian_constant = p.GetDouble("zipfian.constant", o.zipfian_constant, 0.0001);
  o.maxtransfer = p.GetInt("closedeconomy.maxtransfer", o.maxtransfer, 1);
  o.retries = p.GetInt("tx.retries", o.retries, 0, 1000000);
  o.lock_reads = p.GetChoice("closedeconomy.lock", "none", {"none", "for_update"}) == "for_update";
  o.unsafe_no_transactions = p.GetBool("closedeconomy.unsafe_no_transactions", false);
  if (o.unsafe_no_transactions && o.lock_reads) {
    throw ConfigError("property 'closedeconomy.lock' = 'for_update' (" + p.OriginOf("closedeconomy.lock") +
                      ") locks inside a transaction, and closedeconomy.unsafe_no_transactions=true runs none");
  }
  o.ordered_inserts = p.GetChoice("insertorder", "hashed", {"hashed", "ordered"}) == "ordered";
  o.zeropadding = p.GetInt("zeropadding", o.zeropadding, 1, 40);
  o.seed = static_cast<std::uint64_t>(p.GetInt("seed", 0, 0));
  return o;
}

namespace {

bool ParseBalance(std::string_view s, std::int64_t* out) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

// One client's state: its generators and buffers (keys, balances as text).
class ClosedEconomyThread final : public WorkloadThread {
 public:
  ClosedEconomyThread(ClosedEconomyWorkload& w, int thread_id)
      : w_(w),
        o_(w.opts_),
        rng_(w.seed_ + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(thread_id + 1)),
        amount_(1, o_.maxtransfer) {
    if (o_.requestdistribution == "zipfian") {
      chooser_ = std::make_unique<ScrambledZipfianGenerator>(0, o_.recordcount - 1, o_.zipfian_constant);
    } else {
      chooser_ = std::make_unique<UniformGenerator>(0, o_.recordcount - 1);
    }
    op_chooser_.Add(static_cast<int>(OpType::kRead), o_.readproportion);
    op_chooser_.Add(static_cast<int>(OpType::kTransfer), o_.transferproportion);
    op_chooser_.Add(static_cast<int>(OpType::kReadModifyWrite), o_.readmodifywriteproportion);
    tx_.lock_reads = o_.lock_reads;
    names_[0] = o_.field;
    selector_.all = false;
    selector_.names = std::span<const std::string_view>(names_, 1);
  }

  std::uint64_t DoInsert(MeasuredSession& db, std::uint64_t /*max_records*/) override {
    const std::int64_t k = w_.load_sequence_.Next();
    const std::string_view key = Key(0, k);
    Field f{o_.field, Text(0, o_.InitialBalance(k))};
    db.Insert(o_.table, key, std::span<const Field>(&f, 1));
    return 1;
  }

  void DoTransaction(MeasuredSession& db) override {
    switch (static_cast<OpType>(op_chooser_.Next(rng_))) {
      case OpType::kTransfer:
        Transfer(db);
        break;
      case OpType::kReadModifyWrite:
        ReadModifyWrite(db);
        break;
      default:
        db.Read(o_.table, Key(0, chooser_->Next(rng_)), selector_, &result_, nullptr);
        break;
    }
  }

 private:
  std::string_view Key(int i, std::int64_t k) {
    return {key_buf_[i], w_.keys_.Build(k, key_buf_[i])};
  }
  std::string_view Text(int i, std::int64_t v) {
    auto [end, ec] = std::to_chars(num_buf_[i], num_buf_[i] + sizeof num_buf_[i], v);
    return {num_buf_[i], static_cast<std::size_t>(end - num_buf_[i])};
  }
  // Reads the balance of `key` through `s`; UNEXPECTED_STATE when the
  // field is missing or not a number.
  Status ReadBalance(Session* s, std::string_view key, std::int64_t* balance) {
    Status st = s->Read(o_.table, key, selector_, &result_);
    if (!st.ok()) return st;
    auto v = result_.record_count() == 1 ? result_.Find(0, o_.field) : std::nullopt;
    if (!v || !ParseBalance(*v, balance)) return Status::UnexpectedState();
    return Status::Ok();
  }
  Status Write(Session* s, int i, std::string_view key, std::int64_t balance) {
    Field f{o_.field, Text(i, balance)};
    return s->Update(o_.table, key, std::span<const Field>(&f, 1));
  }

  // Runs `attempt` (which begins, works and commits) until it commits, fails
  // other than by an abort, or has been retried tx.retries times; records
  // every attempt as `op`.
  template <typename Attempt>
  void WithRetries(MeasuredSession& db, OpType op, Attempt&& attempt) {
    Session* s = db.session();
    if (o_.unsafe_no_transactions) {
      const std::int64_t start = db.Now();
      const Status st = attempt(s);
      db.Record(op, st, start, db.Now());
      return;
    }
    for (std::int64_t n = 0;; ++n) {
      const std::int64_t start = db.Now();
      Status st = s->Begin(tx_);
      if (st.ok()) st = attempt(s);
      if (st.ok()) st = s->Commit();
      if (!st.ok()) s->Abort();
      db.Record(op, st, start, db.Now());
      if (st.code() != Status::kAborted || n >= o_.retries) return;
    }
  }

  void Transfer(MeasuredSession& db) {
    std::int64_t a = chooser_->Next(rng_), b = chooser_->Next(rng_);
    while (b == a) b = chooser_->Next(rng_);
    const bool a_pays = (rng_.NextU64() & 1) != 0;
    if (b < a) std::swap(a, b);  // read (and lock) in key order: no deadlock between two transfers
    const std::int64_t wanted = amount_.Next(rng_);
    const std::string_view ka = Key(0, a), kb = Key(1, b);
    WithRetries(db, OpType::kTransfer, [&](Session* s) {
      std::int64_t ba = 0, bb = 0;
      if (Status st = ReadBalance(s, ka, &ba); !st.ok()) return st;
      if (Status st = ReadBalance(s, kb, &bb); !st.ok()) return st;
      std::int64_t& from = a_pays ? ba : bb;
      std::int64_t& to = a_pays ? bb : ba;
      const std::int64_t amount = std::min(wanted, std::max<std::int64_t>(from, 0));
      from -= amount;
      to += amount;
      if (Status st = Write(s, 0, ka, ba); !st.ok()) return st;
      return Write(s, 1, kb, bb);
    });
  }

  void ReadModifyWrite(MeasuredSession& db) {
    const std::string_view key = Key(0, chooser_->Next(rng_));
    WithRetries(db, OpType::kReadModifyWrite, [&](Session*) {
      Status st = db.Read(o_.table, key, selector_, &result_, nullptr);
      if (!st.ok()) return st;
      std::int64_t balance = 0;
      auto v = result_.record_count() == 1 ? result_.Find(0, o_.field) : std::nullopt;
      if (!v || !ParseBalance(*v, &balance)) return Status::UnexpectedState();
      Field f{o_.field, Text(0, balance)};
      return db.Update(o_.table, key, std::span<const Field>(&f, 1));
    });
  }

  ClosedEconomyWorkload& w_;
  const ClosedEconomyOptions& o_;
  Rng rng_;
  std::unique_ptr<NumberGenerator> chooser_;
  UniformGenerator amount_;
  DiscreteGenerator op_chooser_;
  TxOptions tx_;
  std::string_view names_[1];
  FieldSelector selector_;
  RecordSet result_;
  char key_buf_[2][KeyBuilder::kMaxKeyLength];
  char num_buf_[2][24];
};

ClosedEconomyWorkload::ClosedEconomyWorkload(const ClosedEconomyOptions& opts)
    : opts_(opts),
      keys_(opts.ordered_inserts, static_cast<int>(opts.zeropadding)),
      load_sequence_(opts.insertstart),
      seed_(SeedOrClock(opts.seed)) {}

std::vector<OpType> ClosedEconomyWorkload::OpTypes(bool loading) const {
  if (loading) return {OpType::kInsert};
  const double rmw = opts_.readmodifywriteproportion;
  return OpTypesWithShare({{opts_.readproportion + rmw, OpType::kRead},
                           {rmw, OpType::kUpdate},
                           {rmw, OpType::kReadModifyWrite},
                           {opts_.transferproportion, OpType::kTransfer}});
}

std::unique_ptr<WorkloadThread> ClosedEconomyWorkload::NewWorkloadThread(int thread_id) {
  return std::make_unique<ClosedEconomyThread>(*this, thread_id);
}

std::optional<ValidationResult> ClosedEconomyWorkload::Validate(Store& store) {
  std::unique_ptr<Session> s = store.NewSession(0);
  std::string_view names[1] = {opts_.field};
  FieldSelector sel;
  sel.all = false;
  sel.names = names;
  RecordSet rs;
  std::int64_t total = 0, missing = 0, unreadable = 0, negative = 0, changed = 0;
  std::string first_bad;
  for (std::int64_t k = 0; k < opts_.recordcount; ++k) {
    const std::string key = keys_.Build(k);
    Status st = s->Read(opts_.table, key, sel, &rs);
    std::int64_t balance = 0;
    std::optional<std::string_view> v;
    if (st.ok() && rs.record_count() == 1) v = rs.Find(0, opts_.field);
    if (st.IsNotFound()) {
      ++missing;
    } else if (!st.ok() || !v || !ParseBalance(*v, &balance)) {
      ++unreadable;
    } else {
      total += balance;
      if (balance < 0) ++negative;
      if (balance != opts_.InitialBalance(k)) ++changed;
      continue;
    }
    if (first_bad.empty()) first_bad = key + " (" + std::string(st.ok() ? "not a number" : st.name()) + ")";
  }
  s.reset();
  ValidationResult r;
  r.workload = "closedeconomy";
  const std::int64_t diff = total - opts_.totalcash;
  std::string summary;
  if (opts_.unsafe_no_transactions) {
    // Drift is what this mode measures, not a failure; lost accounts still are.
    r.passed = missing == 0 && unreadable == 0;
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.4f%%",
                  opts_.totalcash == 0 ? 0.0 : 100.0 * static_cast<double>(diff) / static_cast<double>(opts_.totalcash));
    summary = "closed economy without transactions (closedeconomy.unsafe_no_transactions=true): the " +
              std::to_string(opts_.recordcount) + " accounts hold " + std::to_string(total) +
              ", expected totalcash = " + std::to_string(opts_.totalcash) + ": drift " +
              std::string(diff > 0 ? "+" : "") + std::to_string(diff) + " (" + (diff > 0 ? "+" : "") + pct + ")";
  } else {
    r.passed = total == opts_.totalcash && missing == 0 && unreadable == 0;
    summary = std::string(r.passed ? "closed economy holds" : "closed economy VIOLATED") + ": the " +
              std::to_string(opts_.recordcount) + " accounts hold " + std::to_string(total) +
              ", expected totalcash = " + std::to_string(opts_.totalcash);
    if (diff != 0) summary += " (" + std::string(diff > 0 ? "+" : "") + std::to_string(diff) + ")";
  }
  summary += "; " + std::to_string(changed) + " account(s) differ from their loaded balance";
  if (missing > 0) summary += ", " + std::to_string(missing) + " missing";
  if (unreadable > 0) summary += ", " + std::to_string(unreadable) + " unreadable";
  if (negative > 0) summary += ", " + std::to_string(negative) + " negative";
  if (!first_bad.empty()) summary += " (first: " + first_bad + ")";
  r.summary = std::move(summary);
  r.figures = {{"ExpectedTotal", std::to_string(opts_.totalcash)},
               {"FoundTotal", std::to_string(total)},
               {"Difference", std::to_string(diff)},
               {"Accounts", std::to_string(opts_.recordcount)},
               {"AccountsChanged", std::to_string(changed)},
               {"AccountsMissing", std::to_string(missing)},
               {"AccountsUnreadable", std::to_string(unreadable)},
               {"AccountsNegative", std::to_string(negative)},
               {"Transactions", opts_.unsafe_no_transactions ? "none (unsafe_no_transactions)" : "yes"}};
  return r;
}

}  // namespace storebench
