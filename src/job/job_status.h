// JobStatusLines: the status lines of an MPI job show the whole job.
//
// A StatusCombiner (runner/runner.h) over MpiJob's reductions: at each line
// every rank contributes its operations done and planned, and its latency
// histograms since the previous line; rank 0 gets the sums and the
// histograms merged exactly (bucket counts added, as the final result is),
// and prints the line. Three small all-reduces (counts, minima, maxima) and
// one sum of the occupied buckets to rank 0 per line. Collector thread only;
// stateless, so one object serves every phase.
#pragma once

#include "runner/runner.h"

namespace storebench {

class JobStatusLines final : public StatusCombiner {
 public:
  bool Combine(Figures& f) override;
};

}  // namespace storebench
