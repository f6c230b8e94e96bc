// Aerospike benchmark-style flags: a run described in a few letters, as
// Aerospike's benchmark tools take it, turned into the YCSB properties it
// amounts to. Each flag expands to property overrides applied in argument
// order (so a later -p still wins), and `--explain` prints the expansion.
//
//   -k KEYS        recordcount=KEYS
//   -o SPEC        the record's bins: S:N (a string of N bytes), B:N (N bytes),
//                  I (an 8-byte integer); comma-separated for several bins of
//                  one size -> fieldcount, fieldlength, fieldlengthdistribution
//   -w I           insert only: insertproportion=1, the other proportions 0
//   -w RU[,P]      read/update with P% reads (default 50): readproportion,
//                  updateproportion, all bins read and written
//   -z THREADS     threadcount
//   -d SECONDS     maxexecutiontime=SECONDS, operationcount=0 (time-bound)
//   -g OPS         target (ops/s for the whole process)
//
// Pure functions; they throw ConfigError naming the flag and what is wrong.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace storebench {

using PropertyList = std::vector<std::pair<std::string, std::string>>;

// True for the flags above: -k -o -w -z -d -g.
bool IsAerospikeFlag(std::string_view flag);

// The properties that `flag value` amounts to. Throws ConfigError.
PropertyList ExpandAerospikeFlag(std::string_view flag, std::string_view value);

}  // namespace storebench
