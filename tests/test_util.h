// Helpers shared by the tests.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "measure/result.h"

namespace storebench::test_util {

// A file with the given content under /tmp, removed when this goes away.
class TempFile {
 public:
  explicit TempFile(const std::string& content) {
    char name[] = "/tmp/storebench_test_XXXXXX";
    int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    close(fd);
    path_ = name;
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The result of the operation named `name` ("READ", "READ-FAILED", ...), or null.
inline const OpResult* FindOp(const PhaseResult& r, const std::string& name) {
  for (const auto& op : r.ops) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

}  // namespace storebench::test_util
