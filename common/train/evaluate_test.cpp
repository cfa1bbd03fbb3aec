// calc_loss_batch and calc_loss_loader on a tiny GPT: the loader's mean is the mean of the batches'
// losses in the loader's order, num_batches clamps as the notebook's min() does, an empty loader
// gives NaN, and the pass draws from the generator exactly as iterating the loader does. The loss
// itself is checked against PyTorch's bits in loss_test; the 124M model over the-verdict.txt in the
// golden test of ch05_pretraining.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <vector>

#include <xtensor/xadapt.hpp>

#include "llmfs/torch/loss.hpp"
#include "llmfs/train/evaluate.hpp"
#include "nn/tiny_gpt_test_support.hpp"

using namespace llmfs;

namespace {

// token ids 0, 1, ..., n - 1 below the tiny vocabulary of 50
std::vector<std::int64_t> counting_ids(std::size_t n) {
    std::vector<std::int64_t> ids(n);
    for (std::size_t i = 0; i < n; ++i) ids[i] = static_cast<std::int64_t>((i * 7) % 50);
    return ids;
}

}  // namespace

TEST_CASE("calc_loss_loader: the mean of calc_loss_batch over the loader's batches, in its order, drawing as the loader does") {
    const testing::EvalModel m(123, testing::tiny_gpt(8));
    const GPTDataset data(counting_ids(60), 8, 8);  // 7 windows of 8 tokens
    const DataLoader loader(data, 2, /*shuffle=*/true, /*drop_last=*/true);
    for (const std::optional<std::size_t> num_batches : {std::optional<std::size_t>{}, std::optional<std::size_t>{1}, std::optional<std::size_t>{2},
                                                          std::optional<std::size_t>{99}}) {
        INFO("num_batches " << (num_batches ? std::to_string(*num_batches) : "None"));
        Generator gen, reference_gen;
        gen.manual_seed(5);
        reference_gen.manual_seed(5);
        const double mean = calc_loss_loader(loader, m.model, gen, num_batches);
        // the reference: the loader's batches one by one, the losses added as Python floats
        const std::size_t n = num_batches ? std::min(*num_batches, loader.size()) : loader.size();
        auto epoch = loader.begin(reference_gen);
        double total = 0.0;
        Batch batch;
        for (std::size_t i = 0; i < n && epoch.next(batch); ++i) {
            const IdArray<2> inputs = xt::adapt(batch.inputs, std::array<std::size_t, 2>{batch.B, batch.T});
            const Tensor<3> logits = m.model.forward(inputs);
            total += cross_entropy(logits.data.data(), batch.B * batch.T, 50, batch.targets.data());
        }
        CHECK(mean == total / static_cast<double>(n));
        CHECK(gen.random() == reference_gen.random());  // the generator stands where iterating left it
    }
}

TEST_CASE("calc_loss_loader: NaN for a loader without batches") {
    const testing::EvalModel m(123, testing::tiny_gpt(8));
    const GPTDataset data(counting_ids(9), 8, 8);  // one window
    const DataLoader loader(data, 2, /*shuffle=*/false, /*drop_last=*/true);  // drops it
    Generator gen;
    CHECK(std::isnan(calc_loss_loader(loader, m.model, gen)));
}

TEST_CASE("text_to_token_ids and token_ids_to_text: a batch of one, and back") {
    const auto tokenizer = Gpt2Tokenizer::load_default();
    const IdArray<2> ids = text_to_token_ids("Every effort moves you", tokenizer);
    CHECK(ids == IdArray<2>{{6109, 3626, 6100, 345}});
    CHECK(token_ids_to_text(ids, tokenizer) == "Every effort moves you");
    CHECK_THROWS_WITH(token_ids_to_text(IdArray<2>{{1}, {2}}, tokenizer), Catch::Contains("2 rows"));
}
