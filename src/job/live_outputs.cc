#include "job/live_outputs.h"

#include <charconv>

#include "core/error.h"
#include "core/output_file.h"
#include "net/http_server.h"
#include "report/openmetrics.h"
#include "report/timeseries_csv.h"

namespace storebench {

ListenAddress ParseListenAddress(const std::string& text) {
  ListenAddress a{"127.0.0.1", 0};
  std::string port = text;
  const auto colon = text.rfind(':');
  if (colon != std::string::npos) {
    a.host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (a.host.size() >= 2 && a.host.front() == '[' && a.host.back() == ']') a.host = a.host.substr(1, a.host.size() - 2);
  }
  int value = -1;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (a.host.empty() || port.empty() || ec != std::errc() || end != port.data() + port.size() || value < 0 ||
      value > 65535) {
    throw ConfigError("--metrics-listen '" + text + "': expected [HOST:]PORT, e.g. 127.0.0.1:9464 or 9464 (port 0 picks one)");
  }
  a.port = value;
  return a;
}

LiveOutputs::LiveOutputs(const LiveOutputOptions& o, std::ostream& err) : o_(o) {
  metrics_.SetLabels(o.binding, o.label, o.part);
  if (!o.timeseries_file.empty() && o.write_timeseries) {
    csv_file_ = std::make_unique<OutputFile>(o.timeseries_file, "the time series");
    WriteTimeseriesHeader(csv_file_->stream());
  }
  if (!o.metrics_listen.empty()) {
    ListenAddress a = ParseListenAddress(o.metrics_listen);
    if (a.port != 0) a.port += o.rank;  // under MPI: one port per rank
    server_ = std::make_unique<net::HttpServer>(
        net::Endpoint{a.host, a.port}, "--metrics-listen", [this](std::string_view path) {
          net::HttpResponse r;
          if (path == "/metrics" || path.rfind("/metrics?", 0) == 0) {
            r.content_type = "text/plain; version=0.0.4; charset=utf-8";
            r.body = FormatPrometheusText(metrics_.Snapshot());
          } else {
            r.status = 404;
            r.content_type = "text/plain; charset=utf-8";
            r.body = "storebench serves its metrics at /metrics\n";
          }
          return r;
        });
    err << "storebench: metrics for Prometheus at http://" << (a.host.find(':') != std::string::npos ? "[" + a.host + "]" : a.host)
        << ":" << server_->port() << "/metrics\n";
  }
}

LiveOutputs::~LiveOutputs() = default;

void LiveOutputs::Attach(RunnerOptions& o, const std::string& phase) {
  if (server_) o.live = &metrics_;
  if (!csv_file_ || o_.merged_timeseries) return;
  std::ostream* out = &csv_file_->stream();
  o.on_status = [out, phase](double start_unix_s, double end_unix_s, double elapsed_s,
                             const std::array<std::unique_ptr<Histogram>, kNumOpTypes>& hs,
                             const std::array<std::uint64_t, kNumOpTypes>& failed) {
    const double len_s = end_unix_s - start_unix_s;
    for (int i = 0; i < kNumOpTypes; ++i) {
      if (!hs[i] || hs[i]->count() == 0) continue;
      WriteTimeseriesRow(*out, TimeseriesRowOf(end_unix_s, elapsed_s, len_s, phase,
                                               OpName(static_cast<OpType>(i)), *hs[i], failed[i]));
    }
  };
}

void LiveOutputs::Flush() {
  if (csv_file_) csv_file_->Flush();
}

void LiveOutputs::WriteMerged(const RunReport& merged, double status_interval_s) {
  if (!csv_file_) return;
  for (const PhaseResult& p : merged.phases) WriteTimeseriesOfSeries(p, status_interval_s, csv_file_->stream());
}

void LiveOutputs::Commit(std::ostream& err) {
  if (!csv_file_) return;
  csv_file_->Commit();
  err << "storebench: wrote the time series to " << o_.timeseries_file << "\n";
}

}  // namespace storebench
