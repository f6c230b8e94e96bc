#include "db/hbase/routing.h"

#include <mutex>

namespace storebench::hbase {
namespace {

bool ParseMetaCells(ResultCells* row, MetaRow* out, std::string* error) {
  out->host.clear();
  out->port = 0;
  out->name.clear();
  bool have_info = false;
  CellView c;
  while (row->Next(&c)) {
    if (c.family != "info") continue;
    if (out->name.empty()) out->name = c.row;
    if (c.qualifier == "regioninfo") {
      const std::string_view v = c.value;
      if (v.size() < 4 || v.substr(0, 4) != "PBUF") {
        *error = "info:regioninfo without the PBUF magic";
        return false;
      }
      if (!out->info.ParseFromArray(v.data() + 4, static_cast<int>(v.size() - 4))) {
        *error = "info:regioninfo is not a RegionInfo";
        return false;
      }
      have_info = true;
    } else if (c.qualifier == "server") {
      const std::string_view v = c.value;
      const std::size_t colon = v.rfind(':');
      if (colon == std::string_view::npos || colon == 0) {
        *error = "info:server '" + std::string(v) + "' is not host:port";
        return false;
      }
      int port = 0;
      for (std::size_t i = colon + 1; i < v.size(); ++i) {
        if (v[i] < '0' || v[i] > '9' || port > 65535) {
          *error = "info:server '" + std::string(v) + "' is not host:port";
          return false;
        }
        port = port * 10 + (v[i] - '0');
      }
      if (port <= 0 || port > 65535) {
        *error = "info:server '" + std::string(v) + "' has no valid port";
        return false;
      }
      out->host.assign(v.substr(0, colon));
      out->port = port;
    }
  }
  if (!have_info) {
    *error = "meta row without info:regioninfo";
    return false;
  }
  out->table = TableNameString(out->info.table_name());
  return true;
}

}  // namespace

bool RegionCache::Lookup(std::string_view table, std::string_view row, Region* out) const {
  std::shared_lock lock(mu_);
  auto t = tables_.find(table);
  if (t == tables_.end() || t->second.empty()) return false;
  auto it = t->second.upper_bound(row);  // first region starting after row
  if (it == t->second.begin()) return false;
  --it;
  if (!it->second.Contains(row)) return false;
  out->name.assign(it->second.name);
  out->start_key.assign(it->second.start_key);
  out->end_key.assign(it->second.end_key);
  out->server = it->second.server;
  return true;
}

void RegionCache::Add(std::string_view table, const Region& r) {
  std::unique_lock lock(mu_);
  auto t = tables_.find(table);
  if (t == tables_.end()) t = tables_.emplace(std::string(table), Regions{}).first;
  Regions& regions = t->second;
  // Drop the regions it overlaps: those starting inside [start, end), and
  // the one before it if that reaches past its start.
  auto it = regions.lower_bound(r.start_key);
  if (it != regions.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end_key.empty() || prev->second.end_key > r.start_key) regions.erase(prev);
  }
  while (it != regions.end() && (r.end_key.empty() || it->first < r.end_key)) it = regions.erase(it);
  regions.emplace(r.start_key, r);
}

void RegionCache::Drop(std::string_view table, std::string_view name) {
  std::unique_lock lock(mu_);
  auto t = tables_.find(table);
  if (t == tables_.end()) return;
  for (auto it = t->second.begin(); it != t->second.end(); ++it) {
    if (it->second.name == name) {
      t->second.erase(it);
      return;
    }
  }
}

void RegionCache::DropServer(int server) {
  std::unique_lock lock(mu_);
  for (auto& [name, regions] : tables_) {
    for (auto it = regions.begin(); it != regions.end();) {
      it = it->second.server == server ? regions.erase(it) : std::next(it);
    }
  }
}

std::size_t RegionCache::Count(std::string_view table) const {
  std::shared_lock lock(mu_);
  auto t = tables_.find(table);
  return t == tables_.end() ? 0 : t->second.size();
}

std::string TableNameString(const pb::TableName& t) {
  if (t.namespace_().empty() || t.namespace_() == "default") return t.qualifier();
  return t.namespace_() + ":" + t.qualifier();
}

std::string OldFormatRegionName(const pb::RegionInfo& ri) {
  return TableNameString(ri.table_name()) + "," + ri.start_key() + "," + std::to_string(ri.region_id());
}

void MetaSearchKeys(std::string_view table, std::string_view row, std::string* start, std::string* stop) {
  start->assign(table);
  start->append(",");
  start->append(row);
  start->append(",99999999999999");
  stop->assign(table);
  stop->append(",,");
}

bool ParseMetaRow(const pb::Result& row, MetaRow* out, std::string* error) {
  CellBlockReader none;
  ResultCells cells(row, &none);
  return ParseMetaRow(&cells, out, error);
}

bool ParseMetaRow(ResultCells* row, MetaRow* out, std::string* error) {
  const bool ok = ParseMetaCells(row, out, error);
  if (!row->Skip()) {  // the cells after a bad one (the next row's start where they are)
    *error = "malformed cell block";
    return false;
  }
  return ok;
}


namespace {
bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
}  // namespace

bool IsRegionMoved(std::string_view c) {
  return EndsWith(c, ".NotServingRegionException") || EndsWith(c, ".RegionMovedException") ||
         EndsWith(c, ".RegionOfflineException") || EndsWith(c, ".UnknownRegionException");
}

bool IsRetryable(std::string_view c) {
  return EndsWith(c, ".RegionTooBusyException") || EndsWith(c, ".RegionOpeningException") ||
         EndsWith(c, ".CallQueueTooBigException") || EndsWith(c, ".RetryImmediatelyException") ||
         EndsWith(c, ".ServerNotRunningYetException") || EndsWith(c, ".PleaseHoldException") ||
         EndsWith(c, ".CallDroppedException") || EndsWith(c, ".MultiActionResultTooLarge");
}

}  // namespace storebench::hbase
