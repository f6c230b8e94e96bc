// The hbase binding's store: Apache HBase 2.x over our own implementation of
// its client RPC (db/hbase/rpc.h for the bytes; connection.h, routing.h,
// client.h, session.h for the rest). No JVM in storebench.
//
// Opening asks the master's connection registry where hbase:meta is and
// looks up the workload's table there; when it does not exist (and
// hbase.create_table is on) it creates it through the master
// (MasterService.CreateTable: one column family hbase.columnfamily,
// hbase.presplit regions split as db/hbase/presplit.h) and waits until its
// regions are online. An unreachable master is a one-line SetupError.
//
// Thread-safe: sessions are handed out to any thread; the clients of one
// {thread, connection} slot share one Client when hbase.pipeline > 1.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "db/binding.h"
#include "db/hbase/client.h"
#include "db/hbase/options.h"
#include "db/shared_clients.h"

namespace storebench::hbase {

class HBaseStore : public Store {
 public:
  // Connects and checks the table as above. Throws SetupError.
  explicit HBaseStore(Options o);

  std::unique_ptr<Session> NewSession(int thread_id) override;
  std::unique_ptr<Session> NewClientSession(const ClientSlot& slot) override;
  Capabilities capabilities() const override;
  // Servers seen, hbase:meta lookups, retries, Multi requests, buffered
  // rows in failed requests, exceptions by class.
  std::vector<std::pair<std::string, std::string>> Stats() override;
  // Says on stderr, in one line, how many rows answered BATCHED_OK were in
  // write-buffer requests that failed (hbase.clientbuffering), if any.
  void Close() override;

 private:
  // Finds the table, creating it when allowed. Throws SetupError.
  void EnsureTable(Client* admin);

  Cluster cluster_;
  SharedClients<Client> links_;  // the Client of each {thread, connection} when pipelining
};

}  // namespace storebench::hbase
