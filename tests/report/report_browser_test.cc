// The HTML report as a user gets it, in a browser. Both example studies
// (plans/threads.toml, plans/target.toml) run as written but shortened to
// seconds (recordcount 300, 0.05 s per run, no warm-up), `storebench report`
// draws them, and headless Chromium loads REPORT.html#selftest through
// scripts/report_check.sh --selftest: the page's own script (report_script.h)
// checks every chart there (series distinguishable without colour, legend
// entries that hide and show their series, the answer before the tables).
// Two hand-written pages check the selftest itself: one that keeps the DOM
// contract passes, one with two series that differ by colour only fails.
// Skipped, saying why, without chromium or a binding a plan needs.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "db/registry.h"
#include "report/report_script.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

bool HaveChromium() { return std::system("command -v chromium >/dev/null 2>&1") == 0; }

// scripts/report_check.sh --selftest REPORT [SHOT], run in `dir`.
test_util::ProcessResult CheckInBrowser(const fs::path& dir, const std::string& report, const std::string& shot = "") {
  test_util::ProcessOptions po;
  po.cwd = dir.string();
  po.env = {{"HOME", dir.string()}};
  po.kill_after_s = 180;
  std::vector<std::string> args = {STOREBENCH_SOURCE_DIR "/scripts/report_check.sh", "--selftest", report};
  if (!shot.empty()) args.push_back(shot);
  return test_util::RunProcess("/bin/bash", args, po);
}

// A page with the report's DOM contract: one chart per entry of `charts`, one
// series per "COLOR DASH MARKER", drawn in that colour and dash; the page's script at the end.
std::string ContractPage(const std::vector<std::vector<std::string>>& charts) {
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>t</title></head><body>\n"
                  "<p><span id=\"drawn\"></span></p>\n<section id=\"answer\"><p class=\"summary\">A answers.</p>\n";
  for (std::size_t c = 0; c < charts.size(); ++c) {
    if (c == 1) o += "</section>\n<table><tr><td>1</td></tr></table>\n";
    std::string svg, legend;
    for (std::size_t i = 0; i < charts[c].size(); ++i) {
      const std::string& style = charts[c][i];
      const std::string color = style.substr(0, style.find(' ')), k = std::to_string(i);
      const std::string dash = style.find(" dash ") != std::string::npos  ? " stroke-dasharray=\"6 4\""
                               : style.find(" dot ") != std::string::npos ? " stroke-dasharray=\"2 3\""
                               : style.find(" fine ") != std::string::npos ? " stroke-dasharray=\"1 2\""
                                                                           : "";
      svg += "<g class=\"s\" data-i=\"" + k + "\" data-style=\"" + style + "\" fill=\"" + color + "\"><path class=\"series\" d=\"M10 " +
             std::to_string(10 + 20 * i) + " L700 40\" fill=\"none\" stroke=\"" + color + "\"" + dash + "/></g>\n";
      legend += "<li data-i=\"" + k + "\">series " + k + "</li>";
    }
    o += "<figure class=\"chart\" id=\"c" + std::to_string(c) + "\"><svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
         "viewBox=\"0 0 720 380\" width=\"720\" height=\"380\" data-series=\"" + std::to_string(charts[c].size()) + "\">\n" + svg +
         "</svg>\n<ul class=\"legend\">" + legend + "</ul></figure>\n";
  }
  return o + "<script>\n" + std::string(ReportScript()) + "</script>\n</body></html>\n";
}

TEST(ReportBrowserTest, SelftestPassesOnAPageThatKeepsTheContract) {
  if (!HaveChromium()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it): no page is rendered";
  test_util::TempDir tmp{"storebench-browser"};
  std::ofstream(tmp.path() / "page.html") << ContractPage(
      {{"#0072B2 solid circle", "#0072B2 fine circle", "#D55E00 dash square", "#009E73 dot triangle"},
       {"#0072B2 solid circle", "#D55E00 solid diamond"}});
  const auto r = CheckInBrowser(tmp.path(), "page.html");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("6 series drawn in 2 charts."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("selftest: ok (2 charts)"), std::string::npos) << r.out << r.err;
}

TEST(ReportBrowserTest, SelftestFailsOnSeriesThatDifferByColourOnly) {
  if (!HaveChromium()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it): no page is rendered";
  test_util::TempDir tmp{"storebench-browser"};
  std::ofstream(tmp.path() / "page.html") << ContractPage(
      {{"#0072B2 solid circle"}, {"#0072B2 solid circle", "#D55E00 dash square", "#009E73 dash square"}});
  const auto r = CheckInBrowser(tmp.path(), "page.html");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("selftest: FAIL: chart c1: series 2 differs from series 1 by colour only (dash square)"), std::string::npos)
      << r.out << r.err;
}

// The bindings a plan names (the quoted words of its `binding = ...` line)
// that this build lacks.
std::vector<std::string> MissingBindings(const std::string& plan) {
  std::vector<std::string> missing;
  std::istringstream in(plan);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("binding")) continue;
    for (std::size_t q = line.find('"'), end; q != std::string::npos && (end = line.find('"', q + 1)) != std::string::npos;
         q = line.find('"', end + 1)) {
      const std::string name = line.substr(q + 1, end - q - 1);
      bool built = false;
      for (const BindingInfo* b : AllBindings()) built = built || b->name == name;
      if (!built) missing.push_back(name);
    }
  }
  return missing;
}

// `plan` with the line of each key in `values` set to that value (the test
// fails for a key the plan does not have) and its workload files under
// STOREBENCH_SOURCE_DIR, so that it runs from any directory.
std::string Rewrite(const std::string& plan, const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out;
  std::vector<bool> found(values.size());
  std::istringstream in(plan);
  for (std::string line; std::getline(in, line);) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::string& key = values[i].first;
      if (line.starts_with(key) && line.find_first_not_of(' ', key.size()) == line.find('=', key.size())) {
        line = key + " = " + values[i].second;
        found[i] = true;
      }
    }
    for (std::size_t p = line.find("\"workloads/"); p != std::string::npos; p = line.find("\"workloads/", p + 1)) {
      line.insert(p + 1, STOREBENCH_SOURCE_DIR "/");
    }
    out += line + "\n";
  }
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_TRUE(found[i]) << "the plan has no line `" << values[i].first << " = ...`";
  return out;
}

TEST(ReportBrowserTest, ShortensAPlanAndNamesABindingThisBuildLacks) {
  const std::string plan = "results = \"results/x\"\nduration_s = 2   # measured\nduration_sx = 1\n"
                           "[axes]\nbinding = [\"memory\", \"nosuchstore\"]\nworkload = [\"workloads/workloada\"]\n";
  EXPECT_EQ(MissingBindings(plan), std::vector<std::string>{"nosuchstore"});
  EXPECT_EQ(Rewrite(plan, {{"duration_s", "0.05"}, {"results", "\"/tmp/r\""}}),
            "results = \"/tmp/r\"\nduration_s = 0.05\nduration_sx = 1\n[axes]\nbinding = [\"memory\", \"nosuchstore\"]\n"
            "workload = [\"" STOREBENCH_SOURCE_DIR "/workloads/workloada\"]\n");
}

// Runs plans/NAME.toml shortened by `values` in a temporary directory, reports
// it, and checks the report in the browser. `runs`: how many the plan has.
void RunReportAndCheck(const std::string& name, std::vector<std::pair<std::string, std::string>> values, std::size_t runs) {
  if (!HaveChromium()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it): no report is rendered";
  const std::string plan = test_util::Slurp(STOREBENCH_SOURCE_DIR "/plans/" + name + ".toml");
  ASSERT_FALSE(plan.empty()) << "plans/" << name << ".toml";
  const std::vector<std::string> missing = MissingBindings(plan);
  if (!missing.empty()) GTEST_SKIP() << "plans/" << name << ".toml needs the binding '" << missing.front() << "', not built here";
  test_util::TempDir tmp{"storebench-browser"};
  values.insert(values.end(), {{"duration_s", "0.05"}, {"warmup_s", "0"}, {"results", "\"" + (tmp.path() / "results").string() + "\""}});
  std::ofstream(tmp.path() / "plan.toml") << Rewrite(plan, values);
  test_util::ProcessOptions po;
  po.cwd = tmp.path().string();
  po.kill_after_s = 240;
  const auto p = test_util::RunProcess(STOREBENCH_BINARY, {"plan", "plan.toml"}, po);
  ASSERT_EQ(p.code, 0) << p.err;
  // Flushed now: a child forked with this still buffered would write it again.
  std::cout << "plans/" << name << ".toml, shortened: " << runs << " runs in " << p.wall_ms / 1000.0 << " s" << std::endl;
  const std::string index = test_util::Slurp((tmp.path() / "results/index.json").string());
  std::size_t ok = 0;
  for (std::size_t q = index.find("\"status\": \"ok\""); q != std::string::npos; q = index.find("\"status\": \"ok\"", q + 1)) ++ok;
  EXPECT_GE(ok, runs) << index.substr(0, 2000);  // the runs, and the load steps

  const auto r = test_util::RunProcess(STOREBENCH_BINARY, {"report", "results", "-o", "r.html"}, po);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto size = fs::file_size(tmp.path() / "r.html");
  EXPECT_LT(size, 2u << 20) << "r.html: " << size << " bytes";
  const std::string html = test_util::Slurp((tmp.path() / "r.html").string());
  EXPECT_NE(html.find("<section id=\"answer\">"), std::string::npos) << "a study with an axis opens with <section id=\"answer\">";
  EXPECT_NE(html.find(ReportScript()), std::string::npos) << "the page's script is not report_script.cc's ReportScript()";
  const auto check = CheckInBrowser(tmp.path(), "r.html", "shot.png");
  EXPECT_EQ(check.code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("selftest: ok"), std::string::npos) << "(report_check.sh's output above)";
  std::error_code ec;
  EXPECT_GT(fs::file_size(tmp.path() / "shot.png", ec), 0u) << "no screenshot: " << ec.message() << "\n" << check.err;
}

// 5 stores x 3 workloads x 4 thread counts, 4 load steps.
TEST(ReportBrowserTest, ThreadsPlanReportPassesItsSelftest) {
  RunReportAndCheck("threads", {{"recordcount", "300"}}, 60);
}

// rocksdb x workload A x 5 target rates, records of 10 x 100 bytes instead of 10 x 16000.
TEST(ReportBrowserTest, TargetPlanReportPassesItsSelftest) {
  RunReportAndCheck("target", {{"recordcount", "300"}, {"fieldlength", "100"}}, 5);
}

}  // namespace
}  // namespace storebench
