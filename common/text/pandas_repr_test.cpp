// dataframe_repr against pandas' own repr of the same frames (data/tests/pandas_repr_cases.json,
// tests/goldens/make_pandas_repr_goldens.py: pandas 1.5.3 under Jupyter's display options) and
// against the book's stored displays of chapter 6's df and balanced_df (pandas 2.3 over the whole
// collection: data/tests/ch06/book_dataframe_displays.json, tests/goldens/book_dataframe_displays.py).
#include <catch2/catch.hpp>

#include <fstream>

#include <nlohmann/json.hpp>

#include "llmfs/text/pandas_repr.hpp"

using namespace llmfs;

namespace {

nlohmann::json cases(const std::string& file) {
    std::ifstream in(std::string(LLMFS_TEST_DATA_DIR) + "/" + file);
    REQUIRE(in);
    return nlohmann::json::parse(in)["cases"];
}

void check_cases(const nlohmann::json& all) {
    for (const auto& c : all) {
        std::vector<FrameColumn> columns;
        for (const auto& col : c["columns"]) {
            FrameColumn f{col["name"].get<std::string>(), {}};
            if (col["dtype"] == "int64") {
                f.values = col["values"].get<std::vector<std::int64_t>>();
            } else {
                std::vector<std::optional<std::string>> values;
                for (const auto& v : col["values"]) values.push_back(v.is_null() ? std::nullopt : std::optional<std::string>(v.get<std::string>()));
                f.values = std::move(values);
            }
            columns.push_back(std::move(f));
        }
        INFO(c["name"].get<std::string>());
        CHECK(dataframe_repr(c["index"].get<std::vector<std::int64_t>>(), columns) == c["repr"].get<std::string>());
    }
}

}  // namespace

TEST_CASE("dataframe_repr is pandas' repr: truncation, column widths, NaN, escapes, non-ASCII") {
    const nlohmann::json all = cases("pandas_repr_cases.json");
    REQUIRE(all.size() >= 15);
    check_cases(all);
}

TEST_CASE("dataframe_repr gives the book's df and balanced_df displays (pandas 2.3) from frames that agree with them") {
    const nlohmann::json all = cases("ch06/book_dataframe_displays.json");
    REQUIRE(all.size() == 2);
    check_cases(all);
}

TEST_CASE("dataframe_repr refuses a column of another length than the index, naming both") {
    const std::vector<FrameColumn> columns{{"Label", std::vector<std::int64_t>{0, 1}}};
    CHECK_THROWS_WITH(dataframe_repr({0, 1, 2}, columns), "dataframe_repr: column 'Label' has 2 values, the index 3");
}
