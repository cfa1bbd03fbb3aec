// The book's training step against gpt_train.py run by real PyTorch (tests/goldens/train_reference.py):
// the first optimizer steps' losses and parameters against the step dumps
// (data/tests/train_steps_*.txt). Exact under the goldens' OpenBLAS kernel only ([blas]).
#include <catch2/catch.hpp>

#include <fstream>
#include <memory>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "llmfs/fast/memory.hpp"
#include "llmfs/text/data_dir.hpp"
#include "llmfs/torch/blas.hpp"
#include "llmfs/torch/print.hpp"
#include "llmfs/train/evaluate.hpp"
#include "llmfs/train/loop.hpp"
#include "test_support.hpp"

using namespace llmfs;

namespace {

// gpt_train.py's main(gpt_config, settings): the sizes and AdamW's options of a run
struct Run {
    GPTConfig cfg;
    std::uint64_t seed = 123;
    std::size_t batch_size = 2, epochs = 10;
    AdamWOptions adamw;
};

// gpt_train.py's main up to train_model_simple: the seed, the model, AdamW, the loaders
struct Setup {
    Generator gen{BernoulliKernel::standard};
    Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
    std::unique_ptr<GPTModel> model;
    std::unique_ptr<AdamW> optimizer;
    std::unique_ptr<GPTDataset> train_set, val_set;
    std::unique_ptr<DataLoader> train_loader, val_loader;

    explicit Setup(const Run& r) {
        gen.manual_seed(r.seed);  // torch.manual_seed(123) (the seed the run asks for)
        const std::string text = read_file_checked(data_dir() / "the-verdict.txt");
        model = std::make_unique<GPTModel>(gen, r.cfg);
        optimizer = std::make_unique<AdamW>(*model, r.adamw);
        const TextSplit split = split_text(text, 0.90);
        train_set = std::make_unique<GPTDataset>(tokenizer, split.train, r.cfg.context_length, r.cfg.context_length);
        val_set = std::make_unique<GPTDataset>(tokenizer, split.validation, r.cfg.context_length, r.cfg.context_length);
        train_loader = std::make_unique<DataLoader>(*train_set, r.batch_size, true, true);
        val_loader = std::make_unique<DataLoader>(*val_set, r.batch_size, false, false);
    }
};

}  // namespace

// The whole runs of data/golden/train/INDEX.tsv, gpt_train.py's printed lines, are replayed through
// llmfs-train by its golden tests (tests/CMakeLists.txt), which run this loop.

// The step dumps' records: "config k=v ...", "input STEP ROW ids", "loss STEP BITS REPR",
// "param STEP NAME SHAPE GRAD_SHA256 VALUE_SHA256 ..."
TEST_CASE("train_step: the first optimizer steps' batches, losses, gradients and parameters against PyTorch's dumps", "[blas]") {
    const bool exact = blas_kernel() == golden_blas_kernel();
    for (const char* name : {"train_steps_c8_e8_h1_l1_d01_qkv", "train_steps_c8_e8_h1_l1_d01_qkv_torch113", "train_steps_c32_e32_h4_l2_d00_seed7"}) {
        INFO(name);
        std::ifstream in(std::string(LLMFS_TEST_DATA_DIR "/") + name + ".txt");
        REQUIRE(in);
        std::map<std::string, std::string> config;
        std::vector<std::vector<std::string>> records;
        for (std::string line; std::getline(in, line);) {
            if (line.empty() || line[0] == '#') continue;
            std::istringstream words(line);
            std::vector<std::string> w;
            for (std::string x; words >> x;) w.push_back(x);
            if (w[0] == "config")
                for (std::size_t i = 1; i < w.size(); ++i) config[w[i].substr(0, w[i].find('='))] = w[i].substr(w[i].find('=') + 1);
            else
                records.push_back(w);
        }
        Run r;
        r.seed = std::stoull(config.at("seed"));
        r.cfg.vocab_size = std::stoul(config.at("vocab_size"));
        r.cfg.context_length = std::stoul(config.at("context_length"));
        r.cfg.emb_dim = std::stoul(config.at("emb_dim"));
        r.cfg.n_heads = std::stoul(config.at("n_heads"));
        r.cfg.n_layers = std::stoul(config.at("n_layers"));
        r.cfg.drop_rate = std::stod(config.at("drop_rate"));
        r.cfg.qkv_bias = config.at("qkv_bias") == "True";
        r.adamw.lr = std::stod(config.at("learning_rate"));
        r.adamw.weight_decay = std::stod(config.at("weight_decay"));
        r.adamw.version = *parse_pytorch_version(config.at("pytorch"));
        r.batch_size = std::stoul(config.at("batch_size"));
        Setup s(r);
        s.model->train(true);
        auto epoch = s.train_loader->begin(s.gen);
        const auto params = named_parameters(*s.model);
        std::size_t checked = 0;
        TrainBuffers buffers;  // reused from step to step, as train_model_simple does
        for (std::size_t step = 0; step < 3; ++step) {
            Batch batch;
            REQUIRE(epoch.next(batch));
            for (const auto& w : records) {
                if (w[0] != "input" || std::stoul(w[1]) != step) continue;
                const std::size_t row = std::stoul(w[2]);
                for (std::size_t t = 0; t + 3 < w.size(); ++t) CHECK(batch.inputs[row * batch.T + t] == std::stoll(w[3 + t]));
            }
            const float loss = train_step(*s.model, *s.optimizer, batch, buffers);
            if (step % 5 == 0) {  // train_model_simple's evaluate_model (eval_freq 5, eval_iter 1): it draws too
                s.model->train(false);
                const double train_loss = calc_loss_loader(*s.train_loader, *s.model, s.gen, 1);
                const double val_loss = calc_loss_loader(*s.val_loader, *s.model, s.gen, 1);
                s.model->train(true);
                for (const auto& w : records)
                    if (w[0] == "eval" && std::stoul(w[1]) == step && exact) {
                        CHECK(python_float_repr(train_loss) == w[2]);
                        CHECK(python_float_repr(val_loss) == w[3]);
                    }
            }
            const auto named = named_gradients(buffers.grads);
            for (const auto& w : records) {
                if ((w[0] != "loss" && w[0] != "param") || std::stoul(w[1]) != step) continue;
                if (w[0] == "loss") {
                    const float want = detail::float_of(static_cast<std::uint32_t>(std::stoul(w[2], nullptr, 16)));
                    if (exact) CHECK(loss == want);
                    else CHECK(loss == Approx(want).epsilon(1e-4));
                } else if (w[0] == "param" && exact) {
                    INFO("step " << step << " " << w[2]);
                    std::size_t i = 0;
                    while (i < params.size() && params[i].name != w[2]) ++i;
                    REQUIRE(i < params.size());
                    const auto* grad = named[i].second;
                    CHECK(sha256_hex(std::string_view(reinterpret_cast<const char*>(grad->data()), grad->size() * sizeof(float))) == w[4]);
                    CHECK(sha256_hex(std::string_view(reinterpret_cast<const char*>(params[i].data), params[i].size * sizeof(float))) == w[5]);
                    ++checked;
                }
            }
        }
        if (exact) CHECK(checked == 3 * params.size());
    }
}
