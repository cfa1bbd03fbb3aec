#include "llmfs/text/python_text.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "llmfs/text/validate.hpp"

namespace llmfs {

std::size_t count_characters(std::string_view text) {
    std::size_t count = 0;
    for (const char c : text) count += (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // lead bytes
    return count;
}

std::size_t byte_offset(std::string_view text, std::size_t character) {
    std::size_t seen = 0;
    for (std::size_t byte = 0; byte < text.size(); ++byte)
        if ((static_cast<unsigned char>(text[byte]) & 0xC0) != 0x80 && seen++ == character) return byte;
    return text.size();
}

namespace {

// The characters of str.isspace(), as a PCRE2 class body (no brackets).
constexpr std::string_view kPythonSpaceClass =
    R"(\t\n\x{0b}\x{0c}\r\x{1c}-\x{1f} \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000})";

// `\s` outside a character class becomes the class of str.isspace(); inside one, its characters.
std::string translate_pattern(std::string_view pattern) {
    std::string out;
    bool in_class = false;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char ch = pattern[i];
        if (ch == '\\' && i + 1 < pattern.size()) {
            if (pattern[i + 1] == 's') {
                out += in_class ? std::string(kPythonSpaceClass) : "[" + std::string(kPythonSpaceClass) + "]";
            } else {
                out += pattern.substr(i, 2);
            }
            ++i;
            continue;
        }
        if (ch == '[' && !in_class) {
            in_class = true;
            out += ch;
            // a ']' (after an optional '^') right at the start is a literal
            if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
            if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
            continue;
        }
        if (ch == ']' && in_class) in_class = false;
        out += ch;
    }
    return out;
}

struct CodeDeleter {
    void operator()(pcre2_code* code) const { pcre2_code_free(code); }
};
struct MatchDeleter {
    void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};

class Regex {
public:
    explicit Regex(std::string_view python_pattern) {
        const std::string pattern = translate_pattern(python_pattern);
        int error = 0;
        PCRE2_SIZE offset = 0;
        code_.reset(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP,
                                  &error, &offset, nullptr));
        if (!code_) {
            PCRE2_UCHAR message[256];
            pcre2_get_error_message(error, message, sizeof message);
            throw std::invalid_argument(fmt::format("cannot compile the regular expression \"{}\": {}", python_pattern,
                                                    reinterpret_cast<const char*>(message)));
        }
        match_.reset(pcre2_match_data_create_from_pattern(code_.get(), nullptr));
        std::uint32_t groups = 0;
        pcre2_pattern_info(code_.get(), PCRE2_INFO_CAPTURECOUNT, &groups);
        groups_ = groups;
    }
    std::size_t groups() const { return groups_; }
    // The next match at or after `from`: false when there is none. span(k) is group k's [begin, end)
    // (group 0 the whole match), {npos, npos} for a group that did not take part.
    bool find(std::string_view text, std::size_t from, std::uint32_t options = 0) {
        const int rc = pcre2_match(code_.get(), reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), from, options,
                                   match_.get(), nullptr);
        if (rc == PCRE2_ERROR_NOMATCH) return false;
        if (rc < 0) {
            PCRE2_UCHAR message[256];
            pcre2_get_error_message(rc, message, sizeof message);
            throw std::invalid_argument(std::string("regular expression: ") + reinterpret_cast<const char*>(message));
        }
        return true;
    }
    std::pair<std::size_t, std::size_t> span(std::size_t k) const {
        const PCRE2_SIZE* v = pcre2_get_ovector_pointer(match_.get());
        if (v[2 * k] == PCRE2_UNSET) return {std::string_view::npos, std::string_view::npos};
        return {v[2 * k], v[2 * k + 1]};
    }
    std::string group(std::string_view text, std::size_t k) const {
        const auto [b, e] = span(k);
        return b == std::string_view::npos ? std::string() : std::string(text.substr(b, e - b));
    }

private:
    std::unique_ptr<pcre2_code, CodeDeleter> code_;
    std::unique_ptr<pcre2_match_data, MatchDeleter> match_;
    std::size_t groups_ = 0;
};

// Calls on_match(regex) for each match of Python's scan (re.finditer): after an empty match the
// next one may not be empty at the same place.
template <class F>
void for_each_match(Regex& re, std::string_view text, F on_match) {
    std::size_t pos = 0;
    bool last_empty_at_pos = false;
    while (pos <= text.size()) {
        const std::uint32_t options = last_empty_at_pos ? (PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED) : 0;
        if (!re.find(text, pos, options)) {
            if (!last_empty_at_pos) break;
            // no non-empty match here: move one character on and search again
            std::size_t next = pos;
            if (next >= text.size()) break;
            next_code_point(text, next);
            pos = next;
            last_empty_at_pos = false;
            continue;
        }
        const auto [b, e] = re.span(0);
        on_match(re);
        last_empty_at_pos = (b == e);
        pos = e;
    }
}

// Not str.isprintable(): controls, Latin-1's controls and no-break space, soft hyphen, the
// separators and the common format characters.
bool python_unprintable(char32_t c) {
    if (c < 0x20 || (c >= 0x7F && c <= 0xA0) || c == 0xAD) return true;
    if (c > 0x7F && python_isspace(c)) return true;
    return (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x2064) || c == 0xFEFF;
}

}  // namespace

bool python_isspace(char32_t c) {
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

std::string python_strip(std::string_view text) {
    std::size_t begin = text.size(), end = 0;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t at = i;
        if (!python_isspace(next_code_point(text, i))) {
            if (begin == text.size()) begin = at;
            end = i;
        }
    }
    if (begin == text.size()) return {};
    return std::string(text.substr(begin, end - begin));
}

std::vector<std::string> re_split(std::string_view pattern, std::string_view text) {
    Regex re(pattern);
    std::vector<std::string> pieces;
    std::size_t last = 0;
    for_each_match(re, text, [&](const Regex& m) {
        const auto [b, e] = m.span(0);
        pieces.emplace_back(text.substr(last, b - last));
        for (std::size_t k = 1; k <= m.groups(); ++k) pieces.push_back(m.group(text, k));
        last = e;
    });
    pieces.emplace_back(text.substr(last));
    return pieces;
}

std::string re_sub(std::string_view pattern, std::string_view replacement, std::string_view text) {
    Regex re(pattern);
    for (std::size_t i = 0; i + 1 < replacement.size(); ++i) {
        if (replacement[i] != '\\') continue;
        const char next = replacement[i + 1];
        if (next >= '1' && next <= '9' && static_cast<std::size_t>(next - '0') > re.groups()) {
            throw std::invalid_argument(fmt::format("re.sub: invalid group reference {} in \"{}\"", next - '0', replacement));
        }
        ++i;
    }
    std::string out;
    std::size_t last = 0;
    for_each_match(re, text, [&](const Regex& m) {
        const auto [b, e] = m.span(0);
        out += text.substr(last, b - last);
        for (std::size_t i = 0; i < replacement.size(); ++i) {
            const char ch = replacement[i];
            if (ch == '\\' && i + 1 < replacement.size()) {
                const char next = replacement[i + 1];
                if (next >= '1' && next <= '9') {
                    out += m.group(text, static_cast<std::size_t>(next - '0'));
                    ++i;
                    continue;
                }
                if (next == '\\') {
                    out += '\\';
                    ++i;
                    continue;
                }
            }
            out += ch;
        }
        last = e;
    });
    out += text.substr(last);
    return out;
}

std::vector<std::string> strip_nonempty(const std::vector<std::string>& items) {
    std::vector<std::string> out;
    for (const std::string& item : items) {
        std::string stripped = python_strip(item);
        if (!stripped.empty()) out.push_back(std::move(stripped));
    }
    return out;
}

std::string python_repr(std::string_view s) {
    const bool has_single = s.find('\'') != std::string_view::npos;
    const bool has_double = s.find('"') != std::string_view::npos;
    const char quote = has_single && !has_double ? '"' : '\'';
    std::string out(1, quote);
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t at = i;
        const char32_t c = next_code_point(s, i);
        if (c == static_cast<char32_t>(quote) || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (python_unprintable(c)) {
            out += c < 0x100 ? fmt::format("\\x{:02x}", static_cast<unsigned>(c)) : fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else if (c < 0x80) {
            out += static_cast<char>(c);
        } else {
            out += s.substr(at, i - at);
        }
    }
    out += quote;
    return out;
}

std::string python_list_repr(const std::vector<std::string>& items) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out += ", ";
        out += python_repr(items[i]);
    }
    return out + "]";
}

}  // namespace llmfs
