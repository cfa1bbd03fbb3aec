#include "llmfs/nn/attention.hpp"

#include <cmath>
#include <stdexcept>

namespace llmfs {

namespace {
// keys.shape[-1]**0.5, a Python float
double sqrt_dim(std::size_t d) { return std::pow(static_cast<double>(d), 0.5); }
}  // namespace

Tensor<2> your_journey_inputs() {
    return Array<2>{{0.43f, 0.15f, 0.89f},   // Your     (x^1)
                    {0.55f, 0.87f, 0.66f},   // journey  (x^2)
                    {0.57f, 0.85f, 0.64f},   // starts   (x^3)
                    {0.22f, 0.58f, 0.33f},   // with     (x^4)
                    {0.77f, 0.25f, 0.10f},   // one      (x^5)
                    {0.05f, 0.80f, 0.55f}};  // step     (x^6)
}

SelfAttention_v1::SelfAttention_v1(Generator& gen, std::size_t d_in, std::size_t d_out)
    : W_query(Tensor<2>::parameter(rand<2>(gen, {d_in, d_out}))),  // nn.Parameter(torch.rand(d_in, d_out))
      W_key(Tensor<2>::parameter(rand<2>(gen, {d_in, d_out}))),
      W_value(Tensor<2>::parameter(rand<2>(gen, {d_in, d_out}))) {}

template <>
SourceLine forward_source<SelfAttention_v1>() { return {__FILE__, __LINE__ + 1, "SelfAttention_v1::forward"}; }
Tensor<2> SelfAttention_v1::forward(const Tensor<2>& x) const {
    const auto keys = matmul(x, W_key);      // x @ self.W_key       [T, d_out]
    const auto queries = matmul(x, W_query);  // x @ self.W_query     [T, d_out]
    const auto values = matmul(x, W_value);   // x @ self.W_value     [T, d_out]
    const auto attn_scores = matmul(queries, T(keys));  // queries @ keys.T  [T, T]
    const auto attn_weights = softmax(attn_scores / sqrt_dim(keys.size(-1)), -1);
    return matmul(attn_weights, values);  // [T, d_out]
}

SelfAttention_v2::SelfAttention_v2(Generator& gen, std::size_t d_in, std::size_t d_out, bool qkv_bias)
    : W_query(gen, d_in, d_out, qkv_bias), W_key(gen, d_in, d_out, qkv_bias), W_value(gen, d_in, d_out, qkv_bias) {}

template <>
SourceLine forward_source<SelfAttention_v2>() { return {__FILE__, __LINE__ + 1, "SelfAttention_v2::forward"}; }
Tensor<2> SelfAttention_v2::forward(const Tensor<2>& x) const {
    const auto keys = W_key(x);      // [T, d_out]
    const auto queries = W_query(x);  // [T, d_out]
    const auto values = W_value(x);   // [T, d_out]
    const auto attn_scores = matmul(queries, T(keys));  // [T, T]
    const auto attn_weights = softmax(attn_scores / sqrt_dim(keys.size(-1)), -1);
    return matmul(attn_weights, values);
}

Tensor<2> causal_attention_weights(const SelfAttention_v2& sa, const Tensor<2>& x) {
    const auto queries = sa.W_query(x);  // [T, d_out]
    const auto keys = sa.W_key(x);       // [T, d_out]
    const auto attn_scores = matmul(queries, T(keys));
    const auto masked = masked_fill(attn_scores, causal_mask(attn_scores.size(0)), kNegInf);
    return softmax(masked / sqrt_dim(keys.size(-1)), -1);
}

CausalAttention::CausalAttention(Generator& gen, std::size_t d_in, std::size_t d_out_, std::size_t context_length,
                                 double dropout_p, bool qkv_bias)
    : d_out(d_out_),
      W_query(gen, d_in, d_out_, qkv_bias),
      W_key(gen, d_in, d_out_, qkv_bias),
      W_value(gen, d_in, d_out_, qkv_bias),
      dropout(gen, dropout_p),
      mask(causal_mask(context_length)) {}

namespace {
// mask.bool()[:T, :T]
BoolArray<2> mask_for(const BoolArray<2>& mask, std::size_t num_tokens) {
    if (num_tokens > mask.shape()[0])
        throw ShapeError("attention: " + std::to_string(num_tokens) + " tokens exceed the context length " +
                         std::to_string(mask.shape()[0]));
    return xt::view(mask, xt::range(0, num_tokens), xt::range(0, num_tokens));
}
}  // namespace

template <>
SourceLine forward_source<CausalAttention>() { return {__FILE__, __LINE__ + 1, "CausalAttention::forward"}; }
Tensor<3> CausalAttention::forward(const Tensor<3>& x) const {
    return causal_attention_forward(W_query, W_key, W_value, dropout, mask, x);  // the body: right below
}

Tensor<3> causal_attention_forward(const Linear& W_query, const Linear& W_key, const Linear& W_value, const Dropout& dropout,
                                   const BoolArray<2>& mask, const Tensor<3>& x, Tensor<3>* attn_weights_out) {
    const std::size_t num_tokens = x.size(1);
    const auto keys = W_key(x);      // [B, T, d_out]
    const auto queries = W_query(x);  // [B, T, d_out]
    const auto values = W_value(x);   // [B, T, d_out]
    auto attn_scores = matmul(queries, transpose(keys, 1, 2));              // [B, T, T]
    attn_scores = masked_fill(attn_scores, mask_for(mask, num_tokens), kNegInf);  // masked_fill_(mask, -inf)
    auto attn_weights = softmax(attn_scores / sqrt_dim(keys.size(-1)), -1);  // [B, T, T]
    attn_weights = dropout(attn_weights);
    if (attn_weights_out) *attn_weights_out = attn_weights;
    return matmul(attn_weights, values);  // [B, T, d_out]
}

Tensor<3> CausalAttention::forward(const Tensor<3>& x, Tensor<3>& attn_weights) const {
    return causal_attention_forward(W_query, W_key, W_value, dropout, mask, x, &attn_weights);
}

MultiHeadAttentionWrapper::MultiHeadAttentionWrapper(Generator& gen, std::size_t d_in, std::size_t d_out,
                                                     std::size_t context_length, double dropout,
                                                     std::size_t num_heads, bool qkv_bias) {
    for (std::size_t h = 0; h < num_heads; ++h) heads.emplace_back(gen, d_in, d_out, context_length, dropout, qkv_bias);
}

template <>
SourceLine forward_source<MultiHeadAttentionWrapper>() { return {__FILE__, __LINE__ + 1, "MultiHeadAttentionWrapper::forward"}; }
Tensor<3> MultiHeadAttentionWrapper::forward(const Tensor<3>& x) const {
    std::vector<Tensor<3>> outs;  // NH x [B, T, d_out]
    for (const auto& head : heads) outs.push_back(head.forward(x));
    return cat_lastdim(outs);  // torch.cat([head(x) for head in self.heads], dim=-1)
}

MultiHeadAttention::MultiHeadAttention(Generator& gen, std::size_t d_in, std::size_t d_out_, std::size_t context_length,
                                       double dropout_p, std::size_t num_heads_, bool qkv_bias, Init init)
    : d_out(d_out_),
      num_heads(num_heads_),
      head_dim(num_heads_ == 0 ? 0 : d_out_ / num_heads_),
      W_query(gen, d_in, d_out_, qkv_bias, init),
      W_key(gen, d_in, d_out_, qkv_bias, init),
      W_value(gen, d_in, d_out_, qkv_bias, init),
      out_proj(gen, d_out_, d_out_, true, init),
      dropout(gen, dropout_p),
      mask(causal_mask(context_length)) {
    if (num_heads == 0 || d_out % num_heads != 0)
        throw std::invalid_argument("d_out must be divisible by num_heads (d_out=" + std::to_string(d_out) +
                                    ", num_heads=" + std::to_string(num_heads) + ")");
}

Tensor<4> causal_attention(const Tensor<4>& queries, const Tensor<4>& keys, const Tensor<4>& values,
                           const BoolArray<2>& mask, const Dropout& dropout, Tensor<4>* attn_weights_out) {
    auto attn_scores = matmul(queries, transpose(keys, 2, 3));                           // [B, NH, T, T]
    attn_scores = masked_fill(attn_scores, mask_for(mask, queries.size(2)), kNegInf);  // masked_fill_(mask_bool, -inf)
    auto attn_weights = softmax(attn_scores / sqrt_dim(keys.size(-1)), -1);
    attn_weights = dropout(attn_weights);
    if (attn_weights_out) *attn_weights_out = attn_weights;
    return matmul(attn_weights, values);  // [B, NH, T, hs]
}

template <>
SourceLine forward_source<MultiHeadAttention>() { return {__FILE__, __LINE__ + 1, "MultiHeadAttention::forward"}; }
Tensor<3> MultiHeadAttention::forward(const Tensor<3>& x, Tensor<4>& attn_weights) const {
    const std::size_t b = x.size(0), num_tokens = x.size(1);
    const std::array<std::size_t, 4> split{b, num_tokens, num_heads, head_dim};
    // (b, T, d_out) -> (b, T, NH, hs) -> (b, NH, T, hs)
    const auto keys = transpose(view(W_key(x), split), 1, 2);
    const auto queries = transpose(view(W_query(x), split), 1, 2);
    const auto values = transpose(view(W_value(x), split), 1, 2);

    const auto context_vec = transpose(causal_attention(queries, keys, values, mask, dropout, &attn_weights), 1, 2);  // [B, T, NH, hs]
    // context_vec.contiguous().view(b, num_tokens, self.d_out)
    return out_proj(view(context_vec, std::array<std::size_t, 3>{b, num_tokens, d_out}));
}

Tensor<3> MultiHeadAttention::forward(const Tensor<3>& x) const {
    Tensor<4> unused;
    return forward(x, unused);
}

void MultiHeadAttention::disable_causal_mask() {
    causal = false;
    mask.fill(false);  // masked_fill_ of nothing: the scores as they are
}

std::size_t MultiHeadAttention::num_parameters() const {
    return W_query.num_parameters() + W_key.num_parameters() + W_value.num_parameters() + out_proj.num_parameters();
}

MultiHeadAttentionCombinedQKV::MultiHeadAttentionCombinedQKV(Generator& gen, std::size_t d_in, std::size_t d_out_,
                                                             std::size_t num_heads_, std::size_t context_length,
                                                             double dropout_p, bool qkv_bias)
    : d_out(d_out_),
      num_heads(num_heads_),
      head_dim(num_heads_ == 0 ? 0 : d_out_ / num_heads_),
      qkv(gen, d_in, 3 * d_out_, qkv_bias),
      proj(gen, d_out_, d_out_),
      dropout(gen, dropout_p),
      mask(causal_mask(context_length)) {
    if (num_heads == 0 || d_out % num_heads != 0)
        throw std::invalid_argument("embed_dim is indivisible by num_heads (d_out=" + std::to_string(d_out) +
                                    ", num_heads=" + std::to_string(num_heads) + ")");
}

Tensor<3> MultiHeadAttentionCombinedQKV::forward(const Tensor<3>& x) const {
    const std::size_t b = x.size(0), num_tokens = x.size(1);
    const auto qkv_out = qkv(x);  // [B, T, 3 * d_out]
    // .view(b, T, 3, NH, hs).permute(2, 0, 3, 1, 4): [3, B, NH, T, hs]
    const Array<5> split = xt::reshape_view(qkv_out.data, std::array<std::size_t, 5>{b, num_tokens, 3, num_heads, head_dim});
    const Array<5> permuted = xt::transpose(split, {2, 0, 3, 1, 4});
    const Tensor<4> queries(xt::view(permuted, 0), qkv_out.grad_fn);  // queries, keys, values = qkv.unbind(0)
    const Tensor<4> keys(xt::view(permuted, 1), qkv_out.grad_fn);
    const Tensor<4> values(xt::view(permuted, 2), qkv_out.grad_fn);
    const auto context_vec = transpose(causal_attention(queries, keys, values, mask, dropout), 1, 2);  // [B, T, NH, hs]
    return proj(view(context_vec, std::array<std::size_t, 3>{b, num_tokens, d_out}));
}

}  // namespace llmfs
