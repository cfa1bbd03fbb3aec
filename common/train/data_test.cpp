// The book's data pipeline: the 90/10 split of the-verdict.txt by characters, GPTDatasetV1's
// windows, and the DataLoader's batches and random draws against real PyTorch
// (data/tests/train_cases.txt, made by tests/goldens/make_train_goldens.py).
#include <catch2/catch.hpp>

#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "llmfs/text/data_dir.hpp"
#include "llmfs/train/data.hpp"
#include "test_support.hpp"

using namespace llmfs;
using llmfs::testing::hex32;

namespace {

// A dataset whose window i holds the single token i: batches show the sampler's indices.
GPTDataset index_dataset(std::size_t n) {
    std::vector<std::int64_t> ids(n + 1);
    std::iota(ids.begin(), ids.end(), std::int64_t{0});
    return GPTDataset(ids, 1, 1);
}

// "i0 i1 | i2 ..." as the golden writes one epoch's batches
std::string epoch_text(DataLoader::Epoch epoch, bool partial) {
    std::string text;
    Batch batch;
    while (epoch.next(batch)) {
        if (!text.empty()) text += " | ";
        for (std::size_t b = 0; b < batch.B; ++b) text += (b ? " " : "") + std::to_string(batch.inputs[b]);
        if (partial) break;
    }
    return text;
}

}  // namespace

TEST_CASE("DataLoader: PyTorch's batches and draws, shuffled or not, with and without drop_last, whole and partial epochs") {
    for (const auto& c : llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/train_cases.txt", "loader")) {
        INFO(c.name);
        const GPTDataset dataset = index_dataset(c.number("n"));
        const DataLoader loader(dataset, c.number("batch_size"), c.number("shuffle") == 1, c.number("drop_last") == 1);
        Generator gen(BernoulliKernel::standard);
        gen.manual_seed(c.number("seed"));
        std::size_t epochs = 0;
        for (const auto& [name, text] : llmfs::testing::load_cases(LLMFS_TEST_DATA_DIR "/train_cases.txt")) {
            if (name != c.name) continue;
            std::istringstream in(text);
            for (std::string line; std::getline(in, line);) {
                if (line.rfind("epoch ", 0) != 0) continue;
                const bool partial = line.rfind("epoch partial", 0) == 0;
                const std::string expected = line.substr(partial ? 14 : 11);
                CHECK(epoch_text(loader.begin(gen), partial) == expected);
                ++epochs;
            }
        }
        CHECK(epochs > 0);
        CHECK(hex32(gen.uniform_float()) == c.at("next_rand"));
    }
}

TEST_CASE("GPTDatasetV1: windows stride apart, targets one token on, none when the text is too short") {
    const std::vector<std::int64_t> ids{10, 11, 12, 13, 14, 15, 16};
    const GPTDataset d(ids, 3, 2);  // range(0, 7 - 3, 2): 0, 2
    REQUIRE(d.size() == 2);
    CHECK(std::vector<std::int64_t>(d.input(1), d.input(1) + 3) == std::vector<std::int64_t>{12, 13, 14});
    CHECK(std::vector<std::int64_t>(d.target(1), d.target(1) + 3) == std::vector<std::int64_t>{13, 14, 15});
    CHECK(GPTDataset(ids, 7, 1).size() == 0);  // range(0, 0, 1)
    CHECK(GPTDataset(ids, 6, 1).size() == 1);
    CHECK_THROWS_AS(GPTDataset(ids, 3, 0), std::invalid_argument);
    const GPTDataset empty(ids, 7, 1);
    CHECK_THROWS_WITH(DataLoader(empty, 2, true, true), Catch::Contains("no window of 8 tokens in a text of 7 tokens"));
    CHECK(DataLoader(empty, 2, false, false).size() == 0);
    CHECK_THROWS_AS(DataLoader(d, 0, false, false), std::invalid_argument);
}

TEST_CASE("the-verdict.txt: the notebook's 20479 characters and 5145 tokens, split at character 18431") {
    const std::string text = read_file_checked(data_dir() / "the-verdict.txt");
    CHECK(count_characters(text) == 20479);
    CHECK(Gpt2Tokenizer::load_default().encode(text).size() == 5145);
    const TextSplit split = split_text(text, 0.90);
    CHECK(split.characters == 20479);
    CHECK(split.split_index == 18431);  // int(0.9 * 20479)
    CHECK(count_characters(split.train) == 18431);
    CHECK(split.train + split.validation == text);
}

TEST_CASE("split_text: counts code points, not bytes, and refuses text that is not UTF-8") {
    const TextSplit split = split_text("\xc3\xa9t\xc3\xa9 ok", 0.5);  // "été ok": 6 characters, split at 3
    CHECK(split.train == "\xc3\xa9t\xc3\xa9");
    CHECK(split.validation == " ok");
    CHECK_THROWS_WITH(split_text("ab\xff", 0.9), Catch::Contains("not UTF-8") && Catch::Contains("byte 2"));
    CHECK(split_text("", 0.9).train.empty());
}
