// Ignite's binary format as the thin client writes and reads it: Java's
// String.hashCode (cache ids), the lower-case type and field ids of
// BinaryBasicIdMapper, the schema id (FNV-1 over field ids, as BinaryUtils
// updateSchemaId computes it), typed values (string 9, byte array 12, long 4,
// int 3, UUID 10, null 101) and the complex object (103) that holds a record.
// Sources: docs/_docs/binary-client-protocol/data-format.adoc and, where the
// docs are terse, BinaryUtils.java / BinaryWriterExImpl.java of apache/ignite.
//
// A record is a complex object of a user type whose fields are the YCSB
// fields, each written as a String (type 9): Ignite SQL maps a QueryEntity
// field of type java.lang.String to VARCHAR, so `SELECT field0 FROM usertable`
// shows the stored value as text. YCSB values are printable ASCII (see
// workload/core_workload.cc), which is valid UTF-8, so they round-trip through
// Java strings byte for byte; a byte[] field would show as BINARY in SQL.
//
// Pure functions over caller-owned buffers; thread-safe on distinct objects.
// Writers append to a Writer (no allocation once the buffer is warm); readers
// return views into the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "db/ignite/wire.h"

namespace storebench::ignite {

// Type codes (data-format.adoc, GridBinaryMarshaller).
enum TypeCode : std::uint8_t {
  kTypeByte = 1,
  kTypeShort = 2,
  kTypeInt = 3,
  kTypeLong = 4,
  kTypeBool = 8,
  kTypeString = 9,
  kTypeUuid = 10,
  kTypeByteArray = 12,
  kTypeBinaryObject = 27,  // a wrapped object: int length, the bytes, int offset of the object in them
  kTypeNull = 101,
  kTypeComplexObject = 103,
};

// Complex object header flags (BinaryUtils FLAG_*).
enum ObjectFlags : std::uint16_t {
  kFlagUserType = 0x0001,
  kFlagHasSchema = 0x0002,
  kFlagHasRaw = 0x0004,
  kFlagOffsetOneByte = 0x0008,
  kFlagOffsetTwoBytes = 0x0010,
  kFlagCompactFooter = 0x0020,
};

// The complex object header: 1 (103) + 1 (version) + 2 (flags) + 4 (type id)
// + 4 (hash) + 4 (length) + 4 (schema id) + 4 (schema offset).
inline constexpr std::size_t kObjectHeaderSize = 24;
inline constexpr std::uint8_t kObjectVersion = 1;

// java.lang.String.hashCode over the UTF-16 code units of `s`, which is taken
// as UTF-8 (ASCII, the usual case, hashes byte by byte).
std::int32_t JavaHash(std::string_view s);
// The same over Character.toLowerCase of each unit (BinaryBasicIdMapper's
// lowerCaseHashCode): type ids and field ids by default.
std::int32_t LowerCaseJavaHash(std::string_view s);
// A cache's id: the Java hash of its name (not lower-cased).
inline std::int32_t CacheId(std::string_view name) { return JavaHash(name); }
inline std::int32_t TypeId(std::string_view type_name) { return LowerCaseJavaHash(type_name); }
inline std::int32_t FieldId(std::string_view field_name) { return LowerCaseJavaHash(field_name); }

// BinaryUtils.schemaInitialId / updateSchemaId: FNV-1 (32-bit) over each
// field id's four bytes, least significant first.
inline constexpr std::int32_t kSchemaInitialId = static_cast<std::int32_t>(0x811C9DC5u);
std::int32_t UpdateSchemaId(std::int32_t schema_id, std::int32_t field_id);

// BinaryArrayIdentityResolver's hash of an object: 31 * h + b over the signed
// bytes of its field data (from the end of the header to the schema), from 1.
std::int32_t ObjectDataHash(std::string_view field_data);

// ---- typed values -----------------------------------------------------------

inline void WriteString(Writer& w, std::string_view s) {
  w.U8(kTypeString);
  w.I32(static_cast<std::int32_t>(s.size()));
  w.Bytes(s);
}
inline void WriteByteArray(Writer& w, std::string_view b) {
  w.U8(kTypeByteArray);
  w.I32(static_cast<std::int32_t>(b.size()));
  w.Bytes(b);
}
inline void WriteLong(Writer& w, std::int64_t v) {
  w.U8(kTypeLong);
  w.I64(v);
}
inline void WriteInt(Writer& w, std::int32_t v) {
  w.U8(kTypeInt);
  w.I32(v);
}
inline void WriteBool(Writer& w, bool v) {
  w.U8(kTypeBool);
  w.Bool(v);
}
inline void WriteNull(Writer& w) { w.U8(kTypeNull); }
// A string, or null (101) when `s` is nullptr-backed (absent).
inline void WriteStringOrNull(Writer& w, std::string_view s, bool present) {
  if (present)
    WriteString(w, s);
  else
    WriteNull(w);
}

// A 16-byte UUID as Ignite writes it (most significant long, then least).
struct Uuid {
  std::int64_t msb = 0, lsb = 0;
  bool operator==(const Uuid&) const = default;
};

// Reads a string (9) or null (101: *present = false). False on any other type
// or short input.
bool ReadStringOrNull(Reader& r, std::string_view* s, bool* present);
// Reads a typed UUID (10 then two longs) or null.
bool ReadUuidOrNull(Reader& r, Uuid* u, bool* present);
// Reads a byte array (12) or null.
bool ReadByteArrayOrNull(Reader& r, std::string_view* b, bool* present);

// Skips one value of any type this codec can meet in a response (the
// primitives, string, UUID, arrays of primitives, complex objects, null);
// false on a type it does not know (the caller cannot resynchronise).
bool SkipValue(Reader& r);

// ---- complex objects --------------------------------------------------------

// One field of a record: a name and a value view (both caller-owned).
struct FieldView {
  std::string_view name;
  std::string_view value;
};

// Writes a complex object of user type `type_id` whose fields are strings,
// with a full schema (field id, offset) after the data (no compact footer, so
// a reader needs no registered metadata to locate a field). Offsets are 1, 2
// or 4 bytes as the object's size needs, as BinaryWriterExImpl chooses.
// `field_ids[i]` is FieldId(fields[i].name), precomputed by the caller.
void WriteStringObject(Writer& w, std::int32_t type_id, const FieldView* fields, const std::int32_t* field_ids,
                       std::size_t count);

// A complex object viewed in place: its header, and its schema for lookups.
struct ObjectView {
  std::uint16_t flags = 0;
  std::int32_t type_id = 0;
  std::int32_t hash = 0;
  std::int32_t schema_id = 0;
  std::string_view bytes;   // the whole object, header included
  std::string_view schema;  // the (field id, offset) pairs (or offsets only with a compact footer)
  std::size_t offset_size = 4;
  std::size_t field_count = 0;
};

// Reads the complex object (103) at the reader's position and moves past it,
// or the wrapped one (27: how a node answers a get of an object it stores),
// viewing the object inside; false when the header or the schema does not
// fit the declared length.
bool ReadObject(Reader& r, ObjectView* o);

// The i-th field of `o` (schema order): its id (0 with a compact footer) and
// the value bytes from its offset to the next field's offset (or the schema).
bool ObjectField(const ObjectView& o, std::size_t i, std::int32_t* field_id, std::string_view* value);

// The string value of field `field_id`; false if absent or not a string.
bool ObjectStringField(const ObjectView& o, std::int32_t field_id, std::string_view* value);

}  // namespace storebench::ignite
