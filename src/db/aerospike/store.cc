#include "db/aerospike/store.h"

#include "db/aerospike/session.h"

namespace storebench::aerospike {

std::unique_ptr<Session> AerospikeStore::NewSession(int) {
  return NewAerospikeSession(std::make_shared<Client>(&cluster_, 1));
}

std::unique_ptr<Session> AerospikeStore::NewClientSession(const ClientSlot& slot) {
  const int pipeline = cluster_.options().pipeline;
  if (pipeline <= 1) return NewSession(slot.thread);
  return NewAerospikeSession(links_.Get(slot, [&] { return std::make_shared<Client>(&cluster_, pipeline); }));
}

Capabilities AerospikeStore::capabilities() const {
  Capabilities c;
  c.scan = false;
  c.why_no_scan = "aerospike keeps no key order (YCSB's aerospike binding does not scan either)";
  c.persistent = true;     // the records live in the server, across storebench processes
  c.atomic_update = true;  // UPDATE_ONLY merges the given bins into the record on the server, atomically
  c.waits_through_io = true;
  c.pipeline = cluster_.options().pipeline;
  c.native_batch_read = true;  // one batch-index request per node
  return c;
}

}  // namespace storebench::aerospike
