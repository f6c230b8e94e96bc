// The cells of HBase's responses, whichever way they came (bytes only, no
// sockets):
//   protobuf:    inside each pb::Result (pb::Cell), when the connection asked
//                for no cell block codec;
//   cell block:  after the response message (rpc.h's Response::cell_block),
//                when the ConnectionHeader named KeyValueCodec; then a
//                Result carries only associated_cell_count, a ScanResponse
//                only cells_per_result, and the block holds the cells of all
//                the response's Results in order (a MultiResponse: in the
//                order of its ResultOrExceptions).
// KeyValueCodec's cell, as HBase writes it (no tags, no compression):
//   4-byte big-endian length of the KeyValue, then the KeyValue:
//   key length (4), value length (4), the key: row length (2), row, family
//   length (1), family, qualifier, timestamp (8), type (1); then the value.
// All integers big-endian. The length must be exactly 8 + key + value.
//
// Nothing here allocates or copies: CellView's fields point into the frame
// or the pb::Result, valid while they live. Decoding never trusts the
// input: a length that does not fit is an error (CellBlockReader::failed),
// never a read out of bounds. Not thread-safe (plain values).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "Client.pb.h"
#include "db/hbase/rpc.h"

namespace storebench::hbase {

// The class named in the ConnectionHeader to ask for cell blocks.
inline constexpr std::string_view kKeyValueCodec = "org.apache.hadoop.hbase.codec.KeyValueCodec";

struct CellView {
  std::string_view row;
  std::string_view family;
  std::string_view qualifier;
  std::string_view value;
  std::int64_t timestamp = 0;
  std::uint8_t type = 0;  // KeyValue.Type: 4 Put, 8 Delete, 12 DeleteColumn, 14 DeleteFamily...
};

// Reads the cells of one cell block, front to back.
class CellBlockReader {
 public:
  CellBlockReader() = default;
  explicit CellBlockReader(std::string_view block) : rest_(block) {}

  // The next cell: true with *out set; false at the end of the block or when
  // the next cell is malformed (then failed() is true and stays so).
  bool Next(CellView* out);

  bool failed() const { return failed_; }
  // Marks the block failed (its Results count more cells than it holds).
  void Fail() { failed_ = true; }
  // Every byte read, none malformed.
  bool done() const { return !failed_ && rest_.empty(); }

 private:
  std::string_view rest_;
  bool failed_ = false;
};

// The cells of one Result: `associated_cell_count` cells from the block,
// then its protobuf cells (HBase's ProtobufUtil.toResult reads them in that
// order; a server sends one kind or the other). A ScanResponse's results in a block have no
// pb::Result: ResultCells(n, block) reads its cells_per_result[i] cells.
// Reading past the block's end, or a malformed cell, marks the block failed.
// `block` must outlive it (it may be an empty reader).
class ResultCells {
 public:
  ResultCells(const pb::Result& r, CellBlockReader* block)
      : pb_(&r),
        block_(block),
        from_block_(r.associated_cell_count() > 0 ? static_cast<std::size_t>(r.associated_cell_count()) : 0) {}
  ResultCells(std::uint32_t from_block, CellBlockReader* block) : block_(block), from_block_(from_block) {}

  // How many cells the Result has (some perhaps not read yet).
  std::size_t size() const { return static_cast<std::size_t>(pb_ != nullptr ? pb_->cell_size() : 0) + from_block_; }

  // The next cell: false at the end, or when the block fails (block->failed()).
  bool Next(CellView* out);

  // Reads (skips) the cells not read yet; false when the block failed.
  bool Skip();

 private:
  const pb::Result* pb_ = nullptr;
  CellBlockReader* block_;
  std::size_t from_block_;
  int next_pb_ = 0;
  std::size_t read_block_ = 0;
};

// A ScanResponse's results: with cell blocks it has no pb::Result, one
// cells_per_result entry per result instead. ScanResult(r, i, block) is the
// i-th of ScanResultCount(r); take them in order (they share the block).
inline int ScanResultCount(const pb::ScanResponse& r) { return r.results_size() + r.cells_per_result_size(); }
inline ResultCells ScanResult(const pb::ScanResponse& r, int i, CellBlockReader* block) {
  if (i < r.results_size()) return ResultCells(r.results(i), block);
  return ResultCells(r.cells_per_result(i - r.results_size()), block);
}

// The block of a parsed response (empty when it has none).
inline CellBlockReader BlockOf(const Response& r) { return CellBlockReader(r.cell_block); }

}  // namespace storebench::hbase
