#include "db/sql/columns.h"

#include <cctype>

namespace storebench::sql {
namespace {

bool IsPlainName(std::string_view name) {
  if (name.empty() || name == "ycsb_key" || name.substr(0, 2) == "x_") return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

std::string EncodeColumn(std::string_view field) {
  if (IsPlainName(field)) return std::string(field);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "x_";
  for (char c : field) {
    auto b = static_cast<unsigned char>(c);
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

std::string DecodeColumn(std::string_view column) {
  std::string lower(column);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.size() % 2 == 0 && lower.substr(0, 2) == "x_") {
    std::string out;
    for (std::size_t i = 2; i < lower.size(); i += 2) {
      int hi = HexDigit(lower[i]), lo = HexDigit(lower[i + 1]);
      if (hi < 0 || lo < 0) return lower;
      out.push_back(static_cast<char>(hi * 16 + lo));
    }
    return out;
  }
  return lower;
}

}  // namespace storebench::sql
