// print(array) of a float32 NumPy array, as NumPy (1.24 to 2.x, default print options) prints it:
// what the book's 5.5 shows of OpenAI's weights (print(params["wte"])).
//   numpy_str(data, {2, 3})  -> "[[ 0.1        -0.2         0.30000001]\n [...]]"
//
// The rules, from numpy/core/arrayprint.py (array2string with precision 8, threshold 1000,
// edgeitems 3, linewidth 75, floatmode "maxprec", legacy False):
//   - over 1000 elements: only the first and last 3 of each axis longer than 6, with "..." between;
//     the formatting is decided from those shown elements only;
//   - positional unless the largest |x| >= 1e8, or the smallest nonzero |x| < 1e-4, or their ratio
//     > 1000 (then scientific: d.ddde-05);
//   - each value in its shortest float32 round-trip digits, at most 8 after the point (correctly
//     rounded beyond), trailing zeros dropped; all padded to the widest integer part on the left
//     and the widest fraction on the right (scientific: the mantissas zero-padded to the same digits);
//   - elements separated by one space, lines wrapped at 75 characters, rows of a matrix on their own
//     lines under the first "[".
// Only finite values: a NaN or infinity is a std::invalid_argument.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace llmfs {

std::string numpy_str(const float* data, const std::vector<std::size_t>& shape);

// The NumPy shape tuple: "(50257, 768)", "(5,)", "()".
std::string numpy_shape(const std::vector<std::size_t>& shape);

}  // namespace llmfs
