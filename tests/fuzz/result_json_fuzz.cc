// Fuzzes the JSON result reader (report/json_report.h ReadJson) and what
// `storebench merge`, `compare` and the text summary do with what it
// accepts: a result file is outside input (another host's, another
// version's, a hand-edited one). Bad input must be a ConfigError (one line);
// an accepted result must write back as JSON that reads again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "measure/result.h"
#include "report/compare.h"
#include "report/json_report.h"
#include "report/merge.h"
#include "report/result_set.h"
#include "report/text_report.h"

using namespace storebench;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  RunReport r;
  try {
    r = ReadJson(in);
  } catch (const ConfigError&) {
    return 0;
  }
  // Round trip: what we write from an accepted result, we read.
  std::ostringstream out;
  WriteJson(r, out);
  std::istringstream again(out.str());
  try {
    (void)ReadJson(again);
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "accepted result does not read back: %s\n", e.what());
    std::abort();
  }
  // What merge, compare and the text summary compute from it.
  std::ostringstream text;
  for (const PhaseResult& p : r.phases) {
    WriteTextSummary(p, text);
    (void)CombinedLatency(p);
  }
  try {
    (void)MergeResults({{"a.json", r}, {"b.json", r}});
  } catch (const ConfigError&) {
  }
  LoadedRun run;
  run.id = "fuzz";
  run.label = r.label;
  run.file = "fuzz.json";
  run.status = "ok";
  run.report = r;
  for (const char* by : {"threads", "target", "recordcount"}) {
    for (const char* metric : {"throughput", "p99", "avg"}) {
      try {
        (void)CompareTable({run}, CompareOptions{by, metric, "text"});
      } catch (const ConfigError&) {
      }
    }
  }
  return 0;
}
