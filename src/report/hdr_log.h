// HdrHistogram interval logs (--hdr-log FILE), readable by HdrHistogram's
// own tools (org.HdrHistogram.HistogramLogReader, HistogramLogProcessor,
// hdr-plot, HdrHistogram_c's hdr_log_reader).
//
// The log format (HdrHistogram's "Histogram log format version 1.3"):
//   #[Histogram log format version 1.3]
//   #[StartTime: 1764691200.123 (seconds since epoch), Tue Dec 02 16:00:00 UTC 2025]
//   #[BaseTime: 1764691200.123 (seconds since epoch)]
//   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
//   Tag=READ,0.000,1.000,0.052,HISTFAAAA...
// Each interval line: the optional tag, the interval's start in seconds
// since BaseTime, its length in seconds, its largest value divided by
// 10^6 (ms for our ns values; HdrHistogram's writer default), and the
// histogram, V2-encoded, compressed and base64-encoded:
//
//   compressed: int32 cookie 0x1c849314 (0x1c849304 | word-size nibble 0x10),
//               int32 length of the zlib stream, then the zlib (DEFLATE) stream
//               of the encoded form below;
//   encoded:    int32 cookie 0x1c849313, int32 payload length,
//               int32 normalizingIndexOffset (0), int32 significant digits (3),
//               int64 lowestDiscernibleValue (1), int64 highestTrackableValue,
//               float64 integerToDoubleValueConversionRatio (1.0), then the
//               payload: the counts array from index 0 up to the index of the
//               largest value, each as a ZigZag LEB128-64b9B varint, a run of
//               n >= 2 zero counts written as -n.
// All integers big-endian. Values are nanoseconds; our bucket index layout
// is exactly HdrHistogram's for lowestDiscernibleValue 1 and 3 significant
// digits, so bucket counts are copied index by index, losslessly.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "measure/histogram.h"

namespace storebench {

inline constexpr std::uint32_t kHdrV2EncodingCookie = 0x1c849303u | 0x10u;
inline constexpr std::uint32_t kHdrV2CompressedCookie = 0x1c849304u | 0x10u;

// HdrHistogram's V2 encoding of `h` (uncompressed), as Java's
// AbstractHistogram.encodeIntoByteBuffer lays it out.
std::string EncodeHdrV2(const Histogram& h);
// The compressed form (cookie, length, zlib stream) of EncodeHdrV2(h).
std::string EncodeHdrV2Compressed(const Histogram& h);
// Standard base64 (RFC 4648, with '=' padding).
std::string Base64Encode(std::string_view bytes);

// Writes one HdrHistogram log. Not thread-safe.
class HdrLogWriter {
 public:
  // Writes the header lines; start_unix_ms is both StartTime and BaseTime.
  HdrLogWriter(std::ostream& out, std::int64_t start_unix_ms);
  // One interval line. start_unix_s: the interval's start (wall clock,
  // seconds since the epoch); length_s its length. An empty histogram
  // writes nothing.
  void WriteInterval(std::string_view tag, double start_unix_s, double length_s, const Histogram& h);
  std::int64_t base_unix_ms() const { return base_unix_ms_; }

 private:
  std::ostream& out_;
  std::int64_t base_unix_ms_;
};

}  // namespace storebench
