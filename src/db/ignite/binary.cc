#include "db/ignite/binary.h"

namespace storebench::ignite {
namespace {

// Calls f(unit) for each UTF-16 code unit of the UTF-8 text `s`, as Java's
// String would hold it (a malformed sequence becomes U+FFFD, as the decoder
// of new String(bytes, UTF_8) does for each bad byte).
template <typename F>
void ForEachUtf16(std::string_view s, F&& f) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
      f(static_cast<std::uint32_t>(b0));
      ++i;
      continue;
    }
    int len = b0 >= 0xF0 && b0 < 0xF5 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 && b0 < 0xE0 ? 2 : 0;
    std::uint32_t cp = len == 2 ? (b0 & 0x1Fu) : len == 3 ? (b0 & 0x0Fu) : (b0 & 0x07u);
    bool good = len != 0 && i + static_cast<std::size_t>(len) <= n;
    for (int k = 1; good && k < len; ++k) {
      auto b = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((b & 0xC0) != 0x80) good = false;
      cp = (cp << 6) | (b & 0x3Fu);
    }
    if (good && ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))))
      good = false;
    if (!good) {
      f(0xFFFDu);
      ++i;
      continue;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      f(0xD800u + (cp >> 10));
      f(0xDC00u + (cp & 0x3FFu));
    } else {
      f(cp);
    }
    i += static_cast<std::size_t>(len);
  }
}

std::uint32_t OffsetAt(std::string_view schema, std::size_t pos, std::size_t size) {
  std::uint32_t v = 0;
  for (std::size_t k = 0; k < size; ++k) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(schema[pos + k])) << (8 * k);
  return v;
}

}  // namespace

std::int32_t JavaHash(std::string_view s) {
  std::uint32_t h = 0;
  ForEachUtf16(s, [&h](std::uint32_t u) { h = 31 * h + u; });
  return static_cast<std::int32_t>(h);
}

std::int32_t LowerCaseJavaHash(std::string_view s) {
  std::uint32_t h = 0;
  // Character.toLowerCase for ASCII; other units are hashed unchanged (names
  // of tables and fields outside ASCII would need Java's full case tables).
  ForEachUtf16(s, [&h](std::uint32_t u) { h = 31 * h + (u >= 'A' && u <= 'Z' ? u + 32 : u); });
  return static_cast<std::int32_t>(h);
}

std::int32_t UpdateSchemaId(std::int32_t schema_id, std::int32_t field_id) {
  constexpr std::uint32_t kPrime = 0x01000193u;
  auto s = static_cast<std::uint32_t>(schema_id);
  auto f = static_cast<std::uint32_t>(field_id);
  for (int i = 0; i < 4; ++i) {
    s ^= (f >> (8 * i)) & 0xFFu;
    s *= kPrime;
  }
  return static_cast<std::int32_t>(s);
}

std::int32_t ObjectDataHash(std::string_view data) {
  std::uint32_t h = 1;
  for (char c : data) h = 31 * h + static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<signed char>(c)));
  return static_cast<std::int32_t>(h);
}

namespace {

// A value of type `type` (int32 length, then its bytes) or null (101):
// the two ways a string or byte array field is spelled.
bool ReadLengthPrefixedOrNull(Reader& r, std::uint8_t type, std::string_view* bytes, bool* present) {
  std::uint8_t t = r.U8();
  if (!r.ok()) return false;
  if (t == kTypeNull) {
    *present = false;
    *bytes = {};
    return true;
  }
  if (t != type) return false;
  *bytes = r.Bytes(r.I32());
  *present = true;
  return r.ok();
}

}  // namespace

bool ReadStringOrNull(Reader& r, std::string_view* s, bool* present) {
  return ReadLengthPrefixedOrNull(r, kTypeString, s, present);
}

bool ReadByteArrayOrNull(Reader& r, std::string_view* b, bool* present) {
  return ReadLengthPrefixedOrNull(r, kTypeByteArray, b, present);
}

bool ReadUuidOrNull(Reader& r, Uuid* u, bool* present) {
  std::uint8_t t = r.U8();
  if (!r.ok()) return false;
  if (t == kTypeNull) {
    *present = false;
    return true;
  }
  if (t != kTypeUuid) return false;
  u->msb = r.I64();
  u->lsb = r.I64();
  *present = true;
  return r.ok();
}

bool SkipValue(Reader& r) {
  std::uint8_t t = r.U8();
  if (!r.ok()) return false;
  auto array = [&r](std::size_t elem) {
    std::int32_t n = r.I32();
    if (n < 0 || static_cast<std::size_t>(n) > r.remaining() / elem) return false;
    r.Skip(static_cast<std::size_t>(n) * elem);
    return r.ok();
  };
  switch (t) {
    case kTypeNull: return true;
    case kTypeByte: case kTypeBool: r.Skip(1); break;
    case kTypeShort: case 7 /* char */: r.Skip(2); break;
    case kTypeInt: case 5 /* float */: r.Skip(4); break;
    case kTypeLong: case 6 /* double */: case 11 /* date */: r.Skip(8); break;
    case kTypeUuid: r.Skip(16); break;
    case 33 /* timestamp */: r.Skip(12); break;
    case kTypeString: case kTypeByteArray: case 20 /* bool[] */: return array(1);
    case 13 /* short[] */: case 18 /* char[] */: return array(2);
    case 14 /* int[] */: case 16 /* float[] */: return array(4);
    case 15 /* long[] */: case 17 /* double[] */: return array(8);
    case kTypeBinaryObject:
      if (!array(1)) return false;
      r.Skip(4);  // the object's offset in the wrapped bytes
      break;
    case kTypeComplexObject: {
      ObjectView o;
      // ReadObject expects the type byte unread.
      Reader whole(r.input().substr(r.pos() - 1));
      if (!ReadObject(whole, &o)) return false;
      r.Skip(o.bytes.size() - 1);
      break;
    }
    default: return false;
  }
  return r.ok();
}

void WriteStringObject(Writer& w, std::int32_t type_id, const FieldView* fields, const std::int32_t* field_ids,
                       std::size_t count) {
  std::string& out = w.buffer();
  const std::size_t start = out.size();
  // Header, patched below.
  w.U8(kTypeComplexObject);
  w.U8(kObjectVersion);
  w.I16(0);
  w.I32(type_id);
  w.I32(0);  // hash
  w.I32(0);  // total length
  w.I32(0);  // schema id
  w.I32(0);  // schema offset
  std::int32_t schema_id = kSchemaInitialId;
  std::uint32_t last_offset = 0;
  for (std::size_t i = 0; i < count; ++i) {
    last_offset = static_cast<std::uint32_t>(out.size() - start);
    schema_id = UpdateSchemaId(schema_id, field_ids[i]);
    WriteString(w, fields[i].value);
  }
  const std::size_t schema_at = out.size() - start;
  std::uint16_t flags = kFlagUserType;
  if (count != 0) {
    flags |= kFlagHasSchema;
    std::size_t offset_size = last_offset < (1u << 8) ? 1 : last_offset < (1u << 16) ? 2 : 4;
    if (offset_size == 1) flags |= kFlagOffsetOneByte;
    if (offset_size == 2) flags |= kFlagOffsetTwoBytes;
    std::uint32_t off = kObjectHeaderSize;
    for (std::size_t i = 0; i < count; ++i) {
      w.I32(field_ids[i]);
      for (std::size_t k = 0; k < offset_size; ++k) w.U8(static_cast<std::uint8_t>((off >> (8 * k)) & 0xFF));
      off += static_cast<std::uint32_t>(5 + fields[i].value.size());
    }
  } else {
    schema_id = 0;
  }
  const std::int32_t hash =
      ObjectDataHash(std::string_view(out).substr(start + kObjectHeaderSize, schema_at - kObjectHeaderSize));
  out[start + 2] = static_cast<char>(flags & 0xFF);
  out[start + 3] = static_cast<char>(flags >> 8);
  w.PatchI32(start + 8, hash);
  w.PatchI32(start + 12, static_cast<std::int32_t>(out.size() - start));
  w.PatchI32(start + 16, schema_id);
  // An object without fields points its schema offset at the header's end.
  w.PatchI32(start + 20, static_cast<std::int32_t>(count != 0 ? schema_at : kObjectHeaderSize));
}

bool ReadObject(Reader& r, ObjectView* o) {
  if (r.remaining() >= 1 && static_cast<unsigned char>(r.input()[r.pos()]) == kTypeBinaryObject) {
    r.U8();
    const std::string_view wrapped = r.Bytes(r.I32());
    const std::int32_t offset = r.I32();
    if (!r.ok() || offset < 0 || static_cast<std::size_t>(offset) >= wrapped.size()) return false;
    const std::string_view object = wrapped.substr(static_cast<std::size_t>(offset));
    if (static_cast<unsigned char>(object[0]) != kTypeComplexObject) return false;  // (no wrapper in a wrapper)
    Reader inner(object);
    return ReadObject(inner, o);
  }
  const std::size_t start = r.pos();
  if (r.U8() != kTypeComplexObject || !r.ok()) return false;
  if (r.U8() != kObjectVersion) return false;
  o->flags = static_cast<std::uint16_t>(r.I16());
  o->type_id = r.I32();
  o->hash = r.I32();
  std::int32_t length = r.I32();
  o->schema_id = r.I32();
  std::int32_t schema_offset = r.I32();
  if (!r.ok() || length < static_cast<std::int32_t>(kObjectHeaderSize) ||
      static_cast<std::size_t>(length) > r.input().size() - start)
    return false;
  o->bytes = r.input().substr(start, static_cast<std::size_t>(length));
  r.Skip(static_cast<std::size_t>(length) - kObjectHeaderSize);
  o->offset_size = (o->flags & kFlagOffsetOneByte) ? 1 : (o->flags & kFlagOffsetTwoBytes) ? 2 : 4;
  o->schema = {};
  o->field_count = 0;
  if (o->flags & kFlagHasSchema) {
    if (schema_offset < static_cast<std::int32_t>(kObjectHeaderSize) || schema_offset > length) return false;
    std::size_t end = static_cast<std::size_t>(length);
    // With raw data, the raw offset (int32) ends the object.
    if (o->flags & kFlagHasRaw) {
      if (end - static_cast<std::size_t>(schema_offset) < 4) return false;
      end -= 4;
    }
    o->schema = o->bytes.substr(static_cast<std::size_t>(schema_offset), end - static_cast<std::size_t>(schema_offset));
    std::size_t entry = o->offset_size + ((o->flags & kFlagCompactFooter) ? 0 : 4);
    if (o->schema.size() % entry != 0) return false;
    o->field_count = o->schema.size() / entry;
  }
  return r.ok();
}

bool ObjectField(const ObjectView& o, std::size_t i, std::int32_t* field_id, std::string_view* value) {
  if (i >= o.field_count) return false;
  const bool compact = (o.flags & kFlagCompactFooter) != 0;
  const std::size_t entry = o.offset_size + (compact ? 0 : 4);
  const std::size_t id_size = compact ? 0 : 4;
  *field_id = compact ? 0 : static_cast<std::int32_t>(OffsetAt(o.schema, i * entry, 4));
  std::uint32_t begin = OffsetAt(o.schema, i * entry + id_size, o.offset_size);
  std::uint32_t end = i + 1 < o.field_count ? OffsetAt(o.schema, (i + 1) * entry + id_size, o.offset_size)
                                            : static_cast<std::uint32_t>(o.schema.data() - o.bytes.data());
  if (begin < kObjectHeaderSize || end < begin || end > o.bytes.size()) return false;
  *value = o.bytes.substr(begin, end - begin);
  return true;
}

bool ObjectStringField(const ObjectView& o, std::int32_t field_id, std::string_view* value) {
  for (std::size_t i = 0; i < o.field_count; ++i) {
    std::int32_t id;
    std::string_view bytes;
    if (!ObjectField(o, i, &id, &bytes)) return false;
    if (id != field_id) continue;
    Reader r(bytes);
    bool present;
    return ReadStringOrNull(r, value, &present) && present;
  }
  return false;
}

}  // namespace storebench::ignite
