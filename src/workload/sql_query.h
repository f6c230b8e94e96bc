// SqlQueryWorkload (workload=sqlquery): Yardstick's SqlQuery, SqlQueryJoin
// and SqlQueryPut over the SQL bindings (Session::Sql; sqlite, postgresql,
// mariadb). Tables (names prefixed with sqlquery.table_prefix):
//   person(id BIGINT PRIMARY KEY, org_id BIGINT, first_name VARCHAR(32),
//          last_name VARCHAR(32), salary BIGINT), with an index on salary
//   organization(id BIGINT PRIMARY KEY, name VARCHAR(32))
// Prepare(loading) drops and creates them; the load inserts `recordcount`
// persons (person i: org_id = i % organizations, salary = i * 1000) and the
// organizations (organization k with person k). The run mixes
//   SQL-RANGE   SELECT ... FROM person WHERE salary BETWEEN ? AND ?, over
//               sqlquery.range consecutive persons' salary bands
//   SQL-JOIN    person JOIN organization ON org_id = id WHERE org = ?
//   SQL-UPDATE  UPDATE person SET salary = ? WHERE id = ?
// An update moves a salary within its person's band [i*1000, i*1000+999],
// so the rows every query must return stay computable: a range returns
// exactly the persons of its bands, a join the persons of its
// organization, an update changes one row. A query that returns another
// count is recorded as UNEXPECTED_STATE, and Validate (after the run)
// fails the run when there was any.
//
// Shared by all client threads (the load sequence and the mismatch counter
// are atomic); each thread has its own SqlQueryThread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/generators.h"
#include "core/properties.h"
#include "workload/workload.h"

namespace storebench {

struct SqlQueryOptions {
  std::int64_t persons = 0;        // recordcount
  std::int64_t organizations = 0;  // sqlquery.organizations, default max(1, recordcount / 10)
  std::int64_t insertstart = 0;    // this process loads persons [insertstart, insertstart + insertcount)
  std::int64_t insertcount = 0;
  std::int64_t operationcount = 0;
  std::int64_t range = 10;         // sqlquery.range: persons per range query
  double rangeproportion = 0.6;    // sqlquery.rangeproportion
  double joinproportion = 0.2;     // sqlquery.joinproportion
  double updateproportion = 0.2;   // sqlquery.updateproportion
  std::string table_prefix;        // sqlquery.table_prefix
  std::uint64_t seed = 0;

  static SqlQueryOptions FromProperties(const Properties& props);
};

class SqlQueryWorkload final : public Workload {
 public:
  explicit SqlQueryWorkload(const SqlQueryOptions& opts);
  const SqlQueryOptions& options() const { return opts_; }
  std::vector<OpType> OpTypes(bool loading) const override;
  std::unique_ptr<WorkloadThread> NewWorkloadThread(int thread_id) override;
  void Prepare(Store& store, bool loading) override;
  std::optional<ValidationResult> Validate(Store& store) override;

  // The rows a join on organization `org` must return.
  std::int64_t PersonsOf(std::int64_t org) const {
    return opts_.persons / opts_.organizations + (org < opts_.persons % opts_.organizations ? 1 : 0);
  }

 private:
  friend class SqlQueryThread;
  SqlQueryOptions opts_;
  std::string person_, organization_;
  std::string insert_person_, insert_org_, range_, join_, update_;  // the statements
  SharedCounter load_sequence_;
  std::uint64_t seed_;
  std::atomic<std::uint64_t> queries_{0};
  std::atomic<std::uint64_t> mismatches_{0};
  std::atomic<std::uint64_t> failures_{0};
};

}  // namespace storebench
