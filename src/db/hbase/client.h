// What the hbase binding's clients share (Cluster: options, the region
// cache, the servers seen, where hbase:meta is, exception counts) and what
// one client slot owns (Client: a connection per region server, the master
// connection for bootstrap, reusable request/response buffers, and the
// routing loop: locate the row's region, call its server, and on "region
// not here" / "busy" drop or keep the cached region and retry with a bounded
// backoff within the operation's deadline).
//
// Bootstrap: the master's RPC connection registry (ClientMetaService.
// GetMetaRegionLocations on hbase.master) says where hbase:meta is; a row's
// region is found by a reverse scan of hbase:meta from
// "table,row,99999999999999" (routing.h), as HBase's own client does.
//
// Cluster is thread-safe (its parts lock on their own). A Client is used by
// one thread (the sessions of one {thread, connection} slot share it as
// fibers); no allocation per call once warm.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "Client.pb.h"
#include "Registry.pb.h"
#include "core/status.h"
#include "db/hbase/connection.h"
#include "db/hbase/options.h"
#include "db/hbase/routing.h"

namespace storebench::hbase {

class Cluster {
 public:
  explicit Cluster(Options o) : options_(std::move(o)) {}
  const Options& options() const { return options_; }
  RegionCache& regions() { return regions_; }

  // The index of server host:port (added when new).
  int ServerIndex(const std::string& host, int port);
  net::Endpoint Server(int index);

  // Where hbase:meta is (false when not known yet, or dropped).
  bool MetaLocation(Region* out);
  void SetMetaLocation(const Region& r);
  void DropMetaLocation();

  // Counts an exception a server raised (by class), for Stats.
  void CountException(std::string_view exception_class);
  std::vector<std::pair<std::string, std::string>> Stats();

  std::atomic<std::uint64_t> meta_lookups{0};
  std::atomic<std::uint64_t> retries{0};
  std::atomic<std::uint64_t> multi_requests{0};  // Multi calls sent (batch insert, write buffer, batch read)
  // Rows of hbase.clientbuffering's write buffers in requests that failed:
  // answered BATCHED_OK when buffered, perhaps not stored.
  std::atomic<std::uint64_t> buffered_rows_failed{0};

 private:
  const Options options_;
  RegionCache regions_;
  std::mutex mu_;
  std::vector<net::Endpoint> servers_;
  Region meta_;
  bool have_meta_ = false;
  std::map<std::string, std::uint64_t, std::less<>> exceptions_;
};

// A call's receive buffers, owned by the session that makes the call (the
// sessions sharing a Client have calls in flight at once).
struct CallBuffers {
  std::string frame;
  Response resp;
};

class Client {
 public:
  Client(Cluster* cluster, int sharers) : cluster_(cluster), sharers_(sharers) {}
  Cluster& cluster() { return *cluster_; }
  const Options& options() const { return cluster_->options(); }

  // Calls `method` on the region of `table` holding `row`: sets the region
  // specifier of `target` (the request, or the RegionAction inside `send`),
  // sends the request (`send`, or `target` itself), parses the answer into
  // *resp. OK, NOT_FOUND (no such table), ERROR (an exception that retrying
  // does not cure, or none left before the deadline), SERVICE_UNAVAILABLE
  // (server unreachable). *region is the region the call went to.
  template <typename Target, typename Resp>
  Status RegionCall(std::string_view table, std::string_view row, std::string_view method, Target* target,
                    Resp* resp, std::int64_t deadline, Region* region, CallBuffers* buf,
                    const google::protobuf::MessageLite* send = nullptr) {
    for (int attempt = 0;; ++attempt) {
      Status st = Locate(table, row, deadline, region);
      if (st.ok()) {
        target->mutable_region()->set_type(pb::RegionSpecifier::REGION_NAME);
        target->mutable_region()->set_value(region->name);
        st = Send(region->server, method, send != nullptr ? *send : *target, resp, deadline, buf);
        if (st.ok()) return st;
        if (st.code() == Status::kUnexpectedState) {  // the region is elsewhere now
          cluster_->regions().Drop(table, region->name);
        } else if (st.code() == Status::kServiceUnavailable) {
          cluster_->regions().DropServer(region->server);
        } else if (st.code() != Status::kAborted) {  // kAborted: busy, retry as it is
          return st;
        }
      } else if (st.code() != Status::kAborted) {
        return st;
      }
      cluster_->retries.fetch_add(1, std::memory_order_relaxed);
      if (!Backoff(attempt, deadline)) return Status::Error();
    }
  }

  // Finds the region of `table` holding `row` (cache, else hbase:meta).
  // NOT_FOUND: the table does not exist; kAborted: retry (region not
  // assigned yet, meta moved).
  Status Locate(std::string_view table, std::string_view row, std::int64_t deadline, Region* out);

  // A raw call to server `server` (ClientService). OK with *resp parsed;
  // kUnexpectedState: region moved (drop and relocate); kAborted: busy
  // (retry); ERROR/SERVICE_UNAVAILABLE otherwise. Exceptions are counted.
  Status Send(int server, std::string_view method, const google::protobuf::MessageLite& req,
              google::protobuf::MessageLite* resp, std::int64_t deadline, CallBuffers* buf);

  // Sleeps before retry `attempt` (10 ms doubling to 1 s), false when the
  // deadline would pass first.
  static bool Backoff(int attempt, std::int64_t deadline);

  // A call on the master's connection for `service` (ClientMetaService,
  // MasterService). Same results as Send.
  Status MasterCall(std::string_view service, std::string_view method, const google::protobuf::MessageLite& req,
                    google::protobuf::MessageLite* resp, std::int64_t deadline, CallBuffers* buf);

 private:
  Connection& Conn(int server);
  Status FindMeta(std::int64_t deadline, Region* meta);
  Status Finish(Status st, google::protobuf::MessageLite* resp, CallBuffers* buf);

  Cluster* cluster_;
  int sharers_;
  std::vector<std::unique_ptr<Connection>> conns_;  // by server index
  std::unique_ptr<Connection> master_meta_;         // ClientMetaService on the master
  std::unique_ptr<Connection> master_admin_;        // MasterService on the master
};

}  // namespace storebench::hbase
