// A pandas DataFrame as a notebook shows it (its text/plain repr, DataFrame.__repr__ with pandas'
// display options): chapter 6's `df` and `balanced_df` cells. Only what those frames hold: an
// integer index and columns of int64 or of Python strings (object dtype, NaN allowed).
//
//   display.max_rows 60, min_rows 10: a longer frame shows its first 5 and last 5 rows, a row of
//     dots between them, and "[N rows x M columns]" after a blank line;
//   display.max_colwidth 50: a longer string value is cut to its first 46 characters and "..."
//     (counting the space pandas puts before every value);
//   values right-justified under right-justified headers (a numeric column's header gets a leading
//     space, as its values), the index left-justified, columns one space apart; \t \r \n in a string
//     shown escaped; widths and cuts in code points (Python's len), no East Asian width.
// The rules are pandas.io.formats.format's (DataFrameFormatter, GenericArrayFormatter,
// IntArrayFormatter, _make_fixed_width) and string.py's (the dots row); checked against pandas
// 1.5.3's repr (data/tests/pandas_repr_cases.json, tests/goldens/make_pandas_repr_goldens.py) and the
// book's notebook, which pandas 2.3 printed the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace llmfs {

struct FrameColumn {
    std::string name;
    // int64 values, or object values (std::nullopt: NaN)
    std::variant<std::vector<std::int64_t>, std::vector<std::optional<std::string>>> values;
};

// repr(df) for a frame whose index labels are `index` (one per row) and whose columns are
// `columns` (each as long as the index; else std::invalid_argument naming both lengths). No final
// newline, as Jupyter shows it.
std::string dataframe_repr(const std::vector<std::int64_t>& index, const std::vector<FrameColumn>& columns);

}  // namespace llmfs
