// The SQL text of the YCSB table's statements, shared by the SQL bindings
// (postgresql, mariadb, sqlite): one function per statement, parameterised
// by a Dialect (identifier quote, placeholder style, column types, upsert
// clause). The text is exactly what each binding sends to its server; a
// binding only prepares and runs it through its own driver.
//
// The table is YCSB's JDBC schema: a key column YCSB_KEY and one column per
// field (names from db/sql/columns.h). Column lists are indices into
// TableSchema::columns. Pure functions, no I/O; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "db/sql/schema.h"

namespace storebench::sql {

// What makes the three servers' statements differ.
struct Dialect {
  enum class Upsert {
    kOnConflict,      // INSERT ... ON CONFLICT (YCSB_KEY) DO UPDATE SET c=EXCLUDED.c (PostgreSQL)
    kOnDuplicateKey,  // INSERT ... ON DUPLICATE KEY UPDATE c=VALUES(c) (MariaDB)
    kInsertOrReplace  // INSERT OR REPLACE INTO ... (SQLite)
  };
  char quote = '"';              // encloses identifiers
  bool numbered_params = false;  // $1, $2, ... rather than ?
  const char* key_type = "";     // YCSB_KEY's type in CREATE TABLE
  const char* column_type = "";  // a field column's type
  const char* table_suffix = ""; // after CREATE TABLE's column list
  Upsert upsert = Upsert::kInsertOrReplace;
  bool add_column_if_not_exists = false;  // ALTER TABLE ... ADD COLUMN IF NOT EXISTS
};

// The three servers' dialects, fields in Dialect's order: quote, numbered
// parameters, key type, column type, table suffix, upsert, IF NOT EXISTS.
using Upsert = Dialect::Upsert;
inline constexpr Dialect kPostgresqlDialect{'"', true, "BYTEA", "BYTEA", "", Upsert::kOnConflict, true};
inline constexpr Dialect kMariadbDialect{'`', false, "VARBINARY(255)", "LONGBLOB", " ENGINE=InnoDB",
                                         Upsert::kOnDuplicateKey, true};
inline constexpr Dialect kSqliteDialect{'"', false, "VARCHAR(255)", "BLOB", "", Upsert::kInsertOrReplace, false};

// `text` enclosed in `quote`, any `quote` inside doubled: an identifier
// ('"' or '`') or a string literal ('\'').
std::string Enclose(std::string_view text, char quote);
inline std::string Identifier(const Dialect& d, std::string_view name) { return Enclose(name, d.quote); }

// CREATE TABLE IF NOT EXISTS t(YCSB_KEY <key_type> PRIMARY KEY, c <column_type>, ...)<table_suffix>.
std::string CreateTableSql(const Dialect& d, std::string_view table, const std::vector<std::string>& columns);
// ALTER TABLE t ADD COLUMN [IF NOT EXISTS] c <column_type>, ADD COLUMN ...
std::string AddColumnsSql(const Dialect& d, std::string_view table, const std::vector<std::string>& columns);

// SELECT YCSB_KEY, <columns> FROM t WHERE YCSB_KEY=p1 (a read) or
// WHERE YCSB_KEY>=p1 ORDER BY YCSB_KEY LIMIT p2 (a scan), FOR UPDATE when
// `lock`. `cols` null: every column.
std::string SelectSql(const Dialect& d, const TableSchema& t, const std::vector<int>* cols, bool scan,
                      bool lock = false);
// UPDATE t SET c1=p1, ... WHERE YCSB_KEY=p(n+1) for the columns `cols`.
std::string UpdateSql(const Dialect& d, const TableSchema& t, const std::vector<int>& cols);
// One row of every column (key first) with the dialect's upsert.
std::string InsertSql(const Dialect& d, const TableSchema& t);
// `rows` rows of every column (key first, rows after one another) with the
// dialect's upsert: a multi-row insert.
std::string BatchInsertSql(const Dialect& d, const TableSchema& t, std::size_t rows);
// DELETE FROM t WHERE YCSB_KEY=p1.
std::string DeleteSql(const Dialect& d, std::string_view table);

// The columns a new table starts with: fieldcount fields named prefix0..,
// encoded (db/sql/columns.h).
std::vector<std::string> FieldColumns(std::int64_t fieldcount, const std::string& prefix);

}  // namespace storebench::sql
