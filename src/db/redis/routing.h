// Redis Cluster routing, as the redis binding follows it: a key's slot
// (CRC16/XMODEM of the key or of its {hash tag}, mod 16384), the slot map
// (which node serves each slot, filled from a CLUSTER SLOTS reply) and the
// cluster's redirections (MOVED: the slot lives elsewhere now, update the
// map; ASK: ask that node this once). Replies in, routing decisions out: no
// sockets, so each piece is unit-tested on recorded replies
// (tests/db/redis_routing_test.cc) and fuzzed (tests/fuzz/resp_fuzz.cc).
// db/redis/client.h acts on these decisions.
//
// Pure functions and plain values; a SlotMap is used by one thread (each
// client owns its copy).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "net/socket.h"

namespace storebench::redis {

inline constexpr int kSlots = 16384;
// The node of a slot that no node serves.
inline constexpr std::uint16_t kNoNode = 0xffff;

// CRC16/XMODEM, as Redis Cluster uses (crc16("123456789") == 0x31C3).
std::uint16_t Crc16(std::string_view s);

// The key's slot: of the part between the first '{' and the next '}' when
// that is non-empty, else of the whole key.
int KeySlot(std::string_view key);

// Which node serves each slot. Nodes are numbered in the order they were
// first seen; a number stays valid for the map's life.
struct SlotMap {
  std::vector<net::Endpoint> nodes;
  std::vector<std::uint16_t> slot_node = std::vector<std::uint16_t>(kSlots, kNoNode);

  // One node serving every slot (a standalone server).
  void Single(const net::Endpoint& ep);
  std::uint16_t NodeFor(std::string_view key) const { return slot_node[static_cast<std::size_t>(KeySlot(key))]; }
  std::uint16_t FindOrAdd(const net::Endpoint& ep);
  // After MOVED: `slot` is served by `ep` now. Returns that node.
  std::uint16_t Move(int slot, const net::Endpoint& ep);
  // Applies a CLUSTER SLOTS reply; false when it is not one. An empty host
  // means "the host you asked" (`asked_host`).
  bool Apply(std::string_view reply, const std::string& asked_host);
};

// "MOVED 3999 127.0.0.1:6381" / "ASK ..." -> slot and endpoint; an empty
// host (":6381") is `default_host`.
bool ParseRedirect(std::string_view err, const std::string& default_host, int* slot, net::Endpoint* ep);

// What an error reply's message (without '-' and "\r\n") asks of the client.
struct Redirection {
  enum Kind { kNone, kMoved, kAsk };
  Kind kind = kNone;
  int slot = 0;
  net::Endpoint to;
};
// kMoved / kAsk for a well-formed MOVED / ASK; kNone for anything else.
Redirection ParseRedirection(std::string_view err, const std::string& default_host);

// Whether an error message is a MOVED or ASK (well-formed or not).
inline bool IsRedirection(std::string_view err) { return err.starts_with("MOVED ") || err.starts_with("ASK "); }

}  // namespace storebench::redis
