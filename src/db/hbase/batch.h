// The hbase binding's batch insert (Session::BatchInsert, the load with
// batch.size > 1): the records of a batch grouped by region server into one
// MultiRequest per server, one RegionAction per region. With
// hbase.insert=replace a first Multi of key-only Gets finds the rows that
// hold columns the new record does not; each of those becomes an atomic
// RegionAction of its own (delete the stale columns + put), the other rows
// plain puts. A batch larger than HBase's client sends in one request
// (its SimpleRequestController's defaults: hbase.client.max.perrequest.rows
// 2048, hbase.client.max.perrequest.heapsize 4 MB) goes as several, one
// after the other: a region server holds a whole request in its heap, and
// 12 MB Multis from a few clients ran a 1 GB region server out of memory.
// Best effort across regions, as HBase's own batch is; a region that moved
// is looked up again and that request retried (puts are idempotent) within
// the deadline, which every request after the first extends by a whole
// hbase.timeout_ms.
//
// Used by one session (one thread); its messages and buffers are reused, so
// a warm batch of the same shape does not allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <string>
#include <vector>

#include "Client.pb.h"
#include "db/binding.h"
#include "db/hbase/cells.h"
#include "db/hbase/client.h"

namespace storebench::hbase {

// How one HBase row is one record, for the session and the batch alike.
// FillPut makes *m a Put of exactly `values` as columns of o.family, with
// o.durability (a record of no fields: one empty-named column, since HBase
// has no row without cells), reusing *m's objects. AppendRow adds the Result's cells to *out as one record keyed by its row
// (the empty-named column of a record with no fields is hidden); false when
// the Result has no cell, or its block failed (the caller checks the block).
void FillPut(pb::MutationProto* m, std::string_view key, std::span<const Field> values, const Options& o);
bool AppendRow(ResultCells* cells, RecordSet* out);
// Whether a row written as exactly `values` keeps column `qualifier` (a
// record with no fields is its one empty-named column).
bool RecordKeeps(std::span<const Field> values, std::string_view qualifier);

class BatchWriter {
 public:
  static constexpr std::size_t kMaxRequestRows = 2048;
  static constexpr std::size_t kMaxRequestBytes = 4u << 20;  // keys, names and values


  explicit BatchWriter(Client* client) : client_(client) {}

  // Session::BatchRead: one Multi of Gets per region server; the rows found
  // go to *out (cleared first). OK, NOT_FOUND when some key has no row.
  Status Read(std::string_view table, std::span<const std::string_view> keys, const FieldSelector& fields,
              RecordSet* out, std::int64_t deadline);

  // `replace`: each row ends up holding exactly its record (hbase.insert=
  // replace); else plain puts (YCSB's put, and the client write buffer).
  // *written (if given): the records of the requests that succeeded, from
  // the first (on failure, those after it may or may not be stored).
  Status Insert(std::string_view table, const RecordBatch& batch, std::int64_t deadline, bool replace,
                std::size_t* written = nullptr);

 private:
  // One try of records [begin, end) of the batch: kUnexpectedState /
  // kAborted to retry. Action indexes are the records' indexes in the batch.
  Status Once(std::string_view table, const RecordBatch& batch, std::size_t begin, std::size_t end,
              std::int64_t deadline, bool replace);
  // Locates every key; fills region_of_ (index into regions_).
  template <typename KeyAt>
  Status LocateAll(std::string_view table, std::size_t n, KeyAt key_at, std::int64_t deadline);
  // Sends requests_[0 .. servers_used_.size()) (one Multi per server);
  // checks every result; with `gets`, records each row's stale columns.
  Status SendAll(const RecordBatch& batch, std::int64_t deadline, bool gets);
  // Starts the RegionAction of region r in its server's request.
  pb::RegionAction* NewAction(std::size_t r);

  Client* client_;
  std::vector<Region> regions_;          // the distinct regions of the batch
  std::vector<std::size_t> region_of_;   // per record located (LocateAll's i)
  std::vector<pb::MultiRequest> requests_;  // per server index
  std::vector<int> servers_used_;
  std::vector<std::vector<std::string>> stale_;  // per record: the columns to delete (replace)
  pb::MultiResponse resp_;
  CallBuffers buf_;
  Region scratch_;
};

}  // namespace storebench::hbase
