#include "db/aerospike/client.h"

namespace storebench::aerospike {

std::size_t TakeReply(std::string_view in, bool multi, std::string* bodies) {
  std::size_t pos = 0;
  for (;;) {
    std::uint8_t type = 0;
    const std::size_t n = FrameLength(in.substr(pos), &type);
    if (n == kMalformed || (n > 0 && type != kTypeMessage)) return net::Pipeline::kBroken;
    if (n == 0) return 0;
    const std::string_view body = in.substr(pos + kProtoHeaderSize, n - kProtoHeaderSize);
    pos += n;
    bool last = !multi;
    // A batch frame holds messages back to back; the one marked LAST ends the reply.
    for (std::string_view rest = body; multi && !rest.empty();) {
      Reply r;
      const std::size_t m = ParseMessage(rest, &r);
      if (m == kMalformed) return net::Pipeline::kBroken;
      rest.remove_prefix(m);
      if (r.header.info3 & kInfo3Last) {
        if (!rest.empty()) return net::Pipeline::kBroken;
        last = true;
      }
    }
    if (last) break;
  }
  bodies->clear();
  for (std::size_t at = 0; at < pos;) {
    std::uint8_t type = 0;
    const std::size_t n = FrameLength(in.substr(at), &type);
    bodies->append(in.substr(at + kProtoHeaderSize, n - kProtoHeaderSize));
    at += n;
  }
  return pos;
}

}  // namespace storebench::aerospike
