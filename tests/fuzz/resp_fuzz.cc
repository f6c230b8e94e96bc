// Fuzzes the redis binding's RESP2 reply parsing (db/redis/resp.h) and its
// cluster routing (db/redis/routing.h), i.e. what a
// server (or anything listening on its port) sends back: ParseReply on the
// input as a stream of replies, each accepted reply walked with ReplyCursor
// and tried as a CLUSTER SLOTS reply, error replies tried as MOVED/ASK
// redirections. Any prefix of a stream must be "incomplete", a reply, or
// "not RESP", never a read out of bounds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "db/redis/resp.h"
#include "db/redis/routing.h"

using namespace storebench;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  // Every prefix parses without reading past its end (copied so that ASan sees the end).
  const std::size_t full = resp::ParseReply(in);
  for (std::size_t cut = 0; cut < in.size() && cut < 64; ++cut) {
    const std::string prefix(in.substr(0, cut));
    const std::size_t n = resp::ParseReply(prefix);
    if (n != resp::kBadReply && n > cut) std::abort();
  }
  if (full != resp::kBadReply && full > in.size()) std::abort();
  int replies = 0;
  while (!in.empty() && replies < 64) {
    const std::size_t n = resp::ParseReply(in);
    if (n == 0 || n == resp::kBadReply) break;
    ++replies;
    const std::string reply(in.substr(0, n));
    in.remove_prefix(n);
    resp::ReplyCursor cur(reply);
    resp::Item top = cur.Next();
    cur.Skip(top);
    if (!cur.done()) std::abort();  // a reply is exactly one element
    for (resp::ReplyCursor walk(reply); !walk.done();) walk.Next();
    if (top.error()) {
      int slot = 0;
      net::Endpoint ep;
      if (redis::ParseRedirect(top.str, "127.0.0.1", &slot, &ep) &&
          (slot < 0 || slot >= redis::kSlots || ep.port <= 0 || ep.port > 65535)) {
        std::abort();
      }
      const redis::Redirection r = redis::ParseRedirection(top.str, "127.0.0.1");
      if (r.kind != redis::Redirection::kNone && (r.slot < 0 || r.slot >= redis::kSlots)) std::abort();
      (void)redis::KeySlot(top.str);
    }
    redis::SlotMap map;
    (void)map.Apply(reply, "127.0.0.1");
  }
  return 0;
}
