#include "db/ignite/cluster.h"

#include <utility>

namespace storebench::ignite {

Cluster::Cluster(Options o) : o_(std::move(o)), host_ids_(o_.hosts.size()) {
  credentials_.user = o_.user;
  credentials_.password = o_.password;
  for (const std::string& n : o_.field_names) field_ids_.push_back(FieldId(n));
}

void Cluster::NoteNode(std::size_t host, const Uuid& id) {
  std::lock_guard lock(mu_);
  if (host >= host_ids_.size() || host_ids_[host] == id) return;
  const bool known_before = !(host_ids_[host] == Uuid{});
  host_ids_[host] = id;
  if (known_before) stale_.store(true, std::memory_order_release);
}

std::vector<Uuid> Cluster::HostIds() const {
  std::lock_guard lock(mu_);
  return host_ids_;
}

bool Cluster::ClaimRefresh(std::int64_t version, std::int32_t minor) {
  std::lock_guard lock(mu_);
  if (version < claimed_version_ || (version == claimed_version_ && minor <= claimed_minor_)) return false;
  claimed_version_ = version;
  claimed_minor_ = minor;
  return true;
}

const Table* Cluster::FindTable(std::string_view name) const {
  std::lock_guard lock(mu_);
  for (const Table& t : tables_) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const Table* Cluster::AddTable(std::string_view name) {
  std::lock_guard lock(mu_);
  for (const Table& t : tables_) {
    if (t.name == name) return &t;
  }
  Table t;
  t.name = std::string(name);
  t.cache_id = CacheId(name);
  t.type_id = TypeId(name);
  t.scan_all_sql = "SELECT " + o_.key_column;
  for (const std::string& f : o_.field_names) t.scan_all_sql += ", " + f;
  t.scan_all_sql += " FROM " + t.name + " WHERE " + o_.key_column + " >= ? ORDER BY " + o_.key_column + " LIMIT ?";
  tables_.push_back(std::move(t));
  return &tables_.back();
}

const std::string* Cluster::FieldName(std::int32_t field_id) const {
  for (std::size_t i = 0; i < field_ids_.size(); ++i) {
    if (field_ids_[i] == field_id) return &o_.field_names[i];
  }
  return nullptr;
}

}  // namespace storebench::ignite
