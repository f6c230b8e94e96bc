#include "db/mariadb/rows.h"

#include <algorithm>
#include <cstring>

namespace storebench::mariadb {

bool RowReader::Bind(MYSQL_STMT* s) {
  const std::size_t n = mysql_stmt_field_count(s);
  n_ = n;
  if (results_.size() < n) {
    results_.resize(n);
    buffers_.resize(n);
    lengths_.resize(n);
    nulls_.resize(n);
    truncated_.resize(n);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (buffers_[i].size() < 64) buffers_[i].resize(64);
  }
  BindResults(n);
  if (mysql_stmt_bind_result(s, results_.data()) != 0) {
    mysql_stmt_free_result(s);
    return false;
  }
  return true;
}

Status RowReader::Fetch(MYSQL_STMT* s, const std::vector<std::string>& names, const std::vector<int>* selected,
                        bool key_from_row, std::string_view key, RecordSet* out) {
  const std::size_t n = n_;
  Status result = Status::Ok();
  for (;;) {
    int rc = mysql_stmt_fetch(s);  // from the stored result: no I/O
    if (rc == MYSQL_NO_DATA) break;
    if (rc == 1) {
      result = Status::Error();
      out->Clear();
      break;
    }
    // MYSQL_DATA_TRUNCATED or not: grow the short buffers and fetch those columns again.
    bool grown = false;
    for (std::size_t i = 0; i < n && result.ok(); ++i) {
      if (nulls_[i] || lengths_[i] <= buffers_[i].size()) continue;
      buffers_[i].resize(std::max<std::size_t>(lengths_[i], buffers_[i].size() * 2));
      BindResults(n);
      grown = true;
      if (mysql_stmt_fetch_column(s, &results_[i], static_cast<unsigned int>(i), 0) != 0) result = Status::Error();
    }
    if (grown && result.ok() && mysql_stmt_bind_result(s, results_.data()) != 0) result = Status::Error();
    if (!result.ok()) {
      out->Clear();
      break;
    }
    out->BeginRecord(key_from_row ? Column(0) : key);
    for (std::size_t i = 1; i < n; ++i) {
      if (nulls_[i]) continue;
      const std::size_t field = selected == nullptr ? i - 1 : static_cast<std::size_t>((*selected)[i - 1]);
      out->AddField(names[field], Column(i));
    }
  }
  mysql_stmt_free_result(s);
  return result;
}

void RowReader::BindResults(std::size_t n) {
  std::memset(results_.data(), 0, n * sizeof(MYSQL_BIND));
  for (std::size_t i = 0; i < n; ++i) {
    MYSQL_BIND& b = results_[i];
    b.buffer_type = MYSQL_TYPE_BLOB;
    b.buffer = buffers_[i].data();
    b.buffer_length = buffers_[i].size();
    b.length = &lengths_[i];
    b.is_null = &nulls_[i];
    b.error = &truncated_[i];
  }
}

std::string_view RowReader::Column(std::size_t i) const {
  return std::string_view(buffers_[i].data(), std::min<std::size_t>(lengths_[i], buffers_[i].size()));
}

}  // namespace storebench::mariadb
