// The notebook's variants against chapter 3's MultiHeadAttention, with its weights copied into each
// (the mapping of tests/test_mha_implementations.py for einsum, and the same idea for the others):
// the same output within the notebook's tolerance, torch.allclose(atol=1e-5).
#include <catch2/catch.hpp>

#include <xtensor/xbuilder.hpp>

#include "llmfs/nn/fast_multihead_attention.hpp"
#include "llmfs/nn/mha_variants.hpp"

using namespace llmfs;

namespace {

bool torch_allclose(const Array<3>& a, const Array<3>& b) {  // torch.allclose(a, b, atol=1e-5): rtol 1e-5
    UNSCOPED_INFO("max |a - b| " << xt::amax(xt::abs(a - b))());
    return a.shape() == b.shape() && xt::allclose(a, b, 1e-5, 1e-5);
}

Array<2> stacked_qkv(const MultiHeadAttention& mha) {  // torch.cat([W_query, W_key, W_value]): [3 * d_out, d_in]
    return xt::concatenate(xt::xtuple(mha.W_query.weight.data, mha.W_key.weight.data, mha.W_value.weight.data), 0);
}

struct Case {
    std::size_t d_in, d_out, batch, seq_len, num_heads;
    std::uint64_t seed;
};

}  // namespace

TEST_CASE("tests/test_mha_implementations.py: MHAEinsum with chapter 3's weights gives its output") {
    for (const Case& c : {Case{768, 768, 2, 4, 12, 123}, Case{768, 1536, 2, 4, 12, 456}, Case{1024, 512, 2, 4, 8, 789}}) {
        INFO("d_in " << c.d_in << ", d_out " << c.d_out << ", heads " << c.num_heads);
        Generator gen;
        gen.manual_seed(c.seed);
        const Tensor<3> x(randn<3>(gen, {c.batch, c.seq_len, c.d_in}));
        MultiHeadAttention ch03(gen, c.d_in, c.d_out, c.seq_len, 0.0, c.num_heads);
        ch03.train(false);
        MHAEinsum einsum(gen, c.d_in, c.d_out, c.seq_len, c.num_heads);
        einsum.W_query.data = xt::transpose(ch03.W_query.weight.data);  // W = Linear.weight.T
        einsum.W_key.data = xt::transpose(ch03.W_key.weight.data);
        einsum.W_value.data = xt::transpose(ch03.W_value.weight.data);
        einsum.out_proj = ch03.out_proj;
        const Array<3> expected = ch03.forward(x).data;
        const Array<3> got = einsum.forward(x).data;
        CHECK(got.shape() == std::array<std::size_t, 3>{c.batch, c.seq_len, c.d_out});
        CHECK(torch_allclose(got, expected));
    }
}

TEST_CASE("every variant, given chapter 3's weights, gives chapter 3's output") {
    const std::size_t B = 2, T = 16, D = 768, NH = 12, hs = D / NH;
    Generator gen;
    gen.manual_seed(123);
    const Tensor<3> x(randn<3>(gen, {B, T, D}));
    MultiHeadAttention ch03(gen, D, D, T, 0.0, NH);
    ch03.train(false);
    const Array<3> expected = ch03.forward(x).data;

    SECTION("1) the wrapper: head h takes rows h*hs .. (h+1)*hs of each projection; then out_proj") {
        MultiHeadAttentionWrapper wrapper(gen, D, hs, T, 0.0, NH);
        for (std::size_t h = 0; h < NH; ++h) {
            auto head_rows = [&](const Linear& full) {  // full.weight[h * hs:(h + 1) * hs, :]
                return Array<2>(xt::view(full.weight.data, xt::range(h * hs, (h + 1) * hs), xt::all()));
            };
            wrapper.heads[h].W_query.weight.data = head_rows(ch03.W_query);
            wrapper.heads[h].W_key.weight.data = head_rows(ch03.W_key);
            wrapper.heads[h].W_value.weight.data = head_rows(ch03.W_value);
        }
        CHECK(torch_allclose(ch03.out_proj(wrapper.forward(x)).data, expected));
    }
    SECTION("3) combined QKV weights") {
        MultiHeadAttentionCombinedQKV combined(gen, D, D, NH, T);
        combined.qkv.weight.data = stacked_qkv(ch03);
        combined.proj = ch03.out_proj;
        CHECK(torch_allclose(combined.forward(x).data, expected));
    }
    SECTION("5) and 6) scaled_dot_product_attention, is_causal and an explicit mask") {
        for (auto kind : {MHAPyTorchSDPA::Mask::is_causal, MHAPyTorchSDPA::Mask::explicit_mask}) {
            MHAPyTorchSDPA sdpa(gen, D, D, NH, T, kind);
            sdpa.qkv.weight.data = stacked_qkv(ch03);
            sdpa.proj = ch03.out_proj;
            CHECK(torch_allclose(sdpa.forward(x).data, expected));
        }
    }
    SECTION("8) nn.MultiheadAttention's layout: in_proj_weight stacked, its out_proj the identity") {
        MHAPyTorchClass layout(gen, D, D, NH, T);
        layout.in_proj_weight.data = stacked_qkv(ch03);
        layout.out_proj.weight.data = xt::eye<float>(D);
        layout.proj = ch03.out_proj;
        CHECK(torch_allclose(layout.forward(x).data, expected));
    }
    SECTION("llmfs's fast path") {
        CHECK(torch_allclose(FastMultiHeadAttention(ch03).forward(x.data), expected));
    }
}

TEST_CASE("sdpa_math: the mask means 'may attend', and its shape must fit") {
    Generator gen;
    gen.manual_seed(1);
    const Tensor<4> q(randn<4>(gen, {1, 2, 3, 4})), k(randn<4>(gen, {1, 2, 3, 4})), v(randn<4>(gen, {1, 2, 3, 4}));
    // Only the diagonal attended: every query returns its own value.
    const Array<4> own = sdpa_math(q, k, v, xt::eye<bool>(3)).data;
    CHECK(xt::allclose(own, v.data));
    CHECK_THROWS_WITH(sdpa_math(q, k, v, BoolArray<2>(xt::ones<bool>({2, 3}))), Catch::Contains("a mask [2, 3] for 3 queries and 3 keys"));
}
