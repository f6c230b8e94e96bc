// The redis binding's session: YCSB's operations on one Client
// (db/redis/client.h), in the record layout the options name.
//
// Layouts (redis.layout):
//   hash   (default, YCSB's redis layout; db/redis/hash_layout.h) a hash per
//          record at "<table>:<key>", fields as hash fields (plus the hidden
//          order field), and one sorted set "<table>:_index" per table whose
//          members are the keys.
//          Insert = Lua script DEL + HSET (+ ZADD): atomic, exactly these
//                   fields. In cluster mode the ZADD goes separately to the
//                   index's node (the index is another slot).
//          Update = Lua script: NOT_FOUND unless the key exists, then HSET
//                   of each field (new names appended to the order field):
//                   atomic, so capabilities().atomic_update is true.
//          Read   = HGETALL, or HMGET of the order field and the wanted names.
//          Scan   = ZRANGEBYLEX "[start" + LIMIT 0 count on the index, then
//                   the records fetched in one pipelined write per node.
//          Delete = Lua script DEL (+ ZREM); NOT_FOUND when nothing was there.
//   string one value per key (memtier-style): the record encoded with the
//          shared record codec; Insert = SET, Read = GET, Update = GET +
//          MergeRecord + SET XX (two round trips, not atomic), or with
//          redis.update=replace one SET XX of the given fields (right when
//          every update writes every field), or with redis.update=set one
//          plain SET, byte for byte memtier's SET (it also creates a missing
//          record: an update is then never NOT_FOUND), Delete = DEL.
//          No index, so no scans.
//
// Transactions (Session::Begin; standalone only: in a cluster the keys of
// one transaction may live on different nodes): optimistic, with WATCH/
// MULTI/EXEC. A read inside first WATCHes its key, then reads it at once;
// writes inside are queued in the session (not sent, so reads inside do not
// see them) and Commit sends MULTI, the queued writes and EXEC in one
// pipelined write. EXEC's nil reply (a watched key changed) is ABORTED;
// Abort sends UNWATCH. One transaction per connection: not with
// redis.pipeline > 1.
//
// A session is used by one thread; its Client may be shared with the other
// sessions of its {thread, connection}. Operations never throw (Guard) and
// reuse the session's buffers.
#pragma once

#include <memory>

#include "db/binding.h"
#include "db/redis/client.h"

namespace storebench::redis {

std::unique_ptr<Session> NewRedisSession(std::shared_ptr<Client> client);

}  // namespace storebench::redis
