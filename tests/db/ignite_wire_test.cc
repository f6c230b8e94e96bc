#include "db/ignite/wire.h"
#include "db/ignite_test_bytes.h"

#include <gtest/gtest.h>

#include <string>

namespace storebench::ignite {
using namespace test_bytes;  // Hex, Le, I16, I32, I64, Str (db/ignite_test_bytes.h)
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
