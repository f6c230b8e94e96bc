// Little-endian primitives of Ignite's thin-client binary protocol: a Writer
// appending to a caller's reusable buffer (with a placeholder for an int32
// length patched once the message is complete) and a Reader walking a byte
// view with bounds checks. Every thin-client message is an int32 length
// followed by that many bytes; all integers are little-endian two's
// complement (docs/_docs/binary-client-protocol/binary-client-protocol.adoc).
//
// Plain values, no sockets, no locks: one Writer or Reader per thread. The
// Writer appends to a std::string it does not own; it allocates only when the
// string has to grow, so a buffer reused across messages stops allocating
// once it has reached its largest message. The Reader never allocates: a
// read past the end sets a sticky failure flag (ok() == false) and returns
// zeroes, so decoders check once at the end instead of at every field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace storebench::ignite {

class Writer {
 public:
  // Appends to `out` (not cleared: the caller clears it between messages).
  explicit Writer(std::string& out) : out_(out) {}

  void U8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void I8(std::int8_t v) { U8(static_cast<std::uint8_t>(v)); }
  void Bool(bool v) { U8(v ? 1 : 0); }
  void I16(std::int16_t v) { Le(static_cast<std::uint16_t>(v), 2); }
  void I32(std::int32_t v) { Le(static_cast<std::uint32_t>(v), 4); }
  void I64(std::int64_t v) { Le(static_cast<std::uint64_t>(v), 8); }
  void Bytes(std::string_view b) { out_.append(b.data(), b.size()); }

  // Reserves an int32 at the current position and returns where it is; Patch
  // later writes there the number of bytes that follow it (a message length)
  // or any value (an object's total length, offsets).
  std::size_t Placeholder() {
    std::size_t at = out_.size();
    I32(0);
    return at;
  }
  // Writes the count of bytes after the int32 at `at` into that int32.
  void PatchLength(std::size_t at) { PatchI32(at, static_cast<std::int32_t>(out_.size() - at - 4)); }
  void PatchI32(std::size_t at, std::int32_t v) {
    auto u = static_cast<std::uint32_t>(v);
    for (int i = 0; i < 4; ++i) out_[at + i] = static_cast<char>((u >> (8 * i)) & 0xFF);
  }

  std::size_t size() const { return out_.size(); }
  std::string& buffer() { return out_; }

 private:
  void Le(std::uint64_t v, int n) {
    char b[8];
    for (int i = 0; i < n; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
    out_.append(b, static_cast<std::size_t>(n));
  }
  std::string& out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

  std::uint8_t U8() { return static_cast<std::uint8_t>(Le(1)); }
  std::int8_t I8() { return static_cast<std::int8_t>(U8()); }
  bool Bool() { return U8() != 0; }
  std::int16_t I16() { return static_cast<std::int16_t>(static_cast<std::uint16_t>(Le(2))); }
  std::int32_t I32() { return static_cast<std::int32_t>(static_cast<std::uint32_t>(Le(4))); }
  std::int64_t I64() { return static_cast<std::int64_t>(Le(8)); }
  // The next n bytes as a view into the input ("" and failure when short).
  std::string_view Bytes(std::size_t n) {
    if (!ok_ || in_.size() - pos_ < n) return Fail();
    std::string_view v = in_.substr(pos_, n);
    pos_ += n;
    return v;
  }
  // A byte count read from the wire: negative counts fail.
  std::string_view Bytes(std::int32_t n) { return n < 0 ? Fail() : Bytes(static_cast<std::size_t>(n)); }
  void Skip(std::size_t n) { Bytes(n); }

  bool ok() const { return ok_; }
  void fail() { ok_ = false; }
  std::size_t pos() const { return pos_; }
  std::size_t remaining() const { return ok_ ? in_.size() - pos_ : 0; }
  std::string_view input() const { return in_; }

 private:
  std::string_view Fail() {
    ok_ = false;
    return {};
  }
  std::uint64_t Le(int n) {
    if (!ok_ || in_.size() - pos_ < static_cast<std::size_t>(n)) {
      ok_ = false;
      return 0;
    }
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in_[pos_ + i])) << (8 * i);
    pos_ += static_cast<std::size_t>(n);
    return v;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

// The length of the first complete message in `in` (its 4-byte length prefix
// included); 0 while incomplete; -1 when the prefix is negative or larger
// than `max_len` (a stream that cannot be trusted any more).
inline std::int64_t FrameLength(std::string_view in, std::int32_t max_len = 1 << 30) {
  if (in.size() < 4) return 0;
  Reader r(in);
  std::int32_t n = r.I32();
  if (n < 0 || n > max_len) return -1;
  std::size_t total = 4 + static_cast<std::size_t>(n);
  return in.size() < total ? 0 : static_cast<std::int64_t>(total);
}

}  // namespace storebench::ignite
