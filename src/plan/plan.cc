#include "plan/plan.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "job/job.h"
#include "core/error.h"
#include "core/output_file.h"
#include "core/properties.h"
#include "db/registry.h"
#include "report/json_report.h"
#include "report/text_report.h"
#include "runner/runner.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

struct Value {
  std::string text;
  int line = 0;
};

// One grid: axes in file order, each with its values.
struct Grid {
  std::vector<std::pair<std::string, std::vector<Value>>> axes;
  int line = 0;
};

int Line(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

// A string with every ${NAME} replaced by the environment variable NAME
// (a plan names what differs between machines, e.g. the ports of servers a
// script started: ignite.hosts = "${IGNITE_HOSTS_2}"). An unset or empty
// variable, or a "${" without "}", is an error naming `where`.
std::string ExpandEnv(const std::string& in, const std::string& where) {
  std::string out;
  std::size_t pos = 0;
  for (std::size_t at; (at = in.find("${", pos)) != std::string::npos;) {
    const std::size_t end = in.find('}', at);
    if (end == std::string::npos) throw ConfigError(where + ": '${' without a closing '}'");
    const std::string name = in.substr(at + 2, end - at - 2);
    const char* v = std::getenv(name.c_str());
    if (v == nullptr || *v == '\0') {
      throw ConfigError(where + ": environment variable " + name + " is not set (the plan's ${" + name + "})");
    }
    out.append(in, pos, at - pos).append(v);
    pos = end + 1;
  }
  return out.append(in, pos);
}

std::string ScalarText(const toml::node& n, const std::string& where) {
  if (auto s = n.as_string()) return ExpandEnv(s->get(), where);
  if (auto i = n.as_integer()) return std::to_string(i->get());
  if (auto f = n.as_floating_point()) return FormatDouble(f->get());
  if (auto b = n.as_boolean()) return b->get() ? "true" : "false";
  throw ConfigError(where + ": expected a string, a number or a boolean");
}

// Keys of a table, nested tables flattened to "a.b", in file order.
void Flatten(const toml::table& t, const std::string& prefix,
             std::vector<std::pair<std::string, const toml::node*>>& out) {
  for (auto&& [k, v] : t) {
    const std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (v.is_table()) {
      Flatten(*v.as_table(), key, out);
    } else {
      out.emplace_back(key, &v);
    }
  }
}

std::vector<std::pair<std::string, const toml::node*>> FlatInOrder(const toml::table& t) {
  std::vector<std::pair<std::string, const toml::node*>> out;
  Flatten(t, "", out);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    const auto& pa = a.second->source().begin;
    const auto& pb = b.second->source().begin;
    return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
  });
  return out;
}

// The grid's axis name for a key: binding, workload, threadcount, or the property.
std::string AxisName(const std::string& key) {
  if (key == "db") return "binding";
  if (key == "threads") return "threadcount";
  return key;
}

Grid ReadGrid(const toml::table& t, const std::string& file, int line) {
  Grid g;
  g.line = line;
  for (const auto& [key, node] : FlatInOrder(t)) {
    const std::string where = file + ":" + std::to_string(Line(*node));
    std::vector<Value> values;
    if (const toml::array* a = node->as_array()) {
      if (a->empty()) throw ConfigError(where + ": '" + key + "' is an empty list");
      for (const toml::node& e : *a) values.push_back({ScalarText(e, file + ":" + std::to_string(Line(e)) + ": '" + key + "'"), Line(e)});
    } else {
      values.push_back({ScalarText(*node, where + ": '" + key + "'"), Line(*node)});
    }
    const std::string name = AxisName(key);
    if (name == "label" && values.size() > 1) throw ConfigError(where + ": 'label' must be one string, not a list");
    for (const auto& [k, v] : g.axes) {
      if (k == name) throw ConfigError(where + ": '" + key + "' given twice in one grid");
    }
    g.axes.emplace_back(name, std::move(values));
  }
  return g;
}

std::string FileSafe(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '=') ? c : '_';
  return out;
}

// Properties that shape what a load step writes: runs that agree on them
// (and on the binding and its own properties) share one load.
const std::vector<std::string>& LoadKeys() {
  static const std::vector<std::string> kKeys = {
      "recordcount", "insertstart", "insertcount", "fieldcount", "fieldlength", "minfieldlength",
      "fieldlengthdistribution", "fieldnameprefix", "insertorder", "zeropadding", "dataintegrity", "table"};
  return kKeys;
}

// Properties of a run that its load step does not take.
bool RunOnly(const std::string& key) {
  static const std::set<std::string> kKeys = {"threadcount", "target", "maxexecutiontime", "operationcount",
                                              "warmup.seconds", "warmup.operations", "label", "status"};
  return kKeys.count(key) != 0;
}

}  // namespace

Plan ParsePlanText(std::string_view text, const std::string& file) {
  toml::table doc;
  try {
    doc = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw ConfigError(file + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
  auto where = [&](const toml::node& n) { return file + ":" + std::to_string(Line(n)); };
  const std::vector<std::string> top_keys = {"results", "repetitions", "warmup_s", "duration_s", "load_threads",
                                             "properties", "axes", "runs"};
  for (auto&& [k, v] : doc) {
    const std::string key(k.str());
    if (std::find(top_keys.begin(), top_keys.end(), key) == top_keys.end()) {
      const std::string hint = ClosestMatch(key, top_keys);
      throw ConfigError(where(v) + ": unknown key '" + key + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)") +
                        "; a plan has results, repetitions, warmup_s, duration_s, load_threads, [properties], [axes], [[runs]]");
    }
  }
  auto number = [&](const char* key, double def, double min) {
    const toml::node* n = doc.get(key);
    if (!n) return def;
    std::optional<double> v;
    if (auto i = n->as_integer()) v = static_cast<double>(i->get());
    if (auto f = n->as_floating_point()) v = f->get();
    if (!v || !(*v >= min)) throw ConfigError(where(*n) + ": '" + key + "' must be a number >= " + FormatDouble(min));
    return *v;
  };
  Plan plan;
  plan.file = file;
  if (const toml::node* n = doc.get("results")) {
    if (!n->is_string() || n->as_string()->get().empty()) throw ConfigError(where(*n) + ": 'results' must be a directory name");
    plan.results_dir = n->as_string()->get();
  } else {
    plan.results_dir = "results/" + fs::path(file).stem().string();
  }
  auto integer = [&](const char* key, int def, int max) {
    const double v = number(key, def, 1);
    if (v > max || v != std::floor(v)) {
      throw ConfigError(where(*doc.get(key)) + ": '" + key + "' must be an integer from 1 to " + std::to_string(max));
    }
    return static_cast<int>(v);
  };
  const int repetitions = integer("repetitions", 1, 1000);
  const double warmup_s = number("warmup_s", 0, 0);
  const double duration_s = number("duration_s", 0, 0);
  const int load_threads = integer("load_threads", 1, 100000);

  // Common properties, with their lines.
  std::vector<std::pair<std::string, Value>> common;
  if (const toml::node* n = doc.get("properties")) {
    if (!n->is_table()) throw ConfigError(where(*n) + ": [properties] must be a table");
    for (const auto& [key, node] : FlatInOrder(*n->as_table())) {
      common.emplace_back(key, Value{ScalarText(*node, where(*node) + ": property '" + key + "'"), Line(*node)});
    }
  }
  std::vector<Grid> grids;
  if (const toml::node* n = doc.get("axes")) {
    if (!n->is_table()) throw ConfigError(where(*n) + ": [axes] must be a table");
    grids.push_back(ReadGrid(*n->as_table(), file, Line(*n)));
  }
  if (const toml::node* n = doc.get("runs")) {
    const toml::array* a = n->as_array();
    if (!a || !a->is_array_of_tables()) throw ConfigError(where(*n) + ": 'runs' must be an array of tables ([[runs]])");
    for (const toml::node& e : *a) grids.push_back(ReadGrid(*e.as_table(), file, Line(e)));
  }
  if (grids.empty()) throw ConfigError(file + ": no runs: give [axes] or [[runs]] with at least a binding");

  std::set<std::string> ids;
  std::map<std::string, int> group_by_key;
  std::map<std::string, int> loads_per_binding;
  for (const Grid& g : grids) {
    const std::string gwhere = file + ":" + std::to_string(g.line);
    std::size_t grid_size = 1;
    for (const auto& axis : g.axes) grid_size *= axis.second.size();
    // Every combination, first axis outermost.
    std::vector<std::size_t> pos(g.axes.size(), 0);
    for (bool more = true; more;) {
      std::vector<std::pair<std::string, const Value*>> combo;
      for (std::size_t i = 0; i < g.axes.size(); ++i) combo.emplace_back(g.axes[i].first, &g.axes[i].second[pos[i]]);
      for (std::size_t i = g.axes.size(); i-- > 0;) {
        if (++pos[i] < g.axes[i].second.size()) break;
        pos[i] = 0;
        if (i == 0) more = false;
      }
      if (g.axes.empty()) more = false;

      const Value* binding = nullptr;
      const Value* workload = nullptr;
      const Value* label = nullptr;
      for (const auto& [k, v] : combo) {
        if (k == "binding") binding = v;
        if (k == "workload") workload = v;
        if (k == "label") label = v;
      }
      if (binding == nullptr) throw ConfigError(gwhere + ": no binding: give 'binding' in [axes] or in each [[runs]]");
      const BindingInfo* info = nullptr;
      try {
        info = &FindBinding(binding->text);
      } catch (const ConfigError& e) {
        throw ConfigError(file + ":" + std::to_string(binding->line) + ": " + e.what());
      }
      Properties props;
      if (workload) {
        try {
          props.LoadFile(workload->text);
        } catch (const ConfigError& e) {
          throw ConfigError(file + ":" + std::to_string(workload->line) + ": workload: " + e.what());
        }
      }
      PropertyList overrides;
      auto set = [&](const std::string& k, const std::string& v, int line) {
        props.Set(k, v, line > 0 ? file + ":" + std::to_string(line) : "plan " + file);
        overrides.emplace_back(k, v);
      };
      // A common property of a binding applies to that binding's runs only.
      for (const auto& [k, v] : common) {
        bool other = false;
        for (const BindingInfo* b : AllBindings()) other = other || (b != info && k.rfind(b->name + ".", 0) == 0);
        if (!other) set(k, v.text, v.line);
      }
      if (warmup_s > 0) set("warmup.seconds", FormatDouble(warmup_s), Line(*doc.get("warmup_s")));
      if (duration_s > 0) {
        set("maxexecutiontime", FormatDouble(duration_s), Line(*doc.get("duration_s")));
        bool ops_given = false;
        for (const auto& [k, v] : common) ops_given = ops_given || k == "operationcount";
        for (const auto& [k, v] : combo) ops_given = ops_given || k == "operationcount";
        if (!ops_given) set("operationcount", "0", Line(*doc.get("duration_s")));
      }
      PropertyList axes;
      std::string suffix;
      for (std::size_t i = 0; i < combo.size(); ++i) {
        const auto& [k, v] = combo[i];
        axes.emplace_back(k, v->text);
        if (k == "binding" || k == "workload" || k == "label") continue;
        set(k, v->text, v->line);
        // A key with a list of values is an axis: the label says which value.
        if (k != "threadcount" && g.axes[i].second.size() > 1) suffix += "-" + k + "=" + v->text;
      }
      const std::string threads = props.Get("threadcount").value_or("1");
      // A label names the run, or, for a grid of several runs, prefixes their names.
      const std::string generated =
          (workload ? fs::path(workload->text).filename().string() : std::string("core")) + "-" + threads + suffix;
      const std::string base_label = !label ? info->name + "-" + generated
                                     : grid_size > 1 ? label->text + "-" + generated
                                                     : label->text;
      props.Set("db", info->name, file + ":" + std::to_string(binding->line));
      try {
        Properties check = props;
        check.Set("label", base_label, gwhere);
        CheckRunProperties(check, "run");
      } catch (const ConfigError& e) {
        throw ConfigError(gwhere + ": run '" + base_label + "': " + e.what());
      }

      // Its load group.
      int group = -1;
      if (info->uses_dir || info->server) {
        std::string key = info->name;
        for (const auto& k : LoadKeys()) key += "\n" + k + "=" + props.Get(k).value_or("");
        for (const auto& [k, e] : props.entries()) {
          if (k.rfind(info->name + ".", 0) == 0) key += "\n" + k + "=" + e.value;
        }
        auto it = group_by_key.find(key);
        if (it == group_by_key.end()) {
          LoadStep load;
          load.id = "load-" + info->name + "-" + std::to_string(++loads_per_binding[info->name]);
          load.binding = info->name;
          load.workload_file = workload ? workload->text : "";
          for (const auto& [k, v] : overrides) {
            if (!RunOnly(k)) load.properties.emplace_back(k, v);
          }
          load.properties.emplace_back("threadcount", std::to_string(load_threads));
          load.properties.emplace_back("label", load.id);
          const std::string dir_key = info->name + ".dir";
          if (info->uses_dir && !props.Has(dir_key)) {
            load.store_dir = (fs::path(plan.results_dir) / "stores" / load.id).string();
            load.properties.emplace_back(dir_key, load.store_dir);
          }
          it = group_by_key.emplace(key, static_cast<int>(plan.loads.size())).first;
          plan.loads.push_back(std::move(load));
        }
        group = it->second;
        if (!plan.loads[static_cast<std::size_t>(group)].store_dir.empty()) {
          overrides.emplace_back(info->name + ".dir", plan.loads[static_cast<std::size_t>(group)].store_dir);
        }
      }

      for (int rep = 1; rep <= repetitions; ++rep) {
        PlannedRun run;
        run.label = repetitions > 1 ? base_label + "-rep" + std::to_string(rep) : base_label;
        run.id = FileSafe(run.label);
        if (!ids.insert(run.id).second) {
          throw ConfigError(gwhere + ": two runs are named '" + run.label +
                            "': give each [[runs]] entry its own label, or drop the duplicate");
        }
        run.binding = info->name;
        run.workload_file = workload ? workload->text : "";
        run.repetition = rep;
        run.properties = overrides;
        run.properties.emplace_back("label", run.label);
        run.axes = axes;
        run.origin = gwhere;
        run.load_group = group;
        plan.runs.push_back(std::move(run));
      }
    }
  }
  // Runs of one load group run together, at the place of the group's first run.
  std::vector<std::size_t> rank(plan.runs.size());
  std::map<int, std::size_t> first;
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    const int g = plan.runs[i].load_group;
    rank[i] = g < 0 ? i : first.emplace(g, i).first->second;
  }
  std::vector<std::size_t> order(plan.runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank[a] < rank[b]; });
  std::vector<PlannedRun> sorted;
  for (std::size_t i : order) sorted.push_back(std::move(plan.runs[i]));
  plan.runs = std::move(sorted);
  return plan;
}

Plan ParsePlanFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ConfigError("plan: cannot read '" + path + "': " + std::strerror(errno));
  std::stringstream ss;
  ss << f.rdbuf();
  return ParsePlanText(ss.str(), path);
}

namespace {

// `storebench COMMAND BINDING [-P FILE] -p K=V... --json RESULTS/ID.json`,
// without the program name. A run and a load step differ only in what they fill in.
template <typename Step>
std::vector<std::string> StepArgs(const char* command, const Plan& plan, const Step& step) {
  std::vector<std::string> args = {command, step.binding};
  if (!step.workload_file.empty()) args.insert(args.end(), {"-P", step.workload_file});
  for (const auto& [k, v] : step.properties) args.insert(args.end(), {"-p", k + "=" + v});
  args.insert(args.end(), {"--json", (fs::path(plan.results_dir) / (step.id + ".json")).string()});
  return args;
}

}  // namespace

std::vector<std::string> RunArgs(const Plan& plan, const PlannedRun& run) { return StepArgs("run", plan, run); }

std::vector<std::string> LoadArgs(const Plan& plan, const LoadStep& load) { return StepArgs("load", plan, load); }

namespace {

volatile std::sig_atomic_t g_plan_stop = 0;

extern "C" void OnPlanSignal(int sig) { g_plan_stop = sig; }

struct StepStatus {
  std::string status = "pending";  // ok | failed | interrupted | pending
  std::string detail;
  int exit_code = -1;
};

std::string LastLine(const std::string& path) {
  std::ifstream f(path);
  std::string line, last;
  while (std::getline(f, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

// A result that exists, reads back and was not interrupted.
bool CompleteResult(const std::string& path) {
  std::ifstream f(path);
  if (!f) return false;
  try {
    const RunReport r = ReadJson(f);
    for (const auto& ph : r.phases) {
      if (ph.interrupted) return false;
    }
    return !r.phases.empty();
  } catch (const ConfigError&) {
    return false;
  }
}

// Runs this binary with `args`, stdout and stderr into `log_path`; forwards
// one SIGINT when the plan is asked to stop.
StepStatus RunChild(const std::vector<std::string>& args, const std::string& json_path, const std::string& log_path) {
  std::remove(json_path.c_str());
  // The child starts with SIGINT and SIGTERM blocked and keeps them blocked
  // across exec: one forwarded before the run has set up its handler (even
  // before the child has reset the plan's) stays pending instead of being
  // lost or killing it, and the run, which unblocks them once its handler is
  // in place, still stops cleanly and writes its result.
  const sigset_t stop_signals = StopSignalSet();
  sigset_t plan_mask;
  sigprocmask(SIG_BLOCK, &stop_signals, &plan_mask);
  const pid_t pid = fork();
  if (pid != 0) sigprocmask(SIG_SETMASK, &plan_mask, nullptr);  // a signal meanwhile is delivered now
  if (pid < 0) throw SetupError(std::string("plan: cannot start a run: fork: ") + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);  // the terminal's Ctrl-C reaches the plan only; it forwards one SIGINT
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) _exit(127);
    std::vector<std::string> all = {"storebench"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  bool forwarded = false;
  int st = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) throw SetupError(std::string("plan: waitpid: ") + std::strerror(errno));
    if (g_plan_stop != 0 && !forwarded) {
      kill(pid, SIGINT);
      forwarded = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  StepStatus s;
  if (WIFSIGNALED(st)) {
    s.exit_code = 128 + WTERMSIG(st);
    // Our SIGINT before the child had set up its handler ends it at once: stopped, not failed.
    s.status = forwarded && WTERMSIG(st) == SIGINT ? "interrupted" : "failed";
    s.detail = "killed by signal " + std::to_string(WTERMSIG(st));
    return s;
  }
  s.exit_code = WEXITSTATUS(st);
  if (s.exit_code == 0 && CompleteResult(json_path)) {
    s.status = "ok";
  } else if (s.exit_code == 130 || s.exit_code == 143) {
    s.status = "interrupted";
    s.detail = "interrupted by signal " + std::to_string(s.exit_code - 128);
  } else {
    s.status = "failed";
    s.detail = "exit code " + std::to_string(s.exit_code) + ": " + LastLine(log_path);
  }
  return s;
}

void WriteIndex(const Plan& plan, const std::vector<StepStatus>& loads, const std::vector<StepStatus>& runs) {
  Json doc = Json::object();
  doc["plan"] = plan.file;
  Json jl = Json::array();
  for (std::size_t i = 0; i < plan.loads.size(); ++i) {
    Json e = Json::object();
    e["id"] = plan.loads[i].id;
    e["binding"] = plan.loads[i].binding;
    e["file"] = plan.loads[i].id + ".json";
    e["log"] = plan.loads[i].id + ".log";
    e["status"] = loads[i].status;
    e["detail"] = loads[i].detail;
    e["exit_code"] = loads[i].exit_code;
    jl.push_back(std::move(e));
  }
  doc["loads"] = std::move(jl);
  Json jr = Json::array();
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    const PlannedRun& r = plan.runs[i];
    Json e = Json::object();
    e["id"] = r.id;
    e["label"] = r.label;
    e["file"] = runs[i].status == "pending" && runs[i].exit_code < 0 ? "" : r.id + ".json";
    e["log"] = r.id + ".log";
    e["status"] = runs[i].status;
    e["detail"] = runs[i].detail;
    e["exit_code"] = runs[i].exit_code;
    e["repetition"] = r.repetition;
    Json axes = Json::object();
    for (const auto& [k, v] : r.axes) axes[k] = v;
    e["axes"] = std::move(axes);
    jr.push_back(std::move(e));
  }
  doc["runs"] = std::move(jr);
  const std::string path = (fs::path(plan.results_dir) / "index.json").string();
  WriteOutputFile(path, doc.dump(2) + "\n", "the plan's index");
}

// What a previous run of the plan finished: id -> "ok" for complete steps.
std::map<std::string, std::string> PreviousStatus(const std::string& dir) {
  std::map<std::string, std::string> out;
  std::ifstream f(fs::path(dir) / "index.json");
  if (!f) return out;
  Json doc;
  try {
    doc = Json::parse(f);
  } catch (const Json::parse_error&) {
    return out;
  }
  for (const char* list : {"loads", "runs"}) {
    if (!doc.contains(list) || !doc[list].is_array()) continue;
    for (const Json& e : doc[list]) {
      if (e.is_object() && e.contains("id") && e["id"].is_string() && e.contains("status") && e["status"].is_string()) {
        out[e["id"].get<std::string>()] = e["status"].get<std::string>();
      }
    }
  }
  return out;
}

std::string Throughput(const std::string& json_path) {
  std::ifstream f(json_path);
  try {
    const RunReport r = ReadJson(f);
    if (!r.phases.empty()) return FormatDouble(std::round(r.phases.back().throughput_ops_per_s * 10) / 10) + " ops/s";
  } catch (const ConfigError&) {
  }
  return "";
}

}  // namespace

int PrintPlan(const std::vector<std::string>& inputs, std::ostream& out) {
  if (inputs.size() != 1) throw ConfigError("plan: expected one plan file: storebench plan FILE.toml --dry-run");
  const Plan plan = ParsePlanFile(inputs[0]);
  auto line = [&](const std::vector<std::string>& args) {
    std::string text = "storebench";
    for (const auto& a : args) text += " " + a;
    return text;
  };
  out << "# " << plan.file << ": " << plan.runs.size() << " run(s), " << plan.loads.size() << " load step(s), results in "
      << plan.results_dir << "/\n";
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    const PlannedRun& run = plan.runs[i];
    const bool first_of_group =
        run.load_group >= 0 && std::none_of(plan.runs.begin(), plan.runs.begin() + static_cast<std::ptrdiff_t>(i),
                                            [&](const PlannedRun& r) { return r.load_group == run.load_group; });
    if (first_of_group) out << line(LoadArgs(plan, plan.loads[static_cast<std::size_t>(run.load_group)])) << "\n";
    out << line(RunArgs(plan, run)) << "\n";
  }
  return 0;
}

int RunPlanCommand(const std::vector<std::string>& inputs, bool resume, std::ostream& out, std::ostream& err) {
  if (inputs.size() != 1) throw ConfigError("plan: expected one plan file: storebench plan FILE.toml [--resume]");
  const Plan plan = ParsePlanFile(inputs[0]);
  const fs::path dir(plan.results_dir);
  std::error_code ec;
  if (fs::exists(dir / "index.json") && !resume) {
    throw ConfigError("plan: '" + plan.results_dir + "' already holds results (index.json): add --resume to continue " +
                      "that plan, or remove the directory to start over");
  }
  fs::create_directories(dir, ec);
  if (ec) throw ConfigError("plan: cannot create the results directory '" + plan.results_dir + "': " + ec.message());
  const std::map<std::string, std::string> previous = resume ? PreviousStatus(plan.results_dir) : std::map<std::string, std::string>{};

  std::vector<StepStatus> loads(plan.loads.size()), runs(plan.runs.size());
  std::size_t skipped = 0;
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    auto it = previous.find(plan.runs[i].id);
    if (it != previous.end() && it->second == "ok" && CompleteResult((dir / (plan.runs[i].id + ".json")).string())) {
      runs[i].status = "ok";
      runs[i].exit_code = 0;
      ++skipped;
    }
  }
  for (std::size_t g = 0; g < plan.loads.size(); ++g) {
    auto it = previous.find(plan.loads[g].id);
    const bool store_there = plan.loads[g].store_dir.empty() || fs::exists(plan.loads[g].store_dir);
    if (it != previous.end() && it->second == "ok" && store_there) {
      loads[g].status = "ok";
      loads[g].exit_code = 0;
    }
  }
  err << "storebench: plan " << plan.file << ": " << plan.runs.size() << " run(s), " << plan.loads.size()
      << " load step(s), results in " << plan.results_dir << "/";
  if (skipped > 0) err << " (" << skipped << " already done, skipped)";
  err << "\n";
  WriteIndex(plan, loads, runs);

  g_plan_stop = 0;
  auto old_int = std::signal(SIGINT, OnPlanSignal);
  auto old_term = std::signal(SIGTERM, OnPlanSignal);
  std::size_t done = skipped, failed = 0;
  for (std::size_t i = 0; i < plan.runs.size() && g_plan_stop == 0; ++i) {
    const PlannedRun& run = plan.runs[i];
    if (runs[i].status == "ok") continue;
    if (run.load_group >= 0) {
      const std::size_t g = static_cast<std::size_t>(run.load_group);
      const LoadStep& load = plan.loads[g];
      if (loads[g].status == "pending") {
        if (!load.store_dir.empty()) fs::remove_all(load.store_dir, ec);
        err << "storebench: plan: " << load.id << ": loading " << load.binding << " ..." << std::flush;
        const std::string json = (dir / (load.id + ".json")).string();
        loads[g] = RunChild(LoadArgs(plan, load), json, (dir / (load.id + ".log")).string());
        err << " " << loads[g].status << (loads[g].detail.empty() ? "" : " (" + loads[g].detail + ")") << "\n";
        WriteIndex(plan, loads, runs);
        if (loads[g].status == "interrupted") break;
      }
      if (loads[g].status != "ok") {
        runs[i].status = "failed";
        runs[i].detail = "its load step " + load.id + " failed: " + loads[g].detail;
        ++failed;
        WriteIndex(plan, loads, runs);
        continue;
      }
    }
    ++done;
    err << "storebench: plan: [" << done << "/" << plan.runs.size() << "] " << run.label << " ..." << std::flush;
    const std::string json = (dir / (run.id + ".json")).string();
    runs[i] = RunChild(RunArgs(plan, run), json, (dir / (run.id + ".log")).string());
    const std::string tp = runs[i].status == "ok" || runs[i].status == "interrupted" ? Throughput(json) : "";
    err << " " << runs[i].status << (tp.empty() ? "" : ", " + tp)
        << (runs[i].detail.empty() ? "" : " (" + runs[i].detail + ")") << "\n";
    if (runs[i].status == "failed") ++failed;
    WriteIndex(plan, loads, runs);
    // A group's store goes once its last run is done.
    if (run.load_group >= 0) {
      bool last = true;
      for (std::size_t j = i + 1; j < plan.runs.size(); ++j) last = last && plan.runs[j].load_group != run.load_group;
      const LoadStep& load = plan.loads[static_cast<std::size_t>(run.load_group)];
      if (last && g_plan_stop == 0 && !load.store_dir.empty()) fs::remove_all(load.store_dir, ec);
    }
  }
  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);
  WriteIndex(plan, loads, runs);
  fs::remove(dir / "stores", ec);  // only when empty
  out << "plan " << plan.file << ": " << std::count_if(runs.begin(), runs.end(), [](const StepStatus& s) { return s.status == "ok"; })
      << " ok, " << failed << " failed, "
      << std::count_if(runs.begin(), runs.end(), [](const StepStatus& s) { return s.status == "interrupted"; })
      << " interrupted, "
      << std::count_if(runs.begin(), runs.end(), [](const StepStatus& s) { return s.status == "pending"; })
      << " pending; index: " << (dir / "index.json").string() << "\n";
  if (g_plan_stop != 0) {
    err << "storebench: plan interrupted by signal " << g_plan_stop << "; storebench plan " << plan.file
        << " --resume continues it\n";
    return 128 + g_plan_stop;
  }
  return failed > 0 ? 1 : 0;
}

}  // namespace storebench
