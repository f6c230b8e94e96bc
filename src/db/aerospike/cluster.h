// What the aerospike binding's clients share: the cluster's nodes, the
// partition map of the namespace (each partition's master), and the counts
// for Stats. A tend thread keeps them current, as Aerospike's own clients
// do: every aerospike.tend_interval_ms (and soon after a request failed)
// it asks each node over the info protocol for its `node` name,
// `partition-generation` and `peers-generation`; a node whose peers changed
// is asked for `peers-clear-std` (new nodes are added), one whose partitions
// changed for `replicas-master` (the partitions it is master of now point to
// it). A node that does not answer is marked down; its partitions move when
// another node claims them, and it is picked up again when it answers.
//
// Thread-safe. Master() is one atomic load (acquire: a plain load on x86; the hot path); node
// endpoints are read under a mutex when a connection is made. Node indexes
// are stable for the cluster's life (a node that returns keeps its index).
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "core/status.h"
#include "db/aerospike/options.h"
#include "db/aerospike/proto.h"
#include "net/socket.h"

namespace storebench::aerospike {

inline constexpr std::uint16_t kNoNode = 0xffff;

// One info request/answer on `conn` (connecting when needed): OK with the
// answer's body in *body, else ERROR / SERVICE_UNAVAILABLE. Blocking (or
// yielding, in a fiber) until `deadline`.
Status InfoCall(net::TcpConnection& conn, std::span<const std::string_view> names, std::int64_t deadline,
                std::string* body);

class Cluster {
 public:
  // Finds the nodes through the seeds and reads the partition map, then
  // starts tending. Throws SetupError when no seed answers, the namespace
  // is unknown to the cluster, or no node is master of any partition.
  explicit Cluster(Options o);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  const Options& options() const { return options_; }

  // The master of partition `pid` (kNoNode when none is known).
  // (Acquire: the node's entry, added before the tend thread published it, is seen.)
  std::uint16_t Master(int pid) const {
    return master_[static_cast<std::size_t>(pid)].load(std::memory_order_acquire);
  }
  net::Endpoint NodeEndpoint(std::uint16_t node);
  std::size_t node_count();

  // Asks the tend thread to look at the cluster now (a request failed).
  void TendSoon();
  // One tend round, run by the tend thread (and by tests).
  void Tend();

  // Counts a reply's result code (every code, for Stats).
  void CountResult(std::uint8_t rc) { results_[rc].fetch_add(1, std::memory_order_relaxed); }
  // Nodes, map updates, node failures, result codes by name.
  std::vector<std::pair<std::string, std::string>> Stats();

  std::atomic<std::uint64_t> network_errors{0};  // requests that failed on the connection (no reply)

 private:
  struct Node {
    std::string name;
    net::Endpoint endpoint;
    net::TcpConnection info;  // used by the tend thread only
    bool up = false;
    std::uint64_t partition_generation = ~std::uint64_t{0};
    std::uint64_t peers_generation = ~std::uint64_t{0};
  };
  // Adds the node at `ep` (asking for its name) unless known; returns its
  // index, or kNoNode when it does not answer. Tend thread or constructor.
  std::uint16_t AddNode(const net::Endpoint& ep, std::int64_t deadline);
  // Looks at node `i`; true when it answered.
  bool TendNode(std::size_t i, std::int64_t deadline);
  void Run();

  const Options options_;
  std::array<std::atomic<std::uint16_t>, kPartitions> master_;
  std::array<std::atomic<std::uint64_t>, 256> results_{};

  std::mutex nodes_mu_;  // guards nodes_'s size and endpoints (the tend thread alone changes them)
  std::vector<std::unique_ptr<Node>> nodes_;

  std::mutex tend_mu_;
  std::condition_variable tend_cv_;
  bool stop_ = false;       // guarded by tend_mu_
  bool tend_soon_ = false;  // guarded by tend_mu_
  std::atomic<std::uint64_t> map_updates_{0};
  std::atomic<std::uint64_t> node_failures_{0};
  std::atomic<std::uint64_t> tends_{0};
  std::string body_;  // the tend thread's info answers
  std::thread tender_;
};

}  // namespace storebench::aerospike
