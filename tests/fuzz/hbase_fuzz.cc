// Fuzzes the hbase binding's response decoding (db/hbase/rpc.h): what a
// region server (or anything on its port) may send. The input is taken as a
// stream of frames: each is measured (FrameLength), its call id peeked and
// the frame parsed; views must lie inside the input and nothing may crash.
// The cell block of each frame, and each whole frame taken as a cell block,
// are decoded (db/hbase/cells.h): every cell's views must lie inside it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "db/hbase/cells.h"
#include "db/hbase/rpc.h"

using namespace storebench::hbase;

namespace {

bool Inside(std::string_view v, std::string_view in) {
  return v.empty() || (v.data() >= in.data() && v.data() + v.size() <= in.data() + in.size());
}

void DecodeBlock(std::string_view block) {
  CellBlockReader r(block);
  CellView c;
  std::size_t n = 0;
  while (r.Next(&c)) {
    for (std::string_view v : {c.row, c.family, c.qualifier, c.value}) {
      if (!Inside(v, block)) std::abort();
    }
    ++n;
  }
  if (r.done() == r.failed()) std::abort();  // exactly one of: all read, malformed
  if (n > block.size() / 16) std::abort();    // a cell is 16 bytes at least
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string buf(reinterpret_cast<const char*>(data), size);
  std::string_view in(buf);
  Response resp;
  while (true) {
    const std::int64_t n = FrameLength(in);
    if (n <= 0) break;
    const std::string_view frame = in.substr(0, static_cast<std::size_t>(n));
    std::uint32_t id = 0;
    (void)PeekCallId(frame, &id);
    DecodeBlock(frame);
    if (ParseResponse(frame, &resp)) {
      DecodeBlock(resp.cell_block);
      for (std::string_view v : {resp.param, resp.cell_block}) {
        if (!v.empty() && (v.data() < frame.data() || v.data() + v.size() > frame.data() + frame.size())) std::abort();
      }
    }
    in.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}
