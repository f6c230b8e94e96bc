// A small, independent decoder of HdrHistogram interval logs for the tests:
// base64, the compressed wrapper (zlib), the V2 header and the ZigZag
// LEB128-64b9B counts, written from HdrHistogram's format description (not
// from our encoder), so that the tests check the encoder against the format.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace storebench::hdr_test {

inline std::string Base64Decode(const std::string& s) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (s.size() % 4 != 0) throw std::runtime_error("base64 length not a multiple of 4");
  std::string out;
  for (std::size_t i = 0; i < s.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      if (s[i + k] == '=') {
        v[k] = 0;
        ++pad;
      } else {
        v[k] = val(s[i + k]);
        if (v[k] < 0 || pad > 0) throw std::runtime_error("bad base64");
      }
    }
    const std::uint32_t w = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    out += static_cast<char>(w >> 16);
    if (pad < 2) out += static_cast<char>((w >> 8) & 0xff);
    if (pad < 1) out += static_cast<char>(w & 0xff);
  }
  return out;
}

inline std::uint64_t BigEndian(const std::string& b, std::size_t at, int bytes) {
  if (at + bytes > b.size()) throw std::runtime_error("truncated");
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<std::uint8_t>(b[at + i]);
  return v;
}

struct DecodedHistogram {
  std::uint32_t cookie = 0;
  std::uint32_t normalizing_index_offset = 0;
  std::uint32_t significant_digits = 0;
  std::uint64_t lowest_discernible = 0;
  std::uint64_t highest_trackable = 0;
  double conversion_ratio = 0;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> buckets;  // non-zero (index, count)
  std::uint64_t total = 0;
};

// Decodes the uncompressed V2 form.
inline DecodedHistogram DecodeV2(const std::string& b) {
  DecodedHistogram h;
  h.cookie = static_cast<std::uint32_t>(BigEndian(b, 0, 4));
  if ((h.cookie & ~0xf0u) != 0x1c849303u) throw std::runtime_error("not a V2 encoding cookie");
  const std::uint64_t payload = BigEndian(b, 4, 4);
  h.normalizing_index_offset = static_cast<std::uint32_t>(BigEndian(b, 8, 4));
  h.significant_digits = static_cast<std::uint32_t>(BigEndian(b, 12, 4));
  h.lowest_discernible = BigEndian(b, 16, 8);
  h.highest_trackable = BigEndian(b, 24, 8);
  const std::uint64_t ratio_bits = BigEndian(b, 32, 8);
  std::memcpy(&h.conversion_ratio, &ratio_bits, sizeof ratio_bits);
  if (40 + payload != b.size()) throw std::runtime_error("payload length does not match");
  std::size_t pos = 40;
  std::uint32_t index = 0;
  while (pos < b.size()) {
    // LEB128-64b9B: up to 8 bytes of 7 bits with a continuation bit, then one of 8 bits.
    std::uint64_t v = 0;
    int shift = 0;
    for (int k = 0;; ++k) {
      if (pos >= b.size()) throw std::runtime_error("truncated varint");
      const std::uint8_t byte = static_cast<std::uint8_t>(b[pos++]);
      if (k == 8) {
        v |= static_cast<std::uint64_t>(byte) << 56;
        break;
      }
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      shift += 7;
      if ((byte & 0x80) == 0) break;
    }
    const std::int64_t n = static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
    if (n < 0) {
      index += static_cast<std::uint32_t>(-n);
    } else {
      if (n > 0) {
        h.buckets.emplace_back(index, static_cast<std::uint64_t>(n));
        h.total += static_cast<std::uint64_t>(n);
      }
      ++index;
    }
  }
  return h;
}

// Decodes the compressed form (cookie, length, zlib stream of the V2 form).
inline DecodedHistogram DecodeCompressed(const std::string& b) {
  const auto cookie = static_cast<std::uint32_t>(BigEndian(b, 0, 4));
  if ((cookie & ~0xf0u) != 0x1c849304u) throw std::runtime_error("not a compressed V2 cookie");
  const std::uint64_t len = BigEndian(b, 4, 4);
  if (8 + len != b.size()) throw std::runtime_error("compressed length does not match");
  z_stream zs{};
  if (inflateInit(&zs) != Z_OK) throw std::runtime_error("inflateInit");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(b.data() + 8));
  zs.avail_in = static_cast<uInt>(len);
  std::string out;
  char buf[16384];
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) throw std::runtime_error("bad zlib stream");
  return DecodeV2(out);
}

struct LogLine {
  std::string tag;
  double start_s = 0, length_s = 0, max = 0;
  DecodedHistogram h;
};

struct Log {
  std::vector<std::string> header;  // lines starting with '#' or '"'
  std::vector<LogLine> lines;
};

inline Log ParseLog(const std::string& text) {
  Log log;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '#' || line[0] == '"') {
      log.header.push_back(line);
      continue;
    }
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string item;
    while (std::getline(ss, item, ',')) f.push_back(item);
    LogLine l;
    std::size_t k = 0;
    if (!f.empty() && f[0].rfind("Tag=", 0) == 0) l.tag = f[k++].substr(4);
    if (f.size() != k + 4) throw std::runtime_error("bad log line: " + line);
    l.start_s = std::stod(f[k]);
    l.length_s = std::stod(f[k + 1]);
    l.max = std::stod(f[k + 2]);
    l.h = DecodeCompressed(Base64Decode(f[k + 3]));
    log.lines.push_back(std::move(l));
  }
  return log;
}

}  // namespace storebench::hdr_test
