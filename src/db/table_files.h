// One database file per table in a store directory, for the embedded
// engines that keep each YCSB table in its own file (kyotocabinet,
// tokyocabinet). What those bindings share lives here, engine-free: the
// directory's preparation and this process's claim on it, opening every table
// file found there at start (so a file locked by another process is reported
// at once), opening a new table's file on its first insert, the table list
// for Stats and DiskUsageBytes, and closing them all. The engine supplies its
// Table type (with `name` and `path` members) and how to open and close one.
// Includes no engine's headers.
//
// Thread safety: Find and All may be called from any thread (a shared mutex
// guards the table map). Open and CloseAll are called by the Store alone,
// with no session running. Ownership: owns the tables; pointers from Find and
// All stay valid until CloseAll.
#pragma once

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/error.h"
#include "core/status.h"
#include "db/binding.h"
#include "db/store_dir.h"

namespace storebench {

template <typename Table>
class TableFiles {
 public:
  struct Layout {
    std::string binding;  // "kyotocabinet": property names are binding + ".dir", ".type"
    std::string dir;
    std::string extension;        // of this type's files, e.g. ".kct"
    std::string other_extension;  // of the other type's, e.g. ".kch": refused in the directory
    std::string type_name;        // e.g. "tree"
    std::string other_type_name;  // e.g. "hash"
  };
  // Opens (creating) table `name` at `path`, emptied when `fresh` (the
  // binding's destroy, asked only at start); nullptr and a one-line reason
  // in *why on failure. May throw SetupError when `fresh`.
  using OpenFn = std::function<std::unique_ptr<Table>(const std::string& name, const std::string& path,
                                                      bool fresh, std::string* why)>;
  // Closes one table; false and a one-line reason on failure.
  using CloseFn = std::function<bool(Table& table, std::string* why)>;

  TableFiles(Layout layout, OpenFn open, CloseFn close)
      : layout_(std::move(layout)), open_(std::move(open)), close_(std::move(close)) {}
  ~TableFiles() { CloseAll(); }
  TableFiles(const TableFiles&) = delete;
  TableFiles& operator=(const TableFiles&) = delete;

  const Layout& layout() const { return layout_; }
  bool closed() const { return closed_; }
  // Throws SetupError "BINDING: NewSession after Close" once closed.
  void CheckOpen() const {
    if (closed_) throw SetupError(layout_.binding + ": NewSession after Close");
  }
  // What such a store can do: scans with the ordered type only (the hash
  // type keeps no key order); persistent; updates merged under the engine's
  // record lock, so atomic.
  Capabilities capabilities(bool ordered) const {
    Capabilities c;
    c.scan = ordered;
    if (!c.scan) c.why_no_scan = layout_.binding + ".type=hash keeps no key order";
    c.persistent = true;
    c.atomic_update = true;
    return c;
  }

  // Prepares and claims the directory and opens every table file of this
  // type in it (emptied when `fresh`). Throws ConfigError when it holds the
  // other type's files, SetupError when a file cannot be opened.
  void Open(bool fresh) {
    PrepareStoreDir(DirProperty(), layout_.dir);
    claim_ = DirClaim(DirProperty(), layout_.dir);
    try {
      OpenExisting(fresh);
    } catch (...) {
      CloseAll();
      throw;
    }
  }

  // The table named `table`, opening (creating) its file on first use when
  // `create`; nullptr when it does not exist and !create, or on failure
  // (*error set then).
  Table* Find(std::string_view table, bool create, bool* error) {
    *error = false;
    {
      std::shared_lock lock(mu_);
      auto it = tables_.find(table);
      if (it != tables_.end()) return it->second.get();
    }
    if (!create) return nullptr;
    if (!IsSafeFileName(table)) {
      *error = true;
      return nullptr;
    }
    std::unique_lock lock(mu_);
    auto it = tables_.find(table);
    if (it != tables_.end()) return it->second.get();
    std::string why;
    std::unique_ptr<Table> t = open_(std::string(table), PathOf(table), false, &why);
    if (!t) {
      *error = true;
      return nullptr;
    }
    Table* raw = t.get();
    tables_.emplace(std::string(table), std::move(t));
    return raw;
  }

  std::vector<Table*> All() {
    std::shared_lock lock(mu_);
    std::vector<Table*> out;
    for (auto& [name, t] : tables_) out.push_back(t.get());
    return out;
  }

  // The open tables' names, comma-separated, in order (for Stats).
  std::string Names() {
    std::string names;
    for (Table* t : All()) names += (names.empty() ? "" : ",") + t->name;
    return names;
  }

  // Closes every table and releases the directory; throws SetupError with
  // the first failure. Does nothing the second time.
  void Close() {
    if (closed_) return;
    std::string error = CloseAll();
    claim_.Release();
    if (!error.empty()) throw SetupError(error);
  }

 private:
  std::string DirProperty() const { return layout_.binding + ".dir"; }
  std::string PathOf(std::string_view name) const {
    return (std::filesystem::path(layout_.dir) / (std::string(name) + layout_.extension)).string();
  }

  void OpenExisting(bool fresh) {
    namespace fs = std::filesystem;
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(layout_.dir, ec)) {
      const std::string file = e.path().filename().string();
      const std::string ext = e.path().extension().string();
      const std::string stem = e.path().stem().string();
      if (ext == layout_.other_extension && IsSafeFileName(stem)) {
        throw ConfigError(DirProperty() + " '" + layout_.dir + "' holds " + layout_.other_type_name +
                          " tables (" + file + ") but " + layout_.binding + ".type=" + layout_.type_name +
                          ": set the type they were written with or use another directory");
      }
      if (ext == layout_.extension && IsSafeFileName(stem)) names.push_back(stem);
    }
    if (ec) throw SetupError(DirProperty() + " '" + layout_.dir + "': cannot list it: " + ec.message());
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      std::string why;
      std::unique_ptr<Table> t = open_(name, PathOf(name), fresh, &why);
      if (!t) {
        throw SetupError(DirProperty() + " '" + layout_.dir + "': table file '" + PathOf(name) + "': " + why);
      }
      tables_.emplace(name, std::move(t));
    }
  }

  // Closes every table; returns the first error as a one-line message.
  std::string CloseAll() {
    std::unique_lock lock(mu_);
    std::string error;
    for (auto& [name, t] : tables_) {
      std::string why;
      if (!close_(*t, &why) && error.empty()) {
        error = DirProperty() + " '" + layout_.dir + "': closing " + t->path + " failed: " + why;
      }
    }
    tables_.clear();
    closed_ = true;
    return error;
  }

  Layout layout_;
  OpenFn open_;
  CloseFn close_;
  DirClaim claim_;  // this process's claim on the directory (the engines' fcntl locks do not stop it)
  std::shared_mutex mu_;
  std::map<std::string, std::unique_ptr<Table>, std::less<>> tables_;
  bool closed_ = false;
};

// A session's view of the table files: the last table used (a string
// compare per operation), and whether the last lookup failed. Not
// thread-safe; one per session.
template <typename Table>
class TableCache {
 public:
  // The table, as TableFiles::Find; `*switched` is set when it differs from
  // the last one (the session's cursor on the old table must go).
  Table* Find(TableFiles<Table>& files, std::string_view table, bool create, bool* switched) {
    *switched = false;
    error_ = false;
    if (cached_ != nullptr && table == cached_->name) return cached_;
    Table* t = files.Find(table, create, &error_);
    if (t == nullptr) return nullptr;
    *switched = true;
    cached_ = t;
    return t;
  }
  // What a read, update or delete of a table Find did not return answers:
  // ERROR for a bad name or a file that would not open, else NOT_FOUND.
  Status Missing() const { return error_ ? Status::Error() : Status::NotFound(); }
  // What a scan answers then: ERROR, or OK with no records.
  Status MissingScan() const { return error_ ? Status::Error() : Status::Ok(); }

 private:
  Table* cached_ = nullptr;
  bool error_ = false;
};

}  // namespace storebench
