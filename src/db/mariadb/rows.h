// The mariadb binding's result reader: the stored result of a prepared
// statement (YCSB_KEY, then field columns) into a RecordSet, NULL columns
// skipped, with column buffers that grow to fit and are kept across calls
// (no allocation once warm). Used by src/db/mariadb.cc only.
//
// One per session; not thread-safe. Reads from the client's stored result:
// no I/O.
#pragma once

#include <mysql.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "db/binding.h"

namespace storebench::mariadb {

class RowReader {
 public:
  // Binds the buffers to the result of `s`; false when libmariadb refuses
  // (the result is freed then).
  bool Bind(MYSQL_STMT* s);
  // Reads every row of the bound result into *out and frees the result.
  // A record's key is column 0 (`key_from_row`) or `key`; column i >= 1 is
  // field names[i - 1], or names[(*selected)[i - 1]] with `selected`. ERROR
  // (out cleared) when a fetch fails.
  Status Fetch(MYSQL_STMT* s, const std::vector<std::string>& names, const std::vector<int>* selected,
               bool key_from_row, std::string_view key, RecordSet* out);

 private:
  void BindResults(std::size_t n);
  std::string_view Column(std::size_t i) const;

  std::size_t n_ = 0;  // columns of the bound result
  std::vector<MYSQL_BIND> results_;
  std::vector<std::string> buffers_;
  std::vector<unsigned long> lengths_;
  std::vector<my_bool> nulls_;
  std::vector<my_bool> truncated_;
};

}  // namespace storebench::mariadb
