#include "llmfs/text/validate.hpp"

#include <cctype>
#include <limits>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

namespace llmfs {

Utf8Step utf8_step(std::string_view bytes, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(bytes[k]); };
    const unsigned char lead = byte(i);
    if (lead < 0x80) {
        return {1, true};
    }
    // Number of continuation bytes, and the range allowed for the first of them (narrower than
    // 80..BF after E0/ED/F0/F4, which rules out overlong forms, surrogates and > U+10FFFF).
    std::size_t continuations = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        continuations = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        continuations = 2;
        lo = lead == 0xE0 ? 0xA0 : 0x80;
        hi = lead == 0xED ? 0x9F : 0xBF;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        continuations = 3;
        lo = lead == 0xF0 ? 0x90 : 0x80;
        hi = lead == 0xF4 ? 0x8F : 0xBF;
    } else {
        return {1, false};  // a continuation byte, C0/C1 (always overlong) or F5..FF
    }
    std::size_t length = 1;
    for (; length <= continuations; ++length) {
        if (i + length >= bytes.size() || byte(i + length) < lo || byte(i + length) > hi) {
            return {length, false};
        }
        lo = 0x80;
        hi = 0xBF;
    }
    return {length, true};
}

std::size_t invalid_utf8_at(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const Utf8Step step = utf8_step(text, i);
        if (!step.valid) return i;
        i += step.length;
    }
    return std::string_view::npos;
}

void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

char32_t next_code_point(std::string_view text, std::size_t& i) {
    const auto b = static_cast<unsigned char>(text[i]);
    const int extra = b < 0x80 ? 0 : b < 0xE0 ? 1 : b < 0xF0 ? 2 : 3;
    if (b >= 0x80 && b < 0xC0) { ++i; return b; }
    char32_t c = extra == 0 ? b : extra == 1 ? (b & 0x1F) : extra == 2 ? (b & 0x0F) : (b & 0x07);
    ++i;
    for (int k = 0; k < extra && i < text.size(); ++k, ++i) c = (c << 6) | (static_cast<unsigned char>(text[i]) & 0x3F);
    return c;
}

namespace {

using json = nlohmann::json;

struct JsonCheckSax : nlohmann::json_sax<json> {
    int max_depth;
    bool find_duplicate_keys;
    int depth = 0;
    std::vector<std::set<std::string>> keys;  // per open object or array (arrays: unused), if asked
    JsonCheck found;

    JsonCheckSax(int max, bool duplicates) : max_depth(max), find_duplicate_keys(duplicates) {}
    bool open() {
        if (find_duplicate_keys) keys.emplace_back();
        return ++depth <= max_depth || (found.too_deep = true, false);
    }
    bool close() {
        if (!keys.empty()) keys.pop_back();
        return --depth, true;
    }
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return open(); }
    bool key(string_t& k) override {
        if (!keys.empty() && !keys.back().insert(k).second) {
            found.duplicate_key = k;
            return false;
        }
        return true;
    }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

}  // namespace

JsonCheck check_json(std::string_view text, int max_depth, bool find_duplicate_keys) {
    JsonCheckSax sax(max_depth, find_duplicate_keys);
    json::sax_parse(text, &sax);
    return sax.found;
}

std::optional<std::int64_t> python_int(const std::string& text, bool* too_large) {
    if (too_large) *too_large = false;
    auto space = [](unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f); };
    std::size_t b = 0, e = text.size();
    while (b < e && space(static_cast<unsigned char>(text[b]))) ++b;
    while (e > b && space(static_cast<unsigned char>(text[e - 1]))) --e;
    bool negative = false;
    if (b < e && (text[b] == '+' || text[b] == '-')) negative = text[b++] == '-';
    if (b == e || !std::isdigit(static_cast<unsigned char>(text[b])) || !std::isdigit(static_cast<unsigned char>(text[e - 1])))
        return std::nullopt;
    unsigned __int128 value = 0;
    bool overflow = false;
    for (std::size_t i = b; i < e; ++i) {
        const char c = text[i];
        if (c == '_') {
            if (text[i - 1] == '_') return std::nullopt;  // "1__0"
            continue;
        }
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
        value = value * 10 + static_cast<unsigned>(c - '0');
        if (value > static_cast<unsigned __int128>(std::numeric_limits<std::int64_t>::max()) + 1) overflow = true, value = 0;
    }
    const auto max = static_cast<unsigned __int128>(std::numeric_limits<std::int64_t>::max());
    if (overflow || value > max + (negative ? 1 : 0)) {
        if (too_large) *too_large = true;
        return std::nullopt;
    }
    if (negative) return value == max + 1 ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(value);
    return static_cast<std::int64_t>(value);
}

}  // namespace llmfs
