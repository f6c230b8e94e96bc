// The user's documents against the program: README.md's tour runs as
// written, every relative link of README.md and docs/ reaches a file (and a
// heading, when it names one), and every binding `storebench list` shows has
// a page docs/bindings/NAME.md whose property table lists each of its
// properties with the program's default.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;
using test_util::RunProcess;
using test_util::Slurp;

const fs::path kSource = STOREBENCH_SOURCE_DIR;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The ```sh blocks between the heading `section` and the next heading of
// its level.
std::vector<std::string> ShellBlocks(const std::string& markdown, const std::string& section) {
  std::vector<std::string> blocks;
  bool inside = false, in_block = false;
  std::string block;
  for (const auto& line : Lines(markdown)) {
    if (!in_block && StartsWith(line, "## ")) inside = line == section;
    if (!inside) continue;
    if (!in_block && line == "```sh") {
      in_block = true;
      block.clear();
    } else if (in_block && line == "```") {
      in_block = false;
      blocks.push_back(block);
    } else if (in_block) {
      block += line + "\n";
    }
  }
  return blocks;
}

// A scratch directory that stands for the repository root: the built binary
// at build/default/storebench, and the source's workloads/ and plans/.
fs::path MakeScratchRoot(const fs::path& dir) {
  fs::create_directories(dir / "build/default");
  fs::create_symlink(STOREBENCH_BINARY, dir / "build/default/storebench");
  fs::create_directory_symlink(kSource / "workloads", dir / "workloads");
  fs::create_directory_symlink(kSource / "plans", dir / "plans");
  return dir;
}

TEST(DocsTest, ReadmeTourRunsAsWritten) {
  // The tour runs rocksdb and memory, and checks plans/threads.toml (leveldb, lmdb, sqlite too).
  for (const char* binding : {"rocksdb", "memory", "leveldb", "lmdb", "sqlite"}) STOREBENCH_NEED_BINDING(binding);
  const auto blocks = ShellBlocks(Slurp((kSource / "README.md").string()), "## Five-minute tour");
  ASSERT_GE(blocks.size(), 4u) << "README.md: the tour's ```sh blocks went missing";
  test_util::TempDir tmp("storebench-docs");
  const fs::path root = MakeScratchRoot(tmp.path());
  test_util::ProcessOptions opts;
  opts.cwd = root.string();
  opts.kill_after_s = 120;
  for (const auto& block : blocks) {
    const auto r = RunProcess("/bin/sh", {"-ec", block}, opts);
    ASSERT_EQ(r.code, 0) << "README.md tour block failed:\n" << block << "stderr:\n" << r.err;
  }
  // What the tour says each step leaves behind.
  for (const char* file : {"run.json", "results/tour/index.json", "tour.html", "total.json"}) {
    EXPECT_TRUE(fs::is_regular_file(root / file)) << file;
  }
  EXPECT_NE(Slurp((root / "total.json").string()).find("\"parts\""), std::string::npos);
}

// GitHub's anchor of a heading: lower case, punctuation dropped (but `-`
// and `_`), spaces as `-`.
std::string Slug(const std::string& heading) {
  std::string out;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_' || c >= 0x80) {
      out += static_cast<char>(std::tolower(c));
    } else if (c == ' ') {
      out += '-';
    }
  }
  return out;
}

// A markdown file's lines outside fenced code blocks.
std::vector<std::string> ProseLines(const std::string& markdown) {
  std::vector<std::string> out;
  bool fenced = false;
  for (const auto& line : Lines(markdown)) {
    if (StartsWith(line, "```")) {
      fenced = !fenced;
    } else if (!fenced) {
      out.push_back(line);
    }
  }
  return out;
}

std::set<std::string> Anchors(const std::string& markdown) {
  std::set<std::string> out;
  std::map<std::string, int> seen;
  for (const auto& line : ProseLines(markdown)) {
    if (!StartsWith(line, "#")) continue;
    const auto text = line.find_first_not_of('#');
    if (text == std::string::npos || line[text] != ' ') continue;
    const std::string slug = Slug(line.substr(text + 1));
    const int n = seen[slug]++;
    out.insert(n == 0 ? slug : slug + "-" + std::to_string(n));
  }
  return out;
}

// The targets of the [text](target) links of a markdown file, outside code.
std::vector<std::string> LinkTargets(const std::string& markdown) {
  std::vector<std::string> out;
  for (auto line : ProseLines(markdown)) {
    // Inline code is not a link: drop it.
    std::string prose;
    bool code = false;
    for (char c : line) {
      if (c == '`') {
        code = !code;
      } else if (!code) {
        prose += c;
      }
    }
    for (auto at = prose.find("]("); at != std::string::npos; at = prose.find("](", at + 2)) {
      const auto end = prose.find(')', at + 2);
      if (end != std::string::npos) out.push_back(prose.substr(at + 2, end - at - 2));
    }
  }
  return out;
}

std::vector<fs::path> DocFiles() {
  std::vector<fs::path> out = {kSource / "README.md"};
  for (const auto& e : fs::recursive_directory_iterator(kSource / "docs")) {
    if (e.is_regular_file() && e.path().extension() == ".md") out.push_back(e.path());
  }
  return out;
}

TEST(DocsTest, EveryLinkReachesItsFileAndHeading) {
  int links = 0;
  for (const auto& file : DocFiles()) {
    for (const auto& target : LinkTargets(Slurp(file.string()))) {
      if (StartsWith(target, "http://") || StartsWith(target, "https://") || StartsWith(target, "mailto:")) continue;
      ++links;
      const auto hash = target.find('#');
      const std::string path = target.substr(0, hash);
      const fs::path to = path.empty() ? file : file.parent_path() / path;
      const std::string where = fs::relative(file, kSource).string() + ": link '" + target + "'";
      ASSERT_TRUE(fs::exists(to)) << where << ": no such file";
      if (hash != std::string::npos && to.extension() == ".md") {
        EXPECT_EQ(Anchors(Slurp(to.string())).count(target.substr(hash + 1)), 1u) << where << ": no such heading";
      }
    }
  }
  EXPECT_GT(links, 20) << "the documents lost their links";
}

TEST(DocsTest, SlugsAreGitHubs) {
  EXPECT_EQ(Slug("HdrHistogram interval log (`--hdr-log`)"), "hdrhistogram-interval-log---hdr-log");
  EXPECT_EQ(Slug("Closed economy: transactions that check themselves"),
            "closed-economy-transactions-that-check-themselves");
  EXPECT_EQ(Anchors("# A\n```\n# not a heading\n```\n## A\n"), (std::set<std::string>{"a", "a-1"}));
}

struct ListedProperty {
  std::string name, default_value;
};

// `storebench list`: binding name -> its properties, as the program prints them.
std::map<std::string, std::vector<ListedProperty>> ListedBindings() {
  test_util::TempDir tmp("storebench-docs");
  test_util::ProcessOptions opts;
  opts.cwd = tmp.path().string();
  const auto r = RunProcess(STOREBENCH_BINARY, {"list"}, opts);
  EXPECT_EQ(r.code, 0) << r.err;
  std::map<std::string, std::vector<ListedProperty>> out;
  std::string binding;
  for (const auto& line : Lines(r.out)) {
    const std::string indent6 = "      ", indent2 = "  ";
    if (StartsWith(line, indent6) && !StartsWith(line, indent6 + " ")) {
      const std::string item = line.substr(indent6.size());
      if (binding.empty() || StartsWith(item, "(")) continue;  // "(no properties)"
      const auto space = item.find(' ');
      ListedProperty p{item.substr(0, space), ""};
      const std::string tag = " (default: ";
      const auto d = item.find(tag);
      if (d != std::string::npos) p.default_value = item.substr(d + tag.size(), item.size() - d - tag.size() - 1);
      out[binding].push_back(p);
    } else if (StartsWith(line, indent2) && !StartsWith(line, indent2 + " ")) {
      binding = line.substr(indent2.size(), line.find(" - ") - indent2.size());
      out[binding];
    }
  }
  return out;
}

// The cells of the table row of `property` ("| `name` | default | meaning |"), or none.
std::vector<std::string> PropertyRow(const std::string& page, const std::string& property) {
  for (const auto& line : Lines(page)) {
    if (!StartsWith(line, "| `" + property + "` |")) continue;
    std::vector<std::string> cells;
    std::istringstream in(line.substr(1));
    for (std::string cell; std::getline(in, cell, '|');) {
      cell.erase(std::remove(cell.begin(), cell.end(), '`'), cell.end());
      const auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
    }
    return cells;
  }
  return {};
}

TEST(DocsTest, EveryBindingHasAPageWithItsProperties) {
  const auto bindings = ListedBindings();
  ASSERT_GE(bindings.size(), 2u) << "could not read storebench list";
  ASSERT_TRUE(bindings.count("memory") && bindings.at("memory").size() == 1) << "storebench list changed its format";
  for (const auto& [binding, properties] : bindings) {
    const fs::path page = kSource / "docs/bindings" / (binding + ".md");
    ASSERT_TRUE(fs::is_regular_file(page)) << "binding '" << binding << "' has no page " << page;
    const std::string text = Slurp(page.string());
    EXPECT_NE(Slurp((kSource / "docs/bindings/README.md").string()).find("(" + binding + ".md)"), std::string::npos)
        << "docs/bindings/README.md does not link " << binding << ".md";
    for (const auto& p : properties) {
      const auto row = PropertyRow(text, p.name);
      ASSERT_GE(row.size(), 3u) << page << ": no table row for " << p.name;
      if (!p.default_value.empty()) {
        EXPECT_NE(row[1].find(p.default_value), std::string::npos)
            << page << ": " << p.name << " defaults to '" << p.default_value << "' (storebench list), the page says '"
            << row[1] << "'";
      }
    }
  }
}

TEST(DocsTest, EveryServerScriptIsOnABindingPage) {
  std::string pages;
  for (const auto& e : fs::directory_iterator(kSource / "docs/bindings")) pages += Slurp(e.path().string());
  int scripts = 0;
  for (const auto& e : fs::directory_iterator(kSource / "scripts/servers")) {
    if (e.path().extension() != ".sh" || e.path().filename() == "lib.sh") continue;
    ++scripts;
    const std::string name = "scripts/servers/" + e.path().filename().string();
    EXPECT_NE(pages.find(name), std::string::npos) << "no page in docs/bindings/ says how to use " << name;
  }
  EXPECT_GT(scripts, 0);
}

}  // namespace
}  // namespace storebench
