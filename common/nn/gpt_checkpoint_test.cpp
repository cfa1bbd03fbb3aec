// The book's GPTModel from PyTorch's model.pth (data/tests/pth/, tests/goldens/make_pth_goldens.py):
// the config from the shapes, the logits bit for bit, the suite's own model.pth written back with
// PyTorch's pickle; wrong files refused naming the tensor and both shapes.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <vector>

#include "llmfs/nn/gpt_checkpoint.hpp"
#include "llmfs/torch/blas.hpp"
#include "test_support.hpp"

using namespace llmfs;
namespace fs = std::filesystem;
using llmfs::testing::TempDir;

namespace {

fs::path pth(const std::string& name) { return fs::path(LLMFS_TEST_DATA_DIR) / "pth" / name; }

std::string logits_fnv(const GPTModel& model, const std::vector<std::int64_t>& x) {
    IdArray<2> idx = xt::zeros<std::int64_t>({std::size_t{2}, x.size() / 2});
    std::copy(x.begin(), x.end(), idx.begin());
    const Tensor<3> logits = model.forward(idx);
    return llmfs::testing::fnv1a64(std::vector<float>(logits.data.begin(), logits.data.end()));
}

}  // namespace

// Tagged [blas]: the logits are PyTorch's bits under the goldens' OpenBLAS kernel; under another the
// file written back must still give the loaded model's own logits.
TEST_CASE("PyTorch's model.pth loads into the book's GPTModel and gives PyTorch's logits, bit for bit", "[blas]") {
    const bool exact = blas_kernel() == golden_blas_kernel();
    for (const auto& c : llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/pth_cases.txt", "model")) {
        INFO(c.name);
        const auto state = TorchStateDict::open(pth(c.at("file")));
        std::string how;
        CHECK_THROWS_WITH(infer_gpt_config(state), Catch::Contains("emb_dim 8 is narrower than one of GPT-2's 64-wide heads") && Catch::Contains("give --heads N"));  // 8 / 64
        const GPTConfig cfg = infer_gpt_config(state, c.number("heads"), &how);
        CHECK(cfg.vocab_size == c.number("vocab"));
        CHECK(cfg.context_length == c.number("context"));
        CHECK(cfg.emb_dim == c.number("emb"));
        CHECK(cfg.n_layers == c.number("layers"));
        CHECK(cfg.qkv_bias == (c.number("qkv_bias") == 1));
        CHECK(how == "2 heads (--heads)");
        const GPTConfig& with_heads = cfg;
        Generator gen;
        GPTModel model(gen, with_heads, Init::zeros);
        load_state_dict(model, state);
        model.train(false);
        const std::string logits = logits_fnv(model, c.indices("x"));
        if (exact) CHECK(logits == c.at("logits_fnv1a64"));
        // The checkpoint's model_state_dict: the trained model.
        const auto trained = TorchStateDict::open(pth(c.at("optimizer_file")));
        load_state_dict(model, trained);
        if (exact) CHECK(logits_fnv(model, c.indices("x")) == c.at("trained_logits_fnv1a64"));

        // save_state_dict writes PyTorch's pickle for the same model: byte for byte its data.pkl.
        TempDir tmp("llmfs_gpt_checkpoint");
        const GPTModel& untrained = [&]() -> const GPTModel& {
            load_state_dict(model, state);
            return model;
        }();
        save_state_dict(tmp.path / c.at("file"), untrained);
        const auto ours = TorchSaveFile::open(tmp.path / c.at("file"));
        CHECK(torch_pickle(ours.root()) == torch_pickle(state.file().root()));
        CHECK(ours.archive_name() == state.file().archive_name());
        GPTModel again(gen, with_heads, Init::zeros);
        load_state_dict(again, TorchStateDict::open(tmp.path / c.at("file")));
        again.train(false);
        CHECK(logits_fnv(again, c.indices("x")) == logits);
    }
}

TEST_CASE("a state dict that does not fit is refused, naming the tensor and both shapes") {
    const auto qkv = TorchStateDict::open(pth("tiny_qkv.pth"));
    GPTConfig cfg = infer_gpt_config(qkv, 2);
    Generator gen;
    cfg.qkv_bias = false;
    GPTModel no_bias(gen, cfg, Init::zeros);
    CHECK_THROWS_WITH(load_state_dict(no_bias, qkv), Catch::Contains("tiny_qkv.pth: unexpected key \"trf_blocks.0.att.W_query.bias\"") &&
                                                         Catch::Contains("qkv_bias=True"));
    const auto plain = TorchStateDict::open(pth("tiny.pth"));
    cfg.qkv_bias = true;
    GPTModel with_bias(gen, cfg, Init::zeros);
    CHECK_THROWS_WITH(load_state_dict(with_bias, plain), Catch::Contains("missing key \"trf_blocks.0.att.W_query.bias\""));
    cfg.qkv_bias = false;
    cfg.emb_dim = 16;
    GPTModel wider(gen, cfg, Init::zeros);
    CHECK_THROWS_WITH(load_state_dict(wider, plain), Catch::Contains("tensor \"tok_emb.weight\" has shape [50, 8], the model expects [50, 16]"));
    CHECK_THROWS_WITH(infer_gpt_config(plain, 3), Catch::Contains("emb_dim 8 cannot be split into 3 heads"));

}
