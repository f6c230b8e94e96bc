// SharedClients: the one client a pipelining binding shares among the
// clients of one {thread, connection} slot (Store::NewClientSession).
//
// Get(slot, make) returns the Client of {slot.thread, slot.connection}: the
// one made earlier for that pair while any session still holds it, else a
// new one from `make()`, kept for the next Get of the pair. Slots that
// differ only in `slot.slot` (the pipelined clients of one connection) get
// the same Client; other pairs never do. The map holds weak references:
// a Client lives as long as the sessions that share it, and one whose
// sessions are gone is made anew on the next Get.
//
// Thread-safe: Get may be called from any thread; `make` runs under the
// lock (so one pair never gets two Clients), and may throw (SetupError):
// nothing is kept then. Not on the hot path (sessions are made at setup).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "db/binding.h"

namespace storebench {

template <typename Client>
class SharedClients {
 public:
  template <typename Make>
  std::shared_ptr<Client> Get(const ClientSlot& slot, Make&& make) {
    std::lock_guard lock(mu_);
    std::weak_ptr<Client>& weak = clients_[{slot.thread, slot.connection}];
    std::shared_ptr<Client> client = weak.lock();
    if (!client) {
      client = std::forward<Make>(make)();
      weak = client;
    }
    return client;
  }

 private:
  std::mutex mu_;
  std::map<std::pair<int, int>, std::weak_ptr<Client>> clients_;  // guarded by mu_; key {thread, connection}
};

}  // namespace storebench
