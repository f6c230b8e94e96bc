#include "db/hbase/session.h"

#include <vector>

#include "Filter.pb.h"
#include "db/hbase/batch.h"
#include "db/hbase/cells.h"
#include "net/socket.h"

namespace storebench::hbase {
namespace {

class HBaseSession : public Session {
 public:
  explicit HBaseSession(std::shared_ptr<Client> client)
      : client_(std::move(client)), opts_(client_->options()), batch_(client_.get()) {}

  Status BatchInsert(std::string_view table, const RecordBatch& batch) override {
    return Guard([&] {
      if (Status st = Flush(); !st.ok()) return st;
      return batch_.Insert(table, batch, Deadline(), opts_.insert == InsertMode::kReplace);
    });
  }

  Status BatchRead(std::string_view table, std::span<const std::string_view> keys, const FieldSelector& fields,
                   RecordSet* out) override {
    return Guard([&] { return batch_.Read(table, keys, fields, out, Deadline()); });
  }

  // Sends what is still buffered when the runner's Flush did not (a session
  // used outside the runner); after it there is nothing left to send.
  ~HBaseSession() override { Flush(); }

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields, RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      pb::Get* get = get_req_.mutable_get();
      get->mutable_row()->assign(key.data(), key.size());
      SetColumns(get->mutable_column(), fields);
      Status st = client_->RegionCall(table, key, "Get", &get_req_, &get_resp_, Deadline(), &region_, &buf_);
      if (!st.ok()) return st;
      CellBlockReader block = BlockOf(buf_.resp);
      ResultCells cells(get_resp_.result(), &block);
      const bool found = AppendRow(&cells, out);
      if (block.failed()) return Status::Error();
      return found ? Status::Ok() : Status::NotFound();
    });
  }

  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count, const FieldSelector& fields,
              RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      const std::int64_t deadline = Deadline();
      start_.assign(start_key.data(), start_key.size());
      bool exclusive = false;  // continuing after a row already read
      while (out->record_count() < count) {
        scan_req_.Clear();
        pb::Scan* scan = scan_req_.mutable_scan();
        scan->mutable_start_row()->assign(start_);
        if (exclusive) scan->set_include_start_row(false);
        SetColumns(scan->mutable_column(), fields);
        const std::uint64_t want = count - out->record_count();
        const auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(want, 1u << 30));
        scan->set_caching(n);
        scan_req_.set_number_of_rows(n);
        scan_req_.set_limit_of_rows(n);
        scan_req_.set_close_scanner(true);
        Status st = client_->RegionCall(table, start_, "Scan", &scan_req_, &scan_resp_, deadline, &region_, &buf_);
        if (!st.ok()) return st;
        CellBlockReader block = BlockOf(buf_.resp);
        const int results = ScanResultCount(scan_resp_);
        std::string_view last;  // the last row read (HBase has no empty row key)
        for (int i = 0; i < results && out->record_count() < count; ++i) {
          ResultCells cells = ScanResult(scan_resp_, i, &block);
          if (AppendRow(&cells, out)) last = out->key(out->record_count() - 1);
          if (block.failed()) return Status::Error();
        }
        if (out->record_count() >= count) break;
        if (results > 0 && scan_resp_.more_results_in_region()) {
          // The server stopped early (size limits): go on after the last row.
          if (last.empty()) break;
          start_.assign(last);
          exclusive = true;
          continue;
        }
        if (region_.end_key.empty()) break;  // the table's last region
        start_.assign(region_.end_key);
        exclusive = false;
      }
      return Status::Ok();
    });
  }

  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override {
    if (opts_.client_buffering) return Buffer(table, key, values);
    return Guard([&] {
      if (opts_.update_put) return Put(table, key, values);
      FillPut(upd_req_.mutable_mutation(), key, values, opts_);
      pb::Condition* c = upd_req_.mutable_condition();
      c->mutable_row()->assign(key.data(), key.size());
      if (!c->has_filter()) {
        c->mutable_filter()->set_name("org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter");
        c->mutable_filter()->set_serialized_filter("");
      }
      Status st = client_->RegionCall(table, key, "Mutate", &upd_req_, &mut_resp_, Deadline(), &region_, &buf_);
      if (!st.ok()) return st;
      return mut_resp_.processed() ? Status::Ok() : Status::NotFound();
    });
  }

  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override {
    if (opts_.client_buffering) return Buffer(table, key, values);
    return Guard([&] {
      if (opts_.insert == InsertMode::kPut) return Put(table, key, values);
      // Replace: the columns the row has now that the record does not keep
      // are deleted in the same atomic row mutation as the put.
      const std::int64_t deadline = Deadline();
      pb::Get* get = keys_req_.mutable_get();
      get->mutable_row()->assign(key.data(), key.size());
      SetColumns(get->mutable_column(), FieldSelector{});
      if (!get->has_filter()) {
        pb::KeyOnlyFilter kof;
        kof.set_len_as_val(false);
        get->mutable_filter()->set_name("org.apache.hadoop.hbase.filter.KeyOnlyFilter");
        kof.SerializeToString(get->mutable_filter()->mutable_serialized_filter());
      }
      Status st = client_->RegionCall(table, key, "Get", &keys_req_, &get_resp_, deadline, &region_, &buf_);
      if (!st.ok()) return st;
      stale_.clear();  // views into buf_ (or get_resp_), used before the next call
      CellBlockReader block = BlockOf(buf_.resp);
      ResultCells cells(get_resp_.result(), &block);
      CellView c;
      while (cells.Next(&c)) {
        if (!RecordKeeps(values, c.qualifier)) stale_.push_back(c.qualifier);
      }
      if (block.failed()) return Status::Error();
      if (stale_.empty()) return Put(table, key, values, deadline);
      pb::RegionAction* ra = multi_req_.mutable_regionaction()->empty() ? multi_req_.add_regionaction()
                                                                         : multi_req_.mutable_regionaction(0);
      ra->set_atomic(true);
      auto* actions = ra->mutable_action();
      while (actions->size() < 2) actions->Add();
      pb::Action* del = actions->Mutable(0);
      del->set_index(0);
      pb::MutationProto* m = del->mutable_mutation();
      m->mutable_row()->assign(key.data(), key.size());
      m->set_mutate_type(pb::MutationProto::DELETE);
      m->set_durability(opts_.durability);
      auto* cvs = m->mutable_column_value();
      pb::MutationProto::ColumnValue* cv = cvs->empty() ? cvs->Add() : cvs->Mutable(0);
      cv->mutable_family()->assign(opts_.family);
      cv->mutable_qualifier_value()->Clear();
      for (std::string_view q : stale_) {
        auto* qv = cv->add_qualifier_value();
        qv->mutable_qualifier()->assign(q.data(), q.size());
        qv->set_delete_type(pb::MutationProto::DELETE_MULTIPLE_VERSIONS);
      }
      pb::Action* put = actions->Mutable(1);
      put->set_index(1);
      FillPut(put->mutable_mutation(), key, values, opts_);
      st = client_->RegionCall(table, key, "Multi", ra, &multi_resp_, deadline, &region_, &buf_, &multi_req_);
      if (!st.ok()) return st;
      if (multi_resp_.regionactionresult_size() != 1) return Status::Error();
      const pb::RegionActionResult& r = multi_resp_.regionactionresult(0);
      if (r.has_exception()) {
        client_->cluster().CountException(r.exception().name());
        return Status::Error();
      }
      for (const pb::ResultOrException& roe : r.resultorexception()) {
        if (roe.has_exception()) {
          client_->cluster().CountException(roe.exception().name());
          return Status::Error();
        }
      }
      return Status::Ok();
    });
  }

  Status Delete(std::string_view table, std::string_view key) override {
    return Guard([&] {
      if (Status st = Flush(); !st.ok()) return st;  // in order with the buffered puts
      pb::MutationProto* m = mut_req_.mutable_mutation();
      m->mutable_row()->assign(key.data(), key.size());
      m->set_mutate_type(pb::MutationProto::DELETE);
      m->mutable_column_value()->Clear();
      m->set_durability(opts_.durability);
      return client_->RegionCall(table, key, "Mutate", &mut_req_, &mut_resp_, Deadline(), &region_, &buf_);
    });
  }

  // Sends the write buffer (plain puts, as YCSB's buffered mutator does);
  // the runner calls it at the end of the client's operations, timed.
  Status Flush() override {
    return Guard([&] {
      if (buffer_.empty()) return Status::Ok();
      std::size_t written = 0;
      Status st = batch_.Insert(buffer_table_, buffer_, Deadline(), false, &written);
      if (!st.ok()) {
        client_->cluster().buffered_rows_failed.fetch_add(buffer_.size() - written, std::memory_order_relaxed);
      }
      buffer_.Clear();
      buffered_bytes_ = 0;
      return st;
    });
  }

 private:
  // hbase.clientbuffering: the put joins the session's write buffer (BATCHED_OK);
  // a full buffer is sent as Multi batches of puts, and the operation that
  // filled it answers for the flush.
  Status Buffer(std::string_view table, std::string_view key, std::span<const Field> values) {
    return Guard([&] {
      if (!buffer_.empty() && table != buffer_table_) {
        if (Status st = Flush(); !st.ok()) return st;
      }
      if (buffer_.empty()) buffer_table_.assign(table.data(), table.size());
      buffer_.Add(key, values);
      buffered_bytes_ += key.size();
      for (const Field& f : values) buffered_bytes_ += f.name.size() + f.value.size();
      if (buffered_bytes_ < static_cast<std::uint64_t>(opts_.write_buffer_bytes)) return Status(Status::kBatchedOk);
      return Flush();
    });
  }

  // One Mutate PUT of the given columns.
  Status Put(std::string_view table, std::string_view key, std::span<const Field> values, std::int64_t deadline = 0) {
    FillPut(mut_req_.mutable_mutation(), key, values, opts_);
    return client_->RegionCall(table, key, "Mutate", &mut_req_, &mut_resp_, deadline != 0 ? deadline : Deadline(),
                               &region_, &buf_);
  }

  // The family, and the named qualifiers when not all fields are wanted.
  void SetColumns(google::protobuf::RepeatedPtrField<pb::Column>* columns, const FieldSelector& fields) {
    columns->Clear();
    pb::Column* c = columns->Add();
    c->mutable_family()->assign(opts_.family);
    c->mutable_qualifier()->Clear();
    if (!fields.all) {
      for (std::string_view n : fields.names) c->add_qualifier()->assign(n.data(), n.size());
    }
  }

  std::int64_t Deadline() const { return net::DeadlineAfterMs(opts_.timeout_ms); }

  std::shared_ptr<Client> client_;
  const Options& opts_;
  BatchWriter batch_;
  RecordBatch buffer_;  // hbase.clientbuffering's write buffer
  std::string buffer_table_;
  std::uint64_t buffered_bytes_ = 0;
  CallBuffers buf_;
  Region region_;
  std::string start_;
  pb::GetRequest get_req_;
  pb::GetResponse get_resp_;
  pb::MutateRequest mut_req_;
  pb::MutateRequest upd_req_;  // Update's: with its condition (the row exists)
  pb::GetRequest keys_req_;    // Insert's (replace): the row's column names
  pb::MutateResponse mut_resp_;
  pb::MultiRequest multi_req_;
  pb::MultiResponse multi_resp_;
  std::vector<std::string_view> stale_;
  pb::ScanRequest scan_req_;
  pb::ScanResponse scan_resp_;
};

}  // namespace

std::unique_ptr<Session> NewHBaseSession(std::shared_ptr<Client> client) {
  return std::make_unique<HBaseSession>(std::move(client));
}

}  // namespace storebench::hbase
