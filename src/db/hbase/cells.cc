#include "db/hbase/cells.h"

namespace storebench::hbase {
namespace {

std::uint64_t GetBE(std::string_view in, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<unsigned char>(in[at + static_cast<std::size_t>(i)]);
  return v;
}

}  // namespace

bool CellBlockReader::Next(CellView* out) {
  if (failed_ || rest_.empty()) return false;
  // The cell's length, then the KeyValue's key and value lengths.
  if (rest_.size() < 12) {
    failed_ = true;
    return false;
  }
  const std::uint64_t len = GetBE(rest_, 0, 4);
  const std::uint64_t key_len = GetBE(rest_, 4, 4);
  const std::uint64_t value_len = GetBE(rest_, 8, 4);
  // Row length (2), family length (1), timestamp (8) and type (1) at least.
  if (len > rest_.size() - 4 || key_len < 12 || len != 8 + key_len + value_len) {
    failed_ = true;
    return false;
  }
  const std::string_view key = rest_.substr(12, static_cast<std::size_t>(key_len));
  const std::size_t row_len = static_cast<std::size_t>(GetBE(key, 0, 2));
  if (row_len > key.size() - 12) {
    failed_ = true;
    return false;
  }
  const std::size_t family_len = static_cast<unsigned char>(key[2 + row_len]);
  if (family_len > key.size() - 12 - row_len) {
    failed_ = true;
    return false;
  }
  const std::size_t qualifier_at = 3 + row_len + family_len;
  const std::size_t ts_at = key.size() - 9;
  out->row = key.substr(2, row_len);
  out->family = key.substr(3 + row_len, family_len);
  out->qualifier = key.substr(qualifier_at, ts_at - qualifier_at);
  out->timestamp = static_cast<std::int64_t>(GetBE(key, ts_at, 8));
  out->type = static_cast<std::uint8_t>(key[ts_at + 8]);
  out->value = rest_.substr(12 + key.size(), static_cast<std::size_t>(value_len));
  rest_.remove_prefix(static_cast<std::size_t>(4 + len));
  return true;
}

bool ResultCells::Next(CellView* out) {
  if (read_block_ < from_block_) {
    if (!block_->Next(out)) {
      block_->Fail();  // fewer cells than the Result says (or a malformed one)
      return false;
    }
    ++read_block_;
    return true;
  }
  if (pb_ != nullptr && next_pb_ < pb_->cell_size()) {
    const pb::Cell& c = pb_->cell(next_pb_++);
    out->row = c.row();
    out->family = c.family();
    out->qualifier = c.qualifier();
    out->value = c.value();
    out->timestamp = static_cast<std::int64_t>(c.timestamp());
    out->type = static_cast<std::uint8_t>(c.cell_type());
    return true;
  }
  return false;
}

bool ResultCells::Skip() {
  CellView c;
  while (Next(&c)) {
  }
  return !block_->failed();
}

}  // namespace storebench::hbase
