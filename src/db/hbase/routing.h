// Where a row of a table lives: the region cache and the pure parts of
// finding regions in hbase:meta.
//
// A Region is one row range [start_key, end_key) of a table (end_key empty:
// to the end), its name (the hbase:meta row key, which the region server
// takes as the RegionSpecifier) and the server that holds it, as an index
// into the Cluster's list of servers. RegionCache keeps the known regions of
// every table sorted by start key; a lookup copies the region into the
// caller's Region (whose strings keep their capacity, so a warm lookup does
// not allocate). Regions are dropped when a server says it no longer serves
// them (NotServingRegion, RegionMoved, ...) and found again in hbase:meta.
//
// RegionCache is thread-safe (a shared mutex: lookups from every client
// thread, rare refills). The meta helpers are plain functions on bytes.
#pragma once

#include <cstdint>
#include <map>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "Client.pb.h"
#include "db/hbase/cells.h"
#include "db/hbase/rpc.h"

namespace storebench::hbase {

struct Region {
  std::string name;  // "table,start,regionid.encoded." (what RegionSpecifier REGION_NAME carries)
  std::string start_key;
  std::string end_key;  // empty: no end
  int server = -1;      // index into the cluster's servers
  bool Contains(std::string_view row) const {
    return row >= std::string_view(start_key) && (end_key.empty() || row < std::string_view(end_key));
  }
};

class RegionCache {
 public:
  // The cached region of `table` holding `row`, copied into *out.
  bool Lookup(std::string_view table, std::string_view row, Region* out) const;
  // Adds a region, replacing any cached region of the table it overlaps.
  void Add(std::string_view table, const Region& r);
  // Forgets the region of `table` with this name (no-op if unknown).
  void Drop(std::string_view table, std::string_view name);
  // Forgets every region on server `server` (its connection broke).
  void DropServer(int server);
  // Regions cached for `table` (tests, stats).
  std::size_t Count(std::string_view table) const;

 private:
  using Regions = std::map<std::string, Region, std::less<>>;  // by start key
  mutable std::shared_mutex mu_;
  std::map<std::string, Regions, std::less<>> tables_;
};

// "ns:qualifier", or "qualifier" for the default namespace.
std::string TableNameString(const pb::TableName& t);

// The region name HBase's RegionInfo has for `ri`, old format (what the meta
// region itself is called: "hbase:meta,,1").
std::string OldFormatRegionName(const pb::RegionInfo& ri);

// The meta row to start a reverse scan from for `row` of `table`
// ("table,row,99999999999999", as HBase's client does), and the row it stops
// at (inclusive): "table,,".
void MetaSearchKeys(std::string_view table, std::string_view row, std::string* start, std::string* stop);

// One hbase:meta row, parsed: info:regioninfo ("PBUF" + a RegionInfo) and
// info:server ("host:port"). False with *error when the row has no usable
// region info; an offline (split parent) region or one with no server yet
// parses (offline/no server set) so the caller can skip or wait.
struct MetaRow {
  pb::RegionInfo info;
  std::string table;  // TableNameString(info.table_name())
  std::string name;   // the meta row key
  std::string host;   // empty when info:server is absent (region not assigned yet)
  int port = 0;
  bool offline() const { return info.offline() || info.split(); }
};
// Reads every cell of *row (from a ScanResponse, protobuf or cell block);
// false also when its cell block is malformed.
bool ParseMetaRow(ResultCells* row, MetaRow* out, std::string* error);
// A protobuf Result's cells only.
bool ParseMetaRow(const pb::Result& row, MetaRow* out, std::string* error);

// Whether an exception from a region server means "this region is not here
// (any more)": drop it from the cache, look it up again and retry.
bool IsRegionMoved(std::string_view exception_class);
// Whether it means "busy or starting, try again soon" (same region).
bool IsRetryable(std::string_view exception_class);

}  // namespace storebench::hbase
