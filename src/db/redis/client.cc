#include "db/redis/client.h"

#include <utility>

#include "net/io.h"

namespace storebench::redis {

Client::Client(const Options& o, const SlotMap& map, Scripts scripts, int sharers, RedirectCounts* counts)
    : o_(o), map_(map), scripts_(std::move(scripts)), sharers_(sharers), counts_(counts) {
  if (!o_.cluster || map_.nodes.empty()) map_.Single(o_.seed);  // (an empty map: the store's setup client)
  links_.resize(map_.nodes.size());
}

Client::NodeLink::NodeLink(Client* client, net::Endpoint ep)
    : conn(std::move(ep)), pipe(&conn, [client](net::TcpConnection& c) {
        return client->Handshake(c, net::DeadlineAfterMs(client->o_.timeout_ms), nullptr);
      }) {}

Client::NodeLink& Client::Link(std::uint16_t node) {
  if (links_.size() < map_.nodes.size()) links_.resize(map_.nodes.size());
  auto& l = links_[node];
  if (!l) {
    l = std::make_unique<NodeLink>(this, map_.nodes[node]);
    l->pipe.set_sharers(sharers_);
  }
  return *l;
}

Status Client::Handshake(net::TcpConnection& c, std::int64_t deadline, std::string* error) {
  int replies = 0;
  std::string& out = c.out();
  if (!o_.password.empty()) {
    if (o_.user.empty()) {
      resp::AppendCommand(out, "AUTH", o_.password);
    } else {
      resp::AppendCommand(out, "AUTH", o_.user, o_.password);
    }
    ++replies;
  }
  if (!o_.cluster && o_.database != 0) {
    resp::AppendCommand(out, "SELECT", std::int64_t{o_.database});
    ++replies;
  }
  if (replies == 0) return Status::Ok();
  Status st = c.Flush(deadline);
  if (!st.ok()) return st;
  Status result = Status::Ok();
  for (int i = 0; i < replies; ++i) {
    std::size_t n = 0;
    while ((n = resp::ParseReply(c.in())) == 0) {
      if (st = c.Fill(deadline); !st.ok()) return st;
    }
    if (n == resp::kBadReply) {
      c.Disconnect();
      return Status::Error();
    }
    resp::Item it = resp::ReplyCursor(c.in().substr(0, n)).Next();
    if (it.error() && result.ok()) {
      if (error != nullptr) *error = std::string(it.str);
      result = Status::Error();
    }
    c.Consume(n);
  }
  if (!result.ok()) c.Disconnect();
  return result;
}

bool Client::Retry(std::string_view reply, std::int64_t deadline, Route* route, Status* st) {
  const bool ask = route->asking;
  route->asking = false;
  const std::string_view err = resp::ErrorMessage(reply);
  if (err.empty()) return false;
  const Redirection to = ParseRedirection(err, map_.nodes[route->node].host);
  if (to.kind == Redirection::kMoved) {
    counts_->moved.fetch_add(1, std::memory_order_relaxed);
    route->node = map_.Move(to.slot, to.to);
    Refresh(route->node, deadline);  // the rest of the map probably moved too
  } else if (to.kind == Redirection::kAsk) {
    counts_->ask.fetch_add(1, std::memory_order_relaxed);
    route->node = map_.FindOrAdd(to.to);
    route->asking = true;
  } else if (err.starts_with("NOSCRIPT") && !route->reloaded) {
    route->reloaded = true;
    *st = LoadScripts(route->node, deadline);
    route->asking = ask;  // still the importing node's key
    return st->ok();
  } else {
    return false;
  }
  if (++route->redirects <= kMaxRedirects) return true;
  *st = Status::Error();  // redirected too often
  return false;
}

void Client::Refresh(std::uint16_t node, std::int64_t deadline) {
  if (!o_.cluster) return;
  auto enc = [](std::string& out) { resp::AppendCommand(out, "CLUSTER", "SLOTS"); };
  std::string reply;  // (rare: no reused buffer, which a sharing client could overwrite)
  if (!CallAt(node, deadline, enc, &reply).ok()) return;
  const std::string host = map_.nodes[node].host;
  map_.Apply(reply, host);
}

Status Client::LoadScripts(std::uint16_t node, std::int64_t deadline) {
  auto enc = [this](std::string& out) {
    for (std::string_view s : scripts_.sources) resp::AppendCommand(out, "SCRIPT", "LOAD", s);
  };
  std::string replies;
  Status st = Exchange(node, deadline, enc, scripts_.sources.size(), 0, &replies);
  if (!st.ok()) return st;
  std::string_view r = replies;
  while (!r.empty()) {
    if (r[0] != '$') return Status::Error();
    r.remove_prefix(resp::ParseReply(r));
  }
  return Status::Ok();
}

}  // namespace storebench::redis
