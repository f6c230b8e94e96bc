#include "db/ignite/session.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "db/ignite/cache_ops.h"
#include "net/socket.h"

namespace storebench::ignite {
namespace {

constexpr int kMaxCasAttempts = 64;

// The string in a typed value's bytes (a field's value in an object, a SQL
// cell); false for null or another type.
bool StringValue(std::string_view typed, std::string_view* s) {
  Reader r(typed);
  bool present = false;
  return ReadStringOrNull(r, s, &present) && present;
}

class IgniteSession : public Session {
 public:
  explicit IgniteSession(std::shared_ptr<Client> client)
      : client_(std::move(client)), cluster_(client_->cluster()), o_(client_->options()) {
    for (const std::string& n : o_.field_names) names_.emplace_back(FieldId(n), n);
  }

  ~IgniteSession() override {
    if (in_tx_) Abort();
  }

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields, RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      const Table* t = FindTable(table);
      if (t == nullptr) return Status::Error();
      ObjectView obj;
      if (Status st = Get(*t, key, &obj); !st.ok()) return st;
      out->BeginRecord(key);
      return AddFields(obj, fields, out) ? Status::Ok() : Status::Error();
    });
  }

  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count, const FieldSelector& fields,
              RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      const Table* t = FindTable(table);
      if (t == nullptr) return Status::Error();
      if (count == 0) return Status::Ok();
      std::string_view sql = t->scan_all_sql;
      if (!fields.all) {
        sql_.assign("SELECT ").append(o_.key_column);
        for (std::string_view n : fields.names) sql_.append(", ").append(n);
        sql_.append(" FROM ").append(t->name).append(" WHERE ").append(o_.key_column);
        sql_.append(" >= ? ORDER BY ").append(o_.key_column).append(" LIMIT ?");
        sql = sql_;
      }
      SqlArg args[2];
      args[0].text = start_key;
      args[0].is_text = true;
      args[1].i = static_cast<std::int64_t>(std::min<std::uint64_t>(count, INT64_MAX));
      SqlQuery q;
      q.schema = t->name;
      q.sql = sql;
      q.args = args;
      q.arg_count = 2;
      q.page_size = static_cast<std::int32_t>(std::min<std::uint64_t>(count, static_cast<std::uint64_t>(o_.sql_page_size)));
      auto cell = [&](std::int32_t, std::int32_t c, Reader& r) {
        const std::size_t from = r.pos();
        if (!SkipValue(r)) return false;
        std::string_view v;
        const bool is_string = StringValue(r.input().substr(from, r.pos() - from), &v);
        if (c == 0) {
          out->BeginRecord(is_string ? v : std::string_view{});
        } else if (is_string) {
          const std::size_t i = static_cast<std::size_t>(c - 1);
          out->AddField(fields.all ? std::string_view(o_.field_names[i]) : fields.names[i], v);
        }
        return true;
      };
      return Query(*t, q, cell, nullptr);
    });
  }

  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      const Table* t = FindTable(table);
      if (t == nullptr) return Status::Error();
      if (o_.update == UpdateMode::kPut) return Put(*t, key, values);
      if (!in_tx_ && CoversAllFields(values)) {
        SetFields(values);
        const RecordView rec{key, fv_.data(), ids_.data(), fv_.size()};
        return BoolCall(*t, key, [&](Writer& w, std::int64_t id) {
          EncodeReplace(w, id, Target(*t), Ver(), t->type_id, rec);
        });
      }
      return MergeUpdate(*t, key, values);
    });
  }

  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      const Table* t = FindTable(table);
      if (t == nullptr) return Status::Error();
      return Put(*t, key, values);
    });
  }

  Status Delete(std::string_view table, std::string_view key) override {
    return Guard([&] {
      const Table* t = FindTable(table);
      if (t == nullptr) return Status::Error();
      return BoolCall(*t, key, [&](Writer& w, std::int64_t id) { EncodeRemoveKey(w, id, Target(*t), Ver(), key); });
    });
  }

  Status BatchInsert(std::string_view table, const RecordBatch& batch) override {
    return Guard([&] {
      if (batch.empty()) return Status::Ok();
      const Table* t = FindTable(table);
      if (t == nullptr) return Status::Error();
      fv_.clear();
      ids_.clear();
      for (std::size_t i = 0; i < batch.size(); ++i) AppendFields(batch.values(i));
      recs_.clear();
      std::size_t at = 0;
      for (std::size_t i = 0; i < batch.size(); ++i) {
        const std::size_t n = batch.values(i).size();
        recs_.push_back({batch.key(i), fv_.data() + at, ids_.data() + at, n});
        at += n;
      }
      Connection::Reply reply;
      auto enc = [&](Writer& w, std::int64_t id) {
        EncodePutAll(w, id, Target(*t), Ver(), t->type_id, recs_.data(), recs_.size());
      };
      Status st = Send(-1, enc, &reply);
      return st.ok() ? Judge(reply.header) : st;
    });
  }

  Status BatchRead(std::string_view table, std::span<const std::string_view> keys, const FieldSelector& fields,
                   RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      if (keys.empty()) return Status::Ok();
      const Table* t = FindTable(table);
      if (t == nullptr) return Status::Error();
      Connection::Reply reply;
      auto enc = [&](Writer& w, std::int64_t id) { EncodeGetAll(w, id, Target(*t), Ver(), keys.data(), keys.size()); };
      Status st = Send(-1, enc, &reply);
      if (!st.ok()) return st;
      if (!reply.header.ok()) return Judge(reply.header);
      Reader r(reply.payload);
      bool fields_ok = true;
      if (!DecodeGetAll(r, [&](std::string_view key, const ObjectView& obj) {
            out->BeginRecord(key);
            fields_ok = AddFields(obj, fields, out) && fields_ok;
          }) ||
          !fields_ok) {
        return Status::Error();
      }
      // The answer is a map: a key asked for twice comes back once.
      distinct_.assign(keys.begin(), keys.end());
      std::sort(distinct_.begin(), distinct_.end());
      const auto n = static_cast<std::size_t>(std::unique(distinct_.begin(), distinct_.end()) - distinct_.begin());
      return out->record_count() < n ? Status::NotFound() : Status::Ok();
    });
  }

  Status Begin(const TxOptions&) override {
    if (o_.atomicity != Atomicity::kTransactional) return Status::NotImplemented();
    return Guard([&] {
      if (in_tx_) return Status::Error();
      Connection::Reply reply;
      int host = -1;
      auto enc = [&](Writer& w, std::int64_t id) {
        EncodeTxStart(w, id, o_.tx_concurrency, o_.tx_isolation, o_.tx_timeout_ms);
      };
      Status st = client_->CallAt(client_->home(), false, DeadlineNow(), enc, &body_, &reply, &host);
      if (!st.ok()) return st;
      if (!reply.header.ok()) return Status::Error();
      Reader r(reply.payload);
      if (!DecodeTxStart(r, &tx_id_)) return Status::Error();
      in_tx_ = true;
      tx_host_ = host;
      return Status::Ok();
    });
  }

  Status Commit() override { return EndTx(true); }
  Status Abort() override { return EndTx(false); }

  Status Sql(std::string_view sql, std::span<const SqlParam> params, std::uint64_t* rows) override {
    *rows = 0;
    return Guard([&] {
      const Table* t = FindTable(o_.table);
      if (t == nullptr) return Status::Error();
      args_.clear();
      for (const SqlParam& p : params) {
        SqlArg a;
        a.i = p.i;
        a.text = p.text;
        a.is_text = p.is_text;
        args_.push_back(a);
      }
      SqlQuery q;
      q.schema = "PUBLIC";
      q.sql = sql;
      q.args = args_.data();
      q.arg_count = args_.size();
      q.page_size = o_.sql_page_size;
      q.distributed_joins = sql.find(" JOIN ") != std::string_view::npos;
      const bool select = sql.size() >= 6 && std::equal(sql.begin(), sql.begin() + 6, "SELECT",
                                                        [](char a, char b) { return (a & ~0x20) == b; });
      std::uint64_t n = 0;
      std::int64_t changed = 0;
      auto cell = [&](std::int32_t, std::int32_t c, Reader& r) {
        if (c == 0) ++n;
        if (!select && c == 0 && r.remaining() >= 9 && static_cast<unsigned char>(r.input()[r.pos()]) == kTypeLong) {
          r.U8();
          changed = r.I64();
          return r.ok();
        }
        return SkipValue(r);
      };
      Status st = Query(*t, q, cell, nullptr);
      *rows = select ? n : static_cast<std::uint64_t>(std::max<std::int64_t>(changed, 0));
      return st;
    });
  }

 private:
  std::int64_t DeadlineNow() const { return net::DeadlineAfterMs(o_.timeout_ms); }

  ignite::Version Ver() const { return client_->Conn(static_cast<std::size_t>(client_->home())).version(); }

  CacheTarget Target(const Table& t) const { return CacheTarget{t.cache_id, tx_id_, in_tx_}; }

  // The table named `name` (created on first use in this process).
  const Table* FindTable(std::string_view name) {
    if (table_ != nullptr && table_->name == name) return table_;
    std::string error;
    table_ = client_->EnsureTable(name, DeadlineNow(), &error);
    return table_;
  }

  // A request to host `host` (-1: home), or to the transaction's.
  template <typename Enc>
  Status Send(int host, Enc&& enc, Connection::Reply* reply, int* used = nullptr) {
    if (in_tx_) return client_->CallAt(tx_host_, true, DeadlineNow(), enc, &body_, reply, used);
    return client_->CallAt(host, false, DeadlineNow(), enc, &body_, reply, used);
  }
  // A request about `key`: to its primary, or to the transaction's host.
  template <typename Enc>
  Status Keyed(const Table& t, std::string_view key, Enc&& enc, Connection::Reply* reply) {
    if (in_tx_) return Send(tx_host_, enc, reply);
    return Send(client_->HostOf(t, key), enc, reply);
  }
  // The node's verdict: OK, or ERROR (ABORTED inside a transaction: the
  // caller aborts and may retry).
  Status Judge(const ResponseHeader& h) const {
    if (h.ok()) return Status::Ok();
    return in_tx_ ? Status(Status::kAborted) : Status::Error();
  }
  // A keyed request answered by a bool: false -> NOT_FOUND.
  template <typename Enc>
  Status BoolCall(const Table& t, std::string_view key, Enc&& enc) {
    Connection::Reply reply;
    Status st = Keyed(t, key, enc, &reply);
    if (!st.ok()) return st;
    if (!reply.header.ok()) return Judge(reply.header);
    Reader r(reply.payload);
    bool done = false;
    if (!DecodeBool(r, &done)) return Status::Error();
    return done ? Status::Ok() : Status::NotFound();
  }

  void SetFields(std::span<const Field> values) {
    fv_.clear();
    ids_.clear();
    AppendFields(values);
  }
  void AppendFields(std::span<const Field> values) {
    for (const Field& f : values) {
      fv_.push_back({f.name, f.value});
      ids_.push_back(FieldId(f.name));
      if (Name(ids_.back()) == nullptr) {  // a name beyond the configured ones: remember it for reads
        names_.emplace_back(ids_.back(), std::string(f.name));
        cluster_.Learn(ids_.back(), f.name);
      }
    }
  }
  // The name of a field id: this session's, then any session's of the process.
  const std::string* Name(std::int32_t id) {
    for (const auto& [i, n] : names_) {
      if (i == id) return &n;
    }
    std::string n;
    if (!cluster_.NameOf(id, &n)) return nullptr;
    names_.emplace_back(id, std::move(n));
    return &names_.back().second;
  }
  bool CoversAllFields(std::span<const Field> values) const {
    if (values.size() < o_.field_names.size()) return false;
    for (const std::string& n : o_.field_names) {
      bool found = false;
      for (const Field& f : values) found = found || f.name == n;
      if (!found) return false;
    }
    return true;
  }

  Status Put(const Table& t, std::string_view key, std::span<const Field> values) {
    SetFields(values);
    const RecordView rec{key, fv_.data(), ids_.data(), fv_.size()};
    Connection::Reply reply;
    Status st = Keyed(t, key, [&](Writer& w, std::int64_t id) { EncodePut(w, id, Target(t), Ver(), t.type_id, rec); },
                      &reply);
    return st.ok() ? Judge(reply.header) : st;
  }

  // CACHE_GET of `key`: OK with *obj viewing the record in body_, or
  // NOT_FOUND, or the failure.
  Status Get(const Table& t, std::string_view key, ObjectView* obj) {
    Connection::Reply reply;
    Status st = Keyed(t, key, [&](Writer& w, std::int64_t id) { EncodeGet(w, id, Target(t), Ver(), key); }, &reply);
    if (!st.ok()) return st;
    if (!reply.header.ok()) return Judge(reply.header);
    Reader r(reply.payload);
    bool found = false;
    if (!DecodeGetValue(r, obj, &found)) return Status::Error();
    return found ? Status::Ok() : Status::NotFound();
  }

  // Get, merge the given fields into the stored ones, then put (inside a
  // transaction: its locks keep the record) or replace-if-equals (outside:
  // again when another client changed the record in between).
  Status MergeUpdate(const Table& t, std::string_view key, std::span<const Field> values) {
    for (int attempt = 0; attempt < kMaxCasAttempts; ++attempt) {
      ObjectView obj;
      Status st = Get(t, key, &obj);
      if (!st.ok()) return st;
      old_.assign(obj.bytes);
      ObjectView old;
      Reader ro(old_);
      if (!ReadObject(ro, &old)) return Status::Error();
      // The stored fields in their order, each replaced by the given value
      // of the same id, then the given fields the record did not have.
      SetFields(values);
      const std::size_t given = fv_.size();
      taken_.assign(given, 0);
      for (std::size_t i = 0; i < old.field_count; ++i) {
        std::int32_t id;
        std::string_view typed, v;
        if (!ObjectField(old, i, &id, &typed) || !StringValue(typed, &v)) return Status::Error();
        const auto g = std::find(ids_.begin(), ids_.begin() + static_cast<std::ptrdiff_t>(given), id);
        if (g != ids_.begin() + static_cast<std::ptrdiff_t>(given)) {
          const auto at = static_cast<std::size_t>(g - ids_.begin());
          v = fv_[at].value;
          taken_[at] = 1;
        }
        fv_.push_back({{}, v});
        ids_.push_back(id);
      }
      for (std::size_t i = 0; i < given; ++i) {
        if (taken_[i] == 0) {
          const FieldView f = fv_[i];
          const std::int32_t id = ids_[i];
          fv_.push_back(f);
          ids_.push_back(id);
        }
      }
      fv_.erase(fv_.begin(), fv_.begin() + static_cast<std::ptrdiff_t>(given));
      ids_.erase(ids_.begin(), ids_.begin() + static_cast<std::ptrdiff_t>(given));
      const RecordView rec{key, fv_.data(), ids_.data(), fv_.size()};
      Connection::Reply reply;
      if (in_tx_) {
        st = Keyed(t, key, [&](Writer& w, std::int64_t id) { EncodePut(w, id, Target(t), Ver(), t.type_id, rec); },
                   &reply);
        return st.ok() ? Judge(reply.header) : st;
      }
      st = BoolCall(t, key, [&](Writer& w, std::int64_t id) {
        EncodeReplaceIfEquals(w, id, Target(t), Ver(), t.type_id, old_, rec);
      });
      if (st.code() != Status::kNotFound) return st;  // NOT_FOUND here: the record changed, read it again
    }
    return Status::Error();
  }

  // The fields of `obj` (all, or the named ones) into the current record of
  // `out`, in stored order.
  bool AddFields(const ObjectView& obj, const FieldSelector& fields, RecordSet* out) {
    if (!fields.all) {
      sel_ids_.clear();
      for (std::string_view n : fields.names) sel_ids_.push_back(FieldId(n));
    }
    for (std::size_t i = 0; i < obj.field_count; ++i) {
      std::int32_t id;
      std::string_view typed, v;
      if (!ObjectField(obj, i, &id, &typed)) return false;
      if (!StringValue(typed, &v)) continue;
      if (fields.all) {
        const std::string* name = Name(id);
        if (name != nullptr) out->AddField(*name, v);
        continue;
      }
      for (std::size_t k = 0; k < sel_ids_.size(); ++k) {
        if (sel_ids_[k] == id) {
          out->AddField(fields.names[k], v);
          break;
        }
      }
    }
    return true;
  }

  // Runs a SQL fields query and reads every page (cells to `cell`); pages
  // come from the node that holds the cursor.
  template <typename Cell>
  Status Query(const Table& t, const SqlQuery& q, Cell&& cell, std::uint64_t*) {
    Connection::Reply reply;
    int host = -1;
    Status st = Send(-1, [&](Writer& w, std::int64_t id) { EncodeSqlFields(w, id, CacheTarget{t.cache_id, 0, false}, Ver(), q); },
                     &reply, &host);
    if (!st.ok()) return st;
    if (!reply.header.ok()) return Judge(reply.header);
    std::int32_t columns = 0;
    std::int64_t cursor = 0;
    bool more = false;
    Reader r(reply.payload);
    if (!DecodeSqlPage(r, true, &columns, &cursor, &more, cell)) return Status::Error();
    while (more) {
      st = client_->CallAt(host, true, DeadlineNow(),
                           [&](Writer& w, std::int64_t id) { EncodeSqlFieldsPage(w, id, cursor); }, &body_, &reply);
      if (!st.ok()) return st;
      if (!reply.header.ok()) return Judge(reply.header);
      Reader rp(reply.payload);
      if (!DecodeSqlPage(rp, false, &columns, &cursor, &more, cell)) return Status::Error();
    }
    return Status::Ok();
  }

  Status EndTx(bool commit) {
    return Guard([&] {
      if (!in_tx_) return commit ? Status::Error() : Status::Ok();
      in_tx_ = false;
      Connection::Reply reply;
      auto enc = [&](Writer& w, std::int64_t id) { EncodeTxEnd(w, id, tx_id_, commit); };
      Status st = client_->CallAt(tx_host_, true, DeadlineNow(), enc, &body_, &reply);
      if (!st.ok()) return st;
      if (reply.header.ok()) return Status::Ok();
      return commit ? Status(Status::kAborted) : Status::Ok();  // a rollback of a transaction the node ended is fine
    });
  }

  std::shared_ptr<Client> client_;
  Cluster& cluster_;
  const Options& o_;
  const Table* table_ = nullptr;
  std::string body_;  // the last answer
  std::string old_;   // the object a merge update read
  std::string sql_;   // a scan's SQL for named fields
  std::vector<FieldView> fv_;
  std::vector<std::int32_t> ids_;
  std::vector<std::int32_t> sel_ids_;
  std::vector<char> taken_;  // a merge: given field i replaced a stored one
  std::vector<std::pair<std::int32_t, std::string>> names_;  // field id -> name, known to this session
  std::vector<RecordView> recs_;
  std::vector<SqlArg> args_;
  std::vector<std::string_view> distinct_;  // a batch read's keys, sorted
  bool in_tx_ = false;
  int tx_host_ = 0;
  std::int32_t tx_id_ = 0;
};

}  // namespace

std::unique_ptr<Session> NewIgniteSession(std::shared_ptr<Client> client) {
  return std::make_unique<IgniteSession>(std::move(client));
}

}  // namespace storebench::ignite
