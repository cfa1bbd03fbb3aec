// FrozenTrunk against gpt_forward: the kept rows give the same logits and the same activations of
// the blocks above, bit for bit, at GPT-2 124M's widths (emb_dim 768, 12 heads, 3072 hidden), where
// OpenBLAS's sgemm runs its real blocking, with each example moved to another row of another batch;
// a batch shape whose places change bits under this kernel keeps nothing. .ci/run repeats the unit
// label under each of the 7 kernels its CPU runs; their answers differ (frozen_trunk.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
#include <vector>

#include <xtensor/xadapt.hpp>

#include "llmfs/train/frozen_trunk.hpp"
#include "test_support.hpp"

using namespace llmfs;

namespace {

GPTConfig widths_124m() {
    GPTConfig cfg;
    cfg.vocab_size = 64;  // the embeddings' size changes no product's shape but out_head's
    cfg.context_length = 32;
    cfg.emb_dim = 768;
    cfg.n_heads = 12;
    cfg.n_layers = 2;
    cfg.drop_rate = 0.0;
    cfg.qkv_bias = true;
    return cfg;
}

GPTConfig tiny_config() {  // a small GPT with drop_rate 0.0, for the switches
    GPTConfig cfg;
    cfg.vocab_size = 50;
    cfg.context_length = 16;
    cfg.emb_dim = 8;
    cfg.n_heads = 2;
    cfg.n_layers = 2;
    cfg.drop_rate = 0.0;
    return cfg;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// rows `which` of `examples` [n, T] as a batch [which.size(), T]
std::vector<std::int64_t> batch_of(const std::vector<std::int64_t>& examples, std::size_t T, const std::vector<std::size_t>& which) {
    std::vector<std::int64_t> ids;
    for (std::size_t e : which) ids.insert(ids.end(), examples.begin() + static_cast<std::ptrdiff_t>(e * T),
                                           examples.begin() + static_cast<std::ptrdiff_t>((e + 1) * T));
    return ids;
}

// trunk.forward and gpt_forward of one batch: the logits, and every saved activation of the blocks
// from first_block up and of final_norm, bit for bit
void check_same_forward(const GPTModel& model, FrozenTrunk& trunk, const std::vector<std::int64_t>& ids, std::size_t T) {
    const IdArray<2> in = xt::adapt(ids, std::array<std::size_t, 2>{ids.size() / T, T});
    GPTSaved kept, plain;
    trunk.forward(model, in, kept);
    gpt_forward(model, in, plain, StepKernels::fast);
    CHECK(same_bits(kept.logits, plain.logits));
    CHECK(same_bits(kept.x_final, plain.x_final));
    CHECK(same_bits(kept.normed, plain.normed));
    CHECK(kept.ids == plain.ids);
    for (std::size_t l = trunk.first_block(); l < model.trf_blocks.size(); ++l) {
        const BlockSaved &a = kept.blocks[l], &b = plain.blocks[l];
        CHECK(same_bits(a.x_in, b.x_in));
        CHECK(same_bits(a.att.q, b.att.q));
        CHECK(same_bits(a.att.a, b.att.a));
        CHECK(same_bits(a.x_mid, b.x_mid));
        CHECK(same_bits(a.u, b.u));
        CHECK(same_bits(a.h, b.h));
    }
    if (trunk.active() && trunk.places_keep_bits(model, ids.size() / T, T))
        for (std::size_t l = 0; l < trunk.first_block(); ++l) CHECK(kept.blocks[l].x_in.empty());  // nothing saved below
}

}  // namespace

TEST_CASE("FrozenTrunk: where places_keep_bits says yes, every move of whole examples keeps sgemm's row bits, on every kernel") {
    // The trunk's products (block 0's Linear layers at GPT-2's widths) on random rows, the examples
    // then moved as a shuffled loader moves them: by two places, by B - 1 and shuffled. The answer
    // varies by kernel and shape (Haswell: yes for 8 x 12 and 8 x 120, no for 8 x 7 and 5 x 120);
    // each yes must hold for every move, as it is checked for one rotation only.
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(123);
    const GPTModel model(gen, widths_124m());
    FrozenTrunk trunk(model, 1, AutoOnOff::on);
    std::size_t kept_shapes = 0;
    for (const auto& shape : {std::pair<std::size_t, std::size_t>{8, 7}, {8, 12}, {8, 13}, {5, 7}, {8, 120}}) {
        const std::size_t B = shape.first, T = shape.second;  // [B, T]: named, for the lambda below
        if (!trunk.places_keep_bits(model, B, T)) continue;
        ++kept_shapes;
        const std::size_t N = B * T;
        std::vector<std::size_t> shuffled(B);
        std::iota(shuffled.begin(), shuffled.end(), 0);
        for (std::size_t i = B - 1; i > 0; --i) std::swap(shuffled[i], shuffled[gen.random() % (i + 1)]);
        const TransformerBlock& block = model.trf_blocks[0];
        for (const Linear* layer : {&block.att.W_query, &block.att.out_proj, &block.ff.fc1, &block.ff.fc2}) {
            const std::size_t in = layer->in_features(), out = layer->out_features();
            INFO(B << " x " << T << ", " << in << " -> " << out);
            std::vector<float> x(N * in), moved(N * in), y(N * out), y_moved(N * out);
            gen.normal_(x.data(), x.size(), 0.0, 1.0);
            linear_forward(*layer, x.data(), N, y.data());
            for (const std::size_t move : {std::size_t{2}, B - 1, std::size_t{0}}) {  // 0: shuffled
                if (T == 120 && move != 0) continue;  // chapter 6's size: the shuffle only (each product is 2.3 GFLOP)
                INFO("move " << move);
                const auto from = [&](std::size_t b) { return move == 0 ? shuffled[b] : (b + move) % B; };
                for (std::size_t b = 0; b < B; ++b)
                    std::copy_n(x.begin() + static_cast<std::ptrdiff_t>(from(b) * T * in), T * in, moved.begin() + static_cast<std::ptrdiff_t>(b * T * in));
                linear_forward(*layer, moved.data(), N, y_moved.data());
                bool same = true;
                for (std::size_t b = 0; b < B; ++b)
                    same = same && std::memcmp(&y_moved[b * T * out], &y[from(b) * T * out], T * out * sizeof(float)) == 0;
                CHECK(same);
            }
        }
    }
    CHECK(kept_shapes >= 1);  // 8 x 12 and 8 x 120 under each of this CPU's 7 kernels
}

TEST_CASE("FrozenTrunk: kept rows moved to other batches and rows give gpt_forward's bits at GPT-2's widths, on every kernel") {
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(123);
    const GPTModel model(gen, widths_124m());
    std::size_t reused = 0;
    for (const std::size_t T : {7, 12, 13}) {  // N = 56, 96 and 104 rows: Haswell's kernel keeps a row's bits at every place of 8 x 12 only
        INFO("T = " << T);
        const std::vector<std::int64_t> examples = gen.randint(0, 64, 16 * T);  // 16 examples [16, T]
        FrozenTrunk trunk(model, 1, AutoOnOff::on);
        REQUIRE(trunk.active());
        const bool keeps = trunk.places_keep_bits(model, 8, T);
        std::vector<std::size_t> first(8), second(8);
        std::iota(first.begin(), first.end(), 0);
        std::iota(second.begin(), second.end(), 8);
        check_same_forward(model, trunk, batch_of(examples, T, first), T);   // computed and kept
        check_same_forward(model, trunk, batch_of(examples, T, second), T);
        CHECK(trunk.rows_kept() == (keeps ? 16 : 0));
        // every example in another batch and another row (the first and last rows among them)
        check_same_forward(model, trunk, batch_of(examples, T, {15, 3, 8, 0, 12, 6, 9, 1}), T);
        check_same_forward(model, trunk, batch_of(examples, T, {7, 10, 2, 13, 4, 11, 5, 14}), T);
        CHECK(trunk.batches_reused() == (keeps ? 2 : 0));
        CHECK(trunk.batches_unkept() == (keeps ? 0 : 4));
        // a batch of another shape (an evaluation's last, shorter batch): its own answer, its own rows
        const bool short_keeps = trunk.places_keep_bits(model, 5, T);
        check_same_forward(model, trunk, batch_of(examples, T, {2, 9, 4, 4, 11}), T);
        check_same_forward(model, trunk, batch_of(examples, T, {11, 4, 2, 9, 4}), T);
        if (short_keeps) CHECK(trunk.rows_kept() == (keeps ? 16 : 0) + 4);  // its four messages, the one sent twice kept once
        reused += trunk.batches_reused();
    }
    CHECK(reused >= 2);  // some shape kept rows under this kernel (8 x 12 under each of this CPU's 7)
}

TEST_CASE("FrozenTrunk: the evaluation's logits through kept rows are model.forward's bits, on every kernel") {
    // calc_loss_loader and calc_accuracy_loader read model(input_batch) without a trunk, the kept
    // rows and gpt_forward's blocks with one: both in eval mode, the same bits
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(123);
    GPTModel model(gen, widths_124m());
    model.train(false);
    const std::size_t T = 12;
    const std::vector<std::int64_t> examples = gen.randint(0, 64, 8 * T);
    FrozenTrunk trunk(model, 1, AutoOnOff::on);
    REQUIRE(trunk.places_keep_bits(model, 8, T));  // 8 x 12: under each of this CPU's 7 kernels
    const IdArray<2> in = xt::adapt(examples, std::array<std::size_t, 2>{8, T});
    for (int pass = 0; pass < 2; ++pass) {  // computed, then from the kept rows
        GPTSaved kept;
        trunk.forward(model, in, kept);
        const Tensor<3> logits = model.forward(in);
        CHECK(same_bits(kept.logits, std::vector<float>(logits.data.begin(), logits.data.end())));
    }
    CHECK(trunk.batches_reused() == 1);
}

TEST_CASE("FrozenTrunk: off without a frozen block, with dropout below it, or when LLMFS_TRUNK_CACHE says off") {
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(123);
    GPTConfig cfg = tiny_config();
    const GPTModel model(gen, cfg);
    CHECK(FrozenTrunk(model, 1, AutoOnOff::automatic).active());
    CHECK(FrozenTrunk(model, 2, AutoOnOff::on).active());  // --trainable_layers last_layer: every block frozen
    CHECK(FrozenTrunk(model, 0, AutoOnOff::on).off_reason() == "every block trains");  // all: nothing frozen
    CHECK(FrozenTrunk(model, 1, AutoOnOff::off).off_reason() == "LLMFS_TRUNK_CACHE=off");
    CHECK_THROWS_WITH(FrozenTrunk(model, 3, AutoOnOff::on), "FrozenTrunk: block 3 of a model with 2 blocks");
    cfg.drop_rate = 0.1;  // a mask drawn below the first trained block: computed every time, as PyTorch
    const GPTModel dropping(gen, cfg);
    CHECK(FrozenTrunk(dropping, 1, AutoOnOff::on).off_reason() == "dropout below the trained blocks");
    // inactive, forward is gpt_forward
    const std::vector<std::int64_t> ids = gen.randint(0, 50, 2 * 5);
    const IdArray<2> in = xt::adapt(ids, std::array<std::size_t, 2>{2, 5});
    FrozenTrunk off(model, 1, AutoOnOff::off);
    GPTSaved a, b;
    off.forward(model, in, a);
    gpt_forward(model, in, b);
    CHECK(same_bits(a.logits, b.logits));
    CHECK(off.batches_computed() == 0);
}

TEST_CASE("FrozenTrunk: LLMFS_TRUNK_CACHE unset or auto keeps rows, off keeps none, another value is refused with the choices") {
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(123);
    GPTConfig cfg = tiny_config();
    const GPTModel model(gen, cfg);
    {
        const llmfs::testing::EnvGuard env("LLMFS_TRUNK_CACHE", nullptr);
        CHECK(FrozenTrunk(model, 1).active());
    }
    {
        const llmfs::testing::EnvGuard env("LLMFS_TRUNK_CACHE", "off");
        CHECK(FrozenTrunk(model, 1).off_reason() == "LLMFS_TRUNK_CACHE=off");
    }
    const llmfs::testing::EnvGuard env("LLMFS_TRUNK_CACHE", "yes");
    CHECK_THROWS_WITH(FrozenTrunk(model, 1), Catch::Contains("LLMFS_TRUNK_CACHE=\"yes\"") && Catch::Contains("frozen blocks' output kept"));
}

TEST_CASE("FrozenTrunk: the progress lines before and after training, and gpt_forward's context check") {
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(123);
    const GPTModel model(gen, tiny_config());
    FrozenTrunk trunk(model, 1, AutoOnOff::on);
    std::vector<std::string> lines;
    const auto note = [&](const std::string& line) { lines.push_back(line); };
    trunk.note_progress(note, /*training_done=*/false);
    REQUIRE(lines == std::vector<std::string>{"frozen trunk: block 0 computed once per message, then kept"});
    const std::vector<std::int64_t> ids = gen.randint(0, 50, 2 * 5);
    GPTSaved saved;
    trunk.forward(model, xt::adapt(ids, std::array<std::size_t, 2>{2, 5}), saved);
    trunk.note_progress(note, /*training_done=*/true);  // no batch shape ran every block, or its line names it
    CHECK(lines.size() == (trunk.batches_unkept() > 0 ? 2u : 1u));
    FrozenTrunk(model, 0, AutoOnOff::on).note_progress(note, /*training_done=*/true);  // off: it ran nothing
    CHECK(lines.size() == (trunk.batches_unkept() > 0 ? 2u : 1u));
    const std::vector<std::int64_t> long_ids = gen.randint(0, 50, 17);  // context_length 16
    CHECK_THROWS_WITH(trunk.forward(model, xt::adapt(long_ids, std::array<std::size_t, 2>{1, 17}), saved),
                      "sequence of 17 tokens exceeds the context length 16");
}
