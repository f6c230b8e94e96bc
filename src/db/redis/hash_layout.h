// The redis binding's hash layout (redis.layout=hash, YCSB's): a record is a
// hash at "<table>:<key>" whose fields are the record's fields, plus one
// hidden field, kOrderField, listing the field names in written order
// ("LEN:NAME" repeated; Redis hashes forget their order once they outgrow a
// listpack, and it lets a record have no fields); a sorted set
// "<table>:_index" per table holds the keys (score 0) for scans. Writes are
// Lua scripts (kScripts, run with EVALSHA) so each is atomic.
//
// Here: the scripts, the commands that read a record, and HashReader, which
// turns their replies back into records in written order. Bytes in, bytes
// out: unit-tested on recorded replies (tests/db/redis_hash_layout_test.cc).
// A HashReader is used by one thread; it reuses its buffers.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "db/binding.h"

namespace storebench::redis {

// The hidden hash field holding the record's field names in written order.
inline constexpr std::string_view kOrderField = "\xff" "storebench:order";

// KEYS: record [, index]   ARGV: member, order-field name, order, f1, v1, ...
inline constexpr std::string_view kInsertScript =
    "redis.call('DEL', KEYS[1])\n"
    "redis.call('HSET', KEYS[1], unpack(ARGV, 2))\n"
    "if KEYS[2] then redis.call('ZADD', KEYS[2], 0, ARGV[1]) end\n"
    "return 1\n";
// KEYS: record   ARGV: order-field name, f1, v1, ...   -> 0 when missing
inline constexpr std::string_view kUpdateScript =
    "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end\n"
    "local add = {}\n"
    "for i = 2, #ARGV, 2 do\n"
    "  if redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) == 1 then\n"
    "    add[#add + 1] = #ARGV[i] .. ':' .. ARGV[i]\n"
    "  end\n"
    "end\n"
    "if #add > 0 then\n"
    "  local o = redis.call('HGET', KEYS[1], ARGV[1])\n"
    "  if o then redis.call('HSET', KEYS[1], ARGV[1], o .. table.concat(add)) end\n"
    "end\n"
    "return 1\n";
// KEYS: record [, index]   ARGV: member   -> number of keys deleted
inline constexpr std::string_view kDeleteScript =
    "local n = redis.call('DEL', KEYS[1])\n"
    "if KEYS[2] then redis.call('ZREM', KEYS[2], ARGV[1]) end\n"
    "return n\n";
inline constexpr std::string_view kScripts[] = {kInsertScript, kUpdateScript, kDeleteScript};
enum ScriptId { kInsert = 0, kUpdate = 1, kDelete = 2 };

// "<table>:<key>" into *out.
void RecordKey(std::string_view table, std::string_view key, std::string* out);
// "<table>:_index" into *out.
void IndexKey(std::string_view table, std::string* out);

// "LEN:NAME" for each field, in order, into *out (kOrderField's value).
void EncodeOrder(std::span<const Field> values, std::string* out);

// HGETALL key, or HMGET key <order field> names...
void AppendHashRead(std::string& out, std::string_view key, const FieldSelector& fields);

// Turns HGETALL / HMGET replies into records, fields in written order.
class HashReader {
 public:
  // Adds the record `key` of a complete reply to AppendHashRead's command
  // to *out. NOT_FOUND when the record does not exist, ERROR when the reply
  // is not an array.
  Status Emit(std::string_view reply, std::string_view key, const FieldSelector& fields, RecordSet* out);

 private:
  std::vector<Field> pairs_;
  std::vector<char> used_;
};

}  // namespace storebench::redis
