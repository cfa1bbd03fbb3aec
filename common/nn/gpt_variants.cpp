#include "llmfs/nn/gpt_variants.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include <xtensor/xview.hpp>

#include "llmfs/fast/kernels.hpp"
#include "llmfs/nn/memory_estimate.hpp"
#include "llmfs/torch/ops.hpp"
#include "llmfs/torch/sampling.hpp"
#include "llmfs/torch/vecmath.hpp"

namespace llmfs {

namespace {

// nn.Linear on rows: x [T, in] -> [T, out], `then` (GELU) applied to the result as it is made
Array<2> linear(const Linear& lin, const Array<2>& x, RowsFn then = nullptr) {
    Array<2> y = Array<2>::from_shape({x.shape()[0], lin.out_features()});
    lin.forward_rows(x.data(), x.shape()[0], y.data(), then);
    return y;
}

// silu(fc1(x)) * fc2(x) -> fc3: the SwiGLU expert, x [R, C] -> [R, C]
Array<2> swiglu(const Linear& fc1, const Linear& fc2, const Linear& fc3, const Array<2>& x) {
    const std::size_t R = x.shape()[0];
    Array<2> a = Array<2>::from_shape({R, fc1.out_features()}), b = Array<2>::from_shape({R, fc2.out_features()});  // [R, H]
    Linear::forward_rows_each(x.data(), R, {{&fc1, a.data()}, {&fc2, b.data()}});
    silu_inplace(a.data(), a.size());
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] *= b.data()[i];
    return linear(fc3, a);
}

}  // namespace

void silu_inplace(float* x, std::size_t n) {
    constexpr std::size_t kBlock = 16;  // cpu_kernel_vec: two 8-float vectors per step, the rest scalar
    const std::size_t vec_n = n - n % kBlock;
    std::vector<float> e(vec_n);
    for (std::size_t i = 0; i < vec_n; ++i) e[i] = -x[i];
    vec_exp(e.data(), e.data(), vec_n);                                   // x_vec.neg().exp()
    for (std::size_t i = 0; i < vec_n; ++i) x[i] = x[i] / (1.0f + e[i]);  // x_vec / (kOneVec + ...)
    for (std::size_t i = vec_n; i < n; ++i) x[i] = x[i] / (1.0f + std::exp(-x[i]));  // x / (1 + std::exp(-x))
}

GeluFeedForward::GeluFeedForward(Generator& gen, std::size_t emb_dim, std::size_t hidden_dim)
    : fc1(gen, emb_dim, hidden_dim), fc2(gen, hidden_dim, emb_dim) {}

Array<2> GeluFeedForward::forward(const Array<2>& x) const {
    const Array<2> h = linear(fc1, x, gelu_inplace);  // GELU(fc1(x)): [T, H]
    return linear(fc2, h);                            // [T, C]
}

SwiGLUFeedForward::SwiGLUFeedForward(Generator& gen, std::size_t emb_dim, std::size_t hidden_dim)
    : fc1(gen, emb_dim, hidden_dim, false), fc2(gen, emb_dim, hidden_dim, false), fc3(gen, hidden_dim, emb_dim, false) {}

Array<2> SwiGLUFeedForward::forward(const Array<2>& x) const { return swiglu(fc1, fc2, fc3, x); }

MoEFeedForward::MoEFeedForward(Generator& gen, std::size_t emb_dim_, std::size_t hidden_dim, std::size_t num_experts_,
                               std::size_t num_experts_per_tok_)
    : num_experts(num_experts_), num_experts_per_tok(num_experts_per_tok_), emb_dim(emb_dim_),
      gate(gen, emb_dim_, num_experts_, false) {
    for (std::size_t e = 0; e < num_experts; ++e) fc1.emplace_back(gen, emb_dim, hidden_dim, false);
    for (std::size_t e = 0; e < num_experts; ++e) fc2.emplace_back(gen, emb_dim, hidden_dim, false);
    for (std::size_t e = 0; e < num_experts; ++e) fc3.emplace_back(gen, hidden_dim, emb_dim, false);
}

std::size_t MoEFeedForward::num_parameters() const {
    std::size_t n = gate.num_parameters();
    for (std::size_t e = 0; e < fc1.size(); ++e) n += fc1[e].num_parameters() + fc2[e].num_parameters() + fc3[e].num_parameters();
    return n;
}

std::size_t MoEFeedForward::active_parameters() const {
    const std::size_t per_expert = fc1.empty() ? 0 : fc1[0].num_parameters() + fc2[0].num_parameters() + fc3[0].num_parameters();
    return gate.num_parameters() + std::min(num_experts_per_tok, num_experts) * per_expert;
}

std::vector<std::size_t> topk_indices(const float* scores, std::size_t n, std::size_t k) {
    if (k > n) throw PythonError("RuntimeError: selected index k out of range");
    std::vector<std::size_t> idx(n);
    for (std::size_t i = 0; i < n; ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    idx.resize(k);
    return idx;
}

Array<2> MoEFeedForward::forward(const Array<2>& x) const {
    const std::size_t T = x.shape()[0], E = num_experts, k = num_experts_per_tok;
    const Array<2> scores = linear(gate, x);  // scores = self.gate(x): [T, E]
    // topk_scores, topk_indices = torch.topk(scores, k, dim=-1); topk_probs = torch.softmax(topk_scores, dim=-1)
    std::vector<std::vector<std::size_t>> chosen(T);
    std::vector<std::vector<float>> probs(T, std::vector<float>(k));
    for (std::size_t t = 0; t < T; ++t) {
        chosen[t] = topk_indices(&scores(t, 0), E, k);
        if (k == 0)
            throw PythonError("RuntimeError: cannot reshape tensor of 0 elements into shape [-1, 0] because the "
                              "unspecified dimension size -1 can be any value and is ambiguous");
        std::vector<float> top(k);
        for (std::size_t s = 0; s < k; ++s) top[s] = scores(t, chosen[t][s]);
        causal_softmax_row(top.data(), probs[t].data(), k, k, 1.0f);
    }
    Array<2> out = xt::zeros<float>({T, emb_dim});  // out_flat = torch.zeros(batch * seq_len, self.emb_dim)
    for (std::size_t e = 0; e < E; ++e) {           // for expert_id in torch.unique(topk_indices_flat): ascending
        std::vector<std::size_t> rows;              // selected_idx: the tokens that chose e
        std::vector<float> p;                       // selected_probs: e's weight for each
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t s = 0; s < k; ++s)
                if (chosen[t][s] == e) {
                    rows.push_back(t);
                    p.push_back(probs[t][s]);
                    break;
                }
        if (rows.empty()) continue;
        Array<2> expert_input = Array<2>::from_shape({rows.size(), emb_dim});  // x_flat.index_select(0, selected_idx)
        for (std::size_t r = 0; r < rows.size(); ++r) xt::row(expert_input, r) = xt::row(x, rows[r]);
        const Array<2> expert_out = swiglu(fc1[e], fc2[e], fc3[e], expert_input);  // [R, C]
        // out_flat.index_add_(0, selected_idx, expert_out * selected_probs.unsqueeze(-1))
        for (std::size_t r = 0; r < rows.size(); ++r)
            for (std::size_t c = 0; c < emb_dim; ++c) out(rows[r], c) += expert_out(r, c) * p[r];
    }
    return out;
}

bool uses_sliding_window(std::int64_t stride, std::size_t layer) {
    if (stride == 0) return false;
    if (stride < 0) return true;
    return static_cast<std::int64_t>(layer) % (stride + 1) < stride;
}

namespace {

std::unique_ptr<KVAttention> make_attention(Generator& gen, const VariantConfig& cfg, std::size_t layer) {
    const std::size_t C = cfg.emb_dim;
    switch (cfg.attention) {
        case AttentionKind::mha: return std::make_unique<MultiHeadAttentionKV>(gen, C, C, cfg.n_heads, false);
        case AttentionKind::gqa: return std::make_unique<GroupedQueryAttention>(gen, C, C, cfg.n_heads, cfg.n_kv_groups, false);
        case AttentionKind::mla: {
            auto mla = std::make_unique<MultiHeadLatentAttention>(gen, C, C, cfg.n_heads, cfg.latent_dim, false);
            mla->absorbed_decode = cfg.mla_absorbed_decode;
            return mla;
        }
        case AttentionKind::swa:
            return std::make_unique<MultiHeadAttentionKV>(
                gen, C, C, cfg.n_heads, false,
                uses_sliding_window(cfg.sliding_window_stride, layer) ? std::optional<std::int64_t>(cfg.sliding_window_size) : std::nullopt);
    }
    throw std::logic_error("unknown attention kind");
}

std::unique_ptr<FeedForwardLayer> make_feed_forward(Generator& gen, const VariantConfig& cfg) {
    switch (cfg.feed_forward) {
        case FeedForwardKind::gelu: return std::make_unique<GeluFeedForward>(gen, cfg.emb_dim, cfg.hidden_dim);
        case FeedForwardKind::swiglu: return std::make_unique<SwiGLUFeedForward>(gen, cfg.emb_dim, cfg.hidden_dim);
        case FeedForwardKind::moe:
            return std::make_unique<MoEFeedForward>(gen, cfg.emb_dim, cfg.hidden_dim, cfg.num_experts, cfg.num_experts_per_tok);
    }
    throw std::logic_error("unknown feed-forward kind");
}

std::size_t positions(std::int64_t context_length) {
    if (context_length < 0)
        throw PythonError("RuntimeError: Trying to create tensor with negative dimension " + std::to_string(context_length) + ": [" +
                          std::to_string(context_length) + "]");
    return static_cast<std::size_t>(context_length);
}

std::vector<VariantBlock> make_blocks(Generator& gen, const VariantConfig& cfg) {
    std::vector<VariantBlock> blocks;
    for (std::size_t l = 0; l < cfg.n_layers; ++l) {
        VariantBlock block{make_attention(gen, cfg, l), nullptr, LayerNorm(cfg.emb_dim), LayerNorm(cfg.emb_dim)};
        block.ff = make_feed_forward(gen, cfg);  // self.att first, then self.ff
        blocks.push_back(std::move(block));
    }
    return blocks;
}

}  // namespace

// Members are built in the order GPTModel.__init__ draws them: tok_emb, pos_emb, the blocks, out_head.
VariantGPTModel::VariantGPTModel(Generator& gen, const VariantConfig& cfg_)
    : cfg(cfg_), tok_emb(gen, cfg_.vocab_size, cfg_.emb_dim), pos_emb(gen, positions(cfg_.context_length), cfg_.emb_dim),
      trf_blocks(make_blocks(gen, cfg_)), final_norm(cfg_.emb_dim), out_head(gen, cfg_.emb_dim, cfg_.vocab_size, false) {}

Array<2> VariantGPTModel::forward(const std::vector<std::int64_t>& in_idx, bool use_cache, bool last_only) {
    const std::size_t T = in_idx.size(), C = cfg.emb_dim;
    if (T == 0) throw std::invalid_argument("VariantGPTModel::forward: no tokens");
    // pos_ids = torch.arange(self.current_pos, self.current_pos + seq_len) with the cache, else arange(seq_len)
    const std::int64_t first = use_cache ? current_pos : 0;
    if (first + static_cast<std::int64_t>(T) > static_cast<std::int64_t>(pos_emb.weight.data.shape()[0]))
        throw PythonError("IndexError: index out of range in self (positions up to " + std::to_string(first + T) +
                          " for a context length of " + std::to_string(pos_emb.weight.data.shape()[0]) + ")");
    Array<2> x = Array<2>::from_shape({T, C});  // x = tok_embeds + pos_embeds
    for (std::size_t t = 0; t < T; ++t) {
        if (in_idx[t] < 0 || static_cast<std::size_t>(in_idx[t]) >= cfg.vocab_size)
            throw std::out_of_range("token id " + std::to_string(in_idx[t]) + " outside the vocabulary");
        // rows of the tables (as pointers, not &w(i, 0): a row of --emb_dim 0 has no first element)
        const float* tok = tok_emb.weight.data.data() + static_cast<std::size_t>(in_idx[t]) * C;
        const float* pos = pos_emb.weight.data.data() + (static_cast<std::size_t>(first) + t) * C;
        for (std::size_t c = 0; c < C; ++c) x(t, c) = tok[c] + pos[c];
    }
    if (use_cache) current_pos += static_cast<std::int64_t>(T);
    for (auto& block : trf_blocks) {
        Array<2> h = x;  // shortcut = x; x = self.norm1(x); x = self.att(x, use_cache=use_cache); x = x + shortcut
        block.norm1.forward_rows(h.data(), h.shape()[0]);
        const Array<2> a = block.att->forward(h, use_cache);
        x += a;
        h = x;  // shortcut = x; x = self.norm2(x); x = self.ff(x); x = x + shortcut
        block.norm2.forward_rows(h.data(), h.shape()[0]);
        const auto start = std::chrono::steady_clock::now();
        const Array<2> f = block.ff->forward(h);
        ff_time_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        x += f;
    }
    Array<2> rows = last_only ? Array<2>(xt::view(x, xt::range(T - 1, T), xt::all())) : x;
    final_norm.forward_rows(rows.data(), rows.shape()[0]);  // x = self.final_norm(x)
    return linear(out_head, rows);  // logits = self.out_head(x): [T, V] (or [1, V])
}

void VariantGPTModel::reset_kv_cache() {
    for (auto& block : trf_blocks) {
        block.att->reset_cache();
        block.att->reserve(pos_emb.weight.data.shape()[0]);  // the context length: the most it will hold
    }
    current_pos = 0;
}

std::size_t VariantGPTModel::kv_cache_bytes() const {
    std::size_t bytes = 0;
    for (const auto& block : trf_blocks) bytes += block.att->cache_bytes();
    return bytes;
}

std::size_t VariantGPTModel::num_parameters() const {
    std::size_t n = tok_emb.weight.data.size() + pos_emb.weight.data.size() + 2 * cfg.emb_dim + out_head.num_parameters();
    for (const auto& block : trf_blocks) n += block.att->num_parameters() + block.ff->num_parameters() + 4 * cfg.emb_dim;
    return n;
}

double variant_model_bytes(const VariantConfig& cfg) {
    const double V = static_cast<double>(cfg.vocab_size), C = static_cast<double>(cfg.emb_dim);
    const double T = static_cast<double>(std::max<std::int64_t>(0, cfg.context_length)), H = static_cast<double>(cfg.hidden_dim);
    const double hs = cfg.n_heads ? static_cast<double>(cfg.emb_dim / cfg.n_heads) : 0.0;
    const double G = static_cast<double>(cfg.n_kv_groups), L = static_cast<double>(cfg.latent_dim);
    const double E = static_cast<double>(cfg.num_experts);
    double attention = 0, cache = 0;  // per layer: parameters, and cached floats at T tokens
    switch (cfg.attention) {
        case AttentionKind::mha:
        case AttentionKind::swa: attention = 4 * C * C + C, cache = 2 * T * C; break;  // Q, K, V, out_proj + bias
        case AttentionKind::gqa: attention = 2 * C * G * hs + 2 * C * C, cache = 2 * T * G * hs; break;
        case AttentionKind::mla: attention = 2 * C * C + C + 3 * C * L, cache = T * L; break;  // W_DKV, W_UK, W_UV
    }
    double feed_forward = 0;
    switch (cfg.feed_forward) {
        case FeedForwardKind::gelu: feed_forward = 2 * C * H + H + C; break;
        case FeedForwardKind::swiglu: feed_forward = 3 * C * H; break;
        case FeedForwardKind::moe: feed_forward = C * E + E * 3 * C * H; break;  // gate, experts
    }
    const double layer = attention + feed_forward + 4 * C + cache;  // + norm1, norm2
    const double parameters = V * C + T * C + static_cast<double>(cfg.n_layers) * layer + 2 * C + C * V;
    return parameters * sizeof(float);
}

std::size_t VariantGPTModel::parameters_per_token() const {
    std::size_t n = 2 * cfg.emb_dim + out_head.num_parameters();  // final_norm, out_head
    for (const auto& block : trf_blocks) n += block.att->num_parameters() + block.ff->active_parameters() + 4 * cfg.emb_dim;
    return n;
}

std::vector<std::int64_t> generate_variant(VariantGPTModel& model, const std::vector<std::int64_t>& idx,
                                           std::int64_t max_new_tokens, bool use_cache,
                                           const std::function<void(std::size_t)>& on_token) {
    const std::size_t ctx_len = model.pos_emb.weight.data.shape()[0];  // context_size or model.pos_emb.num_embeddings
    const std::size_t V = model.cfg.vocab_size;
    std::vector<std::int64_t> generated = idx;
    auto window = [&] {  // generated[:, max(0, cur_len - ctx_len):cur_len]
        const std::size_t start = generated.size() > ctx_len ? generated.size() - ctx_len : 0;
        return std::vector<std::int64_t>(generated.begin() + static_cast<std::ptrdiff_t>(start), generated.end());
    };
    model.ff_time_ms.clear();
    Array<2> logits;
    if (use_cache) {
        model.reset_kv_cache();
        logits = model.forward(window(), true, true);  // the prompt fills the cache
    }
    for (std::int64_t step = 0; step < max_new_tokens; ++step) {
        if (!use_cache) logits = model.forward(window(), false, true);
        generated.push_back(argmax(&logits(logits.shape()[0] - 1, 0), V));  // logits[:, -1].argmax(dim=-1)
        if (on_token) on_token(static_cast<std::size_t>(step) + 1);
        // logits = model(next_idx, use_cache=True): the last call's logits are never read, but it
        // caches the last token, so that the cache ends as the script's (and the estimator's) size
        if (use_cache) logits = model.forward({generated.back()}, true, true);
    }
    return generated;
}

}  // namespace llmfs
