#include "db/ignite/wire.h"

#include <gtest/gtest.h>

#include <string>

namespace storebench::ignite {
// Bytes from hex ("0a 0B ff", spaces ignored) and little-endian spellings, so
// that expected messages read like the protocol's tables.
namespace {
// "0a 0B ff" -> bytes (spaces ignored).
[[maybe_unused]] inline std::string Hex(std::string_view h) {
  std::string out;
  int nib = -1;
  for (char c : h) {
    int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (v < 0) continue;
    if (nib < 0) {
      nib = v;
    } else {
      out.push_back(static_cast<char>(nib * 16 + v));
      nib = -1;
    }
  }
  return out;
}

// The n-byte little-endian spelling of v.
[[maybe_unused]] inline std::string Le(std::uint64_t v, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  return out;
}
[[maybe_unused]] inline std::string I16(std::int16_t v) { return Le(static_cast<std::uint16_t>(v), 2); }
[[maybe_unused]] inline std::string I32(std::int32_t v) { return Le(static_cast<std::uint32_t>(v), 4); }
[[maybe_unused]] inline std::string I64(std::int64_t v) { return Le(static_cast<std::uint64_t>(v), 8); }
// A typed string (9, int32 length, bytes).
[[maybe_unused]] inline std::string Str(std::string_view s) { return std::string("\x09", 1) + I32(static_cast<std::int32_t>(s.size())) + std::string(s); }
}  // namespace
namespace {

TEST(IgniteWire, WritesLittleEndian) {
  std::string buf;
  Writer w(buf);
  w.U8(0xAB);
  w.I16(-2);
  w.I32(0x01020304);
  w.I64(-1);
  w.Bool(true);
  EXPECT_EQ(buf, Hex("ab feff 04030201 ffffffffffffffff 01"));
}

TEST(IgniteWire, PatchesLengthPrefix) {
  std::string buf = "xx";  // appended to, not cleared
  Writer w(buf);
  std::size_t at = w.Placeholder();
  w.I16(1000);
  w.I64(7);
  w.PatchLength(at);
  EXPECT_EQ(buf, "xx" + Hex("0a000000 e803 0700000000000000"));
}

TEST(IgniteWire, ReusedBufferStopsGrowing) {
  std::string buf;
  buf.reserve(64);
  const auto* data = buf.data();
  for (int i = 0; i < 100; ++i) {
    buf.clear();
    Writer w(buf);
    std::size_t at = w.Placeholder();
    w.I64(i);
    w.PatchLength(at);
  }
  EXPECT_EQ(buf.data(), data);
}

TEST(IgniteWire, ReaderFailsStickyOnShortInput) {
  const std::string in = Hex("0100 020000");
  Reader r(in);
  EXPECT_EQ(r.I16(), 1);
  EXPECT_EQ(r.I32(), 0);  // only 3 bytes left
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.U8(), 0);
  EXPECT_FALSE(r.ok());
}

TEST(IgniteWire, ReaderRejectsNegativeCounts) {
  const std::string in = Hex("ffffffff");
  Reader r(in);
  EXPECT_TRUE(r.Bytes(r.I32()).empty());
  EXPECT_FALSE(r.ok());
}

TEST(IgniteWire, FrameLength) {
  EXPECT_EQ(FrameLength(Hex("0300")), 0);
  EXPECT_EQ(FrameLength(Hex("03000000 0102")), 0);
  EXPECT_EQ(FrameLength(Hex("03000000 010203 ff")), 7);
  EXPECT_EQ(FrameLength(Hex("ffffffff")), -1);
  EXPECT_EQ(FrameLength(Hex("00000001"), 1 << 20), -1);
}

}  // namespace
}  // namespace storebench::ignite
