// HdrHistogram interval logs (--hdr-log) are written by storebench and read by
// HdrHistogram's own tools; `merge` and `compare` read the JSON results, not
// these logs, so storebench has no log reader to fuzz. This target fuzzes the
// writer's encoding instead, as a round trip: a histogram made of the input's
// values (and counts) is V2-encoded, compressed and base64-encoded, then
// decoded with the tests' independent decoder (tests/hdr_log_decode.h), and
// every bucket count must come back exactly.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include "hdr_log_decode.h"
#include "measure/histogram.h"
#include "report/hdr_log.h"

using namespace storebench;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // 10 bytes per sample: a value (up to 2^48 ns, past the trackable top) and a count (up to 65535).
  Histogram h;
  for (std::size_t i = 0; i + 10 <= size; i += 10) {
    std::uint64_t v = 0;
    std::memcpy(&v, data + i, 6);
    const std::uint64_t n = static_cast<std::uint64_t>(data[i + 8]) | static_cast<std::uint64_t>(data[i + 9]) << 8;
    h.RecordN(v, n);
  }
  const std::string b64 = Base64Encode(EncodeHdrV2Compressed(h));
  const hdr_test::DecodedHistogram d = hdr_test::DecodeCompressed(hdr_test::Base64Decode(b64));
  if (d.buckets != h.NonEmptyBuckets() || d.total != h.count()) std::abort();
  // A whole log of it, as --hdr-log writes it.
  std::ostringstream log;
  HdrLogWriter w(log, 1764691200123);
  w.WriteInterval("READ", 1764691200.123, 1.0, h);
  return 0;
}
