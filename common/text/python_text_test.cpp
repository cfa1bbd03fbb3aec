// Tests of Python's re.split / re.sub / str.strip / repr over UTF-8 text; expected values printed
// by CPython 3.11.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "llmfs/text/python_text.hpp"

using llmfs::python_list_repr;
using llmfs::python_repr;
using llmfs::python_strip;
using llmfs::re_split;
using llmfs::re_sub;
using Strings = std::vector<std::string>;

TEST_CASE("re_split: captured separators are kept as the book's 2.2 shows") {
    CHECK(re_split(R"((\s))", "Hello, world. This, is a test.") ==
          Strings{"Hello,", " ", "world.", " ", "This,", " ", "is", " ", "a", " ", "test."});
    CHECK(re_split(R"(([,.]|\s))", "Hello, world.") == Strings{"Hello", ",", "", " ", "world", ".", ""});
    CHECK(re_split(R"((\s))", "") == Strings{""});
}

TEST_CASE("re_split: empty matches split as Python 3.7+ does - unmatched groups are empty") {
    CHECK(re_split("x*", "axbc") == Strings{"", "a", "", "b", "c", ""});
    CHECK(re_split("(a)|(b)", "xaybz") == Strings{"x", "a", "", "y", "", "b", "z"});
}

TEST_CASE("re_split: the class s is Python's str.isspace() with U+001C to U+001F and U+3000") {
    CHECK(re_split(R"(\s)", "a\x1c" "b\u3000c\u00a0d") == Strings{"a", "b", "c", "d"});
    CHECK(re_split(R"([\s,])", "a,b\x1f" "c") == Strings{"a", "b", "c"});
}

TEST_CASE("re_sub: a group reference is the group - other text literal and a bad pattern or reference refused") {
    CHECK(re_sub(R"(\s+([,.?!"()\']))", R"(\1)", "a , b .\x1c!") == "a, b.!");
    CHECK(re_sub("(b)", R"([\1\\])", "abc") == R"(a[b\]c)");
    CHECK_THROWS_AS(re_sub("(b)", R"(\2)", "abc"), std::invalid_argument);
    CHECK_THROWS_AS(re_split("(unclosed", "abc"), std::invalid_argument);
}

TEST_CASE("python_strip: Unicode whitespace on both ends only") {
    CHECK(python_strip(" \x1f x y\u3000") == "x y");
    CHECK(python_strip(" \t\n") == "");
    CHECK(python_strip("") == "");
    CHECK(python_strip("\u00e9") == "\u00e9");
}

TEST_CASE("python_repr: the quotes and escapes Python picks") {
    CHECK(python_repr("It's") == "\"It's\"");
    CHECK(python_repr("a\"b'c") == R"('a"b\'c')");
    CHECK(python_repr("\x1c\u00a0\u00e9\u2028\t\\") == R"('\x1c\xa0)" "\u00e9" R"(\u2028\t\\')");
    CHECK(python_repr(R"(" It' s the last he painted, you know," Mrs.)") == R"('" It\' s the last he painted, you know," Mrs.')");
    CHECK(python_list_repr({"Hello", ",", "'"}) == R"(['Hello', ',', "'"])");
    CHECK(python_list_repr({}) == "[]");
}
