// The YCSB table as the SQL bindings see it, shared by postgresql, mariadb
// and sqlite: a table's columns (TableSchema), the store's registry of
// them with a version that tells sessions to re-prepare (SchemaRegistry),
// a session's per-table state (TableStates), its statement caches keyed by
// column lists (CachedStatement) and the mapping of a record's fields to
// columns (FieldMap, MapFields).
//
// SchemaRegistry is thread-safe; the others belong to one session (not
// thread-safe) and allocate nothing once warm. No driver library here: a
// binding brings its own statement type (`Stmt`: movable, explicit bool
// conversion true when usable).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "db/binding.h"

namespace storebench::sql {

// One table's columns: field names (decoded) and column names (as in SQL),
// in column order, without YCSB_KEY.
struct TableSchema {
  std::string name;
  std::vector<std::string> columns;
  std::vector<std::string> fields;
};

// The schema of `table` from its column names as the server lists them, in
// column order (YCSB_KEY, in any case, among them). nullptr when `names` is
// empty (no such table) or lacks YCSB_KEY (then *foreign: not our table).
std::shared_ptr<TableSchema> SchemaFromColumns(std::string_view table, std::vector<std::string> names,
                                               bool* foreign);

// Column index of `field`, trying `hint` first; -1 when none.
int FindColumn(const TableSchema& schema, std::string_view field, std::size_t hint = 0);

// The columns `fields` names (column order, each once; names that are not
// columns are left out) into *selected.
void SelectColumns(const TableSchema& schema, const FieldSelector& fields, std::vector<int>* selected);

// The tables a store knows, shared by its sessions. version() moves when a
// schema changes or a table is forgotten: every session then drops its
// prepared statements. Thread-safe.
class SchemaRegistry {
 public:
  std::shared_ptr<const TableSchema> Find(std::string_view table) const;
  // Records a schema read from the server; one that differs from the known
  // one (same name, other columns) replaces it and moves the version.
  // Returns the schema now known.
  std::shared_ptr<const TableSchema> Publish(std::shared_ptr<const TableSchema> schema);
  // Records `schema` as is, moving the version when `changed`.
  void Put(std::shared_ptr<const TableSchema> schema, bool changed);
  // Forgets `table` (dropped or altered behind our back); moves the version
  // when the table was known, or always with `always`.
  void Forget(std::string_view table, bool always);
  std::vector<std::string> Names() const;
  std::uint64_t version() const { return version_.load(std::memory_order_acquire); }

 private:
  mutable std::mutex mu_;  // guards tables_
  std::map<std::string, std::shared_ptr<const TableSchema>, std::less<>> tables_;
  std::atomic<std::uint64_t> version_{1};
};

// A session's states (prepared statements) per table, valid for one
// registry version. State has a member `std::shared_ptr<const TableSchema> schema`.
template <typename State>
class TableStates {
 public:
  // Drops every state when `version` is not the one they were made for.
  void Sync(std::uint64_t version) {
    if (version == version_) return;
    states_.clear();
    version_ = version;
  }
  // The state of `table` for `version`; nullptr when there is none yet.
  State* Find(std::string_view table, std::uint64_t version) {
    Sync(version);
    for (auto& s : states_) {
      if (s->schema->name == table) return s.get();
    }
    return nullptr;
  }
  State* Add(std::shared_ptr<const TableSchema> schema) {
    auto state = std::make_unique<State>();
    state->schema = std::move(schema);
    states_.push_back(std::move(state));
    return states_.back().get();
  }
  void Clear() { states_.clear(); }

 private:
  std::uint64_t version_ = 0;
  std::vector<std::unique_ptr<State>> states_;
};

// A statement for one column list (selected reads, scans, updates; {rows}
// for multi-row inserts).
template <typename Stmt>
struct CachedStmt {
  std::vector<int> columns;
  Stmt stmt;
};

inline constexpr std::size_t kStatementCacheSize = 32;  // per session, table and kind

// The statement of `cache` for `cols`, made by make() (returning a Stmt)
// when missing; the oldest goes when the cache is full. nullptr when make()
// fails.
template <typename Stmt, typename Make>
Stmt* CachedStatement(std::vector<CachedStmt<Stmt>>* cache, const std::vector<int>& cols, Make make) {
  for (auto& e : *cache) {
    if (e.columns == cols) return &e.stmt;
  }
  Stmt s = make();
  if (!s) return nullptr;
  if (cache->size() >= kStatementCacheSize) cache->erase(cache->begin());
  cache->push_back({cols, std::move(s)});
  return &cache->back().stmt;
}

// A record's fields mapped to a table's columns.
struct FieldMap {
  std::vector<int> columns;               // per field: its column, or -1
  std::vector<std::string_view> missing;  // fields without a column (each once)
  std::vector<int> value_of_column;       // per column: the (last) field given for it, or -1
  std::vector<int> assigned;              // the columns given, in the order first given

  // Maps `values` to the columns of `schema`; true when every field has one.
  bool Map(const TableSchema& schema, std::span<const Field> values);
  // The columns of missing, encoded (db/sql/columns.h).
  std::vector<std::string> MissingColumns() const;
};

// Maps `values` to the columns of (*t)->schema into *map; when fields lack
// a column, add(t) adds them (and points *t at the new schema's state)
// once, then maps again. ERROR when columns are still missing.
template <typename State, typename Add>
Status MapFields(State** t, std::span<const Field> values, FieldMap* map, Add add) {
  if (map->Map(*(*t)->schema, values)) return Status::Ok();
  if (Status st = add(t); !st.ok()) return st;
  return map->Map(*(*t)->schema, values) ? Status::Ok() : Status::Error();
}

}  // namespace storebench::sql
