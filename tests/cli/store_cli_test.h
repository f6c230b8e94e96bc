// StoreCliTest: the fixture of the end-to-end tests that run one storing
// binding through the storebench binary (integrity_test.cc, batch_test.cc).
// It holds a temporary directory, the binding's store arguments (its
// directory under it, or its test server's properties), the store's probed
// capabilities, and runs `storebench COMMAND BINDING props_... STORE...
// EXTRA... --json DIR/COMMAND.json` in that directory, collecting the
// result's phases in phases_.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "db/binding.h"
#include "db/registry.h"
#include "test_util.h"

namespace storebench {

// The fixture's state and steps; StoreCliTest<Param> below is the fixture.
class StoreCli {
 public:
  // Every binding but null (which stores nothing), for INSTANTIATE_TEST_SUITE_P.
  static std::vector<const BindingInfo*> StoringBindings() {
    std::vector<const BindingInfo*> out;
    for (const BindingInfo* b : AllBindings()) {
      if (b->name != "null") out.push_back(b);
    }
    return out;
  }

  // A test name's characters: letters and digits, '_' for the rest.
  static std::string ParamSafe(std::string n) {
    for (char& c : n) {
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return n;
  }

 protected:
  // Sets up `binding`'s store after the test has set props_; skips the test
  // when the binding needs a server and none is given (check IsSkipped()).
  void UseBinding(const BindingInfo& binding) {
    binding_ = &binding;
    if (binding.server) STOREBENCH_NEED_SERVER(binding.name, server_);
    store_args_ = test_util::StoreArgs(binding, dir_, server_);
    caps_ = test_util::ProbeCapabilities(binding, dir_, server_);
  }

  // Runs one command; it must exit 0. Appends its result's phases to
  // phases_; `result`, if given, gets its output. `what` names the case in
  // a failure.
  void RunCommand(const std::string& command, const std::vector<std::string>& extra, const std::string& what,
                  test_util::ProcessResult* result = nullptr) {
    std::vector<std::string> args = {command, binding_->name};
    args.insert(args.end(), props_.begin(), props_.end());
    args.insert(args.end(), store_args_.begin(), store_args_.end());
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--json", (dir_ / (command + ".json")).string()});
    test_util::ProcessOptions o;
    o.cwd = dir_.string();
    test_util::ProcessResult r = test_util::RunProcess(STOREBENCH_BINARY, args, o);
    ASSERT_EQ(r.code, 0) << command << " " << what << ": " << r.err;
    std::ifstream f(dir_ / (command + ".json"));
    const nlohmann::json j = nlohmann::json::parse(f);
    for (const auto& p : j.at("phases")) phases_.push_back(p);
    if (result != nullptr) *result = std::move(r);
  }

  // Checks one phase of a JSON result: some operations, no integrity
  // failure, and every return code OK.
  static void ExpectClean(const nlohmann::json& phase, const std::string& what) {
    EXPECT_EQ(phase.at("integrity_failures").get<std::uint64_t>(), 0u) << what;
    EXPECT_GT(phase.at("operations").get<std::uint64_t>(), 0u) << what;
    for (const auto& op : phase.at("ops")) {
      for (const auto& [code, count] : op.at("return_codes").items()) {
        EXPECT_EQ(code, "OK") << what << ": " << op.at("name").get<std::string>() << " returned " << code << " "
                              << count.get<std::uint64_t>() << " times";
      }
    }
  }

  test_util::TempDir tmp_{"storebench-cli-store"};
  const std::filesystem::path dir_ = tmp_.path();
  std::vector<std::string> props_;  // the test's -p/-P arguments, before the store's
  const BindingInfo* binding_ = nullptr;
  test_util::Settings server_;
  std::vector<std::string> store_args_;
  Capabilities caps_;
  std::vector<nlohmann::json> phases_;
};

template <typename Param>
class StoreCliTest : public ::testing::TestWithParam<Param>, public StoreCli {};

}  // namespace storebench
