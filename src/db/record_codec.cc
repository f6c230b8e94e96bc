#include "db/record_codec.h"

#include <cstdint>
#include <vector>

namespace storebench {
namespace {

constexpr int kMaxVarintBytes = 10;  // 64 bits / 7 bits per byte, rounded up

inline void PutVarint(std::uint64_t v, std::string* out) {
  char buf[kMaxVarintBytes];
  int n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  out->append(buf, static_cast<std::size_t>(n));
}

inline void PutPiece(std::string_view s, std::string* out) {
  PutVarint(s.size(), out);
  out->append(s.data(), s.size());
}

inline void PutField(std::string_view name, std::string_view value, std::string* out) {
  PutPiece(name, out);
  PutPiece(value, out);
}

// Walks an encoded record field by field, checking every length.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  // Reads the next field into *f. False at the end and on corrupt data;
  // corrupt() tells which.
  bool Next(Field* f) {
    if (pos_ == data_.size()) return false;
    if (!GetPiece(&f->name) || !GetPiece(&f->value)) {
      corrupt_ = true;
      return false;
    }
    return true;
  }
  bool corrupt() const { return corrupt_; }

 private:
  bool GetVarint(std::uint64_t* v) {
    std::uint64_t result = 0;
    for (int i = 0; i < kMaxVarintBytes && pos_ < data_.size(); ++i) {
      auto byte = static_cast<unsigned char>(data_[pos_++]);
      result |= static_cast<std::uint64_t>(byte & 0x7f) << (7 * i);
      if ((byte & 0x80) == 0) {
        *v = result;
        return true;
      }
    }
    return false;  // truncated or longer than 10 bytes
  }
  bool GetPiece(std::string_view* piece) {
    std::uint64_t len = 0;
    if (!GetVarint(&len) || len > data_.size() - pos_) return false;
    *piece = data_.substr(pos_, static_cast<std::size_t>(len));
    pos_ += static_cast<std::size_t>(len);
    return true;
  }

  std::string_view data_;
  std::size_t pos_ = 0;
  bool corrupt_ = false;
};

// Index of the last update named `name`, or -1.
inline std::ptrdiff_t LastUpdateNamed(std::span<const Field> updates, std::string_view name) {
  for (std::size_t i = updates.size(); i-- > 0;) {
    if (updates[i].name == name) return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

}  // namespace

void EncodeRecord(std::span<const Field> fields, std::string* out) {
  out->clear();
  std::size_t size = 0;
  for (const Field& f : fields) size += f.name.size() + f.value.size() + 2;
  out->reserve(size);
  for (const Field& f : fields) PutField(f.name, f.value, out);
}

bool IsValidRecord(std::string_view data) {
  Reader r(data);
  Field f;
  while (r.Next(&f)) {
  }
  return !r.corrupt();
}

bool DecodeRecord(std::string_view data, const FieldSelector& sel, RecordSet* out) {
  // Validate first so that a corrupt record adds nothing.
  if (!IsValidRecord(data)) return false;
  Reader r(data);
  Field f;
  while (r.Next(&f)) {
    if (sel.Wants(f.name)) out->AddField(f.name, f.value);
  }
  return true;
}

bool MergeRecord(std::string_view existing, std::span<const Field> updates, std::string* out) {
  out->clear();
  const bool valid = IsValidRecord(existing);
  std::size_t size = valid ? existing.size() : 0;
  for (const Field& u : updates) size += u.name.size() + u.value.size() + 4;
  out->reserve(size);

  // Which updates were applied to an existing field. A fixed array covers
  // any realistic update; more than 64 fields falls back to a vector.
  bool small[64] = {};
  std::vector<bool> large;
  bool* applied = small;
  if (updates.size() > 64) {
    large.assign(updates.size(), false);
  }
  auto mark = [&](std::size_t i) {
    if (updates.size() > 64) {
      large[i] = true;
    } else {
      applied[i] = true;
    }
  };
  auto is_applied = [&](std::size_t i) { return updates.size() > 64 ? bool(large[i]) : applied[i]; };

  if (valid) {
    Reader r(existing);
    Field f;
    while (r.Next(&f)) {
      std::ptrdiff_t k = LastUpdateNamed(updates, f.name);
      if (k < 0) {
        PutField(f.name, f.value, out);
      } else {
        PutField(f.name, updates[static_cast<std::size_t>(k)].value, out);
        mark(static_cast<std::size_t>(k));
      }
    }
  }
  // New fields, in the order given; for a repeated name only its last
  // occurrence (which carries the winning value) is written.
  for (std::size_t i = 0; i < updates.size(); ++i) {
    if (is_applied(i)) continue;
    if (LastUpdateNamed(updates, updates[i].name) != static_cast<std::ptrdiff_t>(i)) continue;
    PutField(updates[i].name, updates[i].value, out);
  }
  return valid;
}

}  // namespace storebench
