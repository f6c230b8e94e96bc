// The record codec: the ONE encoding every key-value binding uses to store a
// record's fields in a single value. Bindings must not serialise records any
// other way, so that a record written by one KV binding reads the same in all
// of them and there is one place to make it faster.
//
// Format (all lengths are unsigned LEB128 varints, as in LevelDB/protobuf:
// 7 bits per byte, least significant group first, high bit = "more"):
//
//   record := field*
//   field  := varint(name length) name-bytes varint(value length) value-bytes
//
// There is no header, count or terminator: the record ends where the data
// ends. A record with no fields encodes as the empty string. Names and
// values are arbitrary bytes (NUL and 0x80-0xFF included); empty names and
// values are allowed. Fields keep the order they were given in. A 10-field
// record of 100-byte values with names "field0".."field9" costs 1080 bytes:
// 20 bytes (two 1-byte lengths per field) over the names and values.
//
// Promises:
//  - DecodeRecord(EncodeRecord(f)) yields exactly f, in order (duplicates
//    included, though callers should not create them).
//  - Decoding validates every length against the bytes that remain; corrupt
//    or truncated data is reported (false), never read out of bounds.
//  - Output strings are cleared first and their capacity reused, so with a
//    warm per-thread buffer none of these functions allocates.
//  - All functions are pure (no shared state) and safe to call from any
//    number of threads on distinct outputs.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "core/status.h"
#include "db/binding.h"

namespace storebench {

// Encodes `fields` into *out (cleared first; capacity reused).
void EncodeRecord(std::span<const Field> fields, std::string* out);

// Validates `data` and appends the fields selected by `sel`, in stored
// order, to the current record of *out (RecordSet::AddField: a caller that
// wants the key recorded calls out->BeginRecord(key) first). Returns false,
// leaving *out unchanged, when `data` is not a valid encoding.
[[nodiscard]] bool DecodeRecord(std::string_view data, const FieldSelector& sel, RecordSet* out);

// A read's last step: starts the record `key` in *out and decodes `data`
// into it (DecodeRecord). OK; ERROR, with *out cleared, when `data` is not
// a valid encoding.
Status DecodeReadResult(std::string_view key, std::string_view data, const FieldSelector& sel,
                        RecordSet* out);

// YCSB update semantics: *out (cleared first; must not alias `existing`)
// becomes `existing` with every field named in `updates` set to the new
// value and all other fields kept. Existing fields keep their position;
// updated fields that did not exist are appended in the order given. When a
// name appears more than once in `updates`, the last one wins. Returns
// false when `existing` is corrupt; *out then holds just the updates.
[[nodiscard]] bool MergeRecord(std::string_view existing, std::span<const Field> updates, std::string* out);

// True when `data` is a valid encoding (same check DecodeRecord makes).
bool IsValidRecord(std::string_view data);

}  // namespace storebench
