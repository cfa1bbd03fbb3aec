// Checks of untrusted text before it is used: UTF-8 well-formedness, JSON's nesting and repeated
// keys before nlohmann-json builds a document (notebooks, safetensors headers), and integers as
// Python's int() reads them (the bonus scripts' arguments).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace llmfs {

// One step of a UTF-8 decoder at bytes[i]: a well-formed character of `length` bytes (valid), or,
// if ill-formed, the "maximal subpart" to replace by one U+FFFD: the longest prefix of a
// well-formed sequence (at least 1 byte). This is the substitution practice the Unicode Standard
// recommends (chapter 3, "U+FFFD Substitution of Maximal Subparts") and the one CPython's
// bytes.decode("utf-8", errors="replace") follows. Overlong forms, surrogates and code points past
// U+10FFFF are ill-formed.
struct Utf8Step {
    std::size_t length;
    bool valid;
};
Utf8Step utf8_step(std::string_view bytes, std::size_t i);

// The first byte of `text` that does not start a well-formed UTF-8 sequence, or npos.
std::size_t invalid_utf8_at(std::string_view text);

// Appends code point `cp` to `out`, UTF-8 encoded (1 to 4 bytes).
void append_utf8(std::string& out, char32_t cp);

// Decodes the code point at text[i] and advances i past it. For well-formed UTF-8 (checked with
// invalid_utf8_at, or by a JSON parser); a stray continuation byte is taken as is, one byte.
char32_t next_code_point(std::string_view text, std::size_t& i);

// What a pass over JSON text that builds nothing found (nlohmann's SAX parser is iterative, so
// deep input cannot exhaust the stack here, nor in the code that later walks the document).
struct JsonCheck {
    bool too_deep = false;      // objects and arrays nested more than max_depth levels
    std::string duplicate_key;  // a key repeated in one object (nlohmann keeps the last silently)
};

// Stops at the first object or array more than max_depth levels deep and, when
// find_duplicate_keys, at the first key repeated within one object. A syntax error just ends the
// pass: json::parse, called next, reports it.
JsonCheck check_json(std::string_view text, int max_depth, bool find_duplicate_keys);

// Python's int(text) for base 10: surrounding whitespace, one sign, digits with single '_'
// between them. Nothing when Python would raise ValueError, or (llmfs's limit) past 64 bits,
// which *too_large then says.
std::optional<std::int64_t> python_int(const std::string& text, bool* too_large = nullptr);

}  // namespace llmfs
