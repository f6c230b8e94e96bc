#include "db/hbase/client.h"

#include <algorithm>

#include "measure/clock.h"
#include "net/io.h"

namespace storebench::hbase {
namespace {

std::int64_t NowNs() { return SteadyClock::Now(); }

}  // namespace

int Cluster::ServerIndex(const std::string& host, int port) {
  std::lock_guard lock(mu_);
  for (std::size_t i = 0; i < servers_.size(); ++i) {
    if (servers_[i].port == port && servers_[i].host == host) return static_cast<int>(i);
  }
  servers_.push_back({host, port});
  return static_cast<int>(servers_.size() - 1);
}

net::Endpoint Cluster::Server(int index) {
  std::lock_guard lock(mu_);
  return servers_.at(static_cast<std::size_t>(index));
}

bool Cluster::MetaLocation(Region* out) {
  std::lock_guard lock(mu_);
  if (!have_meta_) return false;
  *out = meta_;
  return true;
}

void Cluster::SetMetaLocation(const Region& r) {
  std::lock_guard lock(mu_);
  meta_ = r;
  have_meta_ = true;
}

void Cluster::DropMetaLocation() {
  std::lock_guard lock(mu_);
  have_meta_ = false;
}

void Cluster::CountException(std::string_view exception_class) {
  std::lock_guard lock(mu_);
  auto it = exceptions_.find(exception_class);
  if (it == exceptions_.end()) it = exceptions_.emplace(std::string(exception_class), 0).first;
  ++it->second;
}

std::vector<std::pair<std::string, std::string>> Cluster::Stats() {
  std::vector<std::pair<std::string, std::string>> out;
  std::lock_guard lock(mu_);
  out.emplace_back("servers", std::to_string(servers_.size()));
  out.emplace_back("meta_lookups", std::to_string(meta_lookups.load()));
  out.emplace_back("retries", std::to_string(retries.load()));
  out.emplace_back("multi_requests", std::to_string(multi_requests.load()));
  out.emplace_back("buffered_rows_failed", std::to_string(buffered_rows_failed.load()));
  for (const auto& [name, n] : exceptions_) {
    const std::size_t dot = name.rfind('.');
    out.emplace_back("exception." + (dot == std::string::npos ? name : name.substr(dot + 1)), std::to_string(n));
  }
  return out;
}

Connection& Client::Conn(int server) {
  const auto i = static_cast<std::size_t>(server);
  if (conns_.size() <= i) conns_.resize(i + 1);
  if (!conns_[i]) {
    // Cell blocks (hbase.cellblocks) on the region servers' ClientService:
    // the master's services answer no cells.
    conns_[i] = std::make_unique<Connection>(cluster_->Server(server), "ClientService", options().user,
                                             options().timeout_ms, sharers_,
                                             options().cell_blocks ? std::string(kKeyValueCodec) : std::string());
  }
  return *conns_[i];
}

bool Client::Backoff(int attempt, std::int64_t deadline) {
  const std::int64_t wait_ns = std::min<std::int64_t>(std::int64_t{10'000'000} << std::min(attempt, 7), 1'000'000'000);
  const std::int64_t until = NowNs() + wait_ns;
  if (until >= deadline) return false;
  io::SleepUntil(until);
  return true;
}

Status Client::Finish(Status st, google::protobuf::MessageLite* resp, CallBuffers* buf) {
  if (!st.ok()) return st;
  if (buf->resp.is_exception()) {
    const std::string_view cls = buf->resp.exception_class();
    cluster_->CountException(cls);
    if (IsRegionMoved(cls)) return Status(Status::kUnexpectedState);
    if (IsRetryable(cls)) return Status(Status::kAborted);
    return Status::Error();
  }
  const std::string_view p = buf->resp.param;
  if (!resp->ParseFromArray(p.data(), static_cast<int>(p.size()))) return Status::Error();
  return Status::Ok();
}

Status Client::Send(int server, std::string_view method, const google::protobuf::MessageLite& req,
                    google::protobuf::MessageLite* resp, std::int64_t deadline, CallBuffers* buf) {
  Connection& c = Conn(server);
  Status st = c.Call(method, req, deadline, &buf->frame, &buf->resp);
  if (st.code() == Status::kError && !c.connected()) st = Status(Status::kServiceUnavailable);
  return Finish(st, resp, buf);
}

Status Client::MasterCall(std::string_view service, std::string_view method,
                          const google::protobuf::MessageLite& req, google::protobuf::MessageLite* resp,
                          std::int64_t deadline, CallBuffers* buf) {
  std::unique_ptr<Connection>& c = service == "MasterService" ? master_admin_ : master_meta_;
  if (!c) c = std::make_unique<Connection>(options().master, std::string(service), options().user, options().timeout_ms, 1);
  return Finish(c->Call(method, req, deadline, &buf->frame, &buf->resp), resp, buf);
}

Status Client::FindMeta(std::int64_t deadline, Region* meta) {
  if (cluster_->MetaLocation(meta)) return Status::Ok();
  pb::GetMetaRegionLocationsRequest req;
  pb::GetMetaRegionLocationsResponse resp;
  CallBuffers buf;
  Status st = MasterCall("ClientMetaService", "GetMetaRegionLocations", req, &resp, deadline, &buf);
  if (!st.ok()) return st.code() == Status::kUnexpectedState ? Status(Status::kAborted) : st;
  for (const pb::RegionLocation& loc : resp.meta_locations()) {
    if (loc.region_info().replica_id() != 0 || !loc.has_server_name()) continue;
    Region r;
    r.name = OldFormatRegionName(loc.region_info());
    r.start_key = loc.region_info().start_key();
    r.end_key = loc.region_info().end_key();
    r.server = cluster_->ServerIndex(loc.server_name().host_name(), static_cast<int>(loc.server_name().port()));
    cluster_->SetMetaLocation(r);
    *meta = r;
    return Status::Ok();
  }
  return Status(Status::kAborted);  // meta not assigned yet
}

Status Client::Locate(std::string_view table, std::string_view row, std::int64_t deadline, Region* out) {
  if (cluster_->regions().Lookup(table, row, out)) return Status::Ok();
  // A miss: read hbase:meta (not the hot path once warm; allocates).
  cluster_->meta_lookups.fetch_add(1, std::memory_order_relaxed);
  Region meta;
  if (Status st = FindMeta(deadline, &meta); !st.ok()) return st;
  pb::ScanRequest req;
  req.mutable_region()->set_type(pb::RegionSpecifier::REGION_NAME);
  req.mutable_region()->set_value(meta.name);
  pb::Scan* scan = req.mutable_scan();
  MetaSearchKeys(table, row, scan->mutable_start_row(), scan->mutable_stop_row());
  scan->set_include_stop_row(true);
  scan->set_reversed(true);
  scan->add_column()->set_family("info");
  scan->set_caching(5);
  scan->set_readtype(pb::Scan::PREAD);
  req.set_number_of_rows(5);
  req.set_close_scanner(true);
  pb::ScanResponse resp;
  CallBuffers buf;
  Status st = Send(meta.server, "Scan", req, &resp, deadline, &buf);
  if (!st.ok()) {
    if (st.code() == Status::kUnexpectedState || st.code() == Status::kServiceUnavailable) {
      cluster_->DropMetaLocation();
      return Status(Status::kAborted);
    }
    return st;
  }
  MetaRow m;
  std::string error;
  CellBlockReader block = BlockOf(buf.resp);
  for (int i = 0; i < ScanResultCount(resp); ++i) {
    ResultCells cells = ScanResult(resp, i, &block);
    if (!ParseMetaRow(&cells, &m, &error)) {
      if (block.failed()) return Status::Error();  // the rows after it cannot be read
      continue;
    }
    if (m.table != table) continue;
    if (m.offline()) continue;  // a split parent: its daughters follow
    if (!(row >= std::string_view(m.info.start_key()) &&
          (m.info.end_key().empty() || row < std::string_view(m.info.end_key())))) {
      return Status(Status::kAborted);  // a hole in meta (a split in progress)
    }
    if (m.host.empty()) return Status(Status::kAborted);  // not assigned yet
    Region region;
    region.name = m.name;
    region.start_key = m.info.start_key();
    region.end_key = m.info.end_key();
    region.server = cluster_->ServerIndex(m.host, m.port);
    cluster_->regions().Add(table, region);
    *out = region;
    return Status::Ok();
  }
  return Status::NotFound();  // no region of this table: it does not exist
}

}  // namespace storebench::hbase
