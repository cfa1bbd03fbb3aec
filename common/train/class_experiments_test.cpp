// additional_experiments.py (ch06's bonus script, the answers to exercises 6.1 to 6.3) against the
// book's script run by PyTorch 1.13 with 2.x's AdamW and a small random GPT
// (data/tests/ch06/experiments/, from tests/goldens/make_ch06_experiments_goldens.py): each run's
// lines and CSVs, the CSVs of an earlier run read back, and bad input refused with nothing written.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "llmfs/train/class_experiments.hpp"
#include "test_support.hpp"

using namespace llmfs;
namespace fs = std::filesystem;

namespace {

fs::path data_path(const std::string& name) { return fs::path(LLMFS_TEST_DATA_DIR) / "ch06" / name; }

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    REQUIRE(in);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

fs::path fresh_dir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("llmfs-class-experiments-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// The goldens' model: --weights random with BASE_CONFIG's drop_rate 0.0 and qkv_bias True, emb_dim
// 12, 2 heads, 2 layers, context 256.
ClassExperimentOptions small_random(const fs::path& dir) {
    ClassExperimentOptions o;
    o.data = data_path("sms_clean.tsv").string();
    o.pretrained = false;
    GPTConfig c = GPTConfig::gpt2_small();
    c.context_length = 256;
    c.drop_rate = 0.0;
    c.qkv_bias = true;
    c.emb_dim = 12;
    c.n_heads = 2;
    c.n_layers = 2;
    o.random_config = c;
    o.out_dir = dir.string();
    return o;
}

// What the script printed but its download line (the first) and its timing line.
std::string golden_lines(const std::string& run) {
    std::istringstream in(slurp(data_path("experiments/" + run + ".txt")));
    std::string out, line;
    std::getline(in, line);
    CHECK(line == "sms_spam_collection/SMSSpamCollection.tsv already exists. Skipping download and extraction.");
    while (std::getline(in, line))
        if (line.rfind("Training completed in ", 0) != 0) out += line + "\n";
    return out;
}

std::string run_lines(const ClassExperimentOptions& o, std::string* timing = nullptr) {
    std::string out;
    run_class_experiment(
        o, [&](const std::string& line) { out += line + "\n"; },
        [&](const std::string& line) {
            if (timing) *timing = line;
        });
    return out;
}

// run name (data/tests/ch06/experiments/<run>.txt) -> its options
const std::map<std::string, std::function<void(ClassExperimentOptions&)>>& experiment_runs() {
    static const std::map<std::string, std::function<void(ClassExperimentOptions&)>> runs = {
        {"default", [](ClassExperimentOptions&) {}},
        {"token_first", [](ClassExperimentOptions& o) { o.readout = parse_readout("first"); }},
        {"layers_all", [](ClassExperimentOptions& o) { o.trainable_layers = parse_trainable_layers("all"); }},
        {"context_model", [](ClassExperimentOptions& o) { o.context_length = "model_context_length"; }},
        {"two_blocks_ctx64_ep2_b4",
         [](ClassExperimentOptions& o) {
             o.trainable_layers = TrainableLayers::last_two_blocks;
             o.context_length = "64";
             o.num_epochs = 2;
             o.batch_size = 4;
         }},
        {"last_layer", [](ClassExperimentOptions& o) { o.trainable_layers = TrainableLayers::last_layer; }},
        {"lora", [](ClassExperimentOptions& o) { o.trainable_layers = LoRATraining{}; }},
        {"lora_r2_a16_first",
         [](ClassExperimentOptions& o) {
             o.trainable_layers = LoRATraining{2, 16};
             o.readout = Readout(0);
         }},
        {"accumulation2_b4",
         [](ClassExperimentOptions& o) {
             o.accumulation_steps = 2;
             o.batch_size = 4;
         }},
        {"token_flexible", [](ClassExperimentOptions& o) { o.readout = parse_readout("flexible"); }},
        // --ignore_index: the script's __main__ parses it but never hands it to train_classifier_simple,
        // so no value changes a line, not even a label's (the default's options)
        {"ignore_index_50256", [](ClassExperimentOptions&) {}},
        {"ignore_index_1", [](ClassExperimentOptions&) {}},
        {"no_padding_b1",
         [](ClassExperimentOptions& o) {
             o.no_padding = true;
             o.batch_size = 1;
         }},
        {"no_padding_b1_accumulation8",
         [](ClassExperimentOptions& o) {
             o.no_padding = true;
             o.batch_size = 1;
             o.accumulation_steps = 8;
         }},
        {"average_embeddings", [](ClassExperimentOptions& o) { o.readout = parse_readout("last", true); }},
        {"average_embeddings_all_b4",
         [](ClassExperimentOptions& o) {
             o.readout = parse_readout("last", true);
             o.trainable_layers = TrainableLayers::all;
             o.batch_size = 4;
         }},
        {"no_causal_mask", [](ClassExperimentOptions& o) { o.disable_causal_mask = true; }},
        {"no_causal_mask_all_first",
         [](ClassExperimentOptions& o) {
             o.disable_causal_mask = true;
             o.trainable_layers = TrainableLayers::all;
             o.readout = Readout(0);
         }},
        {"lora_alternative", [](ClassExperimentOptions& o) { o.trainable_layers = LoRATraining{8, 8, LoRAForm::merged}; }},
        {"lora_alternative_r2_a16_first",
         [](ClassExperimentOptions& o) {
             o.trainable_layers = LoRATraining{2, 16, LoRAForm::merged};
             o.readout = Readout(0);
         }},
        {"lora_accumulation3_b2",
         [](ClassExperimentOptions& o) {
             o.trainable_layers = LoRATraining{};
             o.accumulation_steps = 3;
             o.batch_size = 2;
         }},
    };
    return runs;
}

// Each run's printed lines against the script's and the CSVs it writes; the default's also run again
// from the CSVs it left.
void check_runs(const std::vector<std::string>& names) {
    for (const std::string& run : names) {
        const fs::path dir = fresh_dir(run);
        ClassExperimentOptions o = small_random(dir);
        experiment_runs().at(run)(o);
        std::string timing;
        const std::string printed = run_lines(o, &timing);
        CHECK(timing.rfind("Training completed in ", 0) == 0);
        llmfs::testing::check_printed("class experiment " + run, printed, golden_lines(run));
        for (const char* name : {"train.csv", "validation.csv", "test.csv"})
            CHECK(slurp(dir / name) == slurp(data_path(std::string("experiments/") + name)));
        if (run == "default") {  // a second run finds the CSVs of the first, as the script does
            o.data.clear();
            CHECK(run_lines(o) == printed);
        }
        fs::remove_all(dir);
    }
}

}  // namespace

TEST_CASE("class experiments: the default run prints the script's lines and writes its CSVs, then reads them back", "[blas]") {
    check_runs({"default"});
}

TEST_CASE("class experiments: every run prints the script's lines and writes its CSVs", "[long]") {
    // label long (16 s): exact under the goldens' kernel, close on another
    std::vector<std::string> names;
    for (const auto& run : experiment_runs()) names.push_back(run.first);
    check_runs(names);
}

TEST_CASE("class experiments: bad input is refused before anything is written") {
    const fs::path dir = fresh_dir("bad");
    const auto refused = [&](const std::function<void(ClassExperimentOptions&)>& change) {
        ClassExperimentOptions o = small_random(dir);
        change(o);
        try {
            run_lines(o);
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    CHECK_THAT(refused([](ClassExperimentOptions& o) { o.context_length = "longest"; }), Catch::Contains("Invalid --context_length argument 'longest'"));
    CHECK_THAT(refused([](ClassExperimentOptions& o) { o.context_length = "0"; }), Catch::Contains("a positive number"));
    CHECK_THAT(refused([](ClassExperimentOptions& o) { o.context_length = "300"; }),
               Catch::Contains("Dataset length 300 exceeds model's context length 256"));
    CHECK_THAT(refused([](ClassExperimentOptions& o) { o.model_size = "gpt2-small"; }), Catch::Contains("Invalid --model_size argument"));
    CHECK_THAT(refused([](ClassExperimentOptions& o) { o.data.clear(); }), Catch::Contains("--data FILE is required"));
    CHECK_THAT(refused([](ClassExperimentOptions& o) { o.data = data_path("not_sms.zip").string(); }),
               Catch::Contains("has no member SMSSpamCollection"));
    CHECK_THAT(refused([](ClassExperimentOptions& o) { o.batch_size = 0; }), Catch::Contains("--batch_size must be positive"));
    CHECK_THAT(refused([](ClassExperimentOptions& o) { o.pretrained = true; o.models_dir = (o.out_dir + "/none"); }),
               Catch::Contains("124M"));
    CHECK_THAT(refused([](ClassExperimentOptions& o) { o.accumulation_steps = 0; }), Catch::Contains("--accumulation_steps must be positive"));
    CHECK_THROWS_WITH(parse_readout("middle"), Catch::Contains("Invalid --trainable_token_pos argument 'middle' (first, last or flexible)"));
    CHECK_THROWS_WITH(parse_trainable_layers("lora"), Catch::Contains("Invalid --trainable_layers argument 'lora'"));
    CHECK(fs::is_empty(dir));
    fs::remove_all(dir);
}
