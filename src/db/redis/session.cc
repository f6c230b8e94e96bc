#include "db/redis/session.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "db/record_codec.h"
#include "db/redis/hash_layout.h"
#include "db/redis/resp.h"
#include "net/socket.h"

namespace storebench::redis {
namespace {

using resp::AppendArg;
using resp::AppendCommand;
using resp::Item;
using resp::ReplyCursor;

// The reply to DEL or to a script that answers 0 for "no such record".
Status CountReply(std::string_view reply) {
  Item it = ReplyCursor(reply).Next();
  return it.type != ':' ? Status::Error() : it.n == 0 ? Status::NotFound() : Status::Ok();
}

// f1, v1, f2, v2, ... as arguments.
void AppendFields(std::string& o, std::span<const Field> values) {
  for (const Field& f : values) {
    AppendArg(o, f.name);
    AppendArg(o, f.value);
  }
}

class RedisSession : public Session {
 public:
  explicit RedisSession(std::shared_ptr<Client> client) : client_(std::move(client)), o_(client_->options()) {}

  Status Begin(const TxOptions&) override {
    if (in_tx_ || o_.cluster) return in_tx_ ? Status::Error() : Status::NotImplemented();
    in_tx_ = true;
    watching_ = false;
    tx_cmds_.clear();
    tx_count_ = 0;
    return Status::Ok();
  }

  Status Commit() override {
    return Guard([&] {
      if (!in_tx_) return Status::Error();
      in_tx_ = false;
      const std::int64_t deadline = net::DeadlineAfterMs(o_.timeout_ms);
      if (tx_count_ == 0) return watching_ ? Unwatch(deadline) : Status::Ok();
      // MULTI, the queued writes, EXEC: 1 + tx_count_ + 1 replies, EXEC's kept.
      auto enc = [&](std::string& o) {
        AppendCommand(o, "MULTI");
        o.append(tx_cmds_);
        AppendCommand(o, "EXEC");
      };
      Status st = client_->Exchange(client_->NodeFor(""), deadline, enc, tx_count_ + 2, tx_count_ + 1, &reply_);
      if (!st.ok()) return st;
      ReplyCursor cur(reply_);
      Item top = cur.Next();
      if (top.type == '*' && top.nil()) return Status(Status::kAborted);  // a watched key changed
      if (top.type != '*' || top.n != static_cast<std::int64_t>(tx_count_)) return Status::Error();
      for (std::size_t i = 0; i < tx_count_; ++i) {
        if (cur.Next().error()) return Status::Error();
      }
      return Status::Ok();
    });
  }

  Status Abort() override {
    return Guard([&] {
      if (!in_tx_) return Status::Ok();
      in_tx_ = false;
      tx_cmds_.clear();
      tx_count_ = 0;
      return watching_ ? Unwatch(net::DeadlineAfterMs(o_.timeout_ms)) : Status::Ok();
    });
  }

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields, RecordSet* out) override {
    out->Clear();
    return Guard([&] {
      const std::int64_t deadline = Start(table, key);
      if (in_tx_) {
        if (Status st = Watch(deadline); !st.ok()) return st;
      }
      if (o_.layout == Layout::kString) return ReadValue(key, fields, deadline, out);
      Status st = client_->Call(key_, deadline, [&](std::string& o) { AppendHashRead(o, key_, fields); }, &reply_);
      return st.ok() ? reader_.Emit(reply_, key, fields, out) : st;
    });
  }

  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count, const FieldSelector& fields,
              RecordSet* out) override {
    out->Clear();
    if (o_.layout != Layout::kHash) return Status::NotImplemented();
    if (count == 0) return Status::Ok();
    return Guard([&] {
      const std::int64_t deadline = net::DeadlineAfterMs(o_.timeout_ms);
      IndexKey(table, &index_);
      const auto limit = static_cast<std::int64_t>(std::min<std::uint64_t>(count, INT64_MAX));
      Status st = client_->Call(index_, deadline, [&](std::string& o) {
        AppendCommand(o, "ZRANGEBYLEX", index_, resp::Joined{"[", start_key}, "+", "LIMIT", "0", limit);
      }, &reply_);
      if (!st.ok()) return st;
      // Copy the members out: reply_ is reused for the records.
      members_.clear();
      member_ends_.clear();
      ReplyCursor cur(reply_);
      Item top = cur.Next();
      if (top.type != '*') return Status::Error();
      for (std::int64_t i = 0; i < top.n; ++i) {
        members_.append(cur.Next().str);
        member_ends_.push_back(members_.size());
      }
      return FetchMembers(table, fields, deadline, out);
    });
  }

  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      const std::int64_t deadline = Start(table, key);
      return o_.layout == Layout::kString ? UpdateValue(values, deadline) : UpdateHash(values, deadline);
    });
  }

  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      const std::int64_t deadline = Start(table, key);
      return o_.layout == Layout::kString ? InsertValue(values, deadline) : InsertHash(table, key, values, deadline);
    });
  }

  Status Delete(std::string_view table, std::string_view key) override {
    return Guard([&] {
      const std::int64_t deadline = Start(table, key);
      if (o_.layout == Layout::kString) {
        Status st = WriteCall(deadline, ":1\r\n", [&](std::string& o) { AppendCommand(o, "DEL", key_); });
        return st.ok() ? CountReply(reply_) : st;
      }
      return DeleteHash(table, key, deadline);
    });
  }

  // Standalone server: the whole batch in one round trip (one Exchange):
  // with redis.layout=string one MSET (atomic), with the hash layout one
  // pipelined write of Insert's script calls, one per record (each record
  // atomic, the batch best effort). A NOSCRIPT reply (a restarted server)
  // reloads the scripts and sends the batch again (inserts overwrite, so
  // that is safe). Cluster mode: the records' slots differ, so Insert one
  // by one (the default), following redirections.
  Status BatchInsert(std::string_view table, const RecordBatch& batch) override {
    if (o_.cluster) return Session::BatchInsert(table, batch);
    if (batch.empty()) return Status::Ok();
    return Guard([&] {
      const std::int64_t deadline = net::DeadlineAfterMs(o_.timeout_ms);
      const std::size_t n = batch.size();
      if (o_.layout == Layout::kString) {
        Status st = client_->Exchange(0, deadline, [&](std::string& o) {
          resp::AppendHeader(o, '*', 1 + 2 * n);
          AppendArg(o, "MSET");
          for (std::size_t i = 0; i < n; ++i) {
            RecordKey(table, batch.key(i), &key_);
            AppendArg(o, key_);
            EncodeRecord(batch.values(i), &value_);
            AppendArg(o, value_);
          }
        }, 1, 0, &reply_);
        if (!st.ok()) return st;
        return reply_[0] == '+' ? Status::Ok() : Status::Error();
      }
      IndexKey(table, &index_);
      const std::string& sha = client_->sha(kInsert);
      for (int attempt = 0; attempt < 2; ++attempt) {
        Status st = client_->Exchange(0, deadline, [&](std::string& o) {
          for (std::size_t i = 0; i < n; ++i) {
            RecordKey(table, batch.key(i), &key_);
            AppendInsert(o, sha, batch.key(i), batch.values(i), true);
          }
        }, n, 0, &reply_);
        if (!st.ok()) return st;
        ReplyCursor cur(reply_);
        bool noscript = false;
        Status result = Status::Ok();
        for (std::size_t i = 0; i < n; ++i) {
          Item it = cur.Next();
          if (it.type == ':') continue;
          if (it.error() && it.str.starts_with("NOSCRIPT")) noscript = true;
          result = Status::Error();
        }
        if (!noscript || attempt > 0) return result;
        st = client_->LoadScripts(0, deadline);
        if (!st.ok()) return st;
      }
      return Status::Error();
    });
  }

 private:
  // An operation on (table, key) starts: key_ is its record key; returns
  // the operation's deadline.
  std::int64_t Start(std::string_view table, std::string_view key) {
    RecordKey(table, key, &key_);
    return net::DeadlineAfterMs(o_.timeout_ms);
  }

  // ---- string layout: one encoded value per key

  // GET key_: *value views the stored value in reply_.
  Status GetValue(std::int64_t deadline, std::string_view* value) {
    Status st = KeyCommand("GET", deadline);
    if (!st.ok()) return st;
    Item it = ReplyCursor(reply_).Next();
    if (it.type != '$') return Status::Error();
    if (it.nil()) return Status::NotFound();
    *value = it.str;
    return Status::Ok();
  }

  Status ReadValue(std::string_view key, const FieldSelector& fields, std::int64_t deadline, RecordSet* out) {
    std::string_view value;
    Status st = GetValue(deadline, &value);
    if (!st.ok()) return st;
    out->BeginRecord(key);
    if (DecodeRecord(value, fields, out)) return Status::Ok();
    out->Clear();
    return Status::Error();
  }

  Status UpdateValue(std::span<const Field> values, std::int64_t deadline) {
    // The new value: the given fields (replace), or them merged into the stored record.
    if (o_.replace_on_update) {
      EncodeRecord(values, &value_);
    } else {
      if (in_tx_) {
        if (Status st = Watch(deadline); !st.ok()) return st;
      }
      std::string_view stored;
      if (Status st = GetValue(deadline, &stored); !st.ok()) return st;
      if (!MergeRecord(stored, values, &value_)) return Status::Error();
    }
    Status st = WriteCall(deadline, "+OK\r\n", [&](std::string& o) {
      if (o_.blind_set) {
        AppendCommand(o, "SET", key_, value_);
      } else {
        AppendCommand(o, "SET", key_, value_, "XX");
      }
    });
    if (!st.ok()) return st;
    Item it = ReplyCursor(reply_).Next();
    return it.type == '+' ? Status::Ok() : it.nil() ? Status::NotFound() : Status::Error();
  }

  Status InsertValue(std::span<const Field> values, std::int64_t deadline) {
    EncodeRecord(values, &value_);
    Status st = WriteCall(deadline, "+OK\r\n", [&](std::string& o) { AppendCommand(o, "SET", key_, value_); });
    if (!st.ok()) return st;
    return reply_[0] == '+' ? Status::Ok() : Status::Error();
  }

  // ---- hash layout (db/redis/hash_layout.h)

  Status UpdateHash(std::span<const Field> values, std::int64_t deadline) {
    const std::string& sha = client_->sha(kUpdate);
    Status st = WriteCall(deadline, ":1\r\n", [&](std::string& o) {
      resp::AppendHeader(o, '*', 5 + 2 * values.size());
      AppendArg(o, "EVALSHA");
      AppendArg(o, sha);
      AppendArg(o, "1");
      AppendArg(o, key_);
      AppendArg(o, kOrderField);
      AppendFields(o, values);
    });
    return st.ok() ? CountReply(reply_) : st;
  }

  // In a cluster the index lives in another slot: ZADD / ZREM it separately.
  Status InsertHash(std::string_view table, std::string_view key, std::span<const Field> values,
                    std::int64_t deadline) {
    IndexKey(table, &index_);
    const bool index_in_script = !o_.cluster;
    const std::string& sha = client_->sha(kInsert);
    Status st = WriteCall(deadline, ":1\r\n",
                          [&](std::string& o) { AppendInsert(o, sha, key, values, index_in_script); });
    if (!st.ok()) return st;
    if (reply_[0] != ':') return Status::Error();
    if (index_in_script) return Status::Ok();
    st = client_->Call(index_, deadline, [&](std::string& o) { AppendCommand(o, "ZADD", index_, "0", key); }, &reply_);
    if (!st.ok()) return st;
    return reply_[0] == ':' ? Status::Ok() : Status::Error();
  }

  Status DeleteHash(std::string_view table, std::string_view key, std::int64_t deadline) {
    IndexKey(table, &index_);
    const bool index_in_script = !o_.cluster;
    const std::string& sha = client_->sha(kDelete);
    Status st = WriteCall(deadline, ":1\r\n", [&](std::string& o) {
      if (index_in_script) {
        AppendCommand(o, "EVALSHA", sha, "2", key_, index_, key);
      } else {
        AppendCommand(o, "EVALSHA", sha, "1", key_, key);
      }
    });
    if (!st.ok()) return st;
    Status result = CountReply(reply_);
    if (result == Status::Error() || index_in_script) return result;
    st = client_->Call(index_, deadline, [&](std::string& o) { AppendCommand(o, "ZREM", index_, key); }, &reply_);
    if (!st.ok()) return st;
    return reply_[0] == ':' ? result : Status::Error();
  }

  // EVALSHA of the insert script for key_ (and the index index_, when
  // `with_index`): DEL + HSET of exactly these fields (+ ZADD).
  void AppendInsert(std::string& o, const std::string& sha, std::string_view key, std::span<const Field> values,
                    bool with_index) {
    EncodeOrder(values, &order_);
    resp::AppendHeader(o, '*', (with_index ? 8 : 7) + 2 * values.size());
    AppendArg(o, "EVALSHA");
    AppendArg(o, sha);
    AppendArg(o, with_index ? "2" : "1");
    AppendArg(o, key_);
    if (with_index) AppendArg(o, index_);
    AppendArg(o, key);
    AppendArg(o, kOrderField);
    AppendArg(o, order_);
    AppendFields(o, values);
  }

  std::string_view Member(std::size_t i) const {
    const std::size_t begin = i == 0 ? 0 : member_ends_[i - 1];
    return std::string_view(members_).substr(begin, member_ends_[i] - begin);
  }

  Status FetchMembers(std::string_view table, const FieldSelector& fields, std::int64_t deadline, RecordSet* out);

  // ---- transactions and plumbing

  // A write to key_: sent now (reply in reply_), or inside a transaction
  // queued for EXEC with `queued` (the reply a success would have) in reply_.
  template <typename Enc>
  Status WriteCall(std::int64_t deadline, std::string_view queued, Enc&& enc) {
    if (!in_tx_) return client_->Call(key_, deadline, enc, &reply_);
    enc(tx_cmds_);
    ++tx_count_;
    reply_.assign(queued);
    return Status::Ok();
  }
  // WATCH key_ (for the transaction's Commit).
  Status Watch(std::int64_t deadline) {
    Status st = KeyCommand("WATCH", deadline);
    if (!st.ok()) return st;
    watching_ = true;
    return reply_.starts_with("+OK") ? Status::Ok() : Status::Error();
  }
  Status Unwatch(std::int64_t deadline) {
    watching_ = false;
    return client_->Call("", deadline, [&](std::string& o) { AppendCommand(o, "UNWATCH"); }, &reply_);
  }

  // "<cmd> <key_>" to key_'s node; the reply in reply_.
  Status KeyCommand(std::string_view cmd, std::int64_t deadline) {
    return client_->Call(key_, deadline, [&](std::string& o) { AppendCommand(o, cmd, key_); }, &reply_);
  }

  std::shared_ptr<Client> client_;
  const Options& o_;
  HashReader reader_;
  // Reused buffers.
  std::string key_;
  std::string index_;
  std::string value_;
  std::string order_;
  std::string members_;
  std::vector<std::size_t> member_ends_;
  std::vector<std::uint16_t> member_nodes_;
  std::vector<std::size_t> node_counts_;
  std::vector<std::size_t> node_offsets_;
  std::vector<std::string> node_replies_;
  std::string reply_;
  bool in_tx_ = false;        // between Begin and Commit/Abort
  bool watching_ = false;     // a WATCH was sent in this transaction
  std::string tx_cmds_;       // the transaction's queued writes, encoded
  std::size_t tx_count_ = 0;  // how many
};

// Fetches the records of members_ in order: one pipelined write per node
// (all of that node's HGETALL/HMGETs), the node's replies copied back to
// back into node_replies_[node], then emitted in the members' order. A
// record deleted since the index was read is skipped.
Status RedisSession::FetchMembers(std::string_view table, const FieldSelector& fields, std::int64_t deadline,
                                  RecordSet* out) {
  const std::size_t n = member_ends_.size();
  member_nodes_.resize(n);
  node_counts_.assign(client_->node_count(), 0);
  for (std::size_t i = 0; i < n; ++i) {
    RecordKey(table, Member(i), &key_);
    const std::uint16_t node = client_->NodeFor(key_);
    if (node == kNoNode) return Status::Error();
    member_nodes_[i] = node;
    if (node_counts_.size() <= node) node_counts_.resize(node + 1u, 0);
    node_counts_[node]++;
  }
  if (node_replies_.size() < node_counts_.size()) node_replies_.resize(node_counts_.size());
  node_offsets_.assign(node_counts_.size(), 0);
  for (std::size_t node = 0; node < node_counts_.size(); ++node) {
    if (node_counts_[node] == 0) continue;
    auto enc = [&](std::string& o) {
      for (std::size_t i = 0; i < n; ++i) {
        if (member_nodes_[i] != node) continue;
        RecordKey(table, Member(i), &key_);
        AppendHashRead(o, key_, fields);
      }
    };
    Status st = client_->Exchange(static_cast<std::uint16_t>(node), deadline, enc, node_counts_[node], 0,
                                  &node_replies_[node]);
    if (!st.ok()) return st;
  }
  bool redirected = false;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t node = member_nodes_[i];
    const std::string_view rest = std::string_view(node_replies_[node]).substr(node_offsets_[node]);
    const std::string_view r = rest.substr(0, resp::ParseReply(rest));
    node_offsets_[node] += r.size();
    if (r[0] == '-') {
      if (!IsRedirection(r.substr(1))) {
        out->Clear();
        return Status::Error();
      }
      redirected = true;
    } else if (!redirected) {
      if (reader_.Emit(r, Member(i), fields, out) == Status::Error()) {
        out->Clear();
        return Status::Error();
      }
    }
  }
  if (!redirected) return Status::Ok();
  // The cluster is moving slots: fetch one by one, following redirections.
  out->Clear();
  for (std::size_t i = 0; i < n; ++i) {
    RecordKey(table, Member(i), &key_);
    Status st = client_->Call(key_, deadline, [&](std::string& o) { AppendHashRead(o, key_, fields); }, &reply_);
    if (st.ok() && reader_.Emit(reply_, Member(i), fields, out) == Status::Error()) st = Status::Error();
    if (!st.ok()) {
      out->Clear();
      return st;
    }
  }
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Session> NewRedisSession(std::shared_ptr<Client> client) {
  return std::make_unique<RedisSession>(std::move(client));
}

}  // namespace storebench::redis
