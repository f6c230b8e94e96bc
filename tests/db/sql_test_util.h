// Helpers shared by the SQL bindings' tests (sqlite_test.cc,
// postgresql_test.cc, mariadb_test.cc): records as owned (name, value)
// pairs, writing them through a session, reading them back from a
// RecordSet, and properties for a server with a table of the test's own.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/properties.h"
#include "db/binding.h"
#include "test_util.h"

namespace storebench::test_util {

// Owned (a record as (field name, value) pairs) and FieldViews: test_util.h.

// The fields of record r of rs.
inline Owned FieldsOf(const RecordSet& rs, std::size_t r) {
  Owned out;
  for (std::size_t i = 0; i < rs.field_count(r); ++i) {
    Field f = rs.field(r, i);
    out.emplace_back(std::string(f.name), std::string(f.value));
  }
  return out;
}

inline Status Insert(Session* s, const std::string& table, const std::string& key, const Owned& rec) {
  return s->Insert(table, key, FieldViews(rec));
}

inline Status Update(Session* s, const std::string& table, const std::string& key, const Owned& rec) {
  return s->Update(table, key, FieldViews(rec));
}

// The server's properties (PropsOf) with `table` set.
inline Properties PropsWithTable(const Settings& server, const std::string& table) {
  Properties p = PropsOf(server);
  p.Set("table", table);
  return p;
}

}  // namespace storebench::test_util
