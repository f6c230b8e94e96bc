#include "db/sql/schema.h"

#include <algorithm>
#include <cctype>

#include "db/sql/columns.h"

namespace storebench::sql {

std::shared_ptr<TableSchema> SchemaFromColumns(std::string_view table, std::vector<std::string> names,
                                               bool* foreign) {
  *foreign = false;
  if (names.empty()) return nullptr;
  auto schema = std::make_shared<TableSchema>();
  schema->name = std::string(table);
  bool has_key = false;
  for (auto& col : names) {
    std::string lower = col;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lower == "ycsb_key") {
      has_key = true;
      continue;
    }
    schema->fields.push_back(DecodeColumn(col));
    schema->columns.push_back(std::move(col));
  }
  *foreign = !has_key;
  return has_key ? schema : nullptr;
}

int FindColumn(const TableSchema& schema, std::string_view field, std::size_t hint) {
  const auto& fields = schema.fields;
  if (hint < fields.size() && fields[hint] == field) return static_cast<int>(hint);
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (fields[i] == field) return static_cast<int>(i);
  }
  return -1;
}

void SelectColumns(const TableSchema& schema, const FieldSelector& fields, std::vector<int>* selected) {
  selected->clear();
  for (std::string_view n : fields.names) {
    const int c = FindColumn(schema, n);
    if (c >= 0) selected->push_back(c);
  }
  std::sort(selected->begin(), selected->end());
  selected->erase(std::unique(selected->begin(), selected->end()), selected->end());
}

std::shared_ptr<const TableSchema> SchemaRegistry::Find(std::string_view table) const {
  std::lock_guard lock(mu_);
  auto it = tables_.find(table);
  return it == tables_.end() ? nullptr : it->second;
}

std::shared_ptr<const TableSchema> SchemaRegistry::Publish(std::shared_ptr<const TableSchema> schema) {
  std::lock_guard lock(mu_);
  auto it = tables_.find(schema->name);
  if (it == tables_.end()) {
    tables_.emplace(schema->name, schema);
    return schema;
  }
  if (it->second->columns == schema->columns) return it->second;
  it->second = schema;
  version_.fetch_add(1, std::memory_order_acq_rel);
  return schema;
}

void SchemaRegistry::Put(std::shared_ptr<const TableSchema> schema, bool changed) {
  std::lock_guard lock(mu_);
  const std::string name = schema->name;
  tables_[name] = std::move(schema);
  if (changed) version_.fetch_add(1, std::memory_order_acq_rel);
}

void SchemaRegistry::Forget(std::string_view table, bool always) {
  std::lock_guard lock(mu_);
  auto it = tables_.find(table);
  const bool known = it != tables_.end();
  if (known) tables_.erase(it);
  if (known || always) version_.fetch_add(1, std::memory_order_acq_rel);
}

std::vector<std::string> SchemaRegistry::Names() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, schema] : tables_) out.push_back(name);
  return out;
}

bool FieldMap::Map(const TableSchema& schema, std::span<const Field> values) {
  columns.clear();
  missing.clear();
  assigned.clear();
  value_of_column.assign(schema.columns.size(), -1);
  std::size_t hint = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const int c = FindColumn(schema, values[i].name, hint);
    columns.push_back(c);
    if (c < 0) {
      if (std::find(missing.begin(), missing.end(), values[i].name) == missing.end()) missing.push_back(values[i].name);
      continue;
    }
    const auto col = static_cast<std::size_t>(c);
    if (value_of_column[col] < 0) assigned.push_back(c);
    value_of_column[col] = static_cast<int>(i);
    hint = col + 1;
  }
  return missing.empty();
}

std::vector<std::string> FieldMap::MissingColumns() const {
  std::vector<std::string> out;
  for (std::string_view f : missing) out.push_back(EncodeColumn(f));
  return out;
}

}  // namespace storebench::sql
