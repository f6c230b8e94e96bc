// The session logic the SQL bindings (postgresql, mariadb, sqlite) share,
// written once against two small driver interfaces a binding's session
// implements with its library's calls:
//   - Transaction: Session::Begin/Commit/Abort's rules (one transaction at
//     a time; COMMIT without one is ERROR, ROLLBACK without one a no-op)
//     over TxDriver's BEGIN, COMMIT and ROLLBACK;
//   - InsertInChunks: Session::BatchInsert as multi-row statements of at
//     most `max_params` parameters each, several of them inside one
//     transaction (BatchDriver).
// Owned by one session; not thread-safe; no allocation.
#pragma once

#include <cstddef>
#include <memory>

#include "core/status.h"
#include "db/binding.h"

namespace storebench::sql {

// A session's BEGIN / COMMIT / ROLLBACK on its connection.
class TxDriver {
 public:
  virtual ~TxDriver() = default;
  virtual Status StartTransaction() = 0;
  // COMMIT (`commit`) or ROLLBACK of the open transaction.
  virtual Status EndTransaction(bool commit) = 0;
};

// Whether a transaction is open, and Session::Begin/Commit/Abort over a TxDriver.
class Transaction {
 public:
  // `failed_commit_stays_open`: a COMMIT that fails leaves the transaction
  // open for Abort (SQLite, where COMMIT may be BUSY); otherwise any COMMIT
  // ends it.
  explicit Transaction(bool failed_commit_stays_open = false) : failed_commit_stays_open_(failed_commit_stays_open) {}

  // ERROR when one is open already; else the driver's BEGIN.
  Status Begin(TxDriver& driver, const TxOptions& options);
  // ERROR when none is open; else the driver's COMMIT.
  Status Commit(TxDriver& driver);
  // OK when none is open; else the driver's ROLLBACK.
  Status Abort(TxDriver& driver);

  bool open() const { return open_; }
  // The open transaction's reads lock their rows (SELECT ... FOR UPDATE).
  bool lock_reads() const { return open_ && lock_reads_; }

 private:
  bool failed_commit_stays_open_;
  bool open_ = false;
  bool lock_reads_ = false;
};

// A session's multi-row inserts.
class BatchDriver {
 public:
  virtual ~BatchDriver() = default;
  // Opens the transaction around several statements.
  virtual Status BeginBatch() = 0;
  // One statement inserting records [first, first + rows).
  virtual Status InsertRows(std::size_t first, std::size_t rows) = 0;
  virtual Status CommitBatch() = 0;
  virtual void RollbackBatch() = 0;
};

// Inserts `records` records of `params_per_row` parameters each, as few
// statements of at most `max_params` parameters as it takes (at least one
// row each). More than one statement, or `always_transaction`, runs inside
// BeginBatch ... CommitBatch (RollbackBatch after a failed statement). The
// first failure is the result.
Status InsertInChunks(BatchDriver& driver, std::size_t records, std::size_t params_per_row, std::size_t max_params,
                      bool always_transaction = false);

// What every SQL binding's store can do: scans, persistence, atomic
// updates (one UPDATE statement), native batch insert, transactions and
// Session::Sql (workload=sqlquery); `waits_through_io` for the bindings
// whose connections wait through net/io.h (many clients per thread).
inline Capabilities SqlCapabilities(bool waits_through_io) {
  Capabilities c;
  c.waits_through_io = waits_through_io;
  c.scan = true;
  c.persistent = true;
  c.atomic_update = true;
  c.native_batch_insert = true;
  c.transactions = true;
  c.sql = true;
  return c;
}

// BindingInfo::open for a store made from its parsed options:
// `.open = sql::OpenStore<MyStore, ParseOptions>`.
template <typename StoreT, auto Parse>
std::unique_ptr<Store> OpenStore(const Properties& props, const OpenContext&) {
  return std::make_unique<StoreT>(Parse(props));
}

}  // namespace storebench::sql
