// Fuzzes the memcached binding's reply parser (db/memcached/reply.h): a
// stream of meta/classic text replies as a server (or anything on its port)
// sends them. A reply is "incomplete" (0), malformed (-1) or spans n bytes
// within the input, and its views lie inside it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "db/memcached/reply.h"

using namespace storebench;

namespace {

bool Inside(std::string_view part, std::string_view whole) {
  return part.empty() || (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string buf(reinterpret_cast<const char*>(data), size);
  std::string_view in(buf);
  for (int replies = 0; !in.empty() && replies < 64; ++replies) {
    memcache::Reply r;
    const std::ptrdiff_t n = memcache::ParseReply(in, &r);
    if (n <= 0) break;
    if (static_cast<std::size_t>(n) > in.size()) std::abort();
    const std::string_view reply = in.substr(0, static_cast<std::size_t>(n));
    if (!Inside(r.line, reply) || !Inside(r.code, reply) || !Inside(r.value, reply)) std::abort();
    (void)r.Desyncs();
    in.remove_prefix(static_cast<std::size_t>(n));
  }
  // The same bytes as replies to classic one-key gets (VALUE ... END, END, error lines).
  in = buf;
  for (int replies = 0; !in.empty() && replies < 64; ++replies) {
    memcache::Reply r;
    const std::ptrdiff_t n = memcache::ParseGetReply(in, &r);
    if (n <= 0) break;
    if (static_cast<std::size_t>(n) > in.size()) std::abort();
    const std::string_view reply = in.substr(0, static_cast<std::size_t>(n));
    if (!Inside(r.line, reply) || !Inside(r.code, reply) || !Inside(r.value, reply)) std::abort();
    in.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}
