// The aerospike binding's session: YCSB's aerospike operations on one
// Client (db/aerospike/client.h). A record is an Aerospike record in
// namespace aerospike.namespace and set `table`, addressed by the digest of
// its YCSB key (a string key); each field is a bin of the same name, its
// value a string bin (aerospike.bintype=blob: a blob bin). Each request
// goes to the master of the key's partition, as the cluster's partition
// map says, with aerospike.timeout as both the client's deadline and the
// server's transaction timeout.
//
//   Read    all bins (GET_ALL) or the named ones; NOT_FOUND when absent.
//   Insert  a write of every bin: CREATE_OR_REPLACE (the record holds
//           exactly these bins), or CREATE_ONLY (aerospike.insert).
//   Update  a write of the given bins: UPDATE_ONLY (the other bins stay; a
//           missing record is NOT_FOUND), or REPLACE_ONLY (aerospike.update).
//   Delete  a delete; NOT_FOUND when the record did not exist.
//   BatchRead  one batch request per node (Aerospike's batch index protocol).
//   Scan    NOT_IMPLEMENTED: Aerospike keeps no key order.
// A record of no fields is kept as one hidden bin named "\x01" (Aerospike
// has no record without bins), which reads leave out.
// Every reply's result code is counted (Cluster::CountResult) and mapped to
// a status (proto.h StatusOf). A request that got no reply, or a result that
// says the partition is elsewhere or unavailable, asks the cluster to tend.
//
// Used by one thread; never throws (Guard). No allocation per operation
// once the buffers have grown.
#pragma once

#include <memory>

#include "db/aerospike/client.h"
#include "db/binding.h"

namespace storebench::aerospike {

// The bin that stands for "no bins" (see above).
inline constexpr std::string_view kEmptyRecordBin = "\x01";

std::unique_ptr<Session> NewAerospikeSession(std::shared_ptr<Client> client);

}  // namespace storebench::aerospike
