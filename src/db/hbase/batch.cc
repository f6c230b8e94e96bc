#include "db/hbase/batch.h"

#include <algorithm>

#include "Filter.pb.h"
#include "db/hbase/cells.h"
#include "db/hbase/routing.h"
#include "net/socket.h"

namespace storebench::hbase {

void FillPut(pb::MutationProto* m, std::string_view key, std::span<const Field> values, const Options& o) {
  m->mutable_row()->assign(key.data(), key.size());
  m->set_mutate_type(pb::MutationProto::PUT);
  m->set_durability(o.durability);
  auto* cvs = m->mutable_column_value();
  pb::MutationProto::ColumnValue* cv = cvs->empty() ? cvs->Add() : cvs->Mutable(0);
  while (cvs->size() > 1) cvs->RemoveLast();
  cv->mutable_family()->assign(o.family);
  auto* qvs = cv->mutable_qualifier_value();
  qvs->Clear();  // keeps the cleared objects for reuse
  for (const Field& f : values) {
    auto* qv = qvs->Add();
    qv->mutable_qualifier()->assign(f.name.data(), f.name.size());
    qv->mutable_value()->assign(f.value.data(), f.value.size());
  }
  if (values.empty()) {
    auto* qv = qvs->Add();
    qv->mutable_qualifier()->clear();
    qv->mutable_value()->clear();
  }
}

bool AppendRow(ResultCells* cells, RecordSet* out) {
  CellView c;
  if (!cells->Next(&c)) return false;
  out->BeginRecord(c.row);
  do {
    if (!c.qualifier.empty()) out->AddField(c.qualifier, c.value);
  } while (cells->Next(&c));
  return true;
}

bool RecordKeeps(std::span<const Field> values, std::string_view qualifier) {
  if (values.empty()) return qualifier.empty();
  for (const Field& f : values) {
    if (f.name == qualifier) return true;
  }
  return false;
}

Status BatchWriter::Insert(std::string_view table, const RecordBatch& batch, std::int64_t deadline, bool replace,
                           std::size_t* written) {
  if (written != nullptr) *written = 0;
  if (stale_.size() < batch.size()) stale_.resize(batch.size());
  for (std::size_t begin = 0; begin < batch.size();) {
    // The next request's records: at most kMaxRequestRows, and no more once
    // kMaxRequestBytes are reached (a record larger than that goes alone).
    std::size_t end = begin;
    std::size_t bytes = 0;
    while (end < batch.size() && end - begin < kMaxRequestRows && bytes < kMaxRequestBytes) {
      bytes += batch.key(end).size();
      for (const Field& f : batch.values(end)) bytes += f.name.size() + f.value.size();
      ++end;
    }
    // Each request has a whole timeout of its own (a flush of a 12 MB write
    // buffer is 3 or more requests, each of which may wait on a busy server).
    const std::int64_t request_deadline =
        begin == 0 ? deadline : std::max(deadline, net::DeadlineAfterMs(client_->options().timeout_ms));
    for (int attempt = 0;; ++attempt) {
      const Status st = Once(table, batch, begin, end, request_deadline, replace);
      if (st.ok()) break;
      if (st.code() != Status::kUnexpectedState && st.code() != Status::kAborted) return st;
      client_->cluster().retries.fetch_add(1, std::memory_order_relaxed);
      if (!Client::Backoff(attempt, request_deadline)) return Status::Error();
    }
    begin = end;
    if (written != nullptr) *written = end;
  }
  return Status::Ok();
}

template <typename KeyAt>
Status BatchWriter::LocateAll(std::string_view table, std::size_t n, KeyAt key_at, std::int64_t deadline) {
  regions_.clear();
  region_of_.clear();
  for (std::size_t i = 0; i < n; ++i) {
    if (Status st = client_->Locate(table, key_at(i), deadline, &scratch_); !st.ok()) return st;
    std::size_t r = 0;
    while (r < regions_.size() && regions_[r].name != scratch_.name) ++r;
    if (r == regions_.size()) regions_.push_back(scratch_);
    region_of_.push_back(r);
  }
  return Status::Ok();
}

pb::RegionAction* BatchWriter::NewAction(std::size_t r) {
  const int server = regions_[r].server;
  std::size_t s = 0;
  while (s < servers_used_.size() && servers_used_[s] != server) ++s;
  if (s == servers_used_.size()) {
    servers_used_.push_back(server);
    if (requests_.size() < servers_used_.size()) requests_.resize(servers_used_.size());
    requests_[s].Clear();
  }
  pb::RegionAction* ra = requests_[s].add_regionaction();
  ra->mutable_region()->set_type(pb::RegionSpecifier::REGION_NAME);
  ra->mutable_region()->set_value(regions_[r].name);
  return ra;
}

Status BatchWriter::Once(std::string_view table, const RecordBatch& batch, std::size_t begin, std::size_t end,
                         std::int64_t deadline, bool replace) {
  if (Status st = LocateAll(table, end - begin, [&](std::size_t i) { return batch.key(begin + i); }, deadline);
      !st.ok()) {
    return st;
  }
  const Options& o = client_->options();
  for (std::size_t i = begin; i < end; ++i) stale_[i].clear();

  if (replace) {
    // Which rows hold columns the new record drops: one key-only Get each.
    servers_used_.clear();
    for (std::size_t r = 0; r < regions_.size(); ++r) {
      pb::RegionAction* ra = NewAction(r);
      for (std::size_t i = begin; i < end; ++i) {
        if (region_of_[i - begin] != r) continue;
        pb::Action* a = ra->add_action();
        a->set_index(static_cast<std::uint32_t>(i));
        pb::Get* g = a->mutable_get();
        g->mutable_row()->assign(batch.key(i).data(), batch.key(i).size());
        g->add_column()->set_family(o.family);
        g->mutable_filter()->set_name("org.apache.hadoop.hbase.filter.KeyOnlyFilter");
        pb::KeyOnlyFilter kof;
        kof.set_len_as_val(false);
        kof.SerializeToString(g->mutable_filter()->mutable_serialized_filter());
      }
    }
    if (Status st = SendAll(batch, deadline, true); !st.ok()) return st;
  }

  servers_used_.clear();
  for (std::size_t r = 0; r < regions_.size(); ++r) {
    pb::RegionAction* plain = nullptr;
    for (std::size_t i = begin; i < end; ++i) {
      if (region_of_[i - begin] != r) continue;
      if (stale_[i].empty()) {
        if (plain == nullptr) plain = NewAction(r);
        pb::Action* a = plain->add_action();
        a->set_index(static_cast<std::uint32_t>(i));
        FillPut(a->mutable_mutation(), batch.key(i), batch.values(i), o);
        continue;
      }
      pb::RegionAction* ra = NewAction(r);  // this row alone, atomically
      ra->set_atomic(true);
      pb::Action* del = ra->add_action();
      del->set_index(0);
      pb::MutationProto* m = del->mutable_mutation();
      m->mutable_row()->assign(batch.key(i).data(), batch.key(i).size());
      m->set_mutate_type(pb::MutationProto::DELETE);
      m->set_durability(o.durability);
      pb::MutationProto::ColumnValue* cv = m->add_column_value();
      cv->set_family(o.family);
      for (const std::string& q : stale_[i]) {
        auto* qv = cv->add_qualifier_value();
        qv->set_qualifier(q);
        qv->set_delete_type(pb::MutationProto::DELETE_MULTIPLE_VERSIONS);
      }
      pb::Action* put = ra->add_action();
      put->set_index(1);
      FillPut(put->mutable_mutation(), batch.key(i), batch.values(i), o);
    }
  }
  return SendAll(batch, deadline, false);
}

Status BatchWriter::Read(std::string_view table, std::span<const std::string_view> keys, const FieldSelector& fields,
                         RecordSet* out, std::int64_t deadline) {
  const Options& o = client_->options();
  for (int attempt = 0;; ++attempt) {
    out->Clear();
    if (keys.empty()) return Status::Ok();
    Status st = LocateAll(table, keys.size(), [&](std::size_t i) { return keys[i]; }, deadline);
    if (st.ok()) {
      servers_used_.clear();
      for (std::size_t r = 0; r < regions_.size(); ++r) {
        pb::RegionAction* ra = NewAction(r);
        for (std::size_t i = 0; i < keys.size(); ++i) {
          if (region_of_[i] != r) continue;
          pb::Action* a = ra->add_action();
          a->set_index(static_cast<std::uint32_t>(i));
          pb::Get* g = a->mutable_get();
          g->mutable_row()->assign(keys[i].data(), keys[i].size());
          pb::Column* c = g->add_column();
          c->mutable_family()->assign(o.family);
          if (!fields.all) {
            for (std::string_view n : fields.names) c->add_qualifier()->assign(n.data(), n.size());
          }
        }
      }
      std::size_t found = 0;
      st = Status::Ok();
      for (std::size_t s = 0; s < servers_used_.size() && st.ok(); ++s) {
        client_->cluster().multi_requests.fetch_add(1, std::memory_order_relaxed);
        st = client_->Send(servers_used_[s], "Multi", requests_[s], &resp_, deadline, &buf_);
        if (st.code() == Status::kServiceUnavailable) client_->cluster().regions().DropServer(servers_used_[s]);
        if (!st.ok()) break;
        // The block holds the cells of every result, in order.
        CellBlockReader block = BlockOf(buf_.resp);
        for (const pb::RegionActionResult& rr : resp_.regionactionresult()) {
          std::string_view exception = rr.has_exception() ? std::string_view(rr.exception().name()) : std::string_view();
          for (const pb::ResultOrException& roe : rr.resultorexception()) {
            if (roe.has_exception()) {
              if (exception.empty()) exception = roe.exception().name();
              continue;
            }
            ResultCells cells(roe.result(), &block);
            if (AppendRow(&cells, out)) ++found;
            if (block.failed()) return Status::Error();
          }
          if (exception.empty()) continue;
          client_->cluster().CountException(exception);
          if (IsRegionMoved(exception)) {
            client_->cluster().regions().DropServer(servers_used_[s]);
            st = Status(Status::kUnexpectedState);
          } else if (IsRetryable(exception)) {
            st = Status(Status::kAborted);
          } else {
            return Status::Error();
          }
          break;
        }
      }
      if (st.ok()) return found == keys.size() ? Status::Ok() : Status::NotFound();
    }
    if (st.code() != Status::kUnexpectedState && st.code() != Status::kAborted) return st;
    client_->cluster().retries.fetch_add(1, std::memory_order_relaxed);
    if (!Client::Backoff(attempt, deadline)) return Status::Error();
  }
}

Status BatchWriter::SendAll(const RecordBatch& batch, std::int64_t deadline, bool gets) {
  Status result = Status::Ok();
  for (std::size_t s = 0; s < servers_used_.size(); ++s) {
    const pb::MultiRequest& req = requests_[s];
    client_->cluster().multi_requests.fetch_add(1, std::memory_order_relaxed);
    Status st = client_->Send(servers_used_[s], "Multi", req, &resp_, deadline, &buf_);
    if (st.code() == Status::kServiceUnavailable) client_->cluster().regions().DropServer(servers_used_[s]);
    if (!st.ok()) return st;
    if (resp_.regionactionresult_size() != req.regionaction_size()) return Status::Error();
    CellBlockReader block = BlockOf(buf_.resp);  // the cells of every result, in order
    for (int k = 0; k < resp_.regionactionresult_size(); ++k) {
      const pb::RegionActionResult& rr = resp_.regionactionresult(k);
      std::string_view exception = rr.has_exception() ? std::string_view(rr.exception().name()) : std::string_view();
      for (const pb::ResultOrException& roe : rr.resultorexception()) {
        if (exception.empty() && roe.has_exception()) exception = roe.exception().name();
        ResultCells cells(roe.result(), &block);
        if (!gets || roe.has_exception() || roe.index() >= batch.size()) {
          if (!cells.Skip()) return Status::Error();
          continue;
        }
        const std::size_t i = roe.index();
        CellView c;
        while (cells.Next(&c)) {
          if (!RecordKeeps(batch.values(i), c.qualifier)) stale_[i].emplace_back(c.qualifier);
        }
        if (block.failed()) return Status::Error();
      }
      if (exception.empty()) continue;
      client_->cluster().CountException(exception);
      if (IsRegionMoved(exception)) {
        const pb::RegionAction& ra = req.regionaction(k);
        for (const Region& r : regions_) {
          if (r.name == ra.region().value()) client_->cluster().regions().DropServer(r.server);
        }
        result = Status(Status::kUnexpectedState);
      } else if (IsRetryable(exception)) {
        if (result.ok()) result = Status(Status::kAborted);
      } else {
        return Status::Error();
      }
    }
  }
  return result;
}

}  // namespace storebench::hbase
