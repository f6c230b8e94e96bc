#include "db/hbase/store.h"

#include <iostream>

#include "MasterAdmin.pb.h"
#include "core/error.h"
#include "db/hbase/presplit.h"
#include "db/hbase/session.h"
#include "net/socket.h"

namespace storebench::hbase {

HBaseStore::HBaseStore(Options o) : cluster_(std::move(o)) {
  Client admin(&cluster_, 1);
  EnsureTable(&admin);
}

void HBaseStore::EnsureTable(Client* admin) {
  const Options& opts = cluster_.options();
  // Table creation and region assignment take seconds on a busy machine.
  const std::int64_t deadline = net::DeadlineAfterMs(std::max<std::int64_t>(opts.timeout_ms, 60000));
  Region region;
  bool created = false;
  for (int attempt = 0;; ++attempt) {
    Status st = admin->Locate(opts.table, "", deadline, &region);
    // A table just created pre-split: every region online, not only the first.
    if (created) {
      for (const std::string& key : PresplitKeys(opts.presplit_regions)) {
        if (!st.ok()) break;
        st = admin->Locate(opts.table, key, deadline, &region);
      }
    }
    if (st.ok()) return;
    if (st.code() == Status::kNotFound && opts.create_table && !created) {
      pb::CreateTableRequest req;
      pb::TableSchema* schema = req.mutable_table_schema();
      const std::size_t colon = opts.table.find(':');
      schema->mutable_table_name()->set_namespace_(colon == std::string::npos ? "default" : opts.table.substr(0, colon));
      schema->mutable_table_name()->set_qualifier(colon == std::string::npos ? opts.table : opts.table.substr(colon + 1));
      schema->add_column_families()->set_name(opts.family);
      for (const std::string& key : PresplitKeys(opts.presplit_regions)) req.add_split_keys(key);
      pb::CreateTableResponse resp;
      CallBuffers buf;
      st = admin->MasterCall("MasterService", "CreateTable", req, &resp, deadline, &buf);
      if (!st.ok()) {
        const std::string cls(buf.resp.is_exception() ? buf.resp.exception_class() : std::string_view(st.name()));
        if (cls.find("TableExistsException") == std::string::npos) {
          throw SetupError("hbase: cannot create table '" + opts.table + "' through the master at " +
                           opts.master.ToString() + ": " + cls);
        }
      }
      created = true;
    } else if (st.code() == Status::kNotFound) {
      if (!opts.create_table) {
        throw SetupError("hbase: table '" + opts.table + "' does not exist (and hbase.create_table=false)");
      }
    } else if (st.code() != Status::kAborted && !created) {
      throw SetupError("hbase: cannot reach the cluster through the master at " + opts.master.ToString() + " (" +
                       std::string(st.name()) + ")");
    }
    if (!Client::Backoff(std::min(attempt, 4), deadline)) {
      throw SetupError("hbase: table '" + opts.table + "' did not come online in time (last: " +
                       std::string(st.name()) + ")");
    }
  }
}

std::unique_ptr<Session> HBaseStore::NewSession(int) {
  return NewHBaseSession(std::make_shared<Client>(&cluster_, 1));
}

std::unique_ptr<Session> HBaseStore::NewClientSession(const ClientSlot& slot) {
  const int pipeline = cluster_.options().pipeline;
  if (pipeline <= 1) return NewSession(slot.thread);
  return NewHBaseSession(links_.Get(slot, [&] { return std::make_shared<Client>(&cluster_, pipeline); }));
}

Capabilities HBaseStore::capabilities() const {
  Capabilities c;
  c.persistent = true;
  c.atomic_update = true;  // a put writes only its columns, atomically per row
  c.waits_through_io = true;
  c.pipeline = cluster_.options().pipeline;
  c.native_batch_insert = true;  // one Multi per region server (best effort across regions)
  c.native_batch_read = true;    // one Multi of Gets per region server
  c.buffers_writes = cluster_.options().client_buffering;  // Session::Flush sends the write buffer
  return c;
}

std::vector<std::pair<std::string, std::string>> HBaseStore::Stats() { return cluster_.Stats(); }

void HBaseStore::Close() {
  const std::uint64_t lost = cluster_.buffered_rows_failed.exchange(0);
  if (lost > 0) {
    std::cerr << "storebench: hbase: " << lost
              << " row(s) answered BATCHED_OK were in write-buffer requests that failed, so may not be stored "
                 "(the operations that sent them are counted as failed; store_stats.buffered_rows_failed)\n";
  }
}

}  // namespace storebench::hbase
