#include "llmfs/nn/mha_variants.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace llmfs {

namespace {

void check_heads(std::size_t d_out, std::size_t num_heads) {
    if (num_heads == 0 || d_out % num_heads != 0)
        throw std::invalid_argument("d_out " + std::to_string(d_out) + " must be divisible by num_heads " + std::to_string(num_heads));
}

// (b, T, d_out) -> (b, T, NH, hs) -> (b, NH, T, hs)
Tensor<4> split_heads(const Tensor<3>& t, std::size_t num_heads) {
    const std::size_t b = t.size(0), T = t.size(1), d = t.size(2);
    return transpose(view(t, std::array<std::size_t, 4>{b, T, num_heads, d / num_heads}), 1, 2);
}

// (b, NH, T, hs) -> (b, T, NH, hs) -> (b, T, NH * hs)
Tensor<3> merge_heads(const Tensor<4>& t) {
    const std::size_t b = t.size(0), nh = t.size(1), T = t.size(2), hs = t.size(3);
    return view(transpose(t, 1, 2), std::array<std::size_t, 3>{b, T, nh * hs});
}

// torch.einsum("bnd,do->bno", x, W): every token's row times W [d, o]
Tensor<3> einsum_bnd_do(const Tensor<3>& x, const Tensor<2>& W) {
    const std::size_t b = x.size(0), n = x.size(1), d = x.size(2);
    const Tensor<2> rows = view(x, std::array<std::size_t, 2>{b * n, d});
    return view(matmul(rows, W), std::array<std::size_t, 3>{b, n, W.size(1)});
}

// mask.bool()[:T, :T]
BoolArray<2> top_left(const BoolArray<2>& mask, std::size_t T) {
    if (T > mask.shape()[0])
        throw ShapeError("attention: " + std::to_string(T) + " tokens exceed the context length " + std::to_string(mask.shape()[0]));
    return xt::view(mask, xt::range(0, T), xt::range(0, T));
}

// q, k, v out of one projection [B, T, 3 * d_out]: .view(b, T, 3, NH, hs).permute(2, 0, 3, 1, 4), unbind(0)
std::array<Tensor<4>, 3> unbind_qkv(const Tensor<3>& qkv_out, std::size_t num_heads) {
    const std::size_t b = qkv_out.size(0), T = qkv_out.size(1), d_out = qkv_out.size(2) / 3;
    const Array<5> split = xt::reshape_view(qkv_out.data, std::array<std::size_t, 5>{b, T, 3, num_heads, d_out / num_heads});
    const Array<5> permuted = xt::transpose(split, {2, 0, 3, 1, 4});  // [3, B, NH, T, hs]
    return {Tensor<4>(xt::view(permuted, 0), qkv_out.grad_fn), Tensor<4>(xt::view(permuted, 1), qkv_out.grad_fn),
            Tensor<4>(xt::view(permuted, 2), qkv_out.grad_fn)};
}

}  // namespace

MHAEinsum::MHAEinsum(Generator& gen, std::size_t d_in, std::size_t d_out_, std::size_t context_length, std::size_t num_heads_)
    : d_out(d_out_),
      num_heads(num_heads_),
      head_dim(num_heads_ == 0 ? 0 : d_out_ / num_heads_),
      W_query(Tensor<2>::parameter(randn<2>(gen, {d_in, d_out_}))),  // nn.Parameter(torch.randn(d_in, d_out))
      W_key(Tensor<2>::parameter(randn<2>(gen, {d_in, d_out_}))),
      W_value(Tensor<2>::parameter(randn<2>(gen, {d_in, d_out_}))),
      out_proj(gen, d_out_, d_out_),
      mask(causal_mask(context_length)) {
    check_heads(d_out, num_heads);
    // reset_parameters(): nn.init.kaiming_uniform_(W, a=math.sqrt(5)), fan_in = W.size(1) = d_out,
    // so U(-1/sqrt(d_out), 1/sqrt(d_out))
    const double bound = 1.0 / std::sqrt(static_cast<double>(d_out));
    for (Tensor<2>* W : {&W_query, &W_key, &W_value}) gen.uniform_(W->data.data(), W->data.size(), -bound, bound);
}

Tensor<3> MHAEinsum::forward(const Tensor<3>& x) const {
    const std::size_t T = x.size(1);
    const auto Q = split_heads(einsum_bnd_do(x, W_query), num_heads);  // einsum("bnd,do->bno"): [B, NH, T, hs]
    const auto K = split_heads(einsum_bnd_do(x, W_key), num_heads);
    const auto V = split_heads(einsum_bnd_do(x, W_value), num_heads);
    // einsum("bhnd,bhmd->bhnm", Q, K) / sqrt(hs): [B, NH, T, T], scaled before the mask
    auto scores = matmul(Q, transpose(K, 2, 3)) / std::sqrt(static_cast<double>(head_dim));
    scores = masked_fill(scores, top_left(mask, T), kNegInf);
    const auto attn_weights = softmax(scores, -1);  // dropout(p=0.0): the identity
    const auto context_vec = matmul(attn_weights, V);  // einsum("bhnm,bhmd->bhnd"): [B, NH, T, hs]
    return out_proj(merge_heads(context_vec));          // .transpose(1, 2).reshape(b, T, d_out)
}

Tensor<4> sdpa_math(const Tensor<4>& queries, const Tensor<4>& keys, const Tensor<4>& values, const BoolArray<2>& attend) {
    const std::size_t T = queries.size(2), S = keys.size(2);
    if (attend.shape()[0] != T || attend.shape()[1] != S)
        throw ShapeError("sdpa_math: a mask [" + std::to_string(attend.shape()[0]) + ", " + std::to_string(attend.shape()[1]) +
                         "] for " + std::to_string(T) + " queries and " + std::to_string(S) + " keys");
    // scaling_factor = sdp::calculate_scale(query, scale).sqrt(): (1 / sqrt(hs)) ** 0.5
    const double scaling_factor = std::sqrt(1.0 / std::sqrt(static_cast<double>(queries.size(3))));
    auto attn = matmul(queries * scaling_factor, transpose(keys, 2, 3) * scaling_factor);  // [B, NH, T, S]
    // attn.add_(convert_boolean_attn_mask(attn_mask)): + 0 where attended, + -inf elsewhere
    attn = masked_fill(attn, BoolArray<2>(!attend), kNegInf);
    return matmul(softmax(attn, -1), values);  // dropout_p 0.0
}

MHAPyTorchSDPA::MHAPyTorchSDPA(Generator& gen, std::size_t d_in, std::size_t d_out_, std::size_t num_heads_,
                               std::size_t context_length, Mask mask_kind_)
    : d_out(d_out_),
      num_heads(num_heads_),
      head_dim(num_heads_ == 0 ? 0 : d_out_ / num_heads_),
      mask_kind(mask_kind_),
      qkv(gen, d_in, 3 * d_out_, /*with_bias=*/false),
      proj(gen, d_out_, d_out_),
      mask(causal_mask(context_length)) {
    check_heads(d_out, num_heads);
}

Tensor<3> MHAPyTorchSDPA::forward(const Tensor<3>& x) const {
    const std::size_t T = x.size(1);
    const auto [queries, keys, values] = unbind_qkv(qkv(x), num_heads);  // [B, NH, T, hs] each
    const BoolArray<2> attend = mask_kind == Mask::is_causal
                                    ? BoolArray<2>(!causal_mask(T))        // is_causal: torch.ones(T, T).tril()
                                    : BoolArray<2>(!top_left(mask, T));  // attn_mask = ~self.mask[:T, :T]
    return proj(merge_heads(sdpa_math(queries, keys, values, attend)));
}

MHAPyTorchClass::MHAPyTorchClass(Generator& gen, std::size_t d_in, std::size_t d_out_, std::size_t num_heads_,
                                 std::size_t context_length)
    : d_out(d_out_),
      num_heads(num_heads_),
      head_dim(num_heads_ == 0 ? 0 : d_out_ / num_heads_),
      in_proj_weight(Tensor<2>::parameter(Array<2>::from_shape({3 * d_out_, d_in}))),
      out_proj(gen, d_out_, d_out_, /*with_bias=*/false),  // nn.MultiheadAttention builds out_proj first
      proj(gen, d_out_, d_out_),
      mask(causal_mask(context_length)) {
    check_heads(d_out, num_heads);
    if (d_in != d_out) throw std::invalid_argument("nn.MultiheadAttention: embed_dim is both d_in and d_out");
    // _reset_parameters(): xavier_uniform_(in_proj_weight): U(+-sqrt(6 / (fan_in + fan_out)))
    const double bound = std::sqrt(6.0 / static_cast<double>(d_in + 3 * d_out));
    gen.uniform_(in_proj_weight.data.data(), in_proj_weight.data.size(), -bound, bound);
}

Tensor<3> MHAPyTorchClass::forward(const Tensor<3>& x) const {
    const std::size_t b = x.size(0), num_tokens = x.size(1), d = x.size(2);
    // F.linear(x, in_proj_weight): one product for q, k and v, [B, T, 3 * d_out]
    const Tensor<2> rows = view(x, std::array<std::size_t, 2>{b * num_tokens, d});
    const Tensor<3> qkv_out = view(matmul(rows, T(in_proj_weight)), std::array<std::size_t, 3>{b, num_tokens, 3 * d_out});
    const auto [queries, keys, values] = unbind_qkv(qkv_out, num_heads);
    // attn_mask = self.mask[:T, :T] (true = not allowed), need_weights=False: SDPA inside
    const auto context = merge_heads(sdpa_math(queries, keys, values, BoolArray<2>(!top_left(mask, num_tokens))));
    return proj(out_proj(context));  // attn_output = multihead_attn.out_proj(...); self.proj(attn_output)
}

}  // namespace llmfs
