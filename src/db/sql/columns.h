// Field name <-> SQL column name, shared by the SQL bindings (sqlite,
// postgresql, mariadb) so that every one of them maps YCSB's fields to the
// same columns.
//
// A plain field name (lower-case letters, digits, '_') is its own column;
// any other name, and one that could be mistaken for an encoded one
// ("x_..." or "ycsb_key"), is "x_" followed by its bytes in hex. Column
// names come back case-folded from some servers; DecodeColumn accepts that.
#pragma once

#include <string>
#include <string_view>

namespace storebench::sql {

std::string EncodeColumn(std::string_view field);
std::string DecodeColumn(std::string_view column);

}  // namespace storebench::sql
