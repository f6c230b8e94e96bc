#include "db/redis/hash_layout.h"

#include <charconv>
#include <cstdint>

#include "db/redis/resp.h"

namespace storebench::redis {

void RecordKey(std::string_view table, std::string_view key, std::string* out) {
  out->assign(table);
  *out += ':';
  out->append(key);
}

void IndexKey(std::string_view table, std::string* out) {
  out->assign(table);
  out->append(":_index");
}

void EncodeOrder(std::span<const Field> values, std::string* out) {
  out->clear();
  for (const Field& f : values) {
    char buf[24];
    char* p = std::to_chars(buf, buf + sizeof buf, f.name.size()).ptr;
    *p++ = ':';
    out->append(buf, static_cast<std::size_t>(p - buf));
    out->append(f.name);
  }
}

void AppendHashRead(std::string& out, std::string_view key, const FieldSelector& fields) {
  if (fields.all) return resp::AppendCommand(out, "HGETALL", key);
  resp::AppendHeader(out, '*', 3 + fields.names.size());
  resp::AppendArg(out, "HMGET");
  resp::AppendArg(out, key);
  resp::AppendArg(out, kOrderField);
  for (std::string_view n : fields.names) resp::AppendArg(out, n);
}

Status HashReader::Emit(std::string_view reply, std::string_view key, const FieldSelector& fields, RecordSet* out) {
  resp::ReplyCursor cur(reply);
  resp::Item top = cur.Next();
  if (top.type != '*' || top.n < 0) return Status::Error();
  pairs_.clear();
  std::string_view order;
  bool has_order = false;
  if (fields.all) {
    if (top.n == 0) return Status::NotFound();
    for (std::int64_t i = 0; i + 1 < top.n; i += 2) {
      resp::Item n = cur.Next(), v = cur.Next();
      if (n.str == kOrderField) {
        order = v.str;
        has_order = true;
      } else {
        pairs_.push_back({n.str, v.str});
      }
    }
  } else {
    resp::Item o = cur.Next();
    has_order = !o.nil();
    order = o.str;
    bool any = has_order;
    for (std::string_view name : fields.names) {
      resp::Item v = cur.Next();
      if (v.nil()) continue;
      any = true;
      bool dup = false;
      for (const Field& f : pairs_) dup = dup || f.name == name;
      if (!dup) pairs_.push_back({name, v.str});
    }
    if (!any) return Status::NotFound();
  }
  used_.assign(pairs_.size(), 0);
  out->BeginRecord(key);
  if (has_order) {
    // "LEN:NAME" repeated.
    std::size_t pos = 0;
    while (pos < order.size()) {
      const auto colon = order.find(':', pos);
      if (colon == std::string_view::npos) break;
      std::int64_t len = 0;
      if (!resp::ParseInt(order.substr(pos, colon - pos), &len) || len < 0 ||
          static_cast<std::size_t>(len) > order.size() - colon - 1) {
        break;
      }
      const std::string_view name = order.substr(colon + 1, static_cast<std::size_t>(len));
      pos = colon + 1 + static_cast<std::size_t>(len);
      for (std::size_t i = 0; i < pairs_.size(); ++i) {
        if (!used_[i] && pairs_[i].name == name) {
          out->AddField(name, pairs_[i].value);
          used_[i] = 1;
          break;
        }
      }
    }
  }
  for (std::size_t i = 0; i < pairs_.size(); ++i) {  // fields the order does not list
    if (!used_[i]) out->AddField(pairs_[i].name, pairs_[i].value);
  }
  return Status::Ok();
}

}  // namespace storebench::redis
