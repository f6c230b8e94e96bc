// HdrHistogram interval logs: see hdr_log.h for the format.
#include "report/hdr_log.h"

#include <zlib.h>

#include <bit>
#include <cstdio>
#include <ctime>
#include <stdexcept>

namespace storebench {
namespace {

// HdrHistogram parameters that reproduce our bucket layout exactly.
constexpr std::int32_t kSignificantDigits = 3;    // 2048 sub-buckets
constexpr std::int64_t kLowestDiscernible = 1;    // unit 1 ns
constexpr std::int32_t kHeaderBytes = 40;         // V2 header, payload follows

void PutU32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}
void PutU64(std::string& out, std::uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}
void SetU32(std::string& out, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out[at + i] = static_cast<char>((v >> (24 - 8 * i)) & 0xff);
}

// ZigZag, then HdrHistogram's LEB128-64b9B: up to eight 7-bit groups with a
// continuation bit, and a ninth byte with the last 8 bits.
void PutZigZag(std::string& out, std::int64_t n) {
  std::uint64_t v = (static_cast<std::uint64_t>(n) << 1) ^ static_cast<std::uint64_t>(n >> 63);
  for (int i = 0; i < 8; ++i) {
    if ((v >> 7) == 0) {
      out.push_back(static_cast<char>(v));
      return;
    }
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v & 0xff));
}

}  // namespace

std::string EncodeHdrV2(const Histogram& h) {
  std::string out;
  PutU32(out, kHdrV2EncodingCookie);
  PutU32(out, 0);  // payload length, set below
  PutU32(out, 0);  // normalizingIndexOffset
  PutU32(out, static_cast<std::uint32_t>(kSignificantDigits));
  PutU64(out, static_cast<std::uint64_t>(kLowestDiscernible));
  PutU64(out, Histogram::kMaxTrackable);
  PutU64(out, std::bit_cast<std::uint64_t>(1.0));  // integerToDoubleValueConversionRatio
  // Counts from index 0 to the last non-empty one; zero runs as -n (n >= 2),
  // a lone zero as 0 (as HdrHistogram writes them).
  std::uint32_t next = 0;  // next index to write
  auto put_zeros = [&](std::uint32_t n) {
    if (n == 1) {
      PutZigZag(out, 0);
    } else if (n > 1) {
      PutZigZag(out, -static_cast<std::int64_t>(n));
    }
  };
  const auto buckets = h.NonEmptyBuckets();
  if (buckets.empty()) {
    PutZigZag(out, 0);  // HdrHistogram encodes an empty histogram as one zero count
  }
  for (const auto& [index, count] : buckets) {
    put_zeros(index - next);
    PutZigZag(out, static_cast<std::int64_t>(count));
    next = index + 1;
  }
  SetU32(out, 4, static_cast<std::uint32_t>(out.size() - kHeaderBytes));
  return out;
}

std::string EncodeHdrV2Compressed(const Histogram& h) {
  const std::string raw = EncodeHdrV2(h);
  uLongf len = compressBound(static_cast<uLong>(raw.size()));
  std::string out(8 + len, '\0');
  const int rc = compress2(reinterpret_cast<Bytef*>(out.data() + 8), &len,
                           reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()),
                           Z_DEFAULT_COMPRESSION);
  if (rc != Z_OK) throw std::runtime_error("zlib compress2 failed: " + std::to_string(rc));
  out.resize(8 + len);
  SetU32(out, 0, kHdrV2CompressedCookie);
  SetU32(out, 4, static_cast<std::uint32_t>(len));
  return out;
}

std::string Base64Encode(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t v = (static_cast<std::uint8_t>(bytes[i]) << 16) |
                            (static_cast<std::uint8_t>(bytes[i + 1]) << 8) | static_cast<std::uint8_t>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    std::uint32_t v = static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i])) << 16;
    if (rest == 2) v |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i + 1])) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

HdrLogWriter::HdrLogWriter(std::ostream& out, std::int64_t start_unix_ms) : out_(out), base_unix_ms_(start_unix_ms) {
  const std::time_t t = static_cast<std::time_t>(start_unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char date[64];
  std::strftime(date, sizeof date, "%a %b %d %H:%M:%S UTC %Y", &tm);
  char secs[64];
  std::snprintf(secs, sizeof secs, "%.3f", static_cast<double>(start_unix_ms) / 1000.0);
  out_ << "#[Histogram log format version 1.3]\n"
       << "#[StartTime: " << secs << " (seconds since epoch), " << date << "]\n"
       << "#[BaseTime: " << secs << " (seconds since epoch)]\n"
       << "#[Written by storebench: values in nanoseconds; Interval_Max in milliseconds]\n"
       << "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n";
}

void HdrLogWriter::WriteInterval(std::string_view tag, double start_unix_s, double length_s, const Histogram& h) {
  if (h.count() == 0) return;
  char nums[128];
  std::snprintf(nums, sizeof nums, "%.3f,%.3f,%.3f,", start_unix_s - static_cast<double>(base_unix_ms_) / 1000.0,
                length_s, static_cast<double>(h.max()) / 1e6);
  if (!tag.empty()) out_ << "Tag=" << tag << ",";
  out_ << nums << Base64Encode(EncodeHdrV2Compressed(h)) << "\n";
}

}  // namespace storebench
