#include "db/aerospike/cluster.h"

#include <algorithm>
#include <charconv>

#include "core/error.h"
#include "db/aerospike/routing.h"

namespace storebench::aerospike {
namespace {

std::uint64_t ParseGeneration(std::optional<std::string_view> v) {
  std::uint64_t g = ~std::uint64_t{0};
  if (v) std::from_chars(v->data(), v->data() + v->size(), g);
  return g;
}

}  // namespace

Status InfoCall(net::TcpConnection& conn, std::span<const std::string_view> names, std::int64_t deadline,
                std::string* body) {
  bool reconnected = false;
  if (Status st = conn.Ensure(deadline, &reconnected); !st.ok()) return st;
  conn.out().clear();
  AppendInfoRequest(conn.out(), names);
  Status st = conn.Flush(deadline);
  while (st.ok()) {
    std::uint8_t type = 0;
    const std::size_t n = FrameLength(conn.in(), &type);
    if (n == kMalformed || (n > 0 && type != kTypeInfo)) {
      st = Status::Error();
      break;
    }
    if (n > 0) {
      body->assign(conn.in().substr(kProtoHeaderSize, n - kProtoHeaderSize));
      conn.Consume(n);
      return Status::Ok();
    }
    st = conn.Fill(deadline);
  }
  conn.Disconnect();
  return st;
}

Cluster::Cluster(Options o) : options_(std::move(o)) {
  for (auto& m : master_) m.store(kNoNode, std::memory_order_relaxed);
  const std::int64_t deadline = net::DeadlineAfterMs(options_.timeout_ms);
  std::string errors;
  for (const net::Endpoint& seed : options_.seeds) {
    if (AddNode(seed, deadline) != kNoNode) continue;
    // Why: the connection's own reason ("host:port: Connection refused"), else the protocol.
    net::TcpConnection probe(seed);
    std::string why;
    if (probe.Connect(deadline, &why)) why = seed.ToString() + ": no answer to the info protocol";
    errors += (errors.empty() ? "" : "; ") + why;
  }
  if (nodes_.empty()) {
    throw SetupError("aerospike: no seed node answered the info protocol (" + errors +
                     "); start one with scripts/servers/aerospike.sh start DIR");
  }
  Tend();
  const bool any = std::any_of(master_.begin(), master_.end(),
                               [](const auto& m) { return m.load(std::memory_order_relaxed) != kNoNode; });
  if (!any) {
    std::string have;
    const std::string_view names[] = {"namespaces"};
    if (InfoCall(nodes_[0]->info, names, deadline, &body_).ok())
      have = std::string(InfoValue(body_, "namespaces").value_or(""));
    throw SetupError("aerospike: namespace '" + options_.ns + "' has no partitions on the cluster at " +
                     nodes_[0]->endpoint.ToString() + " (its namespaces: " + (have.empty() ? "none" : have) +
                     "); set aerospike.namespace");
  }
  tender_ = std::thread([this] { Run(); });
}

Cluster::~Cluster() {
  {
    std::lock_guard lock(tend_mu_);
    stop_ = true;
  }
  tend_cv_.notify_all();
  if (tender_.joinable()) tender_.join();
}

net::Endpoint Cluster::NodeEndpoint(std::uint16_t node) {
  std::lock_guard lock(nodes_mu_);
  return nodes_[node]->endpoint;
}

std::size_t Cluster::node_count() {
  std::lock_guard lock(nodes_mu_);
  return nodes_.size();
}

void Cluster::TendSoon() {
  {
    std::lock_guard lock(tend_mu_);
    if (tend_soon_) return;
    tend_soon_ = true;
  }
  tend_cv_.notify_all();
}

std::uint16_t Cluster::AddNode(const net::Endpoint& ep, std::int64_t deadline) {
  auto node = std::make_unique<Node>();
  node->endpoint = ep;
  node->info.set_endpoint(ep);
  const std::string_view names[] = {"node"};
  if (!InfoCall(node->info, names, deadline, &body_).ok()) return kNoNode;
  const std::optional<std::string_view> name = InfoValue(body_, "node");
  if (!name || name->empty()) return kNoNode;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i]->name == *name) return static_cast<std::uint16_t>(i);
  }
  if (nodes_.size() >= kNoNode) return kNoNode;
  node->name = std::string(*name);
  std::lock_guard lock(nodes_mu_);
  nodes_.push_back(std::move(node));
  return static_cast<std::uint16_t>(nodes_.size() - 1);
}

bool Cluster::TendNode(std::size_t i, std::int64_t deadline) {
  Node& n = *nodes_[i];
  const std::string_view names[] = {"node", "partition-generation", "peers-generation"};
  if (!InfoCall(n.info, names, deadline, &body_).ok() || InfoValue(body_, "node").value_or("") != n.name) {
    if (n.up) node_failures_.fetch_add(1, std::memory_order_relaxed);
    n.up = false;
    n.partition_generation = n.peers_generation = ~std::uint64_t{0};  // read both again when it returns
    return false;
  }
  n.up = true;
  const std::uint64_t partition_generation = ParseGeneration(InfoValue(body_, "partition-generation"));
  const std::uint64_t peers_generation = ParseGeneration(InfoValue(body_, "peers-generation"));
  if (peers_generation != n.peers_generation) {
    const std::string_view peers[] = {"peers-clear-std"};
    std::uint64_t gen = 0;
    std::vector<Peer> list;
    if (InfoCall(n.info, peers, deadline, &body_).ok() &&
        ParsePeers(InfoValue(body_, "peers-clear-std").value_or(""), &gen, &list)) {
      n.peers_generation = peers_generation;
      for (const Peer& p : list) {
        const bool known =
            std::any_of(nodes_.begin(), nodes_.end(), [&](const auto& k) { return k->name == p.node_id; });
        for (std::size_t a = 0; !known && a < p.addresses.size(); ++a) {
          if (AddNode(p.addresses[a], deadline) != kNoNode) break;
        }
      }
    }
  }
  if (partition_generation != n.partition_generation) {
    const std::string_view replicas[] = {"replicas-master"};
    PartitionBits bits;
    if (InfoCall(n.info, replicas, deadline, &body_).ok() &&
        ParseReplicasMaster(InfoValue(body_, "replicas-master").value_or(""), options_.ns, &bits)) {
      n.partition_generation = partition_generation;
      for (int pid = 0; pid < kPartitions; ++pid) {
        if (bits.test(static_cast<std::size_t>(pid))) {
          master_[static_cast<std::size_t>(pid)].store(static_cast<std::uint16_t>(i),
                                                       std::memory_order_release);
        }
      }
      map_updates_.fetch_add(1, std::memory_order_relaxed);
    }
  }
  return true;
}

void Cluster::Tend() {
  tends_.fetch_add(1, std::memory_order_relaxed);
  // Each node gets its own deadline: one that does not answer must not
  // leave the others untended.
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    TendNode(i, net::DeadlineAfterMs(std::min<std::int64_t>(options_.timeout_ms, 2000)));
  }
}

void Cluster::Run() {
  std::unique_lock lock(tend_mu_);
  for (;;) {
    tend_cv_.wait_for(lock, std::chrono::milliseconds(options_.tend_interval_ms),
                      [&] { return stop_ || tend_soon_; });
    if (stop_) return;
    tend_soon_ = false;
    lock.unlock();
    Tend();
    lock.lock();
  }
}

std::vector<std::pair<std::string, std::string>> Cluster::Stats() {
  std::vector<std::pair<std::string, std::string>> s;
  std::string names;
  {
    std::lock_guard lock(nodes_mu_);
    s.emplace_back("nodes", std::to_string(nodes_.size()));
    for (const auto& n : nodes_) names += (names.empty() ? "" : ",") + n->name + "@" + n->endpoint.ToString();
  }
  s.emplace_back("node_names", names);
  int unmapped = 0;
  for (const auto& m : master_) unmapped += m.load(std::memory_order_relaxed) == kNoNode ? 1 : 0;
  s.emplace_back("partitions_without_master", std::to_string(unmapped));
  s.emplace_back("partition_map_updates", std::to_string(map_updates_.load()));
  s.emplace_back("node_failures", std::to_string(node_failures_.load()));
  s.emplace_back("tends", std::to_string(tends_.load()));
  s.emplace_back("network_errors", std::to_string(network_errors.load()));
  for (std::size_t rc = 0; rc < results_.size(); ++rc) {
    const std::uint64_t n = results_[rc].load(std::memory_order_relaxed);
    if (n > 0) s.emplace_back("result." + ResultName(static_cast<std::uint8_t>(rc)), std::to_string(n));
  }
  return s;
}

}  // namespace storebench::aerospike
