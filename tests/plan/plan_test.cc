// storebench plan: expansion of grids into labelled runs, load groups, the
// child command lines, errors with file:line before anything runs, and (as a
// user would) a small plan run end to end, with a failing run, an index, a
// resume that redoes only what is not done, and a report of it.
#include "plan/plan.h"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;
using test_util::Slurp;

const std::string kWorkloads = std::string(STOREBENCH_SOURCE_DIR) + "/workloads/";

std::string MakeTempDir() {
  std::string tmpl = "/tmp/storebench_plan_XXXXXX";
  EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
  return tmpl;
}

// Runs `storebench ARGS...` in `dir`, with `po`'s other options.
test_util::ProcessResult Storebench(const std::string& dir, const std::vector<std::string>& args,
                                    test_util::ProcessOptions po = {}) {
  po.cwd = dir;
  return test_util::RunProcess(STOREBENCH_BINARY, args, po);
}

std::string Error(const std::string& toml) {
  try {
    ParsePlanText(toml, "p.toml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PlanTest, ExpandsGridFirstAxisOutermostWithLabelsAndLoadGroups) {
  const Plan plan = ParsePlanText(
      "results = \"out\"\n"
      "duration_s = 2\n"
      "warmup_s = 0.5\n"
      "load_threads = 2\n"
      "[properties]\n"
      "recordcount = 500\n"
      "rocksdb.compression = \"none\"\n"
      "[axes]\n"
      "binding = [\"rocksdb\", \"memory\"]\n"
      "workload = [\"" + kWorkloads + "workloada\"]\n"
      "threads = [1, 4]\n"
      "[[runs]]\n"
      "binding = \"memory\"\n"
      "target = [500, 1000]\n",
      "p.toml");
  EXPECT_EQ(plan.results_dir, "out");
  std::vector<std::string> labels;
  for (const auto& r : plan.runs) labels.push_back(r.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"rocksdb-workloada-1", "rocksdb-workloada-4", "memory-workloada-1",
                                              "memory-workloada-4", "memory-core-1-target=500", "memory-core-1-target=1000"}));
  EXPECT_EQ(plan.runs[4].id, "memory-core-1-target=500");
  EXPECT_EQ(plan.runs[5].origin, "p.toml:12");
  EXPECT_EQ(plan.runs[5].axes, (PropertyList{{"binding", "memory"}, {"target", "1000"}}));
  // One load step: rocksdb (memory loads inside each run).
  ASSERT_EQ(plan.loads.size(), 1u);
  EXPECT_EQ(plan.runs[0].load_group, 0);
  EXPECT_EQ(plan.runs[1].load_group, 0);
  EXPECT_EQ(plan.runs[2].load_group, -1);
  EXPECT_EQ(LoadArgs(plan, plan.loads[0]),
            (std::vector<std::string>{"load", "rocksdb", "-P", kWorkloads + "workloada", "-p", "recordcount=500", "-p",
                                      "rocksdb.compression=none", "-p", "threadcount=2", "-p", "label=load-rocksdb-1", "-p",
                                      "rocksdb.dir=out/stores/load-rocksdb-1", "--json", "out/load-rocksdb-1.json"}));
  EXPECT_EQ(RunArgs(plan, plan.runs[1]),
            (std::vector<std::string>{"run", "rocksdb", "-P", kWorkloads + "workloada", "-p", "recordcount=500", "-p",
                                      "rocksdb.compression=none", "-p", "warmup.seconds=0.5", "-p", "maxexecutiontime=2", "-p",
                                      "operationcount=0", "-p", "threadcount=4", "-p", "rocksdb.dir=out/stores/load-rocksdb-1",
                                      "-p", "label=rocksdb-workloada-4", "--json", "out/rocksdb-workloada-4.json"}));
}

TEST(PlanTest, RepetitionsAndSeparateLoadGroups) {
  STOREBENCH_NEED_BINDING("lmdb");
  const Plan plan = ParsePlanText(
      "repetitions = 2\n"
      "[axes]\n"
      "recordcount = [100, 200]\n"
      "binding = \"lmdb\"\n",
      "dir/study.toml");
  EXPECT_EQ(plan.results_dir, "results/study");
  ASSERT_EQ(plan.runs.size(), 4u);
  EXPECT_EQ(plan.runs[0].label, "lmdb-core-1-recordcount=100-rep1");
  EXPECT_EQ(plan.runs[3].label, "lmdb-core-1-recordcount=200-rep2");
  ASSERT_EQ(plan.loads.size(), 2u);  // two record counts: two loads
  EXPECT_EQ(plan.loads[1].id, "load-lmdb-2");
  EXPECT_EQ(plan.runs[3].load_group, 1);
}

// ${NAME} in a string takes the environment variable NAME (the endpoints of
// servers a script started); a label prefixes the names of a grid's runs.
TEST(PlanTest, EnvironmentVariablesAndLabelPrefixes) {
  const std::string toml =
      "[[runs]]\nlabel = \"two\"\nbinding = \"memory\"\nrecordcount = \"${SB_PLAN_TEST_N}0\"\nthreads = [1, 2]\n"
      "[[runs]]\nlabel = \"single\"\nbinding = \"memory\"\n";
  unsetenv("SB_PLAN_TEST_N");
  EXPECT_EQ(Error(toml), "p.toml:4: 'recordcount': environment variable SB_PLAN_TEST_N is not set (the plan's "
                         "${SB_PLAN_TEST_N})");
  setenv("SB_PLAN_TEST_N", "7", 1);
  const Plan plan = ParsePlanText(toml, "p.toml");
  ASSERT_EQ(plan.runs.size(), 3u);
  EXPECT_EQ(plan.runs[0].label, "two-core-1");
  EXPECT_EQ(plan.runs[1].label, "two-core-2");
  EXPECT_EQ(plan.runs[2].label, "single");  // one run: the label alone
  bool found = false;
  for (const auto& [k, v] : plan.runs[0].properties) found = found || (k == "recordcount" && v == "70");
  EXPECT_TRUE(found);
  EXPECT_EQ(Error("[[runs]]\nbinding = \"memory\"\nlabel = \"a${X\"\n"), "p.toml:3: 'label': '${' without a closing '}'");
  unsetenv("SB_PLAN_TEST_N");
}

TEST(PlanTest, BadPlansFailWithFileAndLine) {
  // (the list of known bindings that follows grows with the bindings)
  EXPECT_EQ(Error("[axes]\nbinding = [\"rocksdb\", \"rocksbd\"]\n").substr(0, 63),
            "p.toml:2: unknown binding 'rocksbd' (did you mean 'rocksdb'?); ");
  EXPECT_EQ(Error("[axes]\nbinding = \"memory\"\nthreads = [1, \"x\"]\n"),
            "p.toml:1: run 'memory-core-x': property 'threadcount' = 'x' (p.toml:3): expected an integer in [1, 100000]");
  EXPECT_EQ(Error("[properties]\nrecordcont = 5\n[axes]\nbinding = \"memory\"\n"),
            "p.toml:3: run 'memory-core-1': unknown property 'recordcont' (p.toml:2); did you mean 'recordcount'?");
  EXPECT_EQ(Error("[[runs]]\nbinding = \"memory\"\nworkload = \"/nonexistent/w\"\n"),
            "p.toml:3: workload: cannot read property file '/nonexistent/w': No such file or directory");
  EXPECT_EQ(Error("reps = 2\n"), "p.toml:1: unknown key 'reps' (did you mean 'runs'?); a plan has results, repetitions, "
                                 "warmup_s, duration_s, load_threads, [properties], [axes], [[runs]]");
  EXPECT_EQ(Error("[axes]\nbinding = [\"memory\"\n"), "p.toml:2: Error while parsing array: encountered end-of-file");
  EXPECT_EQ(Error("[[runs]]\nbinding = \"memory\"\n[[runs]]\nbinding = \"memory\"\n"),
            "p.toml:3: two runs are named 'memory-core-1': give each [[runs]] entry its own label, or drop the duplicate");
  EXPECT_EQ(Error("repetitions = 1e20\n[axes]\nbinding = \"memory\"\n"),
            "p.toml:1: 'repetitions' must be an integer from 1 to 1000");
  EXPECT_EQ(Error("load_threads = 1.5\n[axes]\nbinding = \"memory\"\n"),
            "p.toml:1: 'load_threads' must be an integer from 1 to 100000");
  EXPECT_EQ(Error("duration_s = -1\n[axes]\nbinding = \"memory\"\n"), "p.toml:1: 'duration_s' must be a number >= 0");
  EXPECT_EQ(Error("[axes]\nthreads = [1]\n"), "p.toml:1: no binding: give 'binding' in [axes] or in each [[runs]]");
  EXPECT_EQ(Error("[axes]\nbinding = \"memory\"\nrocksdb.compression = \"none\"\n"),
            "p.toml:1: run 'memory-core-1': property 'rocksdb.compression' (p.toml:3) belongs "
            "to binding 'rocksdb', not 'memory'");
}

// A plan of three runs: two memory runs, and an lmdb run whose store
// directory cannot be created (its load step fails at run time: marked
// failed, the plan goes on, exit 1). --resume redoes only that one.
TEST(PlanTest, RunsEndToEndMarksFailuresAndResumes) {
  STOREBENCH_NEED_BINDING("lmdb");
  const std::string dir = MakeTempDir();
  const std::string plan_file = dir + "/p.toml";
  std::ofstream(plan_file) << "results = \"res\"\n"
                              "[properties]\n"
                              "recordcount = 200\n"
                              "operationcount = 500\n"
                              "[axes]\n"
                              "threads = [1, 2]\n"
                              "binding = \"memory\"\n"
                              "[[runs]]\n"
                              "binding = \"lmdb\"\n"
                              "lmdb.dir = \"/proc/no/such/dir\"\n";
  const auto first = Storebench(dir, {"plan", "p.toml"});
  EXPECT_EQ(first.code, 1) << first.err;
  EXPECT_EQ(first.out, "plan p.toml: 2 ok, 1 failed, 0 interrupted, 0 pending; index: res/index.json\n");
  EXPECT_NE(first.err.find("[1/3] memory-core-1 ... ok"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("load-lmdb-1: loading lmdb ... failed (exit code 2: storebench: "), std::string::npos) << first.err;
  const std::string index = Slurp(dir + "/res/index.json");
  EXPECT_NE(index.find("\"status\": \"failed\",\n      \"detail\": \"its load step load-lmdb-1 failed: exit code 2"),
            std::string::npos)
      << index;
  ASSERT_TRUE(fs::exists(dir + "/res/memory-core-2.json"));
  const auto mtime = fs::last_write_time(dir + "/res/memory-core-2.json");

  // Without --resume the results are not overwritten.
  const auto again = Storebench(dir, {"plan", "p.toml"});
  EXPECT_EQ(again.code, 2);
  EXPECT_EQ(again.err, "storebench: plan: 'res' already holds results (index.json): add --resume to continue that plan, "
                       "or remove the directory to start over\n");
  const auto resumed = Storebench(dir, {"plan", "p.toml", "--resume"});
  EXPECT_EQ(resumed.code, 1);
  EXPECT_NE(resumed.err.find("(2 already done, skipped)"), std::string::npos) << resumed.err;
  EXPECT_EQ(resumed.err.find("memory-core-1 ..."), std::string::npos) << resumed.err;
  EXPECT_EQ(fs::last_write_time(dir + "/res/memory-core-2.json"), mtime);

  // compare and report read the directory; the failed run is there, marked.
  const auto cmp = Storebench(dir, {"compare", "res", "--format", "csv"});
  EXPECT_EQ(cmp.code, 0) << cmp.err;
  EXPECT_EQ(cmp.out.substr(0, cmp.out.find('\n')), "label,1,2");
  EXPECT_NE(cmp.out.find("\nlmdb-core,failed,-\n"), std::string::npos) << cmp.out;
  const auto rep = Storebench(dir, {"report", "res", "-o", "r.html"});
  EXPECT_EQ(rep.code, 0) << rep.err;
  const std::string html = Slurp(dir + "/r.html");
  EXPECT_NE(html.find("<tr class=\"failed\"><td class=\"l\">lmdb-core-1</td><td class=\"l status\">failed</td>"),
            std::string::npos);
  // Its load step, in a table of its own.
  EXPECT_NE(html.find("<table id=\"loads\"><tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"failed\"><td class=\"l\">load-lmdb-1</td>"), std::string::npos);
  fs::remove_all(dir);
}

// SIGINT to the plan: the running child gets one SIGINT and writes its
// partial result, the plan writes its index and exits 130; --resume then
// runs the interrupted run and the one never started. The signal comes
// as the plan starts its first run (the child may not have set up its
// handler yet, or even started) and again some time into it: both ways the
// child is stopped, not killed, and leaves its result.
TEST(PlanTest, InterruptThenResume) {
  for (const int after_ms : {0, 400}) {
    SCOPED_TRACE("SIGINT " + std::to_string(after_ms) + " ms after the first run started");
    const std::string dir = MakeTempDir();
    std::ofstream(dir + "/p.toml") << "duration_s = 2\n[properties]\nrecordcount = 100\n[axes]\nbinding = \"memory\"\n"
                                      "threads = [1, 2]\n";
    test_util::ProcessOptions po;
    po.signal_after_stderr = "[1/2] memory-core-1 ...";
    po.signal_after_ms = after_ms;
    const auto first = Storebench(dir, {"plan", "p.toml"}, po);
    EXPECT_EQ(first.code, 130) << first.err;
    EXPECT_EQ(first.out, "plan p.toml: 0 ok, 0 failed, 1 interrupted, 1 pending; index: results/p/index.json\n");
    EXPECT_NE(first.err.find("[1/2] memory-core-1 ... interrupted, "), std::string::npos) << first.err;
    EXPECT_NE(first.err.find("storebench plan p.toml --resume continues it"), std::string::npos) << first.err;
    EXPECT_NE(Slurp(dir + "/results/p/memory-core-1.json").find("\"interrupted\": true"), std::string::npos)
        << Slurp(dir + "/results/p/memory-core-1.log");
    const auto resumed = Storebench(dir, {"plan", "p.toml", "--resume"});
    EXPECT_EQ(resumed.code, 0) << resumed.err;
    EXPECT_EQ(resumed.out, "plan p.toml: 2 ok, 0 failed, 0 interrupted, 0 pending; index: results/p/index.json\n");
    EXPECT_EQ(Slurp(dir + "/results/p/memory-core-1.json").find("\"interrupted\": true"), std::string::npos);
    fs::remove_all(dir);
  }
}

TEST(PlanTest, DryRunPrintsTheCommands) {
  for (const char* binding : {"lmdb", "leveldb", "rocksdb"}) STOREBENCH_NEED_BINDING(binding);
  const std::string dir = MakeTempDir();
  std::ofstream(dir + "/p.toml") << "[axes]\nbinding = [\"memory\", \"lmdb\"]\nthreads = [1, 2]\n";
  const auto r = Storebench(dir, {"plan", "p.toml", "--dry-run"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "# p.toml: 4 run(s), 1 load step(s), results in results/p/\n"
            "storebench run memory -p threadcount=1 -p label=memory-core-1 --json results/p/memory-core-1.json\n"
            "storebench run memory -p threadcount=2 -p label=memory-core-2 --json results/p/memory-core-2.json\n"
            "storebench load lmdb -p threadcount=1 -p label=load-lmdb-1 -p lmdb.dir=results/p/stores/load-lmdb-1 "
            "--json results/p/load-lmdb-1.json\n"
            "storebench run lmdb -p threadcount=1 -p lmdb.dir=results/p/stores/load-lmdb-1 -p label=lmdb-core-1 "
            "--json results/p/lmdb-core-1.json\n"
            "storebench run lmdb -p threadcount=2 -p lmdb.dir=results/p/stores/load-lmdb-1 -p label=lmdb-core-2 "
            "--json results/p/lmdb-core-2.json\n");
  EXPECT_FALSE(fs::exists(dir + "/results"));
  fs::remove_all(dir);
}

// Every result carries a label: BINDING-WORKLOAD-THREADS unless given.
TEST(LabelTest, DefaultAndGivenLabelInJsonResult) {
  const std::string dir = MakeTempDir();
  const std::vector<std::string> common = {"bench", "memory", "-P", kWorkloads + "workloadb", "-threads", "2",
                                           "-p", "recordcount=100", "-p", "operationcount=100"};
  std::vector<std::string> args = common;
  args.insert(args.end(), {"--json", "a.json"});
  ASSERT_EQ(Storebench(dir, args).code, 0);
  EXPECT_NE(Slurp(dir + "/a.json").find("\n  \"binding\": \"memory\",\n  \"label\": \"memory-workloadb-2\",\n"),
            std::string::npos);
  args = common;
  args.insert(args.end(), {"--json", "b.json", "-l", "mine"});
  ASSERT_EQ(Storebench(dir, args).code, 0);
  EXPECT_NE(Slurp(dir + "/b.json").find("\n  \"label\": \"mine\",\n"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace storebench
