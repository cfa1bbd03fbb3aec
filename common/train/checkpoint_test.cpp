// model_and_optimizer.pth: PyTorch's AdamW state read (the exact state after two steps), training
// continued from it as exercise 5.4 does (the third step's parameters bit for bit, 1.13's AdamW as
// PyTorch here runs it), and the suite's own checkpoint written with PyTorch's pickle.
#include <catch2/catch.hpp>

#include <filesystem>

#include "llmfs/torch/blas.hpp"
#include "llmfs/train/checkpoint.hpp"
#include "test_support.hpp"

using namespace llmfs;
namespace fs = std::filesystem;
using llmfs::testing::TempDir;

namespace {
fs::path pth(const std::string& name) { return fs::path(LLMFS_TEST_DATA_DIR) / "pth" / name; }
}  // namespace

// Tagged [blas]: the third step's parameters are PyTorch's bits under the goldens' OpenBLAS kernel.
TEST_CASE("PyTorch's model_and_optimizer.pth: AdamW's state, and training continues as PyTorch's does", "[blas]") {
    for (const auto& c : llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/pth_cases.txt", "model")) {
        INFO(c.name);
        const auto checkpoint = TorchStateDict::open(pth(c.at("optimizer_file")));
        const GPTConfig cfg = infer_gpt_config(checkpoint, c.number("heads"));
        Generator gen;
        GPTModel model(gen, cfg, Init::zeros);
        AdamWOptions options;
        options.version = PyTorchVersion::v1_13;
        AdamW optimizer(model, options);
        load_checkpoint(checkpoint, model, optimizer);
        CHECK(optimizer.options().lr == 0.0004);
        CHECK(optimizer.options().weight_decay == 0.1);
        std::vector<float> moments;
        for (const auto& s : optimizer.state()) moments.insert(moments.end(), s.exp_avg.begin(), s.exp_avg.end());
        for (const auto& s : optimizer.state()) moments.insert(moments.end(), s.exp_avg_sq.begin(), s.exp_avg_sq.end());
        CHECK(llmfs::testing::fnv1a64(moments) == c.at("state_fnv1a64"));
        CHECK(optimizer.state()[0].step == 2.0f);

        // Written back: PyTorch 1.13's pickle, byte for byte.
        TempDir tmp("llmfs_checkpoint");
        save_checkpoint(tmp.path / c.at("optimizer_file"), model, optimizer);
        CHECK(torch_pickle(TorchSaveFile::open(tmp.path / c.at("optimizer_file")).root()) == torch_pickle(checkpoint.file().root()));

        // One more step on the same batch (train mode, drop_rate 0): PyTorch's parameters after it.
        model.train(true);
        Batch batch;
        batch.B = 2;
        batch.T = 4;
        for (const auto v : c.indices("x")) batch.inputs.push_back(v);
        for (const auto v : c.indices("y")) batch.targets.push_back(v);
        TrainBuffers buffers;
        train_step(model, optimizer, batch, buffers);
        std::vector<float> params;
        for (const auto& e : gpt_state_entries(model))
            if (!e.buffer) {
                std::size_t n = 1;
                for (const auto d : e.shape) n *= static_cast<std::size_t>(d);
                params.insert(params.end(), e.data, e.data + n);
            }
        if (blas_kernel() == golden_blas_kernel()) CHECK(llmfs::testing::fnv1a64(params) == c.at("params3_fnv1a64"));
    }
}

TEST_CASE("a checkpoint that does not fit the model or the optimizer is refused, naming what") {
    const auto plain = TorchStateDict::open(pth("tiny.pth"));
    GPTConfig cfg = infer_gpt_config(plain, 2);
    Generator gen;
    GPTModel model(gen, cfg, Init::zeros);
    AdamW optimizer(model, AdamWOptions{});
    CHECK_THROWS_WITH(load_checkpoint(plain, model, optimizer), Catch::Contains("tiny.pth: no \"optimizer_state_dict\""));
    cfg.n_layers = 1;
    GPTModel smaller(gen, cfg, Init::zeros);
    AdamW small_opt(smaller, AdamWOptions{});
    CHECK_THROWS_WITH(load_checkpoint(TorchStateDict::open(pth("tiny_and_optimizer.pth")), smaller, small_opt),
                      Catch::Contains("the optimizer's state is for 31 parameters, the model has 18"));
}

TEST_CASE("load_adamw_state_dict (optimizer.load_state_dict alone) gives load_checkpoint's optimizer, and has_optimizer_state tells the files apart") {
    const auto checkpoint = TorchStateDict::open(pth("tiny_and_optimizer.pth"));
    CHECK(has_optimizer_state(checkpoint));
    CHECK_FALSE(has_optimizer_state(TorchStateDict::open(pth("tiny.pth"))));
    const GPTConfig cfg = infer_gpt_config(checkpoint, 2);
    Generator gen;
    GPTModel both_model(gen, cfg, Init::zeros), model(gen, cfg, Init::zeros);
    AdamW both(both_model, AdamWOptions{}), optimizer(model, AdamWOptions{});  // lr 1e-3, weight_decay 1e-2: replaced
    load_checkpoint(checkpoint, both_model, both);
    load_state_dict(model, checkpoint);
    load_adamw_state_dict(checkpoint, model, optimizer);
    CHECK(optimizer.options().lr == 0.0004);
    CHECK(optimizer.options().weight_decay == 0.1);
    REQUIRE(optimizer.state().size() == both.state().size());
    for (std::size_t i = 0; i < both.state().size(); ++i) {
        CHECK(optimizer.state()[i].step == both.state()[i].step);
        CHECK(optimizer.state()[i].exp_avg == both.state()[i].exp_avg);
        CHECK(optimizer.state()[i].exp_avg_sq == both.state()[i].exp_avg_sq);
    }
    // A refused file changes nothing.
    AdamW untouched(model, AdamWOptions{});
    CHECK_THROWS_WITH(load_adamw_state_dict(TorchStateDict::open(pth("tiny.pth")), model, untouched),
                      Catch::Contains("no \"optimizer_state_dict\""));
    CHECK(untouched.options().lr == 1e-3);
    CHECK(untouched.state()[0].exp_avg.empty());
}

// The files tests/torch_save_roundtrip.py gives PyTorch: written to $LLMFS_PTH_OUT when it is set
// (else to a temporary folder, to check that they are written).
TEST_CASE("the suite's model.pth and model_and_optimizer.pth for PyTorch to load") {
    const char* out = std::getenv("LLMFS_PTH_OUT");
    TempDir tmp("llmfs_checkpoint_out");
    const fs::path dir = out != nullptr && *out != '\0' ? fs::path(out) : tmp.path;
    for (const auto& c : llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/pth_cases.txt", "model")) {
        const auto checkpoint = TorchStateDict::open(pth(c.at("optimizer_file")));
        Generator gen;
        GPTModel model(gen, infer_gpt_config(checkpoint, c.number("heads")), Init::zeros);
        load_state_dict(model, TorchStateDict::open(pth(c.at("file"))));
        save_state_dict(dir / ("ours_" + c.at("file")), model);
        AdamWOptions options;
        options.version = PyTorchVersion::v1_13;
        AdamW optimizer(model, options);
        load_checkpoint(checkpoint, model, optimizer);
        model.train(true);
        Batch batch{2, 4, {}, {}};
        for (const auto v : c.indices("x")) batch.inputs.push_back(v);
        for (const auto v : c.indices("y")) batch.targets.push_back(v);
        TrainBuffers buffers;
        train_step(model, optimizer, batch, buffers);
        save_checkpoint(dir / ("ours_" + c.at("optimizer_file")), model, optimizer);
        CHECK(fs::exists(dir / ("ours_" + c.at("optimizer_file"))));
    }
}
