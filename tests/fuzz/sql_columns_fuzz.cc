// Fuzzes sql::DecodeColumn, which turns the column names a SQL server returns
// (PostgreSQL, MariaDB, SQLite: result metadata, outside input) back into
// field names. The servers' wire protocols themselves are parsed by libpq and
// libmariadb, not by us; what of their results we decode is this and the
// record values (record_codec_fuzz).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "db/sql/columns.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view column(reinterpret_cast<const char*>(data), size);
  const std::string field = storebench::sql::DecodeColumn(column);
  // Every field name maps to a column that decodes back to it.
  if (storebench::sql::DecodeColumn(storebench::sql::EncodeColumn(field)) != field) std::abort();
  return 0;
}
