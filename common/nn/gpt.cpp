#include "llmfs/nn/gpt.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "llmfs/fast/kernels.hpp"
#include "llmfs/fast/memory.hpp"

namespace llmfs {

GPTConfig GPTConfig::by_name(const std::string& name) {
    for (const Gpt2Size& size : kGpt2Sizes)
        if (name == size.name) return with(size);
    throw std::invalid_argument("unknown model '" + name + "' (expected gpt2-small, gpt2-medium, gpt2-large or gpt2-xl)");
}

// ---- Embedding ---------------------------------------------------------------------------------

Embedding::Embedding(Generator& gen, std::size_t num_embeddings, std::size_t embedding_dim, Init init)
    : weight(Tensor<2>::parameter(Array<2>::from_shape({num_embeddings, embedding_dim}))) {
    if (init == Init::zeros) {  // torch.zeros: no draw
        prefault(weight.data.data(), weight.data.size() * sizeof(float));  // the pages, from two threads
        std::memset(weight.data.data(), 0, weight.data.size() * sizeof(float));
        return;
    }
    prefault(weight.data.data(), weight.data.size() * sizeof(float));
    init_embedding_(gen, weight.data.data(), num_embeddings, embedding_dim);
}

namespace {
// weight[ids]: one row per id, into out (contiguous rows of C floats)
void gather_rows(const Array<2>& weight, const std::int64_t* ids, std::size_t count, float* out) {
    const std::size_t num = weight.shape()[0], dim = weight.shape()[1];
    for (std::size_t i = 0; i < count; ++i) {
        if (ids[i] < 0 || static_cast<std::size_t>(ids[i]) >= num)
            throw std::out_of_range("Embedding: index " + std::to_string(ids[i]) + " is out of range for " +
                                    std::to_string(num) + " embeddings");
        const float* row = weight.data() + static_cast<std::size_t>(ids[i]) * dim;
        std::copy(row, row + dim, out + i * dim);
    }
}
}  // namespace

Tensor<3> Embedding::operator()(const IdArray<2>& ids) const {
    Array<3> out = Array<3>::from_shape({ids.shape()[0], ids.shape()[1], weight.data.shape()[1]});
    gather_rows(weight.data, ids.data(), ids.size(), out.data());
    return {std::move(out), "EmbeddingBackward0"};
}

Tensor<2> Embedding::operator()(const IdArray<1>& ids) const {
    Array<2> out = Array<2>::from_shape({ids.shape()[0], weight.data.shape()[1]});
    gather_rows(weight.data, ids.data(), ids.size(), out.data());
    return {std::move(out), "EmbeddingBackward0"};
}

// ---- LayerNorm ---------------------------------------------------------------------------------

LayerNorm::LayerNorm(std::size_t emb_dim)
    : scale(Tensor<1>::parameter(xt::ones<float>({emb_dim}))),    // nn.Parameter(torch.ones(emb_dim))
      shift(Tensor<1>::parameter(xt::zeros<float>({emb_dim}))) {}  // nn.Parameter(torch.zeros(emb_dim))

namespace {
template <std::size_t N>
Tensor<N> layer_norm(const LayerNorm& ln, const Tensor<N>& x) {
    const auto mean = mean_keepdim(x, -1);                        // [..., 1]
    const auto var = var_keepdim(x, -1, /*unbiased=*/false);      // [..., 1]
    const auto norm_x = (x - mean) / sqrt(var + ln.eps);          // [..., C]
    return ln.scale * norm_x + ln.shift;                          // self.scale * norm_x + self.shift
}
}  // namespace

Tensor<3> LayerNorm::operator()(const Tensor<3>& x) const { return layer_norm(*this, x); }
Tensor<2> LayerNorm::operator()(const Tensor<2>& x) const { return layer_norm(*this, x); }

void LayerNorm::forward_rows(float* x, std::size_t rows) const {
    layer_norm_rows(x, rows, scale.data.size(), scale.data.data(), shift.data.data(), static_cast<float>(eps));
}

// ---- FeedForward, TransformerBlock -------------------------------------------------------------

FeedForward::FeedForward(Generator& gen, const GPTConfig& cfg, Init init)
    : fc1(gen, cfg.emb_dim, 4 * cfg.emb_dim, true, init), fc2(gen, 4 * cfg.emb_dim, cfg.emb_dim, true, init) {}

Tensor<3> FeedForward::operator()(const Tensor<3>& x) const {
    return fc2(gelu(fc1(x)));  // [B, T, C] -> [B, T, 4C] -> [B, T, C]
}

TransformerBlock::TransformerBlock(Generator& gen, const GPTConfig& cfg, Init init)
    : att(gen, cfg.emb_dim, cfg.emb_dim, cfg.context_length, cfg.drop_rate, cfg.n_heads, cfg.qkv_bias, init),
      ff(gen, cfg, init),
      norm1(cfg.emb_dim),
      norm2(cfg.emb_dim),
      drop_shortcut(gen, cfg.drop_rate) {}

Tensor<3> TransformerBlock::operator()(const Tensor<3>& x) const {
    // shortcut connection for the attention block
    auto h = x + drop_shortcut(att.forward(norm1(x)));  // [B, T, C]
    // shortcut connection for the feed-forward block
    return h + drop_shortcut(ff(norm2(h)));
}

void TransformerBlock::train(bool on) {
    att.train(on);
    drop_shortcut.train(on);
}

std::size_t TransformerBlock::num_parameters() const {
    return att.num_parameters() + ff.num_parameters() + 2 * norm1.scale.data.size() + 2 * norm2.scale.data.size();
}

// ---- GPTModel ----------------------------------------------------------------------------------

void disable_causal_mask(GPTModel& model) {
    for (TransformerBlock& block : model.trf_blocks) block.att.disable_causal_mask();
}

GPTModel::GPTModel(Generator& gen, const GPTConfig& config, const std::function<void(std::size_t, std::size_t)>& progress)
    : cfg(config),
      tok_emb(gen, cfg.vocab_size, cfg.emb_dim),
      pos_emb(gen, cfg.context_length, cfg.emb_dim),
      drop_emb(gen, cfg.drop_rate),
      trf_blocks([&] {
          std::vector<TransformerBlock> blocks;
          blocks.reserve(cfg.n_layers);
          for (std::size_t i = 0; i < cfg.n_layers; ++i) {
              blocks.emplace_back(gen, cfg);
              if (progress) progress(i + 1, cfg.n_layers);
          }
          return blocks;
      }()),
      final_norm(cfg.emb_dim),
      out_head(gen, cfg.emb_dim, cfg.vocab_size, /*with_bias=*/false) {}

GPTModel::GPTModel(Generator& gen, const GPTConfig& config, Init init)
    : cfg(config),
      tok_emb(gen, cfg.vocab_size, cfg.emb_dim, init),
      pos_emb(gen, cfg.context_length, cfg.emb_dim, init),
      drop_emb(gen, cfg.drop_rate),
      trf_blocks([&] {
          std::vector<TransformerBlock> blocks;
          blocks.reserve(cfg.n_layers);
          for (std::size_t i = 0; i < cfg.n_layers; ++i) blocks.emplace_back(gen, cfg, init);
          return blocks;
      }()),
      final_norm(cfg.emb_dim),
      out_head(gen, cfg.emb_dim, cfg.vocab_size, /*with_bias=*/false, init) {}

namespace {
// tok_emb(in_idx) + pos_emb(torch.arange(seq_len)), checked against the context length
Tensor<3> embed(const Embedding& tok_emb, const Embedding& pos_emb, const IdArray<2>& in_idx) {
    const std::size_t seq_len = in_idx.shape()[1];
    const std::size_t context_length = pos_emb.weight.data.shape()[0];
    if (seq_len > context_length)
        throw std::invalid_argument("sequence of " + std::to_string(seq_len) + " tokens exceeds the context length " +
                                    std::to_string(context_length));
    const IdArray<1> positions = xt::arange<std::int64_t>(static_cast<std::int64_t>(seq_len));
    return tok_emb(in_idx) + pos_emb(positions);  // [B, T, C] + [T, C]
}
}  // namespace

Tensor<3> GPTModel::forward(const IdArray<2>& in_idx) const {
    auto x = drop_emb(embed(tok_emb, pos_emb, in_idx));  // [B, T, C]
    for (const auto& block : trf_blocks) x = block(x);
    return out_head(final_norm(x));  // [B, T, V]
}

void GPTModel::train(bool on) {
    drop_emb.train(on);
    for (auto& block : trf_blocks) block.train(on);
}

std::size_t GPTModel::num_parameters() const {
    std::size_t total = tok_emb.weight.data.size() + pos_emb.weight.data.size() + 2 * final_norm.scale.data.size() +
                        out_head.num_parameters();
    for (const auto& block : trf_blocks) total += block.num_parameters();
    return total;
}

DummyGPTModel::DummyGPTModel(Generator& gen, const GPTConfig& cfg)
    : tok_emb(gen, cfg.vocab_size, cfg.emb_dim),
      pos_emb(gen, cfg.context_length, cfg.emb_dim),
      drop_emb(gen, cfg.drop_rate),
      out_head(gen, cfg.emb_dim, cfg.vocab_size, /*with_bias=*/false) {}

Tensor<3> DummyGPTModel::forward(const IdArray<2>& in_idx) const {
    // DummyTransformerBlock and DummyLayerNorm return their input unchanged.
    return out_head(drop_emb(embed(tok_emb, pos_emb, in_idx)));
}

IdArray<2> encode_batch(const Gpt2Tokenizer& tokenizer, const std::vector<std::string>& texts) {
    std::vector<std::vector<std::int64_t>> rows;
    for (const auto& text : texts) rows.push_back(tokenizer.encode(text));
    if (rows.empty()) throw std::invalid_argument("encode_batch: no texts");
    IdArray<2> batch = IdArray<2>::from_shape({rows.size(), rows.front().size()});
    for (std::size_t b = 0; b < rows.size(); ++b) {
        if (rows[b].size() != rows.front().size())
            throw ShapeError("stack expects each tensor to be equal size, but got [" + std::to_string(rows.front().size()) +
                             "] and [" + std::to_string(rows[b].size()) + "]");
        std::copy(rows[b].begin(), rows[b].end(), &batch(b, 0));
    }
    return batch;
}

// ---- generation --------------------------------------------------------------------------------

std::int64_t greedy_token(const float* logits, std::size_t vocab) {
    std::vector<float> probas(vocab);
    softmax_row(logits, probas.data(), vocab);  // torch.softmax(logits, dim=-1)
    return argmax(probas.data(), vocab);        // torch.argmax(probas): the first max (or NaN)
}

IdArray<2> last_tokens(const IdArray<2>& idx, std::size_t context_size) {
    const std::size_t n_tokens = idx.shape()[1];
    return xt::view(idx, xt::all(), xt::range(n_tokens > context_size ? n_tokens - context_size : 0, n_tokens));
}

IdArray<2> generate_text_simple(const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens,
                                std::size_t context_size, const std::function<void(std::size_t)>& on_token) {
    Generator unused;  // greedy decoding draws nothing
    return generate(model, std::move(idx), max_new_tokens, context_size, SamplingOptions{}, unused, on_token);
}

void check_generate_options(const SamplingOptions& options, std::size_t batch, std::size_t vocab) {
    check_sampling_options(options, vocab);
    if (!options.eos_id) return;
    if (*options.eos_id < 0 || static_cast<std::uint64_t>(*options.eos_id) >= vocab)
        throw std::invalid_argument("generate: eos_id " + std::to_string(*options.eos_id) + " must be a token id, 0 .. " +
                                    std::to_string(vocab - 1));
    if (batch != 1)
        throw std::invalid_argument("generate: eos_id needs a batch of one sequence (got " + std::to_string(batch) + ")");
}

IdArray<2> next_token_ids(const float* logits, std::size_t batch, std::size_t row_stride, std::size_t vocab,
                          const SamplingOptions& options, Generator& gen) {
    IdArray<2> next = IdArray<2>::from_shape({batch, 1});
    for (std::size_t b = 0; b < batch; ++b) {
        const float* row = logits + b * row_stride;  // logits[b, -1, :]
        next(b, 0) = options.greedy() ? greedy_token(row, vocab) : next_token(row, vocab, options, gen);
    }
    return next;
}

bool is_eos(const IdArray<2>& idx_next, const SamplingOptions& options) {
    return options.eos_id && idx_next.size() == 1 && idx_next(0, 0) == *options.eos_id;
}

IdArray<2> generate(const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens, std::size_t context_size,
                    const SamplingOptions& options, Generator& gen, const std::function<void(std::size_t)>& on_token) {
    const std::size_t batch = idx.shape()[0];
    check_generate_options(options, batch, model.cfg.vocab_size);
    for (std::size_t step = 0; step < max_new_tokens; ++step) {
        const IdArray<2> idx_cond = last_tokens(idx, context_size);  // idx[:, -context_size:]
        const auto logits = model.forward(idx_cond);                 // [B, T, V]
        const std::size_t t_last = logits.size(1) - 1, vocab = logits.size(2);
        // logits = logits[:, -1, :]; top-k, temperature, multinomial or argmax -> idx_next [B, 1]
        const IdArray<2> next = next_token_ids(&logits.data(0, t_last, 0), batch, logits.size(1) * vocab, vocab, options, gen);
        if (is_eos(next, options)) break;                  // if idx_next == eos_id: break
        idx = xt::concatenate(xt::xtuple(idx, next), 1);  // torch.cat((idx, idx_next), dim=1)
        if (on_token) on_token(step + 1);
    }
    return idx;
}

}  // namespace llmfs
