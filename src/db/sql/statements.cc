#include "db/sql/statements.h"

#include "db/sql/columns.h"

namespace storebench::sql {
namespace {

// The n-th parameter (from 1).
std::string Param(const Dialect& d, std::size_t n) { return d.numbered_params ? "$" + std::to_string(n) : "?"; }

// "(p<first>, p<first+1>, ...)": `count` parameters.
std::string Row(const Dialect& d, std::size_t first, std::size_t count) {
  std::string out = "(";
  for (std::size_t i = 0; i < count; ++i) out += (i ? ", " : "") + Param(d, first + i);
  return out + ")";
}

// "INSERT [OR REPLACE] INTO t(YCSB_KEY, c, ...) VALUES".
std::string InsertHead(const Dialect& d, const TableSchema& t) {
  const bool replace = d.upsert == Dialect::Upsert::kInsertOrReplace;
  std::string sql = std::string(replace ? "INSERT OR REPLACE INTO " : "INSERT INTO ") + Identifier(d, t.name) +
                    "(YCSB_KEY";
  for (const auto& c : t.columns) sql += ", " + Identifier(d, c);
  return sql + ") VALUES";
}

// The upsert clause after the rows ("" for INSERT OR REPLACE).
std::string UpsertTail(const Dialect& d, const TableSchema& t) {
  if (d.upsert == Dialect::Upsert::kInsertOrReplace) return "";
  const bool pg = d.upsert == Dialect::Upsert::kOnConflict;
  std::string sql = pg ? " ON CONFLICT (YCSB_KEY) DO UPDATE SET " : " ON DUPLICATE KEY UPDATE ";
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    const std::string c = Identifier(d, t.columns[i]);
    sql += (i ? ", " : "") + c + (pg ? "=EXCLUDED." + c : "=VALUES(" + c + ")");
  }
  return sql;
}

}  // namespace

std::string Enclose(std::string_view text, char quote) {
  std::string out(1, quote);
  for (char c : text) {
    if (c == quote) out.push_back(quote);
    out.push_back(c);
  }
  out.push_back(quote);
  return out;
}

std::string CreateTableSql(const Dialect& d, std::string_view table, const std::vector<std::string>& columns) {
  std::string sql = "CREATE TABLE IF NOT EXISTS " + Identifier(d, table) + "(YCSB_KEY " + d.key_type + " PRIMARY KEY";
  for (const auto& c : columns) sql += ", " + Identifier(d, c) + " " + d.column_type;
  return sql + ")" + d.table_suffix;
}

std::string AddColumnsSql(const Dialect& d, std::string_view table, const std::vector<std::string>& columns) {
  std::string sql = "ALTER TABLE " + Identifier(d, table);
  for (std::size_t i = 0; i < columns.size(); ++i) {
    sql += std::string(i ? "," : "") + " ADD COLUMN " + (d.add_column_if_not_exists ? "IF NOT EXISTS " : "") +
           Identifier(d, columns[i]) + " " + d.column_type;
  }
  return sql;
}

std::string SelectSql(const Dialect& d, const TableSchema& t, const std::vector<int>* cols, bool scan, bool lock) {
  std::string sql = "SELECT YCSB_KEY";
  if (cols == nullptr) {
    for (const auto& c : t.columns) sql += ", " + Identifier(d, c);
  } else {
    for (int i : *cols) sql += ", " + Identifier(d, t.columns[static_cast<std::size_t>(i)]);
  }
  sql += " FROM " + Identifier(d, t.name);
  sql += scan ? " WHERE YCSB_KEY>=" + Param(d, 1) + " ORDER BY YCSB_KEY LIMIT " + Param(d, 2)
              : " WHERE YCSB_KEY=" + Param(d, 1);
  if (lock) sql += " FOR UPDATE";
  return sql;
}

std::string UpdateSql(const Dialect& d, const TableSchema& t, const std::vector<int>& cols) {
  std::string sql = "UPDATE " + Identifier(d, t.name) + " SET ";
  for (std::size_t i = 0; i < cols.size(); ++i) {
    sql += (i ? ", " : "") + Identifier(d, t.columns[static_cast<std::size_t>(cols[i])]) + "=" + Param(d, i + 1);
  }
  return sql + " WHERE YCSB_KEY=" + Param(d, cols.size() + 1);
}

std::string InsertSql(const Dialect& d, const TableSchema& t) {
  return InsertHead(d, t) + Row(d, 1, t.columns.size() + 1) + UpsertTail(d, t);
}

std::string BatchInsertSql(const Dialect& d, const TableSchema& t, std::size_t rows) {
  const std::size_t per_row = t.columns.size() + 1;
  std::string sql = InsertHead(d, t) + " ";
  for (std::size_t r = 0; r < rows; ++r) sql += (r ? ", " : "") + Row(d, r * per_row + 1, per_row);
  return sql + UpsertTail(d, t);
}

std::string DeleteSql(const Dialect& d, std::string_view table) {
  return "DELETE FROM " + Identifier(d, table) + " WHERE YCSB_KEY=" + Param(d, 1);
}

std::vector<std::string> FieldColumns(std::int64_t fieldcount, const std::string& prefix) {
  std::vector<std::string> out;
  for (std::int64_t i = 0; i < fieldcount; ++i) out.push_back(EncodeColumn(prefix + std::to_string(i)));
  return out;
}

}  // namespace storebench::sql
