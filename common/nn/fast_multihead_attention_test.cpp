// The fast path of chapter 3's multi-head attention against the class itself.
#include <catch2/catch.hpp>

#include "llmfs/nn/fast_multihead_attention.hpp"

using namespace llmfs;

namespace {

template <std::size_t N>
Array<N> randn_array(std::uint64_t seed, const std::array<std::size_t, N>& shape) {
    Generator gen;
    gen.manual_seed(seed);
    return randn<N>(gen, shape);
}

}  // namespace

TEST_CASE("fast multi-head attention equals chapter 3's class in eval mode") {
    Generator gen;
    gen.manual_seed(13);
    for (bool bias : {false, true}) {
        MultiHeadAttention mha(gen, 32, 48, 200, 0.1, 4, bias);
        mha.train(false);
        const Array<3> x = randn_array<3>(14, {2, 150, 32});
        const Array<3> expected = mha.forward(Tensor<3>(x)).data;
        CHECK(xt::allclose(FastMultiHeadAttention(mha).forward(x), expected, 1e-5, 1e-5));
    }
}

TEST_CASE("fast multi-head attention without the causal mask equals the class without it, and differs from the masked one") {
    Generator gen;
    gen.manual_seed(17);
    MultiHeadAttention mha(gen, 32, 48, 200, 0.0, 4, true);
    const Array<3> x = randn_array<3>(18, {2, 150, 32});
    const Array<3> masked = mha.forward(Tensor<3>(x)).data;
    mha.disable_causal_mask();  // the ch06 bonus script's disable_causal_mask
    const Array<3> expected = mha.forward(Tensor<3>(x)).data;
    CHECK_FALSE(xt::allclose(expected, masked, 1e-3, 1e-3));
    CHECK(xt::allclose(xt::view(expected, xt::all(), 149), xt::view(masked, xt::all(), 149), 1e-5, 1e-5));  // the last token saw all
    CHECK(xt::allclose(FastMultiHeadAttention(mha).forward(x), expected, 1e-5, 1e-5));
}

TEST_CASE("combined QKV weights compute chapter 3's multi-head attention") {
    Generator gen;
    gen.manual_seed(15);
    MultiHeadAttention mha(gen, 16, 24, 50, 0.0, 3, true);
    MultiHeadAttentionCombinedQKV combined(gen, 16, 24, 3, 50, 0.0, true);
    const FastMultiHeadAttention stacked(mha);  // the same weights, stacked as combined.qkv holds them
    combined.qkv.weight.data = stacked.w_qkv;
    combined.qkv.bias->data = *stacked.b_qkv;
    combined.proj = mha.out_proj;
    const Tensor<3> x = randn_array<3>(16, {2, 40, 16});
    CHECK(xt::allclose(combined.forward(x).data, mha.forward(x).data, 1e-5, 1e-5));
}
