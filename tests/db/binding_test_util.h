// Scaffolding shared by the binding-specific tests (rocksdb_test.cc,
// leveldb_test.cc, ...): a fixture with a temporary root directory and
// helpers to open the binding and write or read one-field records, and a
// child process that holds a lock on a file, for "locked by another
// process" tests.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "db/binding.h"
#include "db/registry.h"
#include "test_util.h"

namespace storebench::test_util {

// A fixture for the binding named `binding`: SetUp makes a fresh directory
// under the system temp dir (root_), TearDown removes it. The binding's
// stores live in subdirectories of it, "db" unless told otherwise.
class BindingTest : public ::testing::Test {
 protected:
  explicit BindingTest(std::string binding) : binding_(std::move(binding)) {}

  void SetUp() override {
    STOREBENCH_NEED_BINDING(binding_);
    std::string tmpl =
        (std::filesystem::temp_directory_path() / ("storebench-" + binding_ + "-XXXXXX")).string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }

  // The store directory `sub` below the root.
  std::string Dir(const std::string& sub = "db") const { return root_ + "/" + sub; }
  // Properties with just NAME.dir set, to the directory `sub`.
  Properties Props(const std::string& sub = "db") const {
    Properties p;
    p.Set(binding_ + ".dir", Dir(sub));
    return p;
  }
  std::unique_ptr<Store> Open(const Properties& p) const {
    return FindBinding(binding_).open(p, OpenContext{});
  }

  // Writes or reads the record `key` with the single field "field0", through a
  // session of its own or a given one. Get stores the field's value in *value
  // ("<missing>" when the record has no field0).
  static Status Put(Session* s, const std::string& key, const std::string& value,
                    const std::string& table = "usertable") {
    Field f{"field0", value};
    return s->Insert(table, key, std::span<const Field>(&f, 1));
  }
  static Status Put(Store* store, const std::string& key, const std::string& value,
                    const std::string& table = "usertable") {
    return Put(store->NewSession(0).get(), key, value, table);
  }
  static Status Get(Session* s, const std::string& key, std::string* value = nullptr,
                    const std::string& table = "usertable") {
    RecordSet rs;
    Status st = s->Read(table, key, FieldSelector{}, &rs);
    if (st.ok() && value != nullptr) *value = std::string(rs.Find(0, "field0").value_or("<missing>"));
    return st;
  }
  static Status Get(Store* store, const std::string& key, std::string* value = nullptr,
                    const std::string& table = "usertable") {
    return Get(store->NewSession(0).get(), key, value, table);
  }

  static std::map<std::string, std::string> StatsOf(Store* store) {
    std::map<std::string, std::string> m;
    for (const auto& [k, v] : store->Stats()) m[k] = v;
    return m;
  }

  // The message of the E that opening with `p` throws; a test failure (and
  // "") when it throws something else or nothing.
  template <typename E>
  std::string MessageOf(const Properties& p) const {
    try {
      auto store = Open(p);
    } catch (const E& e) {
      return e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "wrong exception type: " << e.what();
      return "";
    }
    ADD_FAILURE() << "no exception";
    return "";
  }

  std::string root_;

 private:
  std::string binding_;
};

// Lost updates: `threads` threads each update their own field of one record
// ("hot" in usertable, fields field0..) `per_thread` times, to "1" up to
// per_thread. Returns how many fields do not hold the last value their
// thread's update acknowledged (0 when every update kept the others' fields:
// an atomic update), or -N when N updates failed with anything but ABORTED.
// An update the store aborted (a transaction that gave up on a conflict, as
// wiredtiger's does after retrying for 1 s) is a declared outcome, not a lost
// update: its field must still hold the thread's previous acknowledged value.
// A read-merge-write update without isolation loses some within a few
// rounds. The record also carries a 16 KiB field that no thread updates.
inline int LostUpdates(Store* store, int per_thread, int threads = 4) {
  {
    auto s = store->NewSession(0);
    std::vector<std::string> names;
    for (int t = 0; t < threads; ++t) names.push_back("field" + std::to_string(t));
    std::vector<Field> init;
    for (const auto& n : names) init.push_back({n, "0"});
    // A large field no thread updates: every read-merge-write copies it, which
    // widens the window in which a non-atomic update loses another's field.
    const std::string pad(16 << 10, 'p');
    init.push_back({"pad", pad});
    if (s->Insert("usertable", "hot", init) != Status::Ok()) return -1;
  }
  std::atomic<int> errors{0};
  std::vector<int> last_ok(static_cast<std::size_t>(threads), 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      auto s = store->NewSession(t);
      const std::string name = "field" + std::to_string(t);
      for (int i = 1; i <= per_thread; ++i) {
        const std::string value = std::to_string(i);
        Field f{name, value};
        Status st = s->Update("usertable", "hot", std::span<const Field>(&f, 1));
        if (st == Status::Ok()) {
          last_ok[static_cast<std::size_t>(t)] = i;
        } else if (st.code() != Status::kAborted) {
          ++errors;
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  if (errors.load() != 0) return -errors.load();
  auto s = store->NewSession(0);
  RecordSet rs;
  if (s->Read("usertable", "hot", FieldSelector{}, &rs) != Status::Ok()) return -1;
  int lost = 0;
  for (int t = 0; t < threads; ++t) {
    if (rs.Find(0, "field" + std::to_string(t)).value_or("") != std::to_string(last_ok[static_cast<std::size_t>(t)])) {
      ++lost;
    }
  }
  return lost;
}

// The kinds of lock LockHeldByChild takes on its file.
enum class LockKind {
  kFcntlWrite,  // a POSIX write lock on the whole file (fcntl F_SETLK, F_WRLCK)
  kFlock,       // an exclusive BSD lock (flock LOCK_EX)
};

// Another process holding a lock on a file. Hold() forks a child that takes
// the lock, reports back over a pipe and keeps it until Release() or the
// destructor closes the other pipe (or 30 s pass, so a failing test cannot
// leave it behind); both then wait for the child. Call Hold through
// ASSERT_NO_FATAL_FAILURE: it fails the test when the child could not take
// the lock.
class LockHeldByChild {
 public:
  LockHeldByChild() = default;
  ~LockHeldByChild() { Release(); }
  LockHeldByChild(const LockHeldByChild&) = delete;
  LockHeldByChild& operator=(const LockHeldByChild&) = delete;

  void Hold(const std::string& path, LockKind kind) {
    ASSERT_EQ(child_, -1) << "already holding a lock";
    ASSERT_EQ(pipe(ready_), 0);
    ASSERT_EQ(pipe(release_), 0);
    const char* file = path.c_str();
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // Only async-signal-safe calls from here on (flock is a plain system
      // call too): take the lock, report, hold it until the pipe closes.
      close(release_[1]);
      close(ready_[0]);
      alarm(30);
      int fd = open(file, O_RDWR | O_CREAT, 0644);
      bool locked = false;
      if (fd >= 0 && kind == LockKind::kFcntlWrite) {
        struct flock fl = {};
        fl.l_type = F_WRLCK;
        fl.l_whence = SEEK_SET;
        locked = fcntl(fd, F_SETLK, &fl) == 0;
      } else if (fd >= 0 && kind == LockKind::kFlock) {
        locked = flock(fd, LOCK_EX | LOCK_NB) == 0;
      }
      char ok = locked ? '1' : '0';
      if (write(ready_[1], &ok, 1) != 1) _exit(2);
      char c;
      while (read(release_[0], &c, 1) > 0) {
      }
      _exit(0);
    }
    child_ = child;
    CloseFd(ready_[1]);
    CloseFd(release_[0]);
    char ok = 0;
    ASSERT_EQ(read(ready_[0], &ok, 1), 1);
    ASSERT_EQ(ok, '1') << "child could not take the lock";
  }

  // Lets the child go and waits until it is gone (and with it the lock).
  void Release() {
    for (int* fd : {&release_[1], &ready_[0], &ready_[1], &release_[0]}) CloseFd(*fd);
    if (child_ > 0) {
      int wstatus = 0;
      waitpid(child_, &wstatus, 0);
      child_ = -1;
    }
  }

 private:
  static void CloseFd(int& fd) {
    if (fd >= 0) close(fd);
    fd = -1;
  }

  int ready_[2] = {-1, -1};
  int release_[2] = {-1, -1};
  pid_t child_ = -1;
};

}  // namespace storebench::test_util
