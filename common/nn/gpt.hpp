// Chapter 4: the GPT-2 architecture. Each struct mirrors the book's nn.Module of the same name;
// parameters are drawn from the generator in the order the Python __init__ creates them.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "llmfs/nn/attention.hpp"
#include "llmfs/text/tokenizer.hpp"
#include "llmfs/torch/sampling.hpp"

namespace llmfs {

// GPT-2's four sizes as OpenAI released them, the one table of them: GPTConfig's sizes,
// gpt2_n_heads (nn/safetensors.hpp) and the gpt2/<size> folder check (nn/tf_checkpoint.hpp) read it.
struct Gpt2Size {
    const char* name;    // "gpt2-small": GPTConfig::by_name's, the book's model_configs key without " (124M)"
    const char* folder;  // "124M": gpt_download.py's model_size and folder name
    std::size_t emb_dim, n_layers, n_heads;
};
inline constexpr std::array<Gpt2Size, 4> kGpt2Sizes = {{{"gpt2-small", "124M", 768, 12, 12},
                                                        {"gpt2-medium", "355M", 1024, 24, 16},
                                                        {"gpt2-large", "774M", 1280, 36, 20},
                                                        {"gpt2-xl", "1558M", 1600, 48, 25}}};

// GPT_CONFIG_124M and the larger GPT-2 sizes of exercise 4.2.
struct GPTConfig {
    std::size_t vocab_size = 50257;     // V
    std::size_t context_length = 1024;  // longest T
    std::size_t emb_dim = 768;          // C
    std::size_t n_heads = 12;           // NH
    std::size_t n_layers = 12;
    double drop_rate = 0.1;
    bool qkv_bias = false;

    static GPTConfig gpt2_small() { return {}; }
    static GPTConfig gpt2_medium() { return with(kGpt2Sizes[1]); }
    static GPTConfig gpt2_large() { return with(kGpt2Sizes[2]); }
    static GPTConfig gpt2_xl() { return with(kGpt2Sizes[3]); }
    // "gpt2-small" etc. (kGpt2Sizes' names); throws std::invalid_argument for an unknown name.
    static GPTConfig by_name(const std::string& name);

private:
    static GPTConfig with(const Gpt2Size& size) {
        GPTConfig c;
        c.emb_dim = size.emb_dim;
        c.n_layers = size.n_layers;
        c.n_heads = size.n_heads;
        return c;
    }
};

// nn.Embedding(num_embeddings, embedding_dim): weight ~ N(0, 1)
struct Embedding {
    Tensor<2> weight;  // [num, C]
    Embedding(Generator& gen, std::size_t num_embeddings, std::size_t embedding_dim, Init init = Init::draw);
    Tensor<3> operator()(const IdArray<2>& ids) const;  // ids [B, T] -> [B, T, C]
    Tensor<2> operator()(const IdArray<1>& ids) const;  // ids [T] -> [T, C]
};

// 4.2: layer normalisation over the last dim, with trainable scale and shift
struct LayerNorm {
    double eps = 1e-5;  // a Python float, added to the variance as a float32
    Tensor<1> scale;  // [C], ones
    Tensor<1> shift;  // [C], zeros
    explicit LayerNorm(std::size_t emb_dim);
    Tensor<3> operator()(const Tensor<3>& x) const;  // [B, T, C] -> [B, T, C]
    Tensor<2> operator()(const Tensor<2>& x) const;  // [B, C] -> [B, C]
    // In place over `rows` rows of C floats, through the fused kernel (layer_norm_rows,
    // fast/kernels.hpp), bit for bit what operator() computes: for the generation paths.
    void forward_rows(float* x, std::size_t rows) const;
};

// 4.3: GELU, the tanh approximation, op for op as the book's class computes it
template <std::size_t N>
Tensor<N> gelu(const Tensor<N>& x) {
    Array<0> c;
    c() = std::sqrt(static_cast<float>(2.0 / M_PI));  // torch.sqrt(torch.tensor(2.0 / torch.pi))
    // 0.5 * x * (1 + torch.tanh(c * (x + 0.044715 * torch.pow(x, 3))))
    return 0.5 * x * (1.0 + tanh(Tensor<0>(c) * (x + 0.044715 * pow3(x))));
}

// 4.3: Linear(C, 4C) -> GELU -> Linear(4C, C)
struct FeedForward {
    Linear fc1, fc2;
    FeedForward(Generator& gen, const GPTConfig& cfg, Init init = Init::draw);
    Tensor<3> operator()(const Tensor<3>& x) const;  // [B, T, C] -> [B, T, C]
    std::size_t num_parameters() const { return fc1.num_parameters() + fc2.num_parameters(); }
};

// 4.5: pre-LayerNorm attention and feed-forward, each with dropout and a shortcut
struct TransformerBlock {
    MultiHeadAttention att;
    FeedForward ff;
    LayerNorm norm1, norm2;
    Dropout drop_shortcut;
    TransformerBlock(Generator& gen, const GPTConfig& cfg, Init init = Init::draw);
    Tensor<3> operator()(const Tensor<3>& x) const;  // [B, T, C] -> [B, T, C]
    void train(bool on);
    std::size_t num_parameters() const;
};

// 4.6: the GPT model
struct GPTModel {
    GPTConfig cfg;
    Embedding tok_emb;  // [V, C]
    Embedding pos_emb;  // [context_length, C]
    Dropout drop_emb;
    std::vector<TransformerBlock> trf_blocks;
    LayerNorm final_norm;
    Linear out_head;  // C -> V, no bias

    // progress(i, n) is called after each of the n transformer blocks is built (for long builds).
    GPTModel(Generator& gen, const GPTConfig& cfg, const std::function<void(std::size_t, std::size_t)>& progress = {});
    // Init::zeros: every parameter zero (LayerNorm ones/zeros as always), nothing drawn: the model
    // load_weights_into_gpt (nn/safetensors.hpp) then fills. `gen` is only kept for dropout.
    GPTModel(Generator& gen, const GPTConfig& cfg, Init init);
    Tensor<3> forward(const IdArray<2>& in_idx) const;  // [B, T] -> logits [B, T, V]
    void train(bool on);                                // model.train() / model.eval()
    std::size_t num_parameters() const;                 // sum(p.numel() for p in model.parameters())
};

// GPTModel(cfg, disable_causal_mask=True) of the ch06 bonus script additional_experiments.py:
// every block's attention without its causal mask (MultiHeadAttention::disable_causal_mask).
void disable_causal_mask(GPTModel& model);

// 4.1: the placeholder model: embeddings, dropout and the output head, identity blocks in between
struct DummyGPTModel {
    Embedding tok_emb, pos_emb;
    Dropout drop_emb;
    Linear out_head;
    DummyGPTModel(Generator& gen, const GPTConfig& cfg);
    Tensor<3> forward(const IdArray<2>& in_idx) const;  // [B, T] -> [B, T, V]
};

// torch.stack([torch.tensor(tokenizer.encode(t)) for t in texts], dim=0); texts must encode to
// the same number of tokens.  -> [B, T]
IdArray<2> encode_batch(const Gpt2Tokenizer& tokenizer, const std::vector<std::string>& texts);

// 4.7's choice of the next token from one row of logits [V]: torch.argmax(torch.softmax(logits,
// dim=-1)), the first index of the largest probability.
std::int64_t greedy_token(const float* logits, std::size_t vocab);

// idx[:, -context_size:]: the last context_size tokens of idx [B, T] (all of them if fewer).
IdArray<2> last_tokens(const IdArray<2>& idx, std::size_t context_size);

// 4.7: greedy decoding. idx [B, T] -> [B, T + max_new_tokens]; the model sees at most the last
// context_size tokens. on_token(step) is called after each new token. generate() with its defaults.
IdArray<2> generate_text_simple(const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens,
                                std::size_t context_size, const std::function<void(std::size_t)>& on_token = {});

// 5.3.3: the book's generate(model, idx, max_new_tokens, context_size, temperature, top_k, eos_id)
// (ch05 gpt_generate.py): generate_text_simple's loop with next_token's choice (top-k, temperature,
// multinomial drawing from gen), stopping before a token equal to options.eos_id. idx [B, T] ->
// [B, T + n], n <= max_new_tokens. on_token(step) is called after each appended token.
IdArray<2> generate(const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens, std::size_t context_size,
                    const SamplingOptions& options, Generator& gen, const std::function<void(std::size_t)>& on_token = {});

// The pieces every decoding loop shares (generate here, the fast and cached ones of kv_cache.hpp):
// Throws std::invalid_argument for bad options (check_sampling_options) or an eos_id outside the
// vocabulary or with a batch of more than one row (the book's `if idx_next == eos_id` needs one).
void check_generate_options(const SamplingOptions& options, std::size_t batch, std::size_t vocab);
// idx_next [B, 1] from last-position logits, row b at logits + b * row_stride ([B, V] rows). At
// temperature 0 it is 4.7's greedy_token (the argmax cannot be changed by top-k; generate()'s
// torch.argmax(logits) picks the same token unless softmax rounds two different largest logits to
// one probability), so greedy outputs stay generate_text_simple's; otherwise next_token per row,
// in row order (torch.multinomial on [B, V] draws row 0's exponentials first).
IdArray<2> next_token_ids(const float* logits, std::size_t batch, std::size_t row_stride, std::size_t vocab,
                          const SamplingOptions& options, Generator& gen);
// if idx_next == eos_id: break  (idx_next [1, 1])
bool is_eos(const IdArray<2>& idx_next, const SamplingOptions& options);

}  // namespace llmfs
