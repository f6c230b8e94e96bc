#include "db/ignite/cluster.h"

#include <utility>

namespace storebench::ignite {

Cluster::Cluster(Options o) : o_(std::move(o)), host_ids_(o_.hosts.size()) {
  credentials_.user = o_.user;
  credentials_.password = o_.password;
  for (const std::string& n : o_.field_names) names_.emplace_back(FieldId(n), n);
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

void Cluster::Learn(std::int32_t field_id, std::string_view name) {
  std::lock_guard lock(mu_);
  for (const auto& [id, n] : names_) {
    if (id == field_id) return;  // (two names of one id: the first stays)
  }
  names_.emplace_back(field_id, std::string(name));
}

bool Cluster::NameOf(std::int32_t field_id, std::string* name) const {
  std::lock_guard lock(mu_);
  for (const auto& [id, n] : names_) {
    if (id == field_id) {
      *name = n;
      return true;
    }
  }
  return false;
}

}  // namespace storebench::ignite
