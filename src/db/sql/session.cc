#include "db/sql/session.h"

#include <algorithm>

namespace storebench::sql {

Status Transaction::Begin(TxDriver& driver, const TxOptions& options) {
  if (open_) return Status::Error();
  if (Status st = driver.StartTransaction(); !st.ok()) return st;
  open_ = true;
  lock_reads_ = options.lock_reads;
  return Status::Ok();
}

Status Transaction::Commit(TxDriver& driver) {
  if (!open_) return Status::Error();
  if (!failed_commit_stays_open_) open_ = false;
  Status st = driver.EndTransaction(true);
  if (st.ok()) open_ = false;
  return st;
}

Status Transaction::Abort(TxDriver& driver) {
  if (!open_) return Status::Ok();
  open_ = false;
  return driver.EndTransaction(false);
}

Status InsertInChunks(BatchDriver& driver, std::size_t records, std::size_t params_per_row, std::size_t max_params,
                      bool always_transaction) {
  const std::size_t max_rows = std::max<std::size_t>(1, max_params / params_per_row);
  const bool in_transaction = always_transaction || records > max_rows;
  if (in_transaction) {
    if (Status st = driver.BeginBatch(); !st.ok()) return st;
  }
  Status result = Status::Ok();
  for (std::size_t first = 0; first < records && result.ok(); first += max_rows) {
    result = driver.InsertRows(first, std::min(max_rows, records - first));
  }
  if (in_transaction) {
    if (result.ok()) {
      result = driver.CommitBatch();
    } else {
      driver.RollbackBatch();
    }
  }
  return result;
}

}  // namespace storebench::sql
