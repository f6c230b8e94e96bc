// Binding "memory": a concurrent in-process key-value store.
//
// Layout: `memory.shards` hash shards, each guarded by its own
// std::shared_mutex, plus one ordered index of all keys (a std::set) for
// scans, under its own shared_mutex. A shard is an open-addressing table
// (linear probing, load <= 1/2) of {hash, record*} slots; a record is ONE
// heap block holding its key and its value (encoded with the shared record
// codec), so a read costs two dependent memory accesses (slot, block) and
// then a sequential copy, and updates that keep the size are done in place.
//
// Locking: reads take one shard lock shared; inserts, updates and deletes
// take one shard lock exclusive, and inserts of a new key and deletes also
// take the index lock (always shard first, then index). A scan copies a
// batch of keys from the index (index lock shared, no shard lock held), then
// reads each record under its shard lock, so the two kinds of lock are never
// waited for in the opposite order.
//
// Semantics: the table name is ignored (one key space). Insert creates or
// overwrites; Update merges the given fields into an existing record and is
// NOT_FOUND for a missing key; Read is NOT_FOUND for a missing key; Delete of
// a missing key is OK (deletes are idempotent, as in the rocksdb binding).
// Every single record is read and written atomically; a scan is not a
// snapshot: a record deleted while the scan runs is skipped, one inserted
// behind its cursor is not seen.
//
// Allocation: a read copies into the caller's RecordSet and does not
// allocate once that is warm; an update or overwrite that fits the record's
// block does not allocate (one that grows it allocates a new block with 1/8
// headroom). Inserting a new key allocates its block and its index entry.
//
// Transactions (Session::Begin): two-phase locking on the shards. A
// transaction's Read, Update, Insert and Delete take the key's shard lock
// exclusively and keep it until Commit or Abort; its writes are buffered in
// the session and applied at Commit, so Abort just forgets them. A
// transaction that holds no lock waits for its first; one that holds some
// tries the next for a while (kTxLockTries yields) and then aborts
// (ABORTED), so two transactions never wait for each other in a cycle.
// Everything else sees a transaction's writes all at once, at Commit. A
// scan inside a transaction is NOT_IMPLEMENTED.
//
// Data lives only as long as the Store (capabilities.persistent = false).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "db/binding.h"
#include "db/record_codec.h"

namespace storebench {
namespace {

constexpr std::int64_t kDefaultShards = 64;
constexpr std::size_t kScanBatch = 256;  // keys copied per hold of the index lock
constexpr int kTxLockTries = 200;        // yields before a transaction holding locks gives up on another

// One record: a header, then the key bytes, then `value_cap` bytes of room
// for the value. Allocated with ::operator new, never copied or moved.
struct Rec {
  std::uint32_t key_len;
  std::uint32_t value_len;
  std::uint32_t value_cap;

  char* data() { return reinterpret_cast<char*>(this + 1); }
  const char* data() const { return reinterpret_cast<const char*>(this + 1); }
  std::string_view key() const { return {data(), key_len}; }
  std::string_view value() const { return {data() + key_len, value_len}; }

  // Null when a size does not fit the header's 32 bits.
  static Rec* New(std::string_view key, std::string_view value, std::size_t cap) {
    if (key.size() > UINT32_MAX || cap > UINT32_MAX) return nullptr;
    void* p = ::operator new(sizeof(Rec) + key.size() + cap);
    Rec* r = new (p) Rec{static_cast<std::uint32_t>(key.size()), 0, static_cast<std::uint32_t>(cap)};
    std::memcpy(r->data(), key.data(), key.size());
    r->SetValue(value);
    return r;
  }
  static void Free(Rec* r) { ::operator delete(static_cast<void*>(r)); }

  bool Fits(std::size_t n) const { return n <= value_cap; }
  void SetValue(std::string_view v) {  // requires Fits(v.size())
    if (!v.empty()) std::memcpy(data() + key_len, v.data(), v.size());
    value_len = static_cast<std::uint32_t>(v.size());
  }
};

// An open-addressing hash table of records, keyed by the record's key.
// Not thread-safe: the shard's mutex guards it.
class RecordTable {
 public:
  RecordTable() = default;
  RecordTable(const RecordTable&) = delete;
  RecordTable& operator=(const RecordTable&) = delete;
  ~RecordTable() {
    for (Slot& s : slots_) {
      if (s.rec != nullptr) Rec::Free(s.rec);
    }
  }

  // The record with this key, or null.
  Rec* Find(std::string_view key, std::uint64_t hash) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = Home(hash);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.rec == nullptr) {
        if (s.hash == kEmpty) return nullptr;
        continue;  // tombstone
      }
      if (s.hash == hash && s.rec->key() == key) return s.rec;
    }
  }

  // Stores a new record for a key that is not in the table. May throw bad_alloc.
  void InsertNew(Rec* rec, std::uint64_t hash) {
    if ((live_ + tombstones_ + 1) * 2 > slots_.size()) Rehash();
    for (std::size_t i = Home(hash);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.rec == nullptr) {
        if (s.hash == kTombstone) --tombstones_;
        s = Slot{hash, rec};
        ++live_;
        return;
      }
    }
  }

  // Swaps the record stored for `old` (which must be in the table) for `rec`.
  void Replace(Rec* old, Rec* rec, std::uint64_t hash) { SlotOf(old, hash)->rec = rec; }

  // Removes `rec` (which must be in the table) and frees it.
  void Erase(Rec* rec, std::uint64_t hash) {
    Slot* s = SlotOf(rec, hash);
    *s = Slot{kTombstone, nullptr};
    Rec::Free(rec);
    --live_;
    ++tombstones_;
  }

  std::size_t size() const { return live_; }
  template <typename F>
  void ForEach(F&& f) const {
    for (const Slot& s : slots_) {
      if (s.rec != nullptr) f(*s.rec);
    }
  }

 private:
  // A slot is empty (rec null, hash kEmpty), a tombstone (rec null, hash
  // kTombstone) or holds a record and its key's full hash.
  static constexpr std::uint64_t kEmpty = 0, kTombstone = 1;
  struct Slot {
    std::uint64_t hash = kEmpty;
    Rec* rec = nullptr;
  };

  std::size_t Home(std::uint64_t hash) const {
    // Fibonacci hashing: the top bits of the product, independent of the
    // low bits that choose the shard.
    return static_cast<std::size_t>((hash * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  Slot* SlotOf(const Rec* rec, std::uint64_t hash) {
    for (std::size_t i = Home(hash);; i = (i + 1) & mask_) {
      if (slots_[i].rec == rec) return &slots_[i];
    }
  }
  // Rebuilds the table without tombstones, at load <= 1/3 (so it doubles
  // when live records reach half the slots).
  void Rehash() {
    std::size_t cap = std::max<std::size_t>(16, std::bit_ceil((live_ + 1) * 3));
    std::vector<Slot> old(cap);
    old.swap(slots_);
    mask_ = cap - 1;
    shift_ = 64 - std::countr_zero(cap);
    tombstones_ = 0;
    for (const Slot& s : old) {
      if (s.rec == nullptr) continue;
      std::size_t i = Home(s.hash);
      while (slots_[i].rec != nullptr) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  int shift_ = 64;
  std::size_t live_ = 0;
  std::size_t tombstones_ = 0;
};

struct alignas(64) Shard {
  std::shared_mutex mu;
  RecordTable table;  // guarded by mu
};

inline std::uint64_t HashOf(std::string_view key) { return std::hash<std::string_view>{}(key); }

class MemoryStore;

class MemorySession final : public Session {
 public:
  explicit MemorySession(MemoryStore* store) : store_(store) {}
  ~MemorySession() override { Unlock(); }  // a transaction left open ends unapplied

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields,
              RecordSet* out) override;
  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count,
              const FieldSelector& fields, RecordSet* out) override;
  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override;
  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override;
  Status Delete(std::string_view table, std::string_view key) override;
  Status Begin(const TxOptions&) override;
  Status Commit() override;
  Status Abort() override;

 private:
  // A write buffered by a transaction: the key's whole new value, or its deletion.
  struct Pending {
    std::string key;
    std::string value;
    bool erase = false;
  };
  // Takes the shard lock of `s` for the transaction (see the top).
  Status LockForTx(Shard& s);
  void Unlock();
  Pending* FindPending(std::string_view key);
  Pending& AddPending(std::string_view key);
  // The value `key` has inside the transaction (its shard locked): the
  // pending write `p` when there is one, else the stored record. NOT_FOUND
  // when deleted or absent.
  Status TxValue(std::string_view key, std::uint64_t h, const Pending* p, std::string_view* value);
  Status TxRead(std::string_view key, const FieldSelector& fields, RecordSet* out);
  Status TxWrite(std::string_view key, std::span<const Field> values, bool update, bool erase);
  // Applies one buffered write (its shard lock held).
  bool Apply(const Pending& w);

  // Stores scratch_ as the value of `rec` (in place, or in a new block that
  // replaces it). False when out of memory or too large.
  bool StoreValue(Shard& s, Rec* rec, std::uint64_t hash);

  MemoryStore* store_;
  std::string scratch_;            // encoded or merged record
  std::vector<std::string> keys_;  // scan batch (strings keep their capacity)
  std::string resume_;             // last key of the previous scan batch
  bool in_tx_ = false;
  std::vector<Shard*> held_;       // shard locks the transaction holds (exclusively)
  std::vector<Pending> pending_;   // its writes; the first pending_count_ are in use
  std::size_t pending_count_ = 0;
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
    c.atomic_update = true;  // under the shard lock, held exclusively
    c.transactions = true;   // two-phase locking on the shards
    return c;
  }
  std::vector<std::pair<std::string, std::string>> Stats() override {
    std::uint64_t records = 0, bytes = 0;
    for (std::size_t i = 0; i < shard_count_; ++i) {
      std::shared_lock lk(shards_[i].mu);
      records += shards_[i].table.size();
      shards_[i].table.ForEach([&](const Rec& r) { bytes += r.key_len + r.value_len; });
    }
    return {{"memory.records", std::to_string(records)},
            {"memory.data_bytes", std::to_string(bytes)},
            {"memory.shards", std::to_string(shard_count_)}};
  }

  Shard& ShardFor(std::uint64_t hash) {
    // Mixed, so the shard does not correlate with the slot, which the
    // table takes from the same hash.
    hash ^= hash >> 33;
    hash *= 0xff51afd7ed558ccdULL;
    hash ^= hash >> 33;
    return shards_[hash % shard_count_];
  }

  std::shared_mutex index_mu;
  std::set<std::string, std::less<>> index;  // guarded by index_mu

 private:
  std::size_t shard_count_;
  std::unique_ptr<Shard[]> shards_;
};

Status MemorySession::Read(std::string_view, std::string_view key, const FieldSelector& fields,
                           RecordSet* out) {
  if (in_tx_) return TxRead(key, fields, out);
  try {
    out->Clear();
    const std::uint64_t h = HashOf(key);
    Shard& s = store_->ShardFor(h);
    std::shared_lock lk(s.mu);
    const Rec* rec = s.table.Find(key, h);
    if (rec == nullptr) return Status::NotFound();
    return DecodeReadResult(key, rec->value(), fields, out);
  } catch (const std::bad_alloc&) {
    out->Clear();
    return Status::Error();
  }
}

Status MemorySession::Scan(std::string_view, std::string_view start_key, std::uint64_t count,
                           const FieldSelector& fields, RecordSet* out) {
  // Not inside a transaction: it would wait for the shard locks this session holds.
  if (in_tx_) {
    out->Clear();
    return Status::NotImplemented();
  }
  try {
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
          keys_[n].assign(*it);
        }
      }
      if (n == 0) break;
      for (std::size_t i = 0; i < n && found < count; ++i) {
        const std::uint64_t h = HashOf(keys_[i]);
        Shard& s = store_->ShardFor(h);
        std::shared_lock lk(s.mu);
        const Rec* rec = s.table.Find(keys_[i], h);
        if (rec == nullptr) continue;  // deleted since we saw it in the index
        out->BeginRecord(keys_[i]);
        if (!DecodeRecord(rec->value(), fields, out)) return Status::Error();
        ++found;
      }
      resume_.assign(keys_[n - 1]);
      first = false;
    }
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    out->Clear();
    return Status::Error();
  }
}

bool MemorySession::StoreValue(Shard& s, Rec* rec, std::uint64_t hash) {
  if (rec->Fits(scratch_.size())) {
    rec->SetValue(scratch_);
    return true;
  }
  Rec* grown = Rec::New(rec->key(), scratch_, scratch_.size() + scratch_.size() / 8);
  if (grown == nullptr) return false;
  s.table.Replace(rec, grown, hash);
  Rec::Free(rec);
  return true;
}

Status MemorySession::Update(std::string_view, std::string_view key, std::span<const Field> values) {
  if (in_tx_) return TxWrite(key, values, true, false);
  try {
    const std::uint64_t h = HashOf(key);
    Shard& s = store_->ShardFor(h);
    std::unique_lock lk(s.mu);
    Rec* rec = s.table.Find(key, h);
    if (rec == nullptr) return Status::NotFound();
    if (!MergeRecord(rec->value(), values, &scratch_)) return Status::Error();
    return StoreValue(s, rec, h) ? Status::Ok() : Status::Error();
  } catch (const std::bad_alloc&) {
    return Status::Error();
  }
}

Status MemorySession::Insert(std::string_view, std::string_view key, std::span<const Field> values) {
  if (in_tx_) return TxWrite(key, values, false, false);
  try {
    EncodeRecord(values, &scratch_);
    const std::uint64_t h = HashOf(key);
    Shard& s = store_->ShardFor(h);
    std::unique_lock lk(s.mu);
    if (Rec* rec = s.table.Find(key, h)) return StoreValue(s, rec, h) ? Status::Ok() : Status::Error();
    std::unique_ptr<Rec, void (*)(Rec*)> rec(Rec::New(key, scratch_, scratch_.size()), Rec::Free);
    if (!rec) return Status::Error();
    std::unique_lock ik(store_->index_mu);
    auto [pos, added] = store_->index.emplace(key);
    try {
      s.table.InsertNew(rec.get(), h);
    } catch (...) {
      if (added) store_->index.erase(pos);  // keep table and index consistent
      throw;
    }
    rec.release();
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return Status::Error();
  }
}

Status MemorySession::Delete(std::string_view, std::string_view key) {
  if (in_tx_) return TxWrite(key, {}, false, true);
  const std::uint64_t h = HashOf(key);
  Shard& s = store_->ShardFor(h);
  std::unique_lock lk(s.mu);
  Rec* rec = s.table.Find(key, h);
  if (rec == nullptr) return Status::Ok();  // idempotent, like the rocksdb binding
  {
    std::unique_lock ik(store_->index_mu);
    auto it = store_->index.find(key);
    if (it != store_->index.end()) store_->index.erase(it);
  }
  s.table.Erase(rec, h);
  return Status::Ok();
}

Status MemorySession::Begin(const TxOptions&) {
  if (in_tx_) return Status::Error();
  in_tx_ = true;
  pending_count_ = 0;
  return Status::Ok();
}

Status MemorySession::LockForTx(Shard& s) {
  for (Shard* h : held_) {
    if (h == &s) return Status::Ok();
  }
  held_.reserve(held_.size() + 1);  // so that push_back cannot throw with the lock taken
  if (held_.empty()) {
    s.mu.lock();
  } else {
    for (int i = 0; !s.mu.try_lock(); ++i) {
      if (i >= kTxLockTries) return Status(Status::kAborted);
      std::this_thread::yield();
    }
  }
  held_.push_back(&s);
  return Status::Ok();
}

void MemorySession::Unlock() {
  for (Shard* h : held_) h->mu.unlock();
  held_.clear();
}

MemorySession::Pending* MemorySession::FindPending(std::string_view key) {
  for (std::size_t i = 0; i < pending_count_; ++i) {
    if (pending_[i].key == key) return &pending_[i];
  }
  return nullptr;
}

MemorySession::Pending& MemorySession::AddPending(std::string_view key) {
  if (pending_count_ == pending_.size()) pending_.emplace_back();
  Pending& p = pending_[pending_count_++];
  p.key.assign(key);
  p.erase = false;
  return p;
}

Status MemorySession::TxValue(std::string_view key, std::uint64_t h, const Pending* p,
                              std::string_view* value) {
  if (p != nullptr) {
    if (p->erase) return Status::NotFound();
    *value = p->value;
    return Status::Ok();
  }
  const Rec* rec = store_->ShardFor(h).table.Find(key, h);
  if (rec == nullptr) return Status::NotFound();
  *value = rec->value();
  return Status::Ok();
}

Status MemorySession::TxRead(std::string_view key, const FieldSelector& fields, RecordSet* out) {
  try {
    out->Clear();
    const std::uint64_t h = HashOf(key);
    if (Status st = LockForTx(store_->ShardFor(h)); !st.ok()) return st;
    std::string_view value;
    if (Status st = TxValue(key, h, FindPending(key), &value); !st.ok()) return st;
    return DecodeReadResult(key, value, fields, out);
  } catch (const std::bad_alloc&) {
    out->Clear();
    return Status::Error();
  }
}

Status MemorySession::TxWrite(std::string_view key, std::span<const Field> values, bool update, bool erase) {
  try {
    const std::uint64_t h = HashOf(key);
    if (Status st = LockForTx(store_->ShardFor(h)); !st.ok()) return st;
    Pending* p = FindPending(key);
    if (update) {
      std::string_view base;
      if (Status st = TxValue(key, h, p, &base); !st.ok()) return st;
      if (!MergeRecord(base, values, &scratch_)) return Status::Error();
    } else if (!erase) {
      EncodeRecord(values, &scratch_);
    }
    if (p == nullptr) p = &AddPending(key);
    p->erase = erase;
    if (!erase) p->value.assign(scratch_);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return Status::Error();
  }
}

bool MemorySession::Apply(const Pending& w) {
  const std::uint64_t h = HashOf(w.key);
  Shard& s = store_->ShardFor(h);
  Rec* rec = s.table.Find(w.key, h);
  if (w.erase) {
    if (rec == nullptr) return true;
    std::unique_lock ik(store_->index_mu);
    auto it = store_->index.find(w.key);
    if (it != store_->index.end()) store_->index.erase(it);
    s.table.Erase(rec, h);
    return true;
  }
  scratch_.assign(w.value);
  if (rec != nullptr) return StoreValue(s, rec, h);
  std::unique_ptr<Rec, void (*)(Rec*)> fresh(Rec::New(w.key, scratch_, scratch_.size()), Rec::Free);
  if (!fresh) return false;
  std::unique_lock ik(store_->index_mu);
  auto [pos, added] = store_->index.emplace(w.key);
  try {
    s.table.InsertNew(fresh.get(), h);
  } catch (...) {
    if (added) store_->index.erase(pos);
    throw;
  }
  fresh.release();
  return true;
}

Status MemorySession::Commit() {
  if (!in_tx_) return Status::Error();
  Status st = Status::Ok();
  try {
    // Every write's shard is locked: the writes appear at once. Out of
    // memory part way leaves the earlier ones applied (ERROR).
    for (std::size_t i = 0; i < pending_count_ && st.ok(); ++i) {
      if (!Apply(pending_[i])) st = Status::Error();
    }
  } catch (const std::bad_alloc&) {
    st = Status::Error();
  }
  Unlock();
  in_tx_ = false;
  pending_count_ = 0;
  return st;
}

Status MemorySession::Abort() {
  Unlock();
  in_tx_ = false;
  pending_count_ = 0;
  return Status::Ok();
}

}  // namespace

const BindingInfo& memory_binding() {
  static const BindingInfo info{
      .name = "memory",
      .summary = "concurrent in-process store (sharded hash tables + ordered key index); data lives only in the process",
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
