// gpt_class_finetune.py --test_mode against the book's script run by PyTorch 1.13 with 2.x's AdamW
// (data/tests/ch06/finetune_test_mode.txt and clean/*.csv, from tests/goldens/make_ch06_script_goldens.py),
// and its refusals of bad input, with nothing written.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "llmfs/train/class_finetune.hpp"
#include "test_support.hpp"

using namespace llmfs;
namespace fs = std::filesystem;

namespace {

std::string path(const std::string& name) { return (std::filesystem::path(LLMFS_TEST_DATA_DIR) / "ch06" / name).string(); }

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    REQUIRE(in);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

fs::path fresh_dir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("llmfs-class-finetune-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

}  // namespace

TEST_CASE("class finetune: --test_mode prints the script's lines and writes its CSVs", "[blas]") {
    const fs::path dir = fresh_dir("test-mode");
    ClassFinetuneOptions o;
    o.data = path("sms_clean.tsv");
    o.test_mode = true;
    o.out_dir = dir.string();
    std::vector<std::string> lines;
    run_class_finetune(o, [&](const std::string& line) { lines.push_back(line); });
    // the script's stdout: its download line first (never printed here: nothing is downloaded),
    // the timing line last (its minutes are this run's)
    std::istringstream golden(slurp(path("finetune_test_mode.txt")));
    std::vector<std::string> expected;
    for (std::string line; std::getline(golden, line);) expected.push_back(line);
    REQUIRE(expected.size() >= 2);
    REQUIRE(lines.size() == expected.size() - 1);
    CHECK(std::regex_match(lines.back(), std::regex(R"(Training completed in \d+\.\d\d minutes\.)")));
    std::string actual_text, expected_text;
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) actual_text += lines[i] + "\n";
    for (std::size_t i = 1; i + 1 < expected.size(); ++i) expected_text += expected[i] + "\n";
    llmfs::testing::check_printed("class finetune test mode", actual_text, expected_text);
    for (const char* name : {"train.csv", "validation.csv", "test.csv"})
        CHECK(slurp(dir / name) == slurp(path(std::string("clean/") + name)));
    fs::remove_all(dir);
}

TEST_CASE("class finetune: bad input is refused before anything is written") {
    const fs::path dir = fresh_dir("bad");
    ClassFinetuneOptions o;
    o.out_dir = dir.string();
    const auto quiet = [](const std::string&) {};
    CHECK_THROWS_AS(run_class_finetune(o, quiet), std::invalid_argument);  // no --data
    o.data = path("sms_small.zip");
    CHECK_THROWS_WITH(run_class_finetune(o, quiet), Catch::Contains("--weights FILE is required"));
    o.test_mode = true;
    o.data = path("not_sms.zip");
    CHECK_THROWS_WITH(run_class_finetune(o, quiet), Catch::Contains("has no member SMSSpamCollection"));
    o.data = path("sms_small.zip");  // its test split holds a NaN text
    CHECK_THROWS_WITH(run_class_finetune(o, quiet), Catch::Contains("has no text (NaN"));
    o.test_mode = false;
    o.weights = path("sms_small.tsv");
    CHECK_THROWS_AS(run_class_finetune(o, quiet), std::runtime_error);
    CHECK(fs::is_empty(dir));
    fs::remove_all(dir);
}
