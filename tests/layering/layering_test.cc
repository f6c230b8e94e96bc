// The layering of src/: every `#include "folder/..."` in a file under
// src/<layer>/ must name its own layer or one that tests/layers.txt allows
// for it, so that lower layers never reach up (db/ never includes runner/,
// nothing includes cli/). A violation fails with the file and line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "test_util.h"

namespace storebench {
namespace {

namespace fsys = std::filesystem;
using Layers = std::map<std::string, std::set<std::string>>;

// Parses tests/layers.txt: "folder: a b c" lines, in order; '#' starts a comment.
std::vector<std::pair<std::string, std::set<std::string>>> ParseLayerLines(const std::string& text) {
  std::vector<std::pair<std::string, std::set<std::string>>> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream name(line.substr(0, colon)), deps(line.substr(colon + 1));
    std::string folder, dep;
    if (!(name >> folder)) continue;
    lines.emplace_back(folder, std::set<std::string>{});
    while (deps >> dep) lines.back().second.insert(dep);
  }
  return lines;
}

Layers ParseLayers(const std::string& text) {
  Layers layers;
  for (auto& [folder, allowed] : ParseLayerLines(text)) layers[folder].insert(allowed.begin(), allowed.end());
  return layers;
}

// Every include in the tree at `src` that the table does not allow, as
// "src/db/x.cc:12: db/ may not include runner/ (runner/clock.h)".
std::vector<std::string> Violations(const fsys::path& src, const Layers& layers) {
  std::vector<std::string> found;
  for (const auto& entry : fsys::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file()) continue;
    const auto ext = entry.path().extension();
    if (ext != ".h" && ext != ".cc" && ext != ".def") continue;
    const fsys::path rel = fsys::relative(entry.path(), src);
    const std::string layer = rel.begin()->string();
    const std::string where = "src/" + rel.string();
    const auto it = layers.find(layer);
    if (it == layers.end()) {
      found.push_back(where + ": folder src/" + layer + "/ is not in tests/layers.txt");
      continue;
    }
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::istringstream words(line);
      std::string directive, target;
      if (!(words >> directive)) continue;
      if (directive == "#") {  // "# include"
        std::string rest;
        words >> rest;
        directive += rest;
      }
      if (directive != "#include" || !(words >> target) || target.size() < 3 || target.front() != '"') continue;
      const auto slash = target.find('/');
      if (slash == std::string::npos) continue;  // a file of the same folder
      const std::string dep = target.substr(1, slash - 1);
      if (dep == layer || it->second.count(dep)) continue;
      found.push_back(where + ":" + std::to_string(n) + ": " + layer + "/ may not include " + dep + "/ (" +
                      target.substr(1, target.size() - 2) + ")");
    }
  }
  return found;
}

TEST(LayeringTest, EveryIncludeInSrcIsAllowedByTheTable) {
  const std::string root = STOREBENCH_SOURCE_DIR;
  const Layers layers = ParseLayers(test_util::Slurp(root + "/tests/layers.txt"));
  ASSERT_GE(layers.size(), 10u) << "tests/layers.txt lists too few layers";
  std::string report;
  for (const auto& v : Violations(root + "/src", layers)) report += v + "\n";
  EXPECT_EQ(report, "") << "includes against tests/layers.txt:\n" << report;
}

TEST(LayeringTest, NoLayerReachesUpTheTable) {
  // The table itself is a stack: a folder may include only folders listed above it.
  const std::string text = test_util::Slurp(std::string(STOREBENCH_SOURCE_DIR) + "/tests/layers.txt");
  std::set<std::string> seen;
  for (const auto& [folder, allowed] : ParseLayerLines(text)) {
    for (const auto& dep : allowed) {
      EXPECT_TRUE(seen.count(dep)) << folder << " may include " << dep << ", which is not below it";
    }
    seen.insert(folder);
  }
}

TEST(LayeringTest, AnIncludeAgainstTheTableIsNamedWithItsFileAndLine) {
  test_util::TempDir tmp;
  const fsys::path src = tmp.path() / "src";
  fsys::create_directories(src / "db");
  fsys::create_directories(src / "runner");
  fsys::create_directories(src / "extra");
  std::ofstream(src / "db" / "x.cc") << "// db\n#include <vector>\n#include \"db/binding.h\"\n#include \"runner/clock.h\"\n";
  std::ofstream(src / "runner" / "r.h") << "#  include \"db/binding.h\"\n#include \"local.h\"\n";
  std::ofstream(src / "extra" / "e.h") << "\n";
  const Layers layers = ParseLayers("core:\ndb: core  # comment\nrunner: core db\n");
  const auto v = Violations(src, layers);
  ASSERT_EQ(v.size(), 2u);
  const std::set<std::string> got(v.begin(), v.end());
  EXPECT_TRUE(got.count("src/db/x.cc:4: db/ may not include runner/ (runner/clock.h)"));
  EXPECT_TRUE(got.count("src/extra/e.h: folder src/extra/ is not in tests/layers.txt"));
}

}  // namespace
}  // namespace storebench
