// The operation types that are measured, in the stable order in which they
// are reported, with YCSB's measurement names.
#pragma once

#include <cstdint>
#include <string_view>

namespace storebench {

enum class OpType : std::uint8_t {
  kInsert = 0,
  kRead,
  kUpdate,
  kScan,
  kReadModifyWrite,
  kDelete,
  // A batch of batch.size inserts: one entry per batch, its whole latency.
  kBatchInsert,
  // The same batches per record: each batch adds batch-latency / records,
  // once per record, so Operations counts records and AverageLatency is the
  // mean time per record.
  kBatchInsertPerRecord,
  // workload=closedeconomy: one money transfer (a transaction), each attempt.
  kTransfer,
  // workload=sqlquery: a salary range query, a join, a salary update.
  kSqlRange,
  kSqlJoin,
  kSqlUpdate,
  // A read of batch.size records in one call (Session::BatchRead: a
  // multi-get where the store has one, as Yardstick's getAll).
  kBatchRead,
  // Session::Flush at the end of a client's operations (YCSB's timed
  // DB.cleanup()): recorded for bindings that buffer writes
  // (Capabilities::buffers_writes) and for any flush that failed. Not one of
  // the phase's operations; its time is in the phase's runtime.
  kCleanup,
  kNumOps
};
inline constexpr int kNumOpTypes = static_cast<int>(OpType::kNumOps);

constexpr std::string_view OpName(OpType op) {
  switch (op) {
    case OpType::kInsert: return "INSERT";
    case OpType::kRead: return "READ";
    case OpType::kUpdate: return "UPDATE";
    case OpType::kScan: return "SCAN";
    case OpType::kReadModifyWrite: return "READ-MODIFY-WRITE";
    case OpType::kDelete: return "DELETE";
    case OpType::kBatchInsert: return "BATCH-INSERT";
    case OpType::kBatchInsertPerRecord: return "BATCH-INSERT-PER-RECORD";
    case OpType::kTransfer: return "TRANSFER";
    case OpType::kSqlRange: return "SQL-RANGE";
    case OpType::kSqlJoin: return "SQL-JOIN";
    case OpType::kSqlUpdate: return "SQL-UPDATE";
    case OpType::kBatchRead: return "BATCH-READ";
    case OpType::kCleanup: return "CLEANUP";
    case OpType::kNumOps: break;
  }
  return "UNKNOWN";
}

}  // namespace storebench
