// Python's text operations the book's chapter 2 runs, with Python's results on UTF-8 text:
//
//   re_split(R"(([,.]|\s))", "Hello, world.")   re.split(r'([,.]|\s)', text)
//       -> {"Hello", ",", "", " ", "world", ".", ""}          (captured separators kept)
//   re_sub(R"(\s+([,.?!"()\']))", R"(\1)", text)  re.sub(pattern, r'\1', text)
//   strip_nonempty(items)                       [item.strip() for item in items if item.strip()]
//   python_repr("It's")   -> "\"It's\""           repr(str): quotes and escapes as Python picks them
//   python_list_repr({"a", "b"}) -> "['a', 'b']"  str(list of str)
//
// Patterns are Python `re` patterns compiled by PCRE2 (UTF mode); `\s` outside a character class
// means what Python's means for str patterns: the characters for which str.isspace() is true
// (PCRE2's own \s lacks U+001C..U+001F). A pattern PCRE2 cannot compile is a std::invalid_argument.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmfs {

// Number of code points of UTF-8 `text` (Python's len of the decoded str); text must be valid.
std::size_t count_characters(std::string_view text);
// The byte at which code point `character` of UTF-8 `text` starts (text.size() past the end), so
// that text[a:b] in Python is text.substr(byte_offset(text, a), byte_offset(text, b) - ...).
std::size_t byte_offset(std::string_view text, std::size_t character);

// str.isspace() of one code point.
bool python_isspace(char32_t c);
// str.strip(): leading and trailing str.isspace() characters removed (text is UTF-8).
std::string python_strip(std::string_view text);

// re.split(pattern, text): the pieces between matches, each followed by the match's groups (a
// group that did not take part is ""), as Python 3.7+ splits (an empty match splits too).
std::vector<std::string> re_split(std::string_view pattern, std::string_view text);
// re.sub(pattern, replacement, text): each match replaced by `replacement`, in which \1..\9 are
// the match's groups (an unmatched group is "") and \\ a backslash; other characters are literal.
std::string re_sub(std::string_view pattern, std::string_view replacement, std::string_view text);
// [item.strip() for item in items if item.strip()]
std::vector<std::string> strip_nonempty(const std::vector<std::string>& items);

// repr(s) of a Python str: single quotes unless s holds ' and no ", backslash escapes for the
// quote, \\, \t, \n, \r, other control characters as \xNN (U+0080..U+009F too); printable
// non-ASCII characters as they are.
std::string python_repr(std::string_view s);
// str(list) of a list of str: "['Hello', ',', 'world']"
std::string python_list_repr(const std::vector<std::string>& items);

}  // namespace llmfs
