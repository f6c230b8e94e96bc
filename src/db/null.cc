// Binding "null": a store that does nothing (YCSB's BasicDB, without the
// printing). Every operation returns OK at once and keeps no data: a read
// returns an empty record set, a scan no records. It measures the harness:
// the cost of one operation here is a virtual call and a few stores (~1 ns),
// so a run against it shows the overhead of key choice, value fill, timing
// and histogram recording. Thread-safe: there is no state.
#include <memory>

#include "db/binding.h"

namespace storebench {
namespace {

class NullSession final : public Session {
 public:
  Status Read(std::string_view, std::string_view, const FieldSelector&, RecordSet* out) override {
    out->Clear();  // the contract: out holds this read's result, i.e. nothing
    return Status::Ok();
  }
  Status Scan(std::string_view, std::string_view, std::uint64_t, const FieldSelector&,
              RecordSet* out) override {
    out->Clear();
    return Status::Ok();
  }
  Status Update(std::string_view, std::string_view, std::span<const Field>) override { return Status::Ok(); }
  Status Insert(std::string_view, std::string_view, std::span<const Field>) override { return Status::Ok(); }
  Status Delete(std::string_view, std::string_view) override { return Status::Ok(); }
};

class NullStore final : public Store {
 public:
  std::unique_ptr<Session> NewSession(int) override { return std::make_unique<NullSession>(); }
  Capabilities capabilities() const override {
    Capabilities c;
    c.scan = true;
    c.persistent = false;
    c.stores_data = false;  // nothing to preload before a run
    return c;
  }
};

}  // namespace

const BindingInfo& null_binding() {
  static const BindingInfo info{
      .name = "null",
      .summary = "does nothing: every operation returns OK at once (measures the harness overhead)",
      .properties = {},
      .open = [](const Properties&, const OpenContext&) -> std::unique_ptr<Store> {
        return std::make_unique<NullStore>();
      },
      .uses_dir = false,
  };
  return info;
}

}  // namespace storebench
