// The hbase binding's cell block decoding (db/hbase/cells.h) on bytes laid
// out by hand from KeyValueCodec's documented format (KeyValue's javadoc):
// 4-byte length, key length (4), value length (4), row length (2), row,
// family length (1), family, qualifier, timestamp (8), type (1), value.
// Also truncated and lying lengths, and Results of either kind.
#include "db/hbase/cells.h"

#include <gtest/gtest.h>

#include <string>

namespace storebench::hbase {
namespace {

std::string Be(std::uint64_t v, int bytes) {
  std::string out;
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>(v >> (8 * i)));
  return out;
}

// One KeyValueCodec cell, written out field by field.
std::string Cell(const std::string& row, const std::string& family, const std::string& qualifier,
                 std::uint64_t ts, std::uint8_t type, const std::string& value) {
  const std::string key = Be(row.size(), 2) + row + Be(family.size(), 1) + family + qualifier + Be(ts, 8) +
                          std::string(1, static_cast<char>(type));
  const std::string kv = Be(key.size(), 4) + Be(value.size(), 4) + key + value;
  return Be(kv.size(), 4) + kv;
}

TEST(HBaseCells, ReadsEveryFieldOfHandBuiltCells) {
  // The first cell spelled out byte by byte, not with the helper.
  std::string block("\x00\x00\x00\x1c"                   // cell length 28 = 8 + 17 + 3
                    "\x00\x00\x00\x11"                   // key length 17 = 2 + 2 + 1 + 1 + 2 + 8 + 1
                    "\x00\x00\x00\x03"                   // value length 3
                    "\x00\x02" "r1"                      // row
                    "\x01" "f"                           // family
                    "q1"                                 // qualifier (the rest of the key)
                    "\x00\x00\x01\x02\x03\x04\x05\x06"   // timestamp
                    "\x04"                               // type Put
                    "val",
                    32);
  block += Cell("row-two", "family", "", 7, 8, "");
  CellBlockReader r(block);
  CellView c;
  ASSERT_TRUE(r.Next(&c));
  EXPECT_EQ(c.row, "r1");
  EXPECT_EQ(c.family, "f");
  EXPECT_EQ(c.qualifier, "q1");
  EXPECT_EQ(c.value, "val");
  EXPECT_EQ(c.timestamp, 0x010203040506);
  EXPECT_EQ(c.type, 4);
  ASSERT_TRUE(r.Next(&c));
  EXPECT_EQ(c.row, "row-two");
  EXPECT_EQ(c.family, "family");
  EXPECT_EQ(c.qualifier, "");
  EXPECT_EQ(c.value, "");
  EXPECT_EQ(c.timestamp, 7);
  EXPECT_EQ(c.type, 8);
  EXPECT_FALSE(r.Next(&c));
  EXPECT_TRUE(r.done());
  EXPECT_FALSE(r.failed());
}

TEST(HBaseCells, ValuesMayHoldAnyByteAndBeLarge) {
  const std::string value = std::string("\x00\xff\x00", 3) + std::string(70000, 'v');
  const std::string block = Cell(std::string(300, 'k'), "f", std::string(256, 'q'), 1, 4, value);
  CellBlockReader r(block);
  CellView c;
  ASSERT_TRUE(r.Next(&c));
  EXPECT_EQ(c.row, std::string(300, 'k'));
  EXPECT_EQ(c.qualifier, std::string(256, 'q'));
  EXPECT_EQ(c.value, value);
  EXPECT_TRUE(r.done());
}

TEST(HBaseCells, EveryTruncationIsAnErrorNeverAReadPastTheEnd) {
  const std::string whole = Cell("row", "f", "q", 1, 4, "value");
  for (std::size_t n = 1; n < whole.size(); ++n) {
    const std::string cut = whole.substr(0, n);  // its own allocation: ASan sees a read past it
    CellBlockReader r(cut);
    CellView c;
    EXPECT_FALSE(r.Next(&c)) << n;
    EXPECT_TRUE(r.failed()) << n;
    EXPECT_FALSE(r.Next(&c)) << n;  // stays failed
  }
}

TEST(HBaseCells, LyingLengthsAreErrors) {
  const std::string good = Cell("row", "f", "q", 1, 4, "value");
  auto fails = [](std::string b) {
    CellBlockReader r(b);
    CellView c;
    return !r.Next(&c) && r.failed();
  };
  EXPECT_FALSE(fails(good));
  std::string b = good;
  b.replace(0, 4, Be(good.size() - 4 + 1, 4));  // cell length past the block
  EXPECT_TRUE(fails(b));
  b = good;
  b.replace(4, 4, Be(0xFFFFFFFF, 4));  // key length not matching the cell length
  EXPECT_TRUE(fails(b));
  b = good;
  b.replace(8, 4, Be(0xFFFFFFF0, 4));  // value length too
  EXPECT_TRUE(fails(b));
  b = good;
  b.replace(12, 2, Be(0xFFFF, 2));  // row length past the key
  EXPECT_TRUE(fails(b));
  b = good;
  b.replace(12 + 2 + 3, 1, Be(0xFF, 1));  // family length past the key
  EXPECT_TRUE(fails(b));
  // A key too short for row length + family length + timestamp + type.
  std::string shortkey = Be(8 + 11, 4) + Be(11, 4) + Be(0, 4) + std::string(11, '\0');
  EXPECT_TRUE(fails(shortkey));
}

TEST(HBaseCells, ResultReadsItsProtobufCellsOrItsShareOfTheBlock) {
  const std::string block = Cell("a", "f", "x", 1, 4, "1") + Cell("a", "f", "y", 1, 4, "2") +
                            Cell("b", "f", "x", 1, 4, "3");
  CellBlockReader r(block);
  pb::Result first;
  first.set_associated_cell_count(2);
  ResultCells a(first, &r);
  EXPECT_EQ(a.size(), 2u);
  CellView c;
  ASSERT_TRUE(a.Next(&c));
  EXPECT_EQ(c.qualifier, "x");
  ASSERT_TRUE(a.Next(&c));
  EXPECT_EQ(c.qualifier, "y");
  EXPECT_FALSE(a.Next(&c));  // the next cell is the next Result's
  ResultCells b(1u, &r);     // a ScanResponse's cells_per_result entry
  ASSERT_TRUE(b.Next(&c));
  EXPECT_EQ(c.row, "b");
  EXPECT_EQ(c.value, "3");
  EXPECT_FALSE(b.Next(&c));
  EXPECT_TRUE(r.done());

  pb::Result inline_cells;
  pb::Cell* pc = inline_cells.add_cell();
  pc->set_row("p");
  pc->set_family("f");
  pc->set_qualifier("q");
  pc->set_value("v");
  pc->set_timestamp(9);
  CellBlockReader none;
  ResultCells p(inline_cells, &none);
  EXPECT_EQ(p.size(), 1u);
  ASSERT_TRUE(p.Next(&c));
  EXPECT_EQ(c.row, "p");
  EXPECT_EQ(c.value, "v");
  EXPECT_EQ(c.timestamp, 9);
  EXPECT_FALSE(p.Next(&c));
  EXPECT_FALSE(none.failed());
}

TEST(HBaseCells, BlockCellsComeBeforeProtobufCellsAsHBasesClientReadsThem) {
  const std::string block = Cell("a", "f", "fromblock", 1, 4, "1");
  CellBlockReader r(block);
  pb::Result res;
  res.set_associated_cell_count(1);
  pb::Cell* pc = res.add_cell();
  pc->set_row("a");
  pc->set_qualifier("frompb");
  ResultCells cells(res, &r);
  EXPECT_EQ(cells.size(), 2u);
  CellView c;
  ASSERT_TRUE(cells.Next(&c));
  EXPECT_EQ(c.qualifier, "fromblock");
  ASSERT_TRUE(cells.Next(&c));
  EXPECT_EQ(c.qualifier, "frompb");
  EXPECT_FALSE(cells.Next(&c));
  EXPECT_TRUE(r.done());
}

TEST(HBaseCells, AResultCountingMoreCellsThanTheBlockHoldsFailsIt) {
  const std::string block = Cell("a", "f", "x", 1, 4, "1");
  CellBlockReader r(block);
  pb::Result res;
  res.set_associated_cell_count(2);
  ResultCells cells(res, &r);
  EXPECT_FALSE(cells.Skip());
  EXPECT_TRUE(r.failed());
}

TEST(HBaseCells, ScanResultsComeFromProtobufThenCellsPerResult) {
  const std::string block = Cell("a", "f", "x", 1, 4, "1") + Cell("b", "f", "x", 1, 4, "2");
  pb::ScanResponse resp;
  resp.add_cells_per_result(1);
  resp.add_cells_per_result(1);
  CellBlockReader r(block);
  ASSERT_EQ(ScanResultCount(resp), 2);
  CellView c;
  ResultCells first = ScanResult(resp, 0, &r);
  ASSERT_TRUE(first.Next(&c));
  EXPECT_EQ(c.row, "a");
  EXPECT_FALSE(first.Next(&c));
  ResultCells second = ScanResult(resp, 1, &r);
  ASSERT_TRUE(second.Next(&c));
  EXPECT_EQ(c.row, "b");
  EXPECT_TRUE(r.done());
}

// A whole response frame as a region server sends a Get's answer with cell
// blocks: ResponseHeader {call_id, cell_block_meta {length}}, GetResponse
// {result {associated_cell_count: 2}}, then the block.
TEST(HBaseCells, GetResponseFrameWithACellBlock) {
  const std::string block = Cell("user1", "family", "field0", 1, 4, "value0") +
                            Cell("user1", "family", "field1", 1, 4, "value1");
  ASSERT_LT(block.size(), 128u);  // one-byte varints below
  const std::string meta = "\x08" + std::string(1, static_cast<char>(block.size()));
  const std::string header = std::string("\x08\x01\x1a", 3) + std::string(1, static_cast<char>(meta.size())) + meta;
  const std::string result("\x10\x02", 2);
  const std::string param = "\x0a" + std::string(1, static_cast<char>(result.size())) + result;
  const std::string body = std::string(1, static_cast<char>(header.size())) + header +
                           std::string(1, static_cast<char>(param.size())) + param + block;
  const std::string frame = Be(body.size(), 4) + body;
  Response resp;
  ASSERT_TRUE(ParseResponse(frame, &resp));
  EXPECT_EQ(resp.cell_block, block);
  pb::GetResponse get;
  ASSERT_TRUE(get.ParseFromArray(resp.param.data(), static_cast<int>(resp.param.size())));
  EXPECT_EQ(get.result().cell_size(), 0);
  CellBlockReader r = BlockOf(resp);
  ResultCells cells(get.result(), &r);
  ASSERT_EQ(cells.size(), 2u);
  CellView c;
  ASSERT_TRUE(cells.Next(&c));
  EXPECT_EQ(c.qualifier, "field0");
  EXPECT_EQ(c.value, "value0");
  ASSERT_TRUE(cells.Next(&c));
  EXPECT_EQ(c.qualifier, "field1");
  EXPECT_EQ(c.value, "value1");
  EXPECT_FALSE(cells.Next(&c));
  EXPECT_TRUE(r.done());
}

}  // namespace
}  // namespace storebench::hbase
