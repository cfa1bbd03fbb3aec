#include "llmfs/nn/fast_multihead_attention.hpp"

#include "llmfs/fast/kernels.hpp"

namespace llmfs {

FastMultiHeadAttention::FastMultiHeadAttention(const MultiHeadAttention& mha_) : mha(mha_) {
    const Linear* parts[] = {&mha.W_query, &mha.W_key, &mha.W_value};
    w_qkv = xt::concatenate(xt::xtuple(parts[0]->weight.data, parts[1]->weight.data, parts[2]->weight.data), 0);
    if (mha.W_query.bias)
        b_qkv = Array<1>(xt::concatenate(xt::xtuple(parts[0]->bias->data, parts[1]->bias->data, parts[2]->bias->data), 0));
}

Array<3> FastMultiHeadAttention::forward(const Array<3>& x) const {
    const std::size_t B = x.shape()[0], T = x.shape()[1], C = mha.d_out, NH = mha.num_heads, hs = mha.head_dim;
    if (x.shape()[2] != mha.W_query.in_features())
        throw_shape_error("FastMultiHeadAttention", {B, T, x.shape()[2]}, {w_qkv.shape()[0], w_qkv.shape()[1]},
                          "input's last dim must equal d_in");
    if (T > mha.mask.shape()[0])
        throw ShapeError("attention: " + std::to_string(T) + " tokens exceed the context length " +
                         std::to_string(mha.mask.shape()[0]));
    Array<2> qkv = Array<2>::from_shape({B * T, 3 * C});  // [B * T, (q | k | v)]
    linear_rows(x.data(), B * T, w_qkv.data(), b_qkv ? b_qkv->data() : nullptr, w_qkv.shape()[1], 3 * C, qkv.data());
    Array<2> context = Array<2>::from_shape({B * T, C});  // [B * T, NH * hs]
    for_each_head(B * NH, B * NH * T * T * hs, [&](std::size_t i, std::vector<float>& scratch) {
        const std::size_t b = i / NH, h = i % NH;
        const float* q = qkv.data() + b * T * 3 * C + h * hs;
        causal_attention_head(q, 3 * C, q + C, q + 2 * C, 3 * C, context.data() + b * T * C + h * hs, C, T, 0, hs, scratch,
                              mha.causal);
    });
    Array<3> out = Array<3>::from_shape({B, T, C});
    mha.out_proj.forward_rows(context.data(), B * T, out.data());
    return out;
}

}  // namespace llmfs
