// The JSON result file: one valid JSON document per run (YCSB's JSON
// exporter writes one object per line, which is not). ReadJson parses it back
// exactly (histograms included), so results can be merged across processes
// and hosts and turned into reports later.
//
// Schema 1. Keys appear in the order below. Units are in the key names:
// _ms milliseconds, _s seconds, _ns nanoseconds, _us microseconds, _bytes
// bytes, ops_per_s operations per second. Integers are exact 64-bit; a
// number that would not be finite (NaN, infinity) is written as null.
//
// {
//   "storebench": {                     // about the file itself
//     "version": "0.1.0",               // storebench version that wrote it (string)
//     "schema": 1,                      // this layout; readers reject other values
//     "histogram": {                    // bucket layout of every "histograms_ns" entry
//       "unit_ns": 1,                   // value of one unit, ns
//       "sub_buckets": 2048,            // HdrHistogram sub-bucket count (3 significant digits)
//       "max_trackable_ns": 4398046511104,  // 2^42; larger values sit in the top bucket
//       "buckets": 33793                // number of bucket indexes (0 .. buckets-1)
//     }
//   },
//   "command": "bench",                 // load | run | bench | ...
//   "binding": "rocksdb",               // binding name
//   "label": "rocksdb-workloada-2",     // the run's name in reports (property label; default
//                                       //   BINDING-WORKLOAD-THREADS); optional: absent when ""
//   "host": {"hostname": "db1", ...},   // facts about the client host: string -> string
//   "properties": {"recordcount": "1000", ...},  // every property in force: string -> string
//   "phases": [                         // in the order they ran
//     {
//       "phase": "load",                // load | run | warmup | ...
//       "binding": "rocksdb",
//       "threads": 2,                   // client threads
//       "target_ops_per_s": 0,          // -target over all threads; 0 = unthrottled
//       "measurement_interval": "op",   // op | intended | both
//       "percentiles": [50, 95, 99],    // hdrhistogram.percentiles, as configured
//       "start_unix_ms": 1764691200000, // wall-clock start, ms since the Unix epoch
//       "runtime_ms": 10110,            // phase duration, ms
//       "operations": 1000,             // operations done (ok or not)
//       "throughput_ops_per_s": 98.91,  // operations / runtime
//       "interrupted": false,           // true: stopped by a signal, partial results
//       "stop_reason": "operationcount",// operationcount | maxexecutiontime | signal | ...
//       "disk_bytes": 123456,           // store size on disk after the phase; null = not measured
//       "integrity_failures": 0,        // dataintegrity mismatches
//       "notes": ["..."],               // free-form remarks (strings)
//       "store_stats": {"k": "v"},      // binding-reported statistics: string -> string
//       "ops": [                        // one per measured operation name, in report order
//         {
//           "name": "READ",             // YCSB measurement name: READ, READ-FAILED, UPDATE, ...
//           "return_codes": {"OK": 4962, "NOT_FOUND": 3},  // Status name -> count; non-zero only,
//                                       //   in Status::Code order
//           "service_us": {             // summary of histograms_ns.service, microseconds
//             "count": 4965,            //   samples (integer)
//             "min": 0.25, "mean": 345.612, "max": 12345.678,  // us (ns / 1000, not truncated)
//             "p50": 301.055, "p90": ..., "p95": ..., "p99": ..., "p99.9": ..., "p99.99": ...
//                                       //   percentiles in us: 50, 90, 95, 99, 99.9, 99.99 and
//                                       //   every other entry of "percentiles", ascending, key
//                                       //   "p" + the shortest decimal form of the percentile
//           },
//           "intended_us": {...},       // same, of histograms_ns.intended
//           "histograms_ns": {          // the exact histograms, ns (what a merge adds up)
//             "service": {
//               "count": 4965,          // samples; equals the sum of the bucket counts
//               "min": 250, "max": 12345678,  // exact extreme samples, ns (0 when count is 0)
//               "sum": 1715963580,      // exact sum of all samples, ns
//               "buckets": [[1500, 2], [13508, 1]]  // [bucket index, count], ascending, non-zero
//                                       //   counts only; index layout: see Histogram::BucketIndex
//             },
//             "intended": {...}         // same layout
//           }
//         }
//       ],
//       "series": [                     // one point per status interval, merged over threads
//         {
//           "t_s": 1.0,                 // seconds since phase start, at the interval's end
//           "operations": 1000,         // operations in the interval
//           "ops_per_s": 1000.0,        // interval throughput
//           "ops": {                    // per operation name (unique), in report order
//             "READ": {"count": 950, "mean_us": 301.5, "p50_us": 280.0, "p99_us": 990.5, "max_us": 2047.0}
//           }
//         }
//       ]
//     }
//   ],
//   "parts": [                          // only in a merged result (storebench merge): one per
//     {                                 //   client process, in client.id order
//       "file": "part-0.json", "hostname": "db1", "client_id": 0,
//       "phases": [{"phase": "run", "threads": 2, "start_unix_ms": ..., "runtime_ms": ...,
//                   "operations": 500, "throughput_ops_per_s": 49.5}]
//     }
//   ]
// }
//
// Reading: every key above is required except "parts", "label" and the derived summaries
// ("service_us", "intended_us"), which are recomputed from "histograms_ns"
// and otherwise ignored, as are unknown keys (room for additions within
// schema 1). A null number reads as NaN, except "disk_bytes" (not measured).
// Strings must be valid UTF-8 when written; invalid bytes are replaced by
// U+FFFD.
//
// Layout: two-space indentation; an object or array holding only scalars
// (or only arrays of scalars, like "buckets") is written on one line.
#pragma once

#include <istream>
#include <ostream>

#include "measure/result.h"

namespace storebench {

inline constexpr int kJsonSchemaVersion = 1;

// Writes r as one JSON document followed by a newline.
void WriteJson(const RunReport& r, std::ostream& out);

// Parses what WriteJson wrote. Throws ConfigError ("result JSON: phases[0].ops[1].histograms_ns.service:
// ...") for input that is not JSON, is another schema, or misses or mistypes a field.
RunReport ReadJson(std::istream& in);

}  // namespace storebench
