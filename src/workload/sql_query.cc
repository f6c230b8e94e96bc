#include "workload/sql_query.h"

#include <algorithm>
#include <chrono>
#include <span>

#include "core/error.h"
#include "core/random.h"

namespace storebench {

SqlQueryOptions SqlQueryOptions::FromProperties(const Properties& p) {
  SqlQueryOptions o;
  o.persons = p.GetInt("recordcount", 0, 0);
  if (o.persons < 1) {
    throw ConfigError("property 'recordcount' = " + std::to_string(o.persons) + " (" + p.OriginOf("recordcount") +
                      "): workload=sqlquery needs at least 1 person");
  }
  o.organizations = p.GetInt("sqlquery.organizations", std::max<std::int64_t>(1, o.persons / 10), 1, o.persons);
  o.insertstart = p.GetInt("insertstart", 0, 0, o.persons);
  o.insertcount = p.GetInt("insertcount", o.persons - o.insertstart, 0, o.persons - o.insertstart);
  o.operationcount = p.GetInt("operationcount", 0, 0);
  o.range = p.GetInt("sqlquery.range", o.range, 1, o.persons);
  o.rangeproportion = p.GetDouble("sqlquery.rangeproportion", o.rangeproportion, 0);
  o.joinproportion = p.GetDouble("sqlquery.joinproportion", o.joinproportion, 0);
  o.updateproportion = p.GetDouble("sqlquery.updateproportion", o.updateproportion, 0);
  if (o.rangeproportion + o.joinproportion + o.updateproportion <= 0) {
    throw ConfigError(
        "workload=sqlquery: sqlquery.rangeproportion, sqlquery.joinproportion and sqlquery.updateproportion sum to "
        "0: at least one must be positive");
  }
  for (const char* k : {"readproportion", "updateproportion", "insertproportion", "scanproportion",
                        "readmodifywriteproportion"}) {
    if (p.Has(k)) {
      throw ConfigError(std::string("property '") + k + "' (" + p.OriginOf(k) +
                        "): workload=sqlquery has its own mix (sqlquery.rangeproportion, sqlquery.joinproportion, "
                        "sqlquery.updateproportion)");
    }
  }
  o.table_prefix = p.GetString("sqlquery.table_prefix", "");
  for (char c : o.table_prefix) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      throw ConfigError("property 'sqlquery.table_prefix' = '" + o.table_prefix + "' (" +
                        p.OriginOf("sqlquery.table_prefix") + "): expected lower-case letters, digits and '_'");
    }
  }
  o.seed = static_cast<std::uint64_t>(p.GetInt("seed", 0, 0));
  return o;
}

namespace {
constexpr std::int64_t kBand = 1000;  // person i's salary lies in [i * kBand, i * kBand + kBand - 1]
}  // namespace

class SqlQueryThread final : public WorkloadThread {
 public:
  SqlQueryThread(SqlQueryWorkload& w, int thread_id)
      : w_(w),
        o_(w.opts_),
        rng_(w.seed_ + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(thread_id + 1)),
        start_(0, std::max<std::int64_t>(0, o_.persons - o_.range)),
        person_(0, o_.persons - 1),
        org_(0, o_.organizations - 1),
        raise_(0, kBand - 1) {
    op_chooser_.Add(static_cast<int>(OpType::kSqlRange), o_.rangeproportion);
    op_chooser_.Add(static_cast<int>(OpType::kSqlJoin), o_.joinproportion);
    op_chooser_.Add(static_cast<int>(OpType::kSqlUpdate), o_.updateproportion);
  }

  std::uint64_t DoInsert(MeasuredSession& db, std::uint64_t /*max_records*/) override {
    const std::int64_t i = w_.load_sequence_.Next();
    Session* s = db.session();
    const std::int64_t start = db.Now();
    Name(0, "first", i);
    Name(1, "last", i);
    SqlParam person[5];
    person[0].i = i;
    person[1].i = i % o_.organizations;
    person[2] = Text(0);
    person[3] = Text(1);
    person[4].i = i * kBand;
    std::uint64_t rows = 0;
    Status st = s->Sql(w_.insert_person_, person, &rows);
    if (st.ok() && rows != 1) st = Status::UnexpectedState();
    if (st.ok() && i < o_.organizations) {
      Name(0, "org", i);
      SqlParam org[2];
      org[0].i = i;
      org[1] = Text(0);
      st = s->Sql(w_.insert_org_, org, &rows);
      if (st.ok() && rows != 1) st = Status::UnexpectedState();
    }
    db.Record(OpType::kInsert, st, start, db.Now());
    return 1;
  }

  void DoTransaction(MeasuredSession& db) override {
    Session* s = db.session();
    std::uint64_t rows = 0;
    std::uint64_t expected = 0;
    OpType op = static_cast<OpType>(op_chooser_.Next(rng_));
    SqlParam p[2];
    const std::string* sql = nullptr;
    switch (op) {
      case OpType::kSqlRange: {
        const std::int64_t first = start_.Next(rng_);
        const std::int64_t last = std::min(o_.persons - 1, first + o_.range - 1);
        p[0].i = first * kBand;
        p[1].i = last * kBand + kBand - 1;
        expected = static_cast<std::uint64_t>(last - first + 1);
        sql = &w_.range_;
        break;
      }
      case OpType::kSqlJoin: {
        const std::int64_t org = org_.Next(rng_);
        p[0].i = org;
        expected = static_cast<std::uint64_t>(w_.PersonsOf(org));
        sql = &w_.join_;
        break;
      }
      default: {
        op = OpType::kSqlUpdate;
        const std::int64_t id = person_.Next(rng_);
        p[0].i = id * kBand + raise_.Next(rng_);
        p[1].i = id;
        expected = 1;
        sql = &w_.update_;
        break;
      }
    }
    const std::int64_t start = db.Now();
    Status st = s->Sql(*sql, std::span<const SqlParam>(p, op == OpType::kSqlJoin ? 1 : 2), &rows);
    const std::int64_t end = db.Now();
    w_.queries_.fetch_add(1, std::memory_order_relaxed);
    if (!st.ok()) {
      w_.failures_.fetch_add(1, std::memory_order_relaxed);
    } else if (rows != expected) {
      st = Status::UnexpectedState();
      w_.mismatches_.fetch_add(1, std::memory_order_relaxed);
    }
    db.Record(op, st, start, end);
  }

 private:
  // "<what><i>" into name_[k] (no allocation once warm).
  void Name(int k, const char* what, std::int64_t i) {
    name_[k].assign(what);
    name_[k].append(std::to_string(i));
  }
  SqlParam Text(int k) const {
    SqlParam p;
    p.text = name_[k];
    p.is_text = true;
    return p;
  }

  SqlQueryWorkload& w_;
  const SqlQueryOptions& o_;
  Rng rng_;
  UniformGenerator start_, person_, org_, raise_;
  DiscreteGenerator op_chooser_;
  std::string name_[2];
};

SqlQueryWorkload::SqlQueryWorkload(const SqlQueryOptions& opts)
    : opts_(opts),
      person_(opts.table_prefix + "person"),
      organization_(opts.table_prefix + "organization"),
      load_sequence_(opts.insertstart),
      seed_(SeedOrClock(opts.seed)) {
  insert_person_ = "INSERT INTO " + person_ + "(id, org_id, first_name, last_name, salary) VALUES(?, ?, ?, ?, ?)";
  insert_org_ = "INSERT INTO " + organization_ + "(id, name) VALUES(?, ?)";
  range_ = "SELECT id, salary FROM " + person_ + " WHERE salary BETWEEN ? AND ?";
  join_ = "SELECT p.id, o.name FROM " + person_ + " p JOIN " + organization_ + " o ON p.org_id = o.id WHERE o.id = ?";
  update_ = "UPDATE " + person_ + " SET salary = ? WHERE id = ?";
}

std::vector<OpType> SqlQueryWorkload::OpTypes(bool loading) const {
  if (loading) return {OpType::kInsert};
  return OpTypesWithShare({{opts_.rangeproportion, OpType::kSqlRange},
                           {opts_.joinproportion, OpType::kSqlJoin},
                           {opts_.updateproportion, OpType::kSqlUpdate}});
}

std::unique_ptr<WorkloadThread> SqlQueryWorkload::NewWorkloadThread(int thread_id) {
  return std::make_unique<SqlQueryThread>(*this, thread_id);
}

void SqlQueryWorkload::Prepare(Store& store, bool loading) {
  if (!loading) return;
  std::unique_ptr<Session> s = store.NewSession(0);
  const std::string statements[] = {
      "DROP TABLE IF EXISTS " + person_,
      "DROP TABLE IF EXISTS " + organization_,
      "CREATE TABLE " + organization_ + "(id BIGINT PRIMARY KEY, name VARCHAR(32))",
      "CREATE TABLE " + person_ +
          "(id BIGINT PRIMARY KEY, org_id BIGINT, first_name VARCHAR(32), last_name VARCHAR(32), salary BIGINT)",
      "CREATE INDEX " + person_ + "_salary ON " + person_ + "(salary)",
  };
  for (const std::string& sql : statements) {
    std::uint64_t rows = 0;
    Status st = s->Sql(sql, {}, &rows);
    if (!st.ok()) throw SetupError("workload=sqlquery: '" + sql + "' failed (" + std::string(st.name()) + ")");
  }
}

std::optional<ValidationResult> SqlQueryWorkload::Validate(Store&) {
  ValidationResult r;
  r.workload = "sqlquery";
  const std::uint64_t queries = queries_.load(), mismatches = mismatches_.load(), failures = failures_.load();
  r.passed = mismatches == 0;
  r.summary = std::string(r.passed ? "sqlquery results hold" : "sqlquery results WRONG") + ": " +
              std::to_string(queries - failures - mismatches) + " of " + std::to_string(queries - failures) +
              " answered statements returned the rows the loader's data implies";
  if (mismatches > 0) r.summary += ", " + std::to_string(mismatches) + " did not";
  if (failures > 0) r.summary += " (" + std::to_string(failures) + " failed; see the -FAILED counts)";
  r.figures = {{"Statements", std::to_string(queries)},
               {"WrongRowCounts", std::to_string(mismatches)},
               {"Failed", std::to_string(failures)}};
  return r;
}

}  // namespace storebench
