// The GPT of the book's chapter-4 bonus folders 04_gqa .. 07_moe: chapter 4's GPTModel with a KV
// cache, whose attention (attention_variants.hpp) and feed-forward layer vary:
//
//   script                  attention                     feed-forward
//   gpt_with_kv_mha.py      MultiHeadAttention            GELU, 4C
//   gpt_with_kv_gqa.py      GroupedQueryAttention         GELU, 4C
//   gpt_with_kv_mla.py      MultiHeadLatentAttention      GELU, 4C
//   gpt_with_kv_swa.py      MultiHeadAttentionWithSWA     GELU, 4C
//   gpt_with_kv_ffn.py      MultiHeadAttention            SwiGLU, hidden_dim
//   gpt_with_kv_moe.py      MultiHeadAttention            GELU, hidden_dim (num_experts 0) or MoE
//
// Every script builds context_length = prompt + max_new_tokens, no qkv bias, dropout 0, batch 1,
// so the sequence is x [T, C] (T tokens, C = emb_dim, V = vocab_size). Parameters are drawn in
// each script's creation order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "llmfs/nn/attention_variants.hpp"
#include "llmfs/nn/gpt.hpp"

namespace llmfs {

// F.silu(x) = x * sigmoid(x) in place, with PyTorch's CPU bits: x / (1 + exp(-x)), 16 floats at
// a time with SLEEF's exp, the last n % 16 with the C library's expf (cpu_kernel_vec's tail).
void silu_inplace(float* x, std::size_t n);

// A feed-forward layer: x [T, C] -> [T, C].
class FeedForwardLayer {
public:
    virtual ~FeedForwardLayer() = default;
    virtual Array<2> forward(const Array<2>& x) const = 0;
    virtual std::size_t num_parameters() const = 0;
    // Parameters one token's forward reads: all of them, or for a mixture of experts the router
    // and the top-k experts' (what memory_estimator_moe.py calls "MoE ACTIVE/Token").
    virtual std::size_t active_parameters() const = 0;
};

// FeedForward: Linear(C, H) -> GELU -> Linear(H, C), with biases (H = 4C, or the moe script's hidden_dim)
class GeluFeedForward : public FeedForwardLayer {
public:
    Linear fc1, fc2;  // C -> H, H -> C
    GeluFeedForward(Generator& gen, std::size_t emb_dim, std::size_t hidden_dim);
    Array<2> forward(const Array<2>& x) const override;
    std::size_t num_parameters() const override { return fc1.num_parameters() + fc2.num_parameters(); }
    std::size_t active_parameters() const override { return num_parameters(); }
};

// gpt_with_kv_ffn.py's FeedForward (SwiGLU): fc3(silu(fc1(x)) * fc2(x)), no biases
class SwiGLUFeedForward : public FeedForwardLayer {
public:
    Linear fc1, fc2, fc3;  // C -> H, C -> H, H -> C
    SwiGLUFeedForward(Generator& gen, std::size_t emb_dim, std::size_t hidden_dim);
    Array<2> forward(const Array<2>& x) const override;
    std::size_t num_parameters() const override { return fc1.num_parameters() + fc2.num_parameters() + fc3.num_parameters(); }
    std::size_t active_parameters() const override { return num_parameters(); }
};

// MoEFeedForward: a router (gate) scores E experts per token; the top k run (SwiGLU each) and their
// outputs are summed, weighted by the softmax over the k chosen scores.
class MoEFeedForward : public FeedForwardLayer {
public:
    std::size_t num_experts, num_experts_per_tok, emb_dim;  // E, k, C
    Linear gate;                                             // C -> E, no bias
    std::vector<Linear> fc1, fc2, fc3;                       // per expert: C -> H, C -> H, H -> C (drawn: all fc1, all fc2, all fc3)
    MoEFeedForward(Generator& gen, std::size_t emb_dim, std::size_t hidden_dim, std::size_t num_experts,
                   std::size_t num_experts_per_tok);
    Array<2> forward(const Array<2>& x) const override;
    std::size_t num_parameters() const override;
    std::size_t active_parameters() const override;
};

// torch.topk(scores, k) over one row of n scores: the indices of the k largest, largest first
// (equal scores: the lower index first). Throws PythonError for k > n, as torch does.
std::vector<std::size_t> topk_indices(const float* scores, std::size_t n, std::size_t k);

enum class AttentionKind { mha, gqa, mla, swa };
enum class FeedForwardKind { gelu, swiglu, moe };

struct VariantConfig {
    std::size_t vocab_size = 50257;   // V
    std::int64_t context_length = 0;  // max_new_tokens + len(encoded); may be < 1 (see generate_variant)
    std::size_t emb_dim = 768, n_heads = 12, n_layers = 12;
    AttentionKind attention = AttentionKind::mha;
    std::size_t n_kv_groups = 2;                       // GQA: key/value heads
    std::size_t latent_dim = 96;                       // MLA
    bool mla_absorbed_decode = true;                   // MLA: decode steps in the absorbed form (fast)
    std::int64_t sliding_window_size = 1024;           // SWA: W
    std::int64_t sliding_window_stride = 2;            // SWA: K window layers, then one regular layer
    FeedForwardKind feed_forward = FeedForwardKind::gelu;
    std::size_t hidden_dim = 4 * 768;                  // H (GELU FFN: 4C except in the moe script)
    std::size_t num_experts = 0, num_experts_per_tok = 0;
};

// The bytes VariantGPTModel(cfg) takes: its float32 parameters, and its KV cache filled to the
// context length. From cfg alone, before anything is allocated, and in floating point, since a
// command line can ask for more than 2^64 bytes (tested against num_parameters() and the caches).
double variant_model_bytes(const VariantConfig& cfg);

// Does layer i use the sliding window? gpt_with_kv_swa.py: stride K == 0 none, K < 0 all, else
// layer i when i % (K + 1) < K (K window layers, then one regular).
bool uses_sliding_window(std::int64_t stride, std::size_t layer);

// TransformerBlock: x = x + att(norm1(x)); x = x + ff(norm2(x))
struct VariantBlock {
    std::unique_ptr<KVAttention> att;
    std::unique_ptr<FeedForwardLayer> ff;
    LayerNorm norm1, norm2;
};

class VariantGPTModel {
public:
    VariantConfig cfg;
    Embedding tok_emb;  // [V, C]
    Embedding pos_emb;  // [context_length, C]
    std::vector<VariantBlock> trf_blocks;
    LayerNorm final_norm;
    Linear out_head;    // C -> V, no bias

    VariantGPTModel(Generator& gen, const VariantConfig& cfg);
    // model(in_idx, use_cache): in_idx [T] -> logits [T, V], or just the last row [1, V] with
    // last_only (all greedy decoding reads; the rows are computed alike). With use_cache the
    // tokens continue at position current_pos.
    Array<2> forward(const std::vector<std::int64_t>& in_idx, bool use_cache, bool last_only = false);
    void reset_kv_cache();
    std::size_t kv_cache_bytes() const;  // what every layer's cache holds now
    std::size_t num_parameters() const;  // every parameter, the embeddings included
    // Parameters one decoding step reads: every block's (a mixture of experts: its active ones),
    // the norms and the output head; of the embeddings only one row each, left out.
    std::size_t parameters_per_token() const;
    // Milliseconds spent in each call of a block's feed-forward layer (the ffn and moe scripts'
    // FFN_TIME_MS / MOE_FF_TIME_MS), since the last clear.
    std::vector<double> ff_time_ms;

private:
    std::int64_t current_pos = 0;
};

// generate_text_simple_cached(model, idx, max_new_tokens, use_cache) of the scripts: greedy, the
// context size = pos_emb's rows. Returns all tokens, idx first. With the cache the prompt fills it
// once and each step runs one token (the last step's logits unused, as in the scripts); without it each
// step runs the whole sequence. on_token(step) after each new token.
std::vector<std::int64_t> generate_variant(VariantGPTModel& model, const std::vector<std::int64_t>& idx,
                                           std::int64_t max_new_tokens, bool use_cache,
                                           const std::function<void(std::size_t)>& on_token = {});

}  // namespace llmfs
