// Fuzzes the property parsers (core/properties.h): property files (-P, Java
// properties syntax), -p KEY=VALUE arguments, and the typed getters that turn
// values into numbers, sizes, booleans and choices. Bad input must be a
// ConfigError (one line), nothing else.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/properties.h"

using namespace storebench;

namespace {

// Reads the properties through each typed getter (each one may refuse it);
// the first 16 only, since every refusal is an exception, slow under ASan.
void ReadAll(const Properties& p) {
  int n = 0;
  for (const auto& [key, entry] : p.entries()) {
    if (++n > 16) break;
    try { (void)p.GetInt(key, 0); } catch (const ConfigError&) {}
    try { (void)p.GetInt(key, 0, 0, 1000); } catch (const ConfigError&) {}
    try { (void)p.GetDouble(key, 0); } catch (const ConfigError&) {}
    try { (void)p.GetBool(key, false); } catch (const ConfigError&) {}
    try { (void)p.GetSize(key, 0); } catch (const ConfigError&) {}
    try { (void)p.GetChoice(key, "a", {"a", "b"}); } catch (const ConfigError&) {}
    (void)p.GetString(key, "");
    (void)p.OriginOf(key);
  }
  (void)p.Effective();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // As a property file.
  {
    Properties p;
    try {
      p.LoadText(text, "fuzz.properties");
      ReadAll(p);
    } catch (const ConfigError&) {
    }
    // Unknown keys against a few real names (the "did you mean" search).
    Properties q = p;
    try { q.CheckUnknown({"recordcount", "operationcount", "fieldlength"}); } catch (const ConfigError&) {}
  }
  // Each line as a -p argument.
  {
    Properties p;
    std::size_t pos = 0;
    for (int n = 0; pos <= text.size() && n < 32; ++n) {
      const std::size_t eol = text.find('\n', pos);
      const std::string_view arg = text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
      try { p.SetFromArg(arg); } catch (const ConfigError&) {}
      if (eol == std::string_view::npos) break;
      pos = eol + 1;
    }
    ReadAll(p);
  }
  return 0;
}
