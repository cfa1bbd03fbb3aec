// numpy_str against NumPy's own str(array) (data/tests/numpy_print_cases.txt, made by
// tests/goldens/make_numpy_print_goldens.py): positional and scientific layouts, ties, zeros,
// wrapped rows, summarized matrices and 3-D arrays; numpy_shape's tuples.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "llmfs/torch/numpy_print.hpp"
#include "test_support.hpp"

using namespace llmfs;

TEST_CASE("numpy_str prints every case as NumPy does") {
    const auto cases = llmfs::testing::load_cases(LLMFS_TEST_DATA_DIR "/numpy_print_cases.txt");
    REQUIRE(cases.size() >= 20);
    for (const auto& [name, text] : cases) {
        std::istringstream in(text);
        std::string line, word, expected;
        std::vector<std::size_t> shape;
        std::vector<float> values;
        std::getline(in, line);  // shape D...
        std::istringstream dims(line.substr(6));
        for (std::size_t d; dims >> d;) shape.push_back(d);
        std::getline(in, line);  // values
        while (std::getline(in, line) && line != "str") {
            std::istringstream words(line);
            while (words >> word) {
                const auto u = static_cast<std::uint32_t>(std::stoul(word, nullptr, 16));
                float f;
                std::memcpy(&f, &u, sizeof f);
                values.push_back(f);
            }
        }
        while (std::getline(in, line)) expected += (expected.empty() ? "" : "\n") + line;
        INFO(name);
        CHECK(numpy_str(values.data(), shape) == expected);
    }
}

TEST_CASE("numpy_shape is NumPy's tuple, and a NaN is refused") {
    CHECK(numpy_shape({50257, 768}) == "(50257, 768)");
    CHECK(numpy_shape({5}) == "(5,)");
    CHECK(numpy_shape({}) == "()");
    const float bad[2] = {1.0f, std::numeric_limits<float>::quiet_NaN()};
    CHECK_THROWS_WITH(numpy_str(bad, {2}), Catch::Contains("only finite values"));
}
