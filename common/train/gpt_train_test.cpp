// gpt_train.py's main as a library: what it refuses and why, how it reads the text, that a text
// too short for the loaders is named before a model is built, and a short run's first lines
// against the golden (the whole runs are llmfs-train's golden tests, tests/CMakeLists.txt).
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "llmfs/text/data_dir.hpp"
#include "llmfs/torch/blas.hpp"
#include "llmfs/train/gpt_train.hpp"
#include "test_support.hpp"

using namespace llmfs;

namespace {

// The tiny configuration of data/golden/train/c8_e8_h1_l1_d01_qkv.txt.
GptTrainOptions tiny() {
    GptTrainOptions o;
    o.model.context_length = 8;
    o.model.emb_dim = 8;
    o.model.n_heads = 1;
    o.model.n_layers = 1;
    o.model.qkv_bias = true;
    o.adamw.lr = 0.001;
    o.settings.num_epochs = 3;
    return o;
}

}  // namespace

TEST_CASE("gpt_train_problem: the script's defaults train, and what PyTorch refuses or divides by zero on is named") {
    CHECK(gpt_train_problem(GptTrainOptions{}).empty());
    CHECK(GptTrainOptions{}.model.context_length == 256);  // GPT_CONFIG_124M, shortened
    CHECK(GptTrainOptions{}.adamw.lr == 5e-4);
    CHECK(GptTrainOptions{}.bernoulli == BernoulliKernel::standard);
    const auto problem = [](auto change) {
        GptTrainOptions o = tiny();
        change(o);
        return gpt_train_problem(o);
    };
    CHECK_THAT(problem([](auto& o) { o.model.n_heads = 3; }), Catch::StartsWith("--n-heads 3 does not divide --emb-dim 8"));
    CHECK_THAT(problem([](auto& o) { o.settings.num_epochs = 0; }), Catch::Contains("zero epochs train nothing"));
    CHECK_THAT(problem([](auto& o) { o.batch_size = 0; }), Catch::StartsWith("--batch-size must be at least 1"));
    CHECK_THAT(problem([](auto& o) { o.settings.eval_freq = 0; }), Catch::StartsWith("--eval-freq must be at least 1"));
    CHECK_THAT(problem([](auto& o) { o.settings.eval_iter = 0; }), Catch::StartsWith("--eval-iter must be at least 1"));
    CHECK_THAT(problem([](auto& o) { o.model.drop_rate = 1.0; }), Catch::StartsWith("--drop-rate 1 is not a probability below 1"));
    CHECK_THAT(problem([](auto& o) { o.settings.start_context.clear(); }), Catch::StartsWith("--start-context must not be empty"));
    CHECK_THAT(problem([](auto& o) { o.model.context_length = 0; }), Catch::StartsWith("--context-length must be at least 1"));
}

TEST_CASE("read_python_text: UTF-8 or a message naming the byte, and newlines as Python's text mode reads them") {
    CHECK(read_python_text("a\r\nb\rc\n\r\n", "t.txt") == "a\nb\nc\n\n");
    CHECK(read_python_text("caf\xc3\xa9", "t.txt") == "caf\xc3\xa9");
    CHECK_THROWS_WITH(read_python_text("ab\xff", "t.txt"), Catch::StartsWith("t.txt is not UTF-8: byte 2 (0xff) does not start a character"));
}

TEST_CASE("GptTrainData: gpt_train.py's loaders, and a text too short for them named with its numbers") {
    const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
    const std::string verdict = read_file_checked(data_dir() / "the-verdict.txt");
    const GptTrainData data(tokenizer, verdict, 256, 2);  // the notebook's 5.1.3: 9 training batches, 1 validation batch
    CHECK(data.characters == 20479);
    CHECK(data.split_index == 18431);
    CHECK(data.train_loader.size() == 9);
    CHECK(data.val_loader.size() == 1);
    CHECK_THROWS_WITH(GptTrainData(tokenizer, verdict.substr(0, 2000), 256, 2),
                      Catch::StartsWith("not enough tokens for the training loader: the first 90% of the text (1800 characters) is "));
    CHECK_THROWS_WITH(GptTrainData(tokenizer, verdict.substr(0, 6000), 256, 2),
                      Catch::StartsWith("not enough tokens for the validation loader: the last 10% of the text (600 characters) is "));
    CHECK_THROWS_WITH(GptTrain(tiny(), tokenizer, "Every effort moves you"), Catch::StartsWith("not enough tokens for the training loader"));
}

// Tagged [long] (label "long", run under the goldens' kernel where it can): one epoch of 288 steps,
// seconds, which .ci/run's every-kernel and aarch64 phases need not repeat (llmfs-train's golden
// tests run the same code over every INDEX.tsv run).
TEST_CASE("checkpoint_config: the checkpoint's shapes with the caller's heads and dropout, and what cannot continue is named") {
    const auto checkpoint = TorchStateDict::open(std::filesystem::path(LLMFS_TEST_DATA_DIR) / "pth" / "tiny_and_optimizer.pth");  // V 50, C 8, L 2
    GPTConfig base;  // GPT-2's vocabulary, 12 heads, drop_rate 0.1
    CHECK_THROWS_WITH(checkpoint_config(checkpoint, base),
                      Catch::Contains("--n-heads 12 does not divide the checkpoint's emb_dim 8") && Catch::Contains("tiny_and_optimizer.pth"));
    base.n_heads = 4;
    CHECK_THROWS_WITH(checkpoint_config(checkpoint, base),
                      Catch::Contains("its vocabulary is 50 tokens") && Catch::Contains("fewer than GPT-2's tokenizer's 50257"));
}

TEST_CASE("GptTrain: the first epoch of a golden run, line for line (exact under the goldens' kernel)", "[long]") {
    const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
    GptTrainOptions o = tiny();
    o.settings.num_epochs = 1;
    GptTrain run(o, tokenizer, read_file_checked(data_dir() / "the-verdict.txt"));
    CHECK(run.total_steps() == run.data().train_loader.size());
    std::vector<std::string> lines;
    TrainCallbacks callbacks;
    callbacks.print = [&](const std::string& line) { lines.push_back(line); };
    const TrainHistory history = run.train(callbacks);
    // the golden's first epoch: its "Ep 1" lines and the sample after them
    std::istringstream golden(read_file_checked(LLMFS_SOURCE_DIR "/data/golden/train/c8_e8_h1_l1_d01_qkv.txt"));
    std::vector<std::string> expected;
    for (std::string line; std::getline(golden, line);) {
        expected.push_back(line);
        if (line.rfind("Ep ", 0) != 0) break;
    }
    REQUIRE(lines.size() == expected.size());
    CHECK(history.train_losses.size() == expected.size() - 1);
    CHECK(history.tokens_seen.back() == (5 * (history.train_losses.size() - 1) + 1) * 2 * 8);
    if (blas_kernel() == golden_blas_kernel()) CHECK(lines == expected);
}
