#include "db/aerospike/session.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "db/hex_name.h"
#include "net/socket.h"

namespace storebench::aerospike {
namespace {

class AerospikeSession final : public Session {
 public:
  explicit AerospikeSession(std::shared_ptr<Client> client)
      : client_(std::move(client)), cluster_(client_->cluster()), o_(client_->options()) {}

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields,
              RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      MsgHeader h;
      // The server answers named bins in the request's order: a selection of
      // several reads every bin and keeps the selected, in stored order.
      const bool named = !fields.all && fields.names.size() == 1;
      h.info1 = named ? kInfo1Read : (kInfo1Read | kInfo1GetAll);
      const Status st = Exchange(table, key, h, false, [&](MessageWriter& w) {
        if (named) w.Op(kOpRead, 0, BinName(fields.names[0]), {});
      });
      if (!st.ok()) return st;
      out->BeginRecord(key);
      AddBins(reply_.ops, fields, out);
      return st;
    });
  }

  Status Scan(std::string_view, std::string_view, std::uint64_t, const FieldSelector&,
              RecordSet* out) override {
    out->Clear();
    return Status::NotImplemented();
  }

  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override {
    MsgHeader h;
    h.info2 = kInfo2Write;
    h.info3 = o_.update == UpdateMode::kUpdateOnly ? kInfo3UpdateOnly : kInfo3ReplaceOnly;
    return Write(table, key, h, values);
  }

  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override {
    MsgHeader h;
    h.info2 = kInfo2Write;
    if (o_.insert == InsertMode::kReplace) {
      h.info3 = kInfo3CreateOrReplace;
    } else {
      h.info2 |= kInfo2CreateOnly;
    }
    return Write(table, key, h, values);
  }

  Status Delete(std::string_view table, std::string_view key) override {
    return Guard([&] {
      MsgHeader h;
      h.info2 = kInfo2Write | kInfo2Delete;
      return Exchange(table, key, h, o_.send_key, [](MessageWriter&) {});
    });
  }

  Status BatchRead(std::string_view table, std::span<const std::string_view> keys,
                   const FieldSelector& fields, RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      const std::size_t n = keys.size();
      digests_.resize(n);
      nodes_.assign(n, kNoNode);
      for (std::size_t i = 0; i < n; ++i) {
        digests_[i] = StringKeyDigest(table, keys[i]);
        nodes_[i] = cluster_.Master(PartitionId(digests_[i]));
        if (nodes_[i] == kNoNode) {
          cluster_.TendSoon();
          return Status(Status::kServiceUnavailable);
        }
      }
      Status result = Status::Ok();
      const bool named = !fields.all && fields.names.size() == 1;
      const std::int64_t deadline = net::DeadlineAfterMs(o_.timeout_ms);
      // One request per node, for the keys whose master it is.
      for (std::size_t first = 0; first < n; ++first) {
        const std::uint16_t node = nodes_[first];
        if (node == kNoNode) continue;  // sent already
        rows_.clear();
        row_digests_.clear();
        for (std::size_t i = first; i < n; ++i) {
          if (nodes_[i] != node) continue;
          rows_.push_back(static_cast<std::uint32_t>(i));
          row_digests_.push_back(digests_[i]);
          nodes_[i] = kNoNode;
        }
        auto write = [&](std::string& buf) {
          MessageWriter w(buf);
          MsgHeader h;
          h.info1 = kInfo1Read | kInfo1Batch;
          h.transaction_ttl = static_cast<std::uint32_t>(o_.timeout_ms);
          w.Begin(h);
          // (One bin by name; several: every bin, the selected kept, as Read.)
          const std::string_view bin = named ? BinName(fields.names[0]) : std::string_view();
          AppendBatchField(
              w, scratch_, o_.ns, table, rows_, row_digests_,
              named ? std::span<const std::string_view>(&bin, 1) : std::span<const std::string_view>());
          w.Finish();
        };
        const Status st = client_->Call(node, deadline, write, true, &bodies_);
        if (!st.ok()) return Failed(st);
        std::string_view rest = bodies_;
        while (!rest.empty()) {
          Reply r;
          const std::size_t m = ParseMessage(rest, &r);
          if (m == kMalformed) return Status::Error();  // (TakeReply has checked them)
          rest.remove_prefix(m);
          const std::uint8_t rc = r.header.result_code;
          if (r.header.info3 & kInfo3Last) {
            if (rc != kResultOk) return Judge(rc);
            break;
          }
          cluster_.CountResult(rc);
          const std::uint32_t index = r.header.transaction_ttl;
          if (rc == kResultNotFound) {
            result = Status::NotFound();
          } else if (rc != kResultOk) {
            return Judge(rc);
          } else if (index < n) {
            out->BeginRecord(keys[index]);
            AddBins(r.ops, fields, out);
          } else {
            return Status::Error();  // a row we did not ask for
          }
        }
      }
      return result;
    });
  }

 private:
  Status Write(std::string_view table, std::string_view key, const MsgHeader& h,
               std::span<const Field> values) {
    return Guard([&] {
      const std::uint8_t particle = o_.blob_bins ? kParticleBlob : kParticleString;
      return Exchange(table, key, h, o_.send_key, [&](MessageWriter& w) {
        if (values.empty()) w.Op(kOpWrite, particle, kEmptyRecordBin, {});
        for (const Field& f : values) w.Op(kOpWrite, particle, BinName(f.name), f.value);
      });
    });
  }

  // Sends one single-record request for `key` to its partition's master and
  // parses the reply into reply_; the status of its result code.
  template <typename Ops>
  Status Exchange(std::string_view table, std::string_view key, MsgHeader h, bool with_key, Ops&& ops) {
    const Digest d = StringKeyDigest(table, key);
    const std::uint16_t node = cluster_.Master(PartitionId(d));
    if (node == kNoNode) {
      cluster_.TendSoon();
      return Status(Status::kServiceUnavailable);
    }
    h.transaction_ttl = static_cast<std::uint32_t>(o_.timeout_ms);
    auto write = [&](std::string& buf) {
      MessageWriter w(buf);
      w.Begin(h);
      w.Field(kFieldNamespace, o_.ns);
      w.Field(kFieldSet, table);
      w.DigestField(d);
      if (with_key) {
        key_field_.assign(1, static_cast<char>(kParticleString));
        key_field_.append(key);
        w.Field(kFieldKey, key_field_);
      }
      ops(w);
      w.Finish();
    };
    const Status st = client_->Call(node, net::DeadlineAfterMs(o_.timeout_ms), write, false, &bodies_);
    if (!st.ok()) return Failed(st);
    if (ParseMessage(bodies_, &reply_) == kMalformed) return Status::Error();
    cluster_.CountResult(reply_.header.result_code);
    return Judge(reply_.header.result_code);
  }

  // The status of a result code; one that says the cluster changed asks for a tend.
  Status Judge(std::uint8_t rc) {
    const Status st = StatusOf(rc);
    if (st.code() == Status::kServiceUnavailable) cluster_.TendSoon();
    return st;
  }

  // A request that got no reply.
  Status Failed(Status st) {
    cluster_.network_errors.fetch_add(1, std::memory_order_relaxed);
    cluster_.TendSoon();
    return st;
  }

  // The bin of field `name`: the name itself, or, for one Aerospike refuses
  // (a NUL byte) or that would read back as another (the hidden bin's, an
  // "x_" one), "x_" + its hex (db/hex_name.h). Valid until the next call.
  std::string_view BinName(std::string_view name) {
    if (name != kEmptyRecordBin && name.find('\0') == std::string_view::npos && !name.starts_with("x_"))
      return name;
    bin_name_.clear();
    AppendHexName(name, &bin_name_);
    return bin_name_;
  }
  // The field a bin stands for (BinName's inverse).
  std::string_view FieldName(std::string_view bin) {
    if (!bin.starts_with("x_")) return bin;
    field_name_.clear();
    return AppendHexBytes(bin.substr(2), &field_name_) ? std::string_view(field_name_) : bin;
  }

  // The bins of a reply into the current record, but the hidden one; those
  // selected only (every bin was read for a selection of several).
  void AddBins(std::string_view ops, const FieldSelector& fields, RecordSet* out) {
    BinOp op;
    while (NextOp(&ops, &op)) {
      if (op.name == kEmptyRecordBin) continue;
      const std::string_view name = FieldName(op.name);
      if (!fields.all && std::find(fields.names.begin(), fields.names.end(), name) == fields.names.end())
        continue;
      out->AddField(name, op.value);
    }
  }

  std::shared_ptr<Client> client_;
  Cluster& cluster_;
  const Options& o_;
  std::string bodies_;      // the last reply's message bodies
  Reply reply_;             // views into bodies_
  std::string key_field_;   // the KEY field (aerospike.sendkey)
  std::string bin_name_;    // BinName's spelling
  std::string field_name_;  // FieldName's
  std::string scratch_;     // a batch request's BATCH field
  std::vector<Digest> digests_;
  std::vector<std::uint16_t> nodes_;
  std::vector<std::uint32_t> rows_;
  std::vector<Digest> row_digests_;
};

}  // namespace

std::unique_ptr<Session> NewAerospikeSession(std::shared_ptr<Client> client) {
  return std::make_unique<AerospikeSession>(std::move(client));
}

}  // namespace storebench::aerospike
