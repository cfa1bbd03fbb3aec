// Comparing a program's output with a notebook's (or a golden's): byte-identical, "close" (the
// noise another CPU or BLAS gives), or different. Used by llmfs-nbcheck, the exercise checks and
// the tests that run on other platforms, so all three judge alike.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace llmfs {

enum class Verdict {
    match,   // byte-identical
    close,   // same text apart from whitespace and numbers, each number within is_close()
    differ,  // anything else
};
const char* to_string(Verdict verdict);  // "match", "close", "differ"

struct Comparison {
    Verdict verdict = Verdict::match;
    std::size_t line = 0;       // 1-based number of the first line that is not byte-identical; 0 on a match
    std::string expected_line;  // that line of `expected` ("" past its end)
    std::string actual_line;    // that line of `actual` ("" past its end)
};

// The closeness rule for one printed number: `expected` (the notebook's) and `actual` (ours) are
// the numbers' texts, e.g. "0.9995" and "1.0000". Close when
//     |a - b| <= max(2 units of the last digit printed, 1e-6 * min(|a|, |b|), 1e-6)
// where the unit is that of the finer of the two texts (1e-4 for "0.9995", 1e-12 for
// "-5.9605e-08"). The rule is symmetric in the two numbers and bounded by the smaller unit and the
// smaller magnitude, so a tampered "1e300" or "0e99" for "0.1235" differs: a number's own coarse
// print cannot excuse a change of magnitude. Integers and PyTorch's integer-valued floats ("768",
// "2.": token ids, sizes, counts, dropout masks) must be equal: 0. against 2. is a different mask,
// not noise. Infinite values ("1e999") are never close.
bool is_close(std::string_view expected, std::string_view actual);

// Compares two whole outputs. Whitespace is ignored for "close" (a changed sign or digit count
// re-pads PyTorch's columns), but not for "match". `drift` (a training run on another BLAS kernel,
// whose last-bit differences grow with every step) widens "close" for non-integer numbers: also
// close when |a - b| <= drift. Integers must still be equal; 0 keeps is_close()'s rule alone.
Comparison compare_outputs(std::string_view expected, std::string_view actual, double drift = 0);

// `diff -u` of the two texts by lines, with `context` lines around each change; "" when equal.
std::string unified_diff(std::string_view expected, std::string_view actual, std::string_view expected_name,
                         std::string_view actual_name, int context = 3);

}  // namespace llmfs
