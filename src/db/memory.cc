// Binding "memory": a concurrent in-process key-value store.
//
// Layout: `memory.shards` hash shards (key -> record encoded with the shared
// record codec), each guarded by its own std::shared_mutex, plus one ordered
// index of all keys for scans (a std::set of string_views pointing at the
// keys inside the shard maps, whose nodes never move) under its own
// shared_mutex. Reads take one shard lock shared; inserts, updates and
// deletes take one shard lock exclusive, and inserts of a new key and
// deletes also take the index lock (always shard first, then index). A scan
// copies a batch of keys from the index (index lock shared, no shard lock
// held), then reads each record under its shard lock, so the two lock kinds
// are never waited for in the opposite order.
//
// Semantics: the table name is ignored (one key space). Insert creates or
// overwrites; Update merges the given fields into an existing record and is
// NOT_FOUND for a missing key; Read is NOT_FOUND for a missing key; Delete
// of a missing key is OK (deletes are idempotent, as in the rocksdb
// binding). Every single record is read and written atomically; a scan is
// not a snapshot: a record deleted while the scan runs is skipped, one
// inserted behind its cursor is not seen.
//
// Allocation: a read copies into the caller's RecordSet and does not
// allocate once that is warm; updates swap the merged record with the
// session's scratch buffer, so steady-state updates do not allocate either.
// Inserting a new key allocates its map and index nodes.
//
// Data lives only as long as the Store (capabilities.persistent = false).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "db/binding.h"
#include "db/record_codec.h"

namespace storebench {
namespace {

constexpr std::int64_t kDefaultShards = 64;
constexpr std::size_t kScanBatch = 256;  // keys copied per hold of the index lock

// A key whose hash is already computed: the shard is chosen from the hash,
// and the shard's map looks the key up with the same hash (heterogeneous
// lookup) instead of hashing it a second time.
struct HashedKey {
  std::string_view key;
  std::size_t hash;
};
inline HashedKey Hashed(std::string_view key) { return {key, std::hash<std::string_view>{}(key)}; }

struct KeyHash {
  using is_transparent = void;
  // Deliberately not noexcept: libstdc++ then caches each node's hash, so a
  // bucket walk compares hashes before touching the key's (heap) bytes.
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  std::size_t operator()(const HashedKey& k) const { return k.hash; }
};
struct KeyEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  bool operator()(const HashedKey& a, std::string_view b) const { return a.key == b; }
  bool operator()(std::string_view a, const HashedKey& b) const { return a == b.key; }
};
using RecordMap = std::unordered_map<std::string, std::string, KeyHash, KeyEq>;

struct alignas(64) Shard {
  std::shared_mutex mu;
  RecordMap map;  // guarded by mu
};

class MemoryStore;

class MemorySession final : public Session {
 public:
  explicit MemorySession(MemoryStore* store) : store_(store) {}

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields,
              RecordSet* out) override;
  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count,
              const FieldSelector& fields, RecordSet* out) override;
  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override;
  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override;
  Status Delete(std::string_view table, std::string_view key) override;

 private:
  MemoryStore* store_;
  std::string scratch_;            // encoded/merged record, swapped with the stored one
  std::vector<std::string> keys_;  // scan batch (strings keep their capacity)
  std::string resume_;             // last key of the previous scan batch
};

class MemoryStore final : public Store {
 public:
  explicit MemoryStore(std::size_t shard_count)
      : shard_count_(shard_count), shards_(new Shard[shard_count]) {}

  std::unique_ptr<Session> NewSession(int) override { return std::make_unique<MemorySession>(this); }
  Capabilities capabilities() const override {
    Capabilities c;
    c.scan = true;
    c.persistent = false;
    return c;
  }
  std::vector<std::pair<std::string, std::string>> Stats() override {
    std::uint64_t records = 0, bytes = 0;
    for (std::size_t i = 0; i < shard_count_; ++i) {
      std::shared_lock lk(shards_[i].mu);
      records += shards_[i].map.size();
      for (const auto& [k, v] : shards_[i].map) bytes += k.size() + v.size();
    }
    return {{"memory.records", std::to_string(records)},
            {"memory.data_bytes", std::to_string(bytes)},
            {"memory.shards", std::to_string(shard_count_)}};
  }

  Shard& ShardFor(const HashedKey& key) {
    // Mix the hash so that the shard does not correlate with the bucket the
    // shard's own map picks from the same hash.
    std::uint64_t h = key.hash;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return shards_[h % shard_count_];
  }

  std::shared_mutex index_mu;
  std::set<std::string_view, std::less<>> index;  // guarded by index_mu; views into shard map keys

 private:
  std::size_t shard_count_;
  std::unique_ptr<Shard[]> shards_;
};

Status MemorySession::Read(std::string_view, std::string_view key, const FieldSelector& fields,
                           RecordSet* out) {
  out->Clear();
  const HashedKey hk = Hashed(key);
  Shard& s = store_->ShardFor(hk);
  std::shared_lock lk(s.mu);
  auto it = s.map.find(hk);
  if (it == s.map.end()) return Status::NotFound();
  out->BeginRecord(key);
  if (!DecodeRecord(it->second, fields, out)) {
    out->Clear();
    return Status::Error();
  }
  return Status::Ok();
}

Status MemorySession::Scan(std::string_view, std::string_view start_key, std::uint64_t count,
                           const FieldSelector& fields, RecordSet* out) {
  out->Clear();
  std::uint64_t found = 0;
  bool first = true;
  while (found < count) {
    std::size_t n = 0;
    {
      std::shared_lock ik(store_->index_mu);
      auto& index = store_->index;
      auto it = first ? index.lower_bound(start_key) : index.upper_bound(resume_);
      std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(count - found, kScanBatch));
      for (; it != index.end() && n < want; ++it, ++n) {
        if (n == keys_.size()) keys_.emplace_back();
        keys_[n].assign(it->data(), it->size());
      }
    }
    if (n == 0) break;
    for (std::size_t i = 0; i < n && found < count; ++i) {
      const HashedKey hk = Hashed(keys_[i]);
      Shard& s = store_->ShardFor(hk);
      std::shared_lock lk(s.mu);
      auto it = s.map.find(hk);
      if (it == s.map.end()) continue;  // deleted since we saw it in the index
      out->BeginRecord(keys_[i]);
      if (!DecodeRecord(it->second, fields, out)) return Status::Error();
      ++found;
    }
    resume_.assign(keys_[n - 1]);
    first = false;
  }
  return Status::Ok();
}

Status MemorySession::Update(std::string_view, std::string_view key, std::span<const Field> values) {
  const HashedKey hk = Hashed(key);
  Shard& s = store_->ShardFor(hk);
  std::unique_lock lk(s.mu);
  auto it = s.map.find(hk);
  if (it == s.map.end()) return Status::NotFound();
  try {
    if (!MergeRecord(it->second, values, &scratch_)) return Status::Error();
  } catch (const std::bad_alloc&) {
    return Status::Error();
  }
  it->second.swap(scratch_);
  return Status::Ok();
}

Status MemorySession::Insert(std::string_view, std::string_view key, std::span<const Field> values) {
  try {
    EncodeRecord(values, &scratch_);
    const HashedKey hk = Hashed(key);
    Shard& s = store_->ShardFor(hk);
    std::unique_lock lk(s.mu);
    auto it = s.map.find(hk);
    if (it != s.map.end()) {
      it->second.swap(scratch_);
      return Status::Ok();
    }
    auto [nit, inserted] = s.map.emplace(std::string(key), std::move(scratch_));
    scratch_.clear();  // moved-from: make its state definite
    std::unique_lock ik(store_->index_mu);
    try {
      store_->index.insert(std::string_view(nit->first));
    } catch (...) {
      s.map.erase(nit);  // keep map and index consistent
      throw;
    }
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return Status::Error();
  }
}

Status MemorySession::Delete(std::string_view, std::string_view key) {
  const HashedKey hk = Hashed(key);
  Shard& s = store_->ShardFor(hk);
  std::unique_lock lk(s.mu);
  auto it = s.map.find(hk);
  if (it == s.map.end()) return Status::Ok();  // idempotent, like the rocksdb binding
  {
    std::unique_lock ik(store_->index_mu);
    store_->index.erase(std::string_view(it->first));
  }
  s.map.erase(it);  // after the index no longer points at its key
  return Status::Ok();
}

}  // namespace

const BindingInfo& memory_binding() {
  static const BindingInfo info{
      .name = "memory",
      .summary = "concurrent in-process store (sharded hash map + ordered key index); data lives only in the process",
      .properties =
          {
              {"memory.shards", std::to_string(kDefaultShards),
               "number of hash shards, each with its own reader/writer lock (1-65536)"},
          },
      .open = [](const Properties& props, const OpenContext&) -> std::unique_ptr<Store> {
        auto shards = props.GetInt("memory.shards", kDefaultShards, 1, 65536);
        return std::make_unique<MemoryStore>(static_cast<std::size_t>(shards));
      },
      .uses_dir = false,
  };
  return info;
}

}  // namespace storebench
