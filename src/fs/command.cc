#include "fs/command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "core/error.h"
#include "core/output_file.h"
#include "vfs/backend.h"
#include "vfs/gluster.h"
#include "fs/suite.h"
#include "report/json_report.h"

namespace storebench {

namespace {

using fs_suite::FsOptions;

std::uint64_t ParseSize(const std::string& opt, const std::string& v) {
  std::size_t pos = 0;
  unsigned long long n = 0;
  try {
    n = std::stoull(v, &pos);
  } catch (...) {
    pos = 0;
  }
  if (pos == 0 || v[0] == '-') throw ConfigError("fs: " + opt + " '" + v + "': expected a size such as 512M");
  std::uint64_t mult = 1;
  const std::string suffix = v.substr(pos);
  if (suffix == "" || suffix == "b" || suffix == "B") mult = 1;
  else if (suffix == "k" || suffix == "K") mult = 1ull << 10;
  else if (suffix == "m" || suffix == "M") mult = 1ull << 20;
  else if (suffix == "g" || suffix == "G") mult = 1ull << 30;
  else if (suffix == "t" || suffix == "T") mult = 1ull << 40;
  else throw ConfigError("fs: " + opt + " '" + v + "': unknown suffix '" + suffix + "' (k, M, G or T)");
  return static_cast<std::uint64_t>(n) * mult;
}

int ParseInt(const std::string& opt, const std::string& v, int min, int max) {
  std::size_t pos = 0;
  long n = 0;
  try {
    n = std::stol(v, &pos);
  } catch (...) {
    pos = 0;
  }
  if (pos == 0 || pos != v.size() || n < min || n > max) {
    throw ConfigError("fs: " + opt + " '" + v + "': expected a number from " + std::to_string(min) + " to " +
                      std::to_string(max));
  }
  return static_cast<int>(n);
}

// The RAM this process may use: physical memory, or a smaller cgroup limit.
std::uint64_t RamBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  std::uint64_t ram = pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
  for (const char* f : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(f);
    std::string v;
    if (in >> v && v != "max") {
      const std::uint64_t limit = std::strtoull(v.c_str(), nullptr, 10);
      if (limit > 0 && limit < ram) ram = limit;
    }
  }
  return ram;
}

std::string Human(std::uint64_t bytes) {
  char buf[32];
  if (bytes >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  else std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1ull << 20));
  return buf;
}

}  // namespace

std::string FsUsageText() {
  return R"(Usage: storebench fs DIR [options]     a bonnie++/dd-class file-system suite in DIR
       storebench fs --gluster HOST:VOLUME[/SUBDIR] [options]   the same on a GlusterFS volume (gfapi)

Phases (bonnie++'s order): sequential write per character and per block, rewrite, sequential
read per character and per block, random seeks, file create/stat/delete in sequential then
random order; then the dd-like stream phase when --stream is given. Every byte read is checked.

Options:
  --size SIZE        data file size (default: twice the RAM, as bonnie++; k/M/G/T suffixes)
  --chunk SIZE       block size of the block, rewrite and seek phases (default 8k, at most 1M)
  --files N          files in each file phase (default 16k = 16384)
  --file-size SIZE   bytes written to (and read back from) each file (default 0)
  --threads N        workers in the file phases (default 1)
  --seekers N        workers in the random-seek phase (default 5, as bonnie++ 2.0)
  --seeks N          random seeks in all (default 8192)
  --stream NxSIZE    dd-like: write N files of SIZE one after another in 1 MiB writes, then read them
  --fsync            fsync every written file at its end (time included; dd conv=fsync)
  --chr-syscall      per-character phases make one write()/read() per byte, as bonnie++ 2.0
                     does, instead of going through a 4 KiB buffer as putc/getc do
  --phases LIST      groups to run, comma-separated: chr,block,seeks,files,stream
                     (default chr,block,seeks,files, plus stream with --stream)
  --seed N           seed of the data pattern and of the random orders (default 1)
  --machine NAME     the name in the table's Machine column (default: the host name)
  --json FILE        write the JSON result (one phase per bonnie++ phase; see README)
  -q, --quiet        no progress lines on stderr

Exit codes: 0 done; 1 data read back did not match; 2 bad input, missing directory, or an
I/O error such as ENOSPC (the phases done so far are still printed and written).
)";
}

int RunFsCommand(const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& host,
                 std::ostream& out, std::ostream& err) {
  FsOptions o;
  std::string dir, json, machine, gluster;
  bool size_given = false, quiet = false, phases_given = false;
  std::vector<std::pair<std::string, std::string>> props;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw ConfigError("fs: option " + a + " needs a value; see storebench fs --help");
      props.emplace_back("fs." + a.substr(2), args[i + 1]);
      return args[++i];
    };
    if (a == "-h" || a == "--help") {
      out << FsUsageText();
      return 0;
    } else if (a == "--size") {
      o.size = ParseSize(a, value());
      size_given = true;
    } else if (a == "--chunk") {
      o.chunk = ParseSize(a, value());
    } else if (a == "--files") {
      o.files = ParseSize(a, value());
    } else if (a == "--file-size") {
      o.file_size = ParseSize(a, value());
    } else if (a == "--threads") {
      o.threads = ParseInt(a, value(), 1, 1024);
    } else if (a == "--seekers") {
      o.seekers = ParseInt(a, value(), 1, 1024);
    } else if (a == "--seeks") {
      o.seeks = ParseSize(a, value());
    } else if (a == "--stream") {
      const std::string& v = value();
      std::size_t x = v.find_first_of("xX");
      std::size_t skip = 1;
      if (x == std::string::npos && (x = v.find("\xC3\x97")) != std::string::npos) skip = 2;  // ×
      if (x == std::string::npos) throw ConfigError("fs: --stream '" + v + "': expected N×SIZE, e.g. 4x256M");
      o.stream_count = static_cast<std::uint64_t>(ParseInt(a, v.substr(0, x), 1, 1000000));
      o.stream_size = ParseSize(a, v.substr(x + skip));
      if (o.stream_size == 0) throw ConfigError("fs: --stream '" + v + "': SIZE must be positive");
    } else if (a == "--fsync") {
      o.fsync = true;
      props.emplace_back("fs.fsync", "true");
    } else if (a == "--chr-syscall") {
      o.chr_syscall = true;
      props.emplace_back("fs.chr-syscall", "true");
    } else if (a == "--phases") {
      std::stringstream ss(value());
      std::string g;
      o.groups.clear();
      while (std::getline(ss, g, ',')) {
        if (g != "chr" && g != "block" && g != "seeks" && g != "files" && g != "stream") {
          throw ConfigError("fs: --phases: unknown group '" + g + "' (chr, block, seeks, files, stream)");
        }
        o.groups.push_back(g);
      }
      phases_given = true;
    } else if (a == "--seed") {
      o.seed = ParseSize(a, value());
    } else if (a == "--machine") {
      machine = value();
    } else if (a == "--json") {
      json = value();
    } else if (a == "--gluster") {
      gluster = value();
    } else if (a == "-q" || a == "--quiet") {
      quiet = true;
    } else if (!a.empty() && a[0] == '-') {
      throw ConfigError("fs: unknown option '" + a + "'; see storebench fs --help");
    } else if (dir.empty()) {
      dir = a;
    } else {
      throw ConfigError("fs: unexpected argument '" + a + "' (directory '" + dir + "' already given)");
    }
  }
  if (o.stream_count > 0 && !phases_given) o.groups.push_back("stream");
  // Refused before the suite runs, so that its results are never lost at the end.
  if (!json.empty()) CheckOutputPath(json, "the JSON result");

  std::unique_ptr<vfs::FsBackend> backend;
  if (!gluster.empty()) {
    if (!dir.empty()) throw ConfigError("fs: give either DIR or --gluster HOST:VOLUME, not both");
    backend = vfs::OpenGlusterBackend(gluster);  // throws SetupError when it cannot
  } else {
    if (dir.empty()) throw ConfigError("fs: no directory given: storebench fs DIR [options] (see storebench fs --help)");
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) {
      throw ConfigError("fs: directory '" + dir + "': " + std::strerror(errno));
    }
    if (!S_ISDIR(st.st_mode)) throw ConfigError("fs: '" + dir + "' is not a directory");
    backend = std::make_unique<vfs::PosixBackend>(dir);
  }
  props.insert(props.begin(), {"fs.target", gluster.empty() ? dir : "gluster:" + gluster});

  const std::uint64_t ram = RamBytes();
  if (!size_given) {
    o.size = 2 * ram;
    props.emplace_back("fs.size", std::to_string(o.size));
  }
  auto wants = [&](const char* g) { return std::find(o.groups.begin(), o.groups.end(), g) != o.groups.end(); };
  const bool data = wants("chr") || wants("block") || wants("seeks");
  if (data && size_given && o.size < 2 * ram) {
    err << "storebench fs: warning: --size " << Human(o.size) << " is less than twice the RAM (" << Human(ram)
        << "): reads may come from the page cache, not the storage\n";
  }
  std::uint64_t need = data ? o.size : 0;
  if (wants("files")) need = std::max(need, o.files * (o.file_size + 4096));
  if (wants("stream")) need = std::max(need, o.stream_count * o.stream_size);
  if (auto space = backend->Space(); space && space->available_bytes < need) {
    err << "storebench fs: warning: " << backend->Describe() << " has " << Human(space->available_bytes)
        << " free but the suite needs about " << Human(need) << ": expect ENOSPC\n";
  }
  if (!quiet) {
    o.progress = [&err](const std::string& s) {
      if (s.ends_with("...")) return;  // printed with its outcome
      err << s << "\n" << std::flush;
    };
  }
  if (machine.empty()) {
    for (const auto& [k, v] : host) {
      if (k == "hostname") machine = v;
    }
  }
  o.workdir = "storebench-fs." + std::to_string(getpid());
  const fs_suite::FsResult r = fs_suite::RunSuite(backend.get(), o);

  out << "# storebench fs: " << backend->Describe() << "\n";
  fs_suite::WriteFsTable(r, o, machine, out);
  out << std::flush;
  if (!json.empty()) {
    RunReport report;
    report.tool_version = STOREBENCH_VERSION;
    report.command = "fs";
    report.binding = gluster.empty() ? "fs" : "fs-gluster";
    report.properties = props;
    report.properties.emplace_back("fs.description", backend->Describe());
    report.host = host;
    report.phases = r.phases;
    std::ostringstream js;
    WriteJson(report, js);
    WriteOutputFile(json, js.str(), "the JSON result");
  }
  if (!r.error.empty()) {
    err << "storebench: fs: " << r.error << (r.out_of_space ? " (out of space)" : "")
        << "; partial results printed" << (json.empty() ? "" : " and written") << "\n";
    return 2;
  }
  if (r.integrity_failures > 0) {
    err << "storebench: fs: " << r.integrity_failures << " data mismatches on read-back\n";
    return 1;
  }
  return 0;
}

}  // namespace storebench
