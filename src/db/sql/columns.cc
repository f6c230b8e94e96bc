#include "db/sql/columns.h"

#include <cctype>

#include "db/hex_name.h"

namespace storebench::sql {
namespace {

bool IsPlainName(std::string_view name) {
  if (name.empty() || name == "ycsb_key" || name.substr(0, 2) == "x_") return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

}  // namespace

std::string EncodeColumn(std::string_view field) {
  if (IsPlainName(field)) return std::string(field);
  std::string out;
  AppendHexName(field, &out);
  return out;
}

std::string DecodeColumn(std::string_view column) {
  std::string lower(column);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.starts_with("x_")) {
    std::string out;
    if (AppendHexBytes(std::string_view(lower).substr(2), &out)) return out;
  }
  return lower;
}

}  // namespace storebench::sql
