// Fuzzes the hbase binding's response decoding (db/hbase/rpc.h): what a
// region server (or anything on its port) may send. The input is taken as a
// stream of frames: each is measured (FrameLength), its call id peeked and
// the frame parsed; views must lie inside the input and nothing may crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "db/hbase/rpc.h"

using namespace storebench::hbase;

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
    if (ParseResponse(frame, &resp)) {
      for (std::string_view v : {resp.param, resp.cell_block}) {
        if (!v.empty() && (v.data() < frame.data() || v.data() + v.size() > frame.data() + frame.size())) std::abort();
      }
    }
    in.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}
