// `--metrics-listen` end to end: a real Prometheus (scripts/servers/
// prometheus.sh, STOREBENCH_TEST_SERVER_PROMETHEUS) scrapes a storebench run
// once a second, and what it stored agrees with what the run printed. And a
// taken address stops storebench before it runs, with one line.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "net/http_server.h"
#include "report/openmetrics.h"
#include "tcp_connect.h"
#include "test_util.h"

namespace storebench {
namespace {

using test_util::ProcessOptions;
using test_util::ProcessResult;
using test_util::RunProcess;

std::string UrlEncode(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// The "data" object of Prometheus's answer to GET `path_and_query` (an
// /api/v1/ call) at `url` ("http://127.0.0.1:PORT"), by plain HTTP/1.0.
nlohmann::json Api(const std::string& url, const std::string& path_and_query) {
  const std::string host_port = url.substr(url.find("//") + 2);
  const int fd = test_util::ConnectTcp(host_port, 10);
  EXPECT_GE(fd, 0) << host_port;
  if (fd < 0) return {};
  const std::string reply =
      test_util::SendAndReadAll(fd, "GET " + path_and_query + " HTTP/1.0\r\nHost: " + host_port + "\r\n\r\n");
  close(fd);
  const auto body = reply.find("\r\n\r\n");
  EXPECT_EQ(reply.substr(0, reply.find("\r\n")), "HTTP/1.0 200 OK") << reply.substr(0, 500);
  if (body == std::string::npos) return {};
  const nlohmann::json j = nlohmann::json::parse(reply.substr(body + 4), nullptr, false);
  EXPECT_EQ(j.value("status", ""), "success") << reply.substr(0, 500);
  return j.contains("data") ? j["data"] : nlohmann::json{};
}

// An instant query.
nlohmann::json Query(const std::string& url, const std::string& promql) {
  return Api(url, "/api/v1/query?query=" + UrlEncode(promql));
}

// Waits (up to 30 s) until Prometheus has taken `instance` among its
// active targets: its service discovery hands new targets to the scraper
// only every few seconds (5 s in Prometheus 2.x), which would otherwise
// cost the first seconds of a run. Whether it did.
bool WaitUntilTargeted(const std::string& url, const std::string& instance) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < give_up) {
    const nlohmann::json data = Api(url, "/api/v1/targets?state=active");
    for (const auto& t : data.value("activeTargets", nlohmann::json::array())) {
      if (t.contains("labels") && t["labels"].value("instance", "") == instance) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

// The value after "[OVERALL], Throughput(ops/sec), " in a run's output, or -1.
double PrintedThroughput(const std::string& out) {
  const std::string key = "[OVERALL], Throughput(ops/sec), ";
  const auto at = out.find(key);
  return at == std::string::npos ? -1 : std::stod(out.substr(at + key.size()));
}

std::vector<std::string> RunArgs(int port, const std::string& seconds, const std::string& target) {
  return {"run", "null", "-P", std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada",
          "-p", "operationcount=0", "-p", "maxexecutiontime=" + seconds, "-p", "target=" + target,
          "-threads", "2", "--metrics-listen", "127.0.0.1:" + std::to_string(port)};
}

// A scrape target for the test's Prometheus: a file of its own in the
// shared targets folder (other tests may add theirs), removed at the end.
class Target {
 public:
  Target(const std::filesystem::path& targets, int port)
      : instance_("127.0.0.1:" + std::to_string(port)),
        file_(targets / ("storebench-" + std::to_string(getpid()) + "-" + std::to_string(port) + ".json")) {
    // Written aside and renamed, so that Prometheus never reads half a file.
    const std::filesystem::path tmp = file_.string() + ".tmp";
    std::ofstream(tmp) << "[{\"targets\": [\"" << instance_ << "\"]}]\n";
    std::filesystem::rename(tmp, file_);
  }
  ~Target() {
    std::error_code ec;
    std::filesystem::remove(file_, ec);
  }
  const std::string& instance() const { return instance_; }

 private:
  std::string instance_;
  std::filesystem::path file_;
};

// What Prometheus stored of the run phase's operation counters of
// `instance`: the rate between the first scrape after the counters started
// to rise and the first scrape at their final value, and how many scrapes
// that spans. The counters move once a series interval while the phase runs
// and stand still before its first publication and after its end.
struct ScrapedRate {
  double ops_per_s = 0;
  std::size_t samples = 0;
  std::string data;  // Prometheus's answer, for messages
};
ScrapedRate ScrapedOperationsRate(const std::string& url, const std::string& instance) {
  // Raw samples (a range selector): the series are stale once the run has
  // ended, so an instant query would find nothing.
  const nlohmann::json data =
      Query(url, "storebench_operations_total{phase=\"run\",instance=\"" + instance + "\"}[5m]");
  ScrapedRate out;
  out.data = data.dump();
  if (data.value("resultType", "") != "matrix") return out;
  std::map<double, double> total;  // scrape time (s) -> sum over op and status
  for (const auto& series : data["result"]) {
    for (const auto& sample : series["values"]) {
      total[sample[0].get<double>()] += std::stod(sample[1].get<std::string>());
    }
  }
  const std::vector<std::pair<double, double>> samples(total.begin(), total.end());
  if (samples.size() < 2) return out;
  std::size_t first = 0, last = samples.size() - 1;
  while (first + 1 < samples.size() && samples[first + 1].second == samples.front().second) ++first;
  while (last > first && samples[last - 1].second == samples.back().second) --last;
  if (last == first) return out;
  out.samples = last - first + 1;
  out.ops_per_s = (samples[last].second - samples[first].second) / (samples[last].first - samples[first].first);
  return out;
}

// The selector of the READ latency buckets scraped from `instance`.
std::string ReadBuckets(const std::string& instance) {
  return "storebench_latency_seconds_bucket{op=\"READ\",instance=\"" + instance + "\"}";
}

// The raw samples of `series` (a PromQL selector) in the last 5 minutes.
std::size_t RawSampleCount(const std::string& url, const std::string& series) {
  const nlohmann::json data = Query(url, series + "[5m]");
  std::size_t n = 0;
  if (data.value("resultType", "") != "matrix") return n;
  for (const auto& s : data["result"]) n += s["values"].size();
  return n;
}

// The endpoint's pieces without the CLI: an HttpServer serving
// FormatPrometheusText of a run that publishes 20000 operations a second,
// once a second, for 10 s. Prometheus takes the exposition and its samples
// give that rate.
TEST(MetricsPrometheusTest, PrometheusScrapesTheExposition) {
  test_util::Settings server;
  STOREBENCH_NEED_SERVER("prometheus", server);
  const std::string url = test_util::SettingOf(server, "prometheus.url");
  const std::filesystem::path targets = test_util::SettingOf(server, "prometheus.targets");
  std::mutex mu;
  LiveSnapshot live;  // guarded by mu
  live.binding = "null";
  live.phase = "run";
  live.running = true;
  live.ops.resize(1);
  live.ops[0].name = "READ";
  net::HttpServer endpoint(net::Endpoint{"127.0.0.1", 0}, "the test", [&](std::string_view path) {
    net::HttpResponse r;
    if (path != "/metrics") {
      r.status = 404;
      return r;
    }
    r.content_type = std::string(kPrometheusTextContentType);
    std::lock_guard<std::mutex> lock(mu);
    r.body = FormatPrometheusText(live);
    return r;
  });
  const Target target(targets, endpoint.port());
  ASSERT_TRUE(WaitUntilTargeted(url, target.instance())) << "Prometheus at " << url << " never took the target";
  constexpr double kRate = 20000;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 1; i <= 10; ++i) {
    std::this_thread::sleep_until(start + std::chrono::seconds(i));
    std::lock_guard<std::mutex> lock(mu);
    live.ops[0].by_status[Status::kOk] = static_cast<std::uint64_t>(kRate * i);
    live.ops[0].service.count = live.ops[0].by_status[Status::kOk];
    live.ops[0].service.at_or_below.fill(live.ops[0].service.count);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // two more scrapes at the final value
  const ScrapedRate scraped = ScrapedOperationsRate(url, target.instance());
  ASSERT_GE(scraped.samples, 5u) << scraped.data;
  EXPECT_NEAR(scraped.ops_per_s, kRate, kRate * 0.05) << scraped.samples << " scrapes: " << scraped.data;
  EXPECT_GT(RawSampleCount(url, ReadBuckets(target.instance())), 0u);
}

TEST(MetricsPrometheusTest, ScrapedCountersGiveThePrintedThroughput) {
  test_util::Settings server;
  STOREBENCH_NEED_SERVER("prometheus", server);
  const std::string url = test_util::SettingOf(server, "prometheus.url");
  const std::filesystem::path targets = test_util::SettingOf(server, "prometheus.targets");
  ASSERT_FALSE(url.empty()) << "STOREBENCH_TEST_SERVER_PROMETHEUS has no prometheus.url";
  ASSERT_TRUE(std::filesystem::is_directory(targets)) << targets;
  const int port = test_util::UnusedLoopbackPort();
  const Target target(targets, port);
  ASSERT_TRUE(WaitUntilTargeted(url, target.instance())) << "Prometheus at " << url << " never took the target";

  test_util::TempDir tmp{"storebench-metrics"};
  ProcessOptions o;
  o.cwd = tmp.path().string();
  o.kill_after_s = 120;
  const ProcessResult r = RunProcess(STOREBENCH_BINARY, RunArgs(port, "12", "20000"), o);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const double printed = PrintedThroughput(r.out);
  ASSERT_GT(printed, 0) << r.out;

  const ScrapedRate scraped = ScrapedOperationsRate(url, target.instance());
  ASSERT_GE(scraped.samples, 5u) << "fewer than 5 scrapes while the counters rose: " << scraped.data;
  EXPECT_NEAR(scraped.ops_per_s, printed, printed * 0.10)
      << "over " << scraped.samples << " scrapes; printed " << r.out << "\n" << scraped.data;
  EXPECT_GT(RawSampleCount(url, ReadBuckets(target.instance())), 0u);
}

TEST(MetricsPrometheusTest, TakenAddressExitsTwoWithOneLine) {
  int port = 0;
  const int taken = test_util::BindLoopback(&port);
  ASSERT_EQ(listen(taken, 1), 0);
  test_util::TempDir tmp{"storebench-metrics"};
  ProcessOptions o;
  o.cwd = tmp.path().string();
  o.kill_after_s = 60;
  const ProcessResult r = RunProcess(STOREBENCH_BINARY, RunArgs(port, "1", "100"), o);
  close(taken);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Address already in use"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace storebench
