// Bindings as build options (cmake/Bindings.cmake): a configure with every
// library binding but RocksDB turned off leaves their sources, their tests
// and their libraries out, lists each binding with what was found, and
// writes the registry's list (db/bindings_enabled.def) with the others as
// "left out", so that naming one at run time says how to get it.
// Configures only (no build): a few seconds.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "test_util.h"

namespace storebench {
namespace {

bool Contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(BuildOptionsTest, BindingsTurnedOffAreLeftOutOfTheBuild) {
  test_util::TempDir tmp;
  const std::string build = (tmp.path() / "build").string();
  std::vector<std::string> args = {"cmake", "-S", STOREBENCH_SOURCE_DIR, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                                   "-DSTOREBENCH_BENCH=OFF", "-DBUILD_TESTING=OFF"};
  const std::vector<std::string> off = {"leveldb", "lmdb",    "sqlite",     "wiredtiger", "kyotocabinet", "tokyocabinet",
                                        "groonga", "postgresql", "mariadb", "gluster"};
  for (const auto& b : off) {
    std::string upper;
    for (char c : b) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    args.push_back("-DSTOREBENCH_WITH_" + upper + "=OFF");
  }
  test_util::ProcessOptions options;
  options.cwd = tmp.path().string();
  options.kill_after_s = 240;
  const test_util::ProcessResult r = test_util::RunProcess("/usr/bin/env", args, options);
  ASSERT_EQ(r.code, 0) << r.out << r.err;

  // "(N of M": every binding but the ones turned off is on (the others need
  // no library or find theirs on a machine set up by scripts/setup.sh), and
  // M is the number of bindings listed, one line each.
  int on = -1, all = -1;
  const std::size_t at = r.out.find("storebench bindings (");
  ASSERT_NE(at, std::string::npos) << r.out;
  ASSERT_EQ(std::sscanf(r.out.c_str() + at, "storebench bindings (%d of %d", &on, &all), 2) << r.out;
  int listed = 0;
  for (std::size_t p = r.out.find(": on ("); p != std::string::npos; p = r.out.find(": on (", p + 1)) ++listed;
  for (std::size_t p = r.out.find(": OFF, "); p != std::string::npos; p = r.out.find(": OFF, ", p + 1)) ++listed;
  EXPECT_EQ(listed, all) << r.out;
  EXPECT_EQ(on + static_cast<int>(off.size()), all) << r.out;
  EXPECT_TRUE(Contains(r.out, "rocksdb: on (RocksDB")) << r.out;
  EXPECT_TRUE(Contains(r.out, "memory: on (no library needed)")) << r.out;
  EXPECT_TRUE(Contains(r.out, "sqlite: OFF, turned off (sqlite3")) << r.out;

  const std::string def = test_util::Slurp(build + "/generated/db/bindings_enabled.def");
  EXPECT_TRUE(Contains(def, "STOREBENCH_BINDING(rocksdb)\n")) << def;
  EXPECT_TRUE(Contains(def, "STOREBENCH_BINDING_OFF(sqlite, \"SQLITE\", \"libsqlite3-dev\")")) << def;
  EXPECT_FALSE(Contains(def, "STOREBENCH_BINDING(sqlite)")) << def;

  const std::string commands = test_util::Slurp(build + "/compile_commands.json");
  EXPECT_TRUE(Contains(commands, "src/db/rocksdb.cc"));
  EXPECT_TRUE(Contains(commands, "src/db/memory.cc"));
  for (const auto& b : off) EXPECT_FALSE(Contains(commands, "src/db/" + b + ".cc")) << b << " is still compiled";

  // Their libraries are not linked: the link rules name RocksDB and none of them.
  std::string rules = test_util::Slurp(build + "/build.ninja");
  if (rules.empty()) rules = test_util::Slurp(build + "/CMakeFiles/storebench.dir/link.txt");
  EXPECT_TRUE(Contains(rules, "rocksdb"));
  for (const char* lib : {"-lsqlite3", "-lpq", "-lmariadb", "-llmdb", "-lwiredtiger", "-lgroonga", "-lkyotocabinet",
                          "-ltokyocabinet", "leveldb", "-lgfapi"}) {
    EXPECT_FALSE(Contains(rules, lib)) << lib << " is still linked";
  }
}

}  // namespace
}  // namespace storebench
