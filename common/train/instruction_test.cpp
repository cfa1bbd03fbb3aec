// Chapter 7's data functions against the book's own code run by PyTorch 1.13
// (data/tests/instruction_cases.txt, tests/goldens/make_instruction_goldens.py): custom_collate_fn
// on batches beyond the notebook's, Python's repr of strings, json.dump(indent=4) of the data with
// responses; and the checks of a malformed file.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "llmfs/text/data_dir.hpp"
#include "llmfs/train/instruction.hpp"
#include "test_support.hpp"

using namespace llmfs;

namespace {

const std::string kCases = LLMFS_TEST_DATA_DIR "/instruction_cases.txt";

std::vector<std::vector<std::int64_t>> items_of(const std::string& text) {
    std::vector<std::vector<std::int64_t>> items;
    std::istringstream in(text);
    for (std::string item; std::getline(in, item, ';');) {
        std::istringstream ids(item);
        items.emplace_back();
        for (std::int64_t id; ids >> id;) items.back().push_back(id);
    }
    if (!text.empty() && text.back() == ';') items.emplace_back();
    return items;
}

}  // namespace

TEST_CASE("custom_collate: the book's custom_collate_fn on padding, ignore_index and allowed_max_length") {
    for (const auto& c : llmfs::testing::field_cases(kCases, "collate")) {
        INFO(c.name);
        const auto items = items_of(c.at("items"));
        std::vector<const std::vector<std::int64_t>*> batch;
        for (const auto& item : items) batch.push_back(&item);
        CollateOptions options;
        options.pad_token_id = static_cast<std::int64_t>(c.number("pad"));
        if (c.at("allowed") != "none") options.allowed_max_length = c.number("allowed");
        const Batch b = custom_collate(batch, options);
        for (const auto& [key, got] : {std::pair{"inputs", &b.inputs}, std::pair{"targets", &b.targets}}) {
            std::vector<std::int64_t> expected = c.indices(key);
            REQUIRE(expected.size() >= 2);
            CHECK(b.B == static_cast<std::size_t>(expected[0]));
            CHECK(b.T == static_cast<std::size_t>(expected[1]));
            CHECK(*got == std::vector<std::int64_t>(expected.begin() + 2, expected.end()));
        }
    }
    CHECK_THROWS_AS(custom_collate({}), std::invalid_argument);
}

TEST_CASE("python_str_repr: Python's repr() of a str: its quote, escapes and unprintable characters") {
    for (const auto& c : llmfs::testing::field_cases(kCases, "repr")) {
        INFO(c.name);
        const std::string text = nlohmann::json::parse(c.at("text")).get<std::string>();
        CHECK(python_str_repr(text) == c.at("repr"));
    }
}

TEST_CASE("dump_instruction_data: json.dump(indent=4) of the data with model responses, byte for byte") {
    const auto data = load_instruction_data(default_instruction_data_path());
    for (const auto& c : llmfs::testing::field_cases(kCases, "dump")) {
        INFO(c.name);
        std::vector<InstructionEntry> entries(data.begin() + static_cast<std::ptrdiff_t>(c.number("i0")),
                                              data.begin() + static_cast<std::ptrdiff_t>(c.number("i1")));
        const std::string response = nlohmann::json::parse(c.at("response")).get<std::string>();
        for (auto& e : entries) e.set("model_response", response);
        const std::string text = dump_instruction_data(entries);
        CHECK(text.size() == c.number("length"));
        CHECK(sha256_hex(text) == c.at("sha256"));
    }
}

TEST_CASE("the instruction data: the book's file, its split and a malformed file refused with the entry named") {
    const auto data = load_instruction_data(default_instruction_data_path());
    REQUIRE(data.size() == 1100);
    const auto split = split_instruction_data(data);
    CHECK(split.train.size() == 935);
    CHECK(split.test.size() == 110);
    CHECK(split.validation.size() == 55);
    CHECK(format_input(data[999]) ==
          "Below is an instruction that describes a task. Write a response that appropriately completes the request.\n\n"
          "### Instruction:\nWhat is an antonym of 'complicated'?");
    CHECK_THROWS_WITH(parse_instruction_data("{\"a\": 1}", "x.json"), Catch::Contains("x.json") && Catch::Contains("list"));
    CHECK_THROWS_WITH(parse_instruction_data("[{\"instruction\": \"i\", \"input\": \"\"}]", "x.json"),
                      Catch::Contains("entry 0") && Catch::Contains("\"output\""));
    CHECK_THROWS_WITH(parse_instruction_data("[{\"instruction\": 1, \"input\": \"\", \"output\": \"\"}]", "x.json"),
                      Catch::Contains("not a string"));
    CHECK_THROWS_WITH(parse_instruction_data("[{\"instruction\": ", "x.json"), Catch::Contains("not JSON"));
    CHECK_THROWS_WITH(parse_instruction_data("[\"\xff\"]", "x.json"), Catch::Contains("not JSON"));
    CHECK_THROWS_AS(load_instruction_data("/nonexistent/instruction-data.json"), std::runtime_error);
    const auto special = parse_instruction_data("[{\"instruction\": \"<|endoftext|>\", \"input\": \"\", \"output\": \"\"}]", "x");
    CHECK_THROWS_WITH(InstructionDataset(special, Gpt2Tokenizer::load_default()), Catch::Contains("<|endoftext|>"));
}
