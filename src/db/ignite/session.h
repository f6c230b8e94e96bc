// The ignite binding's session: YCSB's operations on one Client
// (db/ignite/client.h), a record being one cache entry whose key is the
// YCSB key (a Java String) and whose value is a binary object of type
// <table> with one String field per YCSB field (binary.h), so that Ignite's
// own SQL reads what storebench wrote.
//
//   Insert  CACHE_PUT of exactly the given fields.
//   Read    CACHE_GET; the fields of the object (all, or the named ones).
//   Update  ignite.update=auto: when every configured field is given, one
//           CACHE_REPLACE (NOT_FOUND when absent); else CACHE_GET, merge,
//           CACHE_REPLACE_IF_EQUALS with the object read, again on a lost
//           race: atomic against concurrent updates. ignite.update=put: one
//           CACHE_PUT of the given fields (Yardstick's put).
//   Delete  CACHE_REMOVE_KEY (NOT_FOUND when absent).
//   Scan    SQL: SELECT key, fields FROM <table> WHERE key >= ? ORDER BY
//           key LIMIT ?, with cursor pages until the count is read.
//   Batch   CACHE_PUT_ALL (one request; best effort on an ATOMIC cache);
//           a batch read is CACHE_GET_ALL.
//   Sql     QUERY_SQL_FIELDS in schema PUBLIC (workload=sqlquery); joins are
//           run as distributed joins (tables are not collocated).
//   Begin   TX_START (ignite.tx.*) on the home host's connection; every
//           operation until Commit/Abort goes there, flagged with the
//           transaction id. An error the node reports inside a transaction
//           (lock timeout, optimistic conflict) is ABORTED; Commit is
//           TX_END(commit), Abort TX_END(rollback).
//
// Used by one thread; never throws (Guard). No allocation per operation
// once the buffers have grown.
#pragma once

#include <memory>

#include "db/binding.h"
#include "db/ignite/client.h"

namespace storebench::ignite {

std::unique_ptr<Session> NewIgniteSession(std::shared_ptr<Client> client);

}  // namespace storebench::ignite
