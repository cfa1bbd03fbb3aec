#include "llmfs/train/gpt_backward.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

#include <xtensor/xadapt.hpp>

#include "llmfs/nn/gpt_checkpoint.hpp"
#include "llmfs/torch/loss.hpp"
#include "llmfs/train/backward.hpp"
#include "llmfs/fast/kernels.hpp"
#include "llmfs/fast/thread_pool.hpp"

namespace llmfs {

namespace {

constexpr std::size_t kElements = std::size_t{1} << 15;  // floats a chunk of an elementwise pass on the pool

std::vector<float> values_of(const Array<3>& a) { return std::vector<float>(a.begin(), a.end()); }

// dropout(x) keeping its mask: x * noise, the mask drawn as Dropout's operator() draws it
Array<3> dropout_saving(const Dropout& dropout, const Array<3>& x, std::vector<float>& noise) {
    noise.clear();
    if (dropout.p() == 0.0 || !dropout.training() || x.size() == 0) return x;
    noise.resize(x.size());
    dropout.draw_noise(noise.data(), noise.size());
    Array<3> out = x;
    for (std::size_t i = 0; i < out.size(); ++i) out.data()[i] = x.data()[i] * noise[i];
    return out;
}

void dropout_backward(const std::vector<float>& noise, std::vector<float>& g) {
    for (std::size_t i = 0; i < noise.size(); ++i) g[i] *= noise[i];  // MulBackward0: grad * noise
}

void gpt_forward_reference(const GPTModel& model, const IdArray<2>& in_idx, GPTSaved& s) {
    const std::size_t B = in_idx.shape()[0], T = in_idx.shape()[1];
    s.B = B, s.T = T;
    s.ids.assign(in_idx.begin(), in_idx.end());
    const IdArray<1> positions = xt::arange<std::int64_t>(static_cast<std::int64_t>(T));
    const Tensor<3> embedded = model.tok_emb(in_idx) + model.pos_emb(positions);  // tok_embeds + pos_embeds
    Array<3> x = dropout_saving(model.drop_emb, embedded.data, s.noise_emb);      // [B, T, C]
    s.blocks.resize(model.trf_blocks.size());
    for (std::size_t l = 0; l < model.trf_blocks.size(); ++l) {
        const TransformerBlock& block = model.trf_blocks[l];
        BlockSaved& bs = s.blocks[l];
        bs.x_in = values_of(x);
        const Tensor<3> att = attention_forward(block.att, block.norm1(Tensor<3>(x)), bs.att);
        const Array<3> mid = xt::eval(x + dropout_saving(block.drop_shortcut, att.data, bs.noise_att));  // x + shortcut
        bs.x_mid = values_of(mid);
        const Tensor<3> normed2 = block.norm2(Tensor<3>(mid));
        bs.normed2 = values_of(normed2.data);
        const Tensor<3> u = block.ff.fc1(normed2);
        bs.u = values_of(u.data);
        const Tensor<3> h = gelu(u);
        bs.h = values_of(h.data);
        const Tensor<3> ff = block.ff.fc2(h);
        x = xt::eval(mid + dropout_saving(block.drop_shortcut, ff.data, bs.noise_ff));
    }
    s.x_final = values_of(x);
    const Tensor<3> normed = model.final_norm(Tensor<3>(x));
    s.normed = values_of(normed.data);
    const Tensor<3> logits = model.out_head(normed);  // [B, T, V]
    s.logits = values_of(logits.data);
}

float gpt_loss_backward_reference(const GPTModel& model, const GPTSaved& s, const std::int64_t* targets, GPTGrads& g) {
    const std::size_t N = s.B * s.T, C = model.cfg.emb_dim, V = model.cfg.vocab_size;
    std::vector<float> dlogits(N * V);
    const float loss = cross_entropy_backward(s.logits.data(), N, V, targets, dlogits.data());  // the loss, NllLossBackward0, LogSoftmaxBackward0
    // out_head (no bias), then final_norm
    std::vector<float> dnormed(N * C), dx(N * C);
    g.out_head.assign(V * C, 0.0f);
    linear_backward(s.normed.data(), model.out_head.weight.data.data(), dlogits.data(), N, C, V, dnormed.data(), g.out_head.data(), nullptr);
    g.final_scale.assign(C, 0.0f);
    g.final_shift.assign(C, 0.0f);
    layer_norm_backward(s.x_final.data(), model.final_norm.scale.data.data(), dnormed.data(), N, C, static_cast<float>(model.final_norm.eps),
                        dx.data(), g.final_scale.data(), g.final_shift.data(), false);
    // the blocks, last first; dx is the gradient of the block's output, then of its input
    g.blocks.resize(model.trf_blocks.size());
    BlockBackwardBuffers buffers;
    for (std::size_t l = model.trf_blocks.size(); l-- > 0;)
        block_backward(model.trf_blocks[l], s.blocks[l], N, dx.data(), g.blocks[l], StepKernels::reference, buffers);
    embeddings_backward(model, s, dx, g.tok_emb, g.pos_emb);
    return loss;
}

// ---- the fast step: the same operations, fewer passes, the pool's threads, buffers reused ----------

// dropout(v) in place keeping its mask, as dropout_saving (nothing drawn when it is off).
void dropout_in_place(const Dropout& dropout, float* v, std::size_t n, std::vector<float>& noise) {
    noise.clear();
    if (dropout.p() == 0.0 || !dropout.training() || n == 0) return;
    noise.resize(n);
    dropout.draw_noise(noise.data(), n);
    for_ranges(n, kElements, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) v[i] *= noise[i];  // x * noise
    });
}

// out = a + b, element by element (b already dropped out).
void add_into(const float* a, const float* b, float* out, std::size_t n) {
    for_ranges(n, kElements, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) out[i] = a[i] + b[i];
    });
}

// branch = g * noise (MulBackward0), or g itself without dropout.
void dropout_backward_into(const std::vector<float>& noise, const float* g, float* branch, std::size_t n) {
    for_ranges(n, kElements, [&](std::size_t first, std::size_t last) {
        if (noise.empty()) return static_cast<void>(std::copy(g + first, g + last, branch + first));
        for (std::size_t i = first; i < last; ++i) branch[i] = g[i] * noise[i];
    });
}

// norm(x) over N rows of C, in place: LayerNorm::forward_rows (its operator()'s bits), rows on the pool.
void layer_norm_pooled(const LayerNorm& norm, float* x, std::size_t N, std::size_t C) {
    for_ranges(N, 16, [&](std::size_t first, std::size_t last) { norm.forward_rows(x + first * C, last - first); });
}

void gpt_forward_fast(const GPTModel& model, const IdArray<2>& in_idx, GPTSaved& s) {
    std::vector<float> x, branch;  // [N, C]: the residual stream, a branch's output
    embeddings_forward_fast(model, in_idx, s, x);
    s.blocks.resize(model.trf_blocks.size());
    for (std::size_t l = 0; l < model.trf_blocks.size(); ++l) block_forward_fast(model.trf_blocks[l], s.B, s.T, x, s.blocks[l], branch);
    head_forward_fast(model, x, s);
}

float gpt_loss_backward_fast(const GPTModel& model, const GPTSaved& s, const std::int64_t* targets, GPTGrads& g) {
    const std::size_t N = s.B * s.T, C = model.cfg.emb_dim, V = model.cfg.vocab_size;
    thread_local std::vector<float> dlogits;  // [N, V], the calling thread's, reused
    dlogits.resize(N * V);
    const RowRunner on_pool = [](std::size_t n, const std::function<void(std::size_t)>& fn) { compute_pool().run(n, fn); };
    const float loss = cross_entropy_backward(s.logits.data(), N, V, targets, dlogits.data(), on_pool);
    std::vector<float> dnormed(N * C), dx(N * C);
    g.out_head.resize(V * C);
    linear_backward(s.normed.data(), model.out_head.weight.data.data(), dlogits.data(), N, C, V, dnormed.data(), g.out_head.data(), nullptr);
    g.final_scale.resize(C);
    g.final_shift.resize(C);
    layer_norm_backward_fast(s.x_final.data(), model.final_norm.scale.data.data(), dnormed.data(), N, C,
                             static_cast<float>(model.final_norm.eps), dx.data(), g.final_scale.data(), g.final_shift.data(), false);
    g.blocks.resize(model.trf_blocks.size());
    BlockBackwardBuffers buffers;
    for (std::size_t l = model.trf_blocks.size(); l-- > 0;)
        block_backward(model.trf_blocks[l], s.blocks[l], N, dx.data(), g.blocks[l], StepKernels::fast, buffers);
    embeddings_backward(model, s, dx, g.tok_emb, g.pos_emb);
    return loss;
}

}  // namespace

void embeddings_forward_fast(const GPTModel& model, const IdArray<2>& in_idx, GPTSaved& s, std::vector<float>& x) {
    const std::size_t B = in_idx.shape()[0], T = in_idx.shape()[1], C = model.cfg.emb_dim, N = B * T;
    s.B = B, s.T = T;
    s.ids.assign(in_idx.begin(), in_idx.end());
    x.resize(N * C);
    const float* tok = model.tok_emb.weight.data.data();
    const float* pos = model.pos_emb.weight.data.data();
    for (std::size_t i = 0; i < N; ++i) {  // tok_embeds + pos_embeds
        if (s.ids[i] < 0 || static_cast<std::size_t>(s.ids[i]) >= model.cfg.vocab_size)
            throw std::invalid_argument("gpt_forward: token id " + std::to_string(s.ids[i]) + " is out of range for " +
                                        std::to_string(model.cfg.vocab_size) + " embeddings");
        const float* t = tok + static_cast<std::size_t>(s.ids[i]) * C;
        const float* p = pos + (i % T) * C;
        for (std::size_t c = 0; c < C; ++c) x[i * C + c] = t[c] + p[c];
    }
    dropout_in_place(model.drop_emb, x.data(), N * C, s.noise_emb);  // drop_emb
}

void block_forward_fast(const TransformerBlock& block, std::size_t B, std::size_t T, std::vector<float>& x, BlockSaved& bs,
                        std::vector<float>& branch) {
    const std::size_t C = block.norm1.scale.data.size(), N = B * T, H = block.ff.fc1.out_features();
    branch.resize(N * C);
    bs.x_in.assign(x.begin(), x.end());
    std::vector<float>& normed1 = bs.normed2;  // norm1's output, kept by the attention (att.x); normed2's buffer lent meanwhile
    normed1.assign(x.begin(), x.end());
    layer_norm_pooled(block.norm1, normed1.data(), N, C);
    attention_forward_fast(block.att, normed1.data(), B, T, bs.att, branch.data());
    dropout_in_place(block.drop_shortcut, branch.data(), N * C, bs.noise_att);
    bs.x_mid.resize(N * C);
    add_into(x.data(), branch.data(), bs.x_mid.data(), N * C);  // x + shortcut
    bs.normed2.assign(bs.x_mid.begin(), bs.x_mid.end());
    layer_norm_pooled(block.norm2, bs.normed2.data(), N, C);
    bs.u.resize(N * H);
    linear_forward(block.ff.fc1, bs.normed2.data(), N, bs.u.data());
    bs.h.assign(bs.u.begin(), bs.u.end());
    for_ranges(N * H, kElements, [&](std::size_t first, std::size_t last) { gelu_inplace(bs.h.data() + first, last - first); });
    linear_forward(block.ff.fc2, bs.h.data(), N, branch.data());
    dropout_in_place(block.drop_shortcut, branch.data(), N * C, bs.noise_ff);
    add_into(bs.x_mid.data(), branch.data(), x.data(), N * C);
}

void head_forward_fast(const GPTModel& model, const std::vector<float>& x, GPTSaved& s) {
    const std::size_t N = s.B * s.T, C = model.cfg.emb_dim;
    s.x_final.assign(x.begin(), x.end());
    s.normed.assign(x.begin(), x.end());
    layer_norm_pooled(model.final_norm, s.normed.data(), N, C);
    s.logits.resize(N * model.out_head.out_features());
    linear_forward(model.out_head, s.normed.data(), N, s.logits.data());  // [B, T, V]
}

void embeddings_backward(const GPTModel& model, const GPTSaved& s, std::vector<float>& dx, std::vector<float>& tok_emb,
                         std::vector<float>& pos_emb) {
    const std::size_t N = s.B * s.T, V = model.cfg.vocab_size, C = model.cfg.emb_dim;
    dropout_backward(s.noise_emb, dx);  // drop_emb
    tok_emb.resize(model.tok_emb.weight.data.size());  // both set in full below
    pos_emb.resize(model.pos_emb.weight.data.size());
    embedding_backward(s.ids.data(), dx.data(), N, V, C, tok_emb.data());
    position_embedding_backward(dx.data(), s.B, s.T, C, model.cfg.context_length, pos_emb.data());
}

void block_backward(const TransformerBlock& block, const BlockSaved& bs, std::size_t N, float* dx, BlockGrads& bg, StepKernels kernels,
                    BlockBackwardBuffers& buf, bool input_grad) {
    const bool fast = kernels == StepKernels::fast;  // the same float operations, on the pool (backward.hpp)
    const auto layer_norm_back = fast ? layer_norm_backward_fast : layer_norm_backward;
    const auto gelu_back = fast ? gelu_backward_fast : gelu_backward;
    const auto attention_back = fast ? attention_backward_fast : attention_backward;
    const std::size_t C = block.norm1.scale.data.size(), H = block.ff.fc1.out_features();
    buf.branch.resize(N * C);  // every buffer is set before it is read
    buf.dnorm.resize(N * C);
    buf.dh.resize(N * H);
    buf.du.resize(N * H);
    // x = x + drop_shortcut(ff(norm2(x))): x_mid's gradient starts as dx (the shortcut's); the branch
    // gets dx * mask (MulBackward0)
    dropout_backward_into(bs.noise_ff, dx, buf.branch.data(), N * C);
    linear_layer_backward(block.ff.fc2, bs.h.data(), buf.branch.data(), N, buf.dh.data(), bg.fc2);        // [N, 4C]
    gelu_back(bs.u.data(), buf.dh.data(), buf.du.data(), N * H);                                           // [N, 4C]
    linear_layer_backward(block.ff.fc1, bs.normed2.data(), buf.du.data(), N, buf.dnorm.data(), bg.fc1);  // [N, C]
    bg.norm2_scale.assign(C, 0.0f);
    bg.norm2_shift.assign(C, 0.0f);
    layer_norm_back(bs.x_mid.data(), block.norm2.scale.data.data(), buf.dnorm.data(), N, C, static_cast<float>(block.norm2.eps), dx,
                    bg.norm2_scale.data(), bg.norm2_shift.data(), /*accumulate=*/true);
    // x = x + drop_shortcut(att(norm1(x))), the same way
    dropout_backward_into(bs.noise_att, dx, buf.branch.data(), N * C);
    if (!input_grad) {  // autograd stops at the attention's weights (or adapters): norm1's output gets no gradient
        attention_back(block.att, bs.att, buf.branch.data(), nullptr, bg.att);
        return;
    }
    attention_back(block.att, bs.att, buf.branch.data(), buf.dnorm.data(), bg.att);
    bg.norm1_scale.assign(C, 0.0f);
    bg.norm1_shift.assign(C, 0.0f);
    layer_norm_back(bs.x_in.data(), block.norm1.scale.data.data(), buf.dnorm.data(), N, C, static_cast<float>(block.norm1.eps), dx,
                    bg.norm1_scale.data(), bg.norm1_shift.data(), /*accumulate=*/true);
}

void check_sequence_fits(const GPTModel& model, std::size_t T) {
    if (T > model.cfg.context_length)
        throw std::invalid_argument("sequence of " + std::to_string(T) + " tokens exceeds the context length " +
                                    std::to_string(model.cfg.context_length));
}

void gpt_forward(const GPTModel& model, const IdArray<2>& in_idx, GPTSaved& saved, StepKernels kernels) {
    check_sequence_fits(model, in_idx.shape()[1]);
    kernels == StepKernels::fast ? gpt_forward_fast(model, in_idx, saved) : gpt_forward_reference(model, in_idx, saved);
}

float gpt_loss_backward(const GPTModel& model, const GPTSaved& saved, const std::int64_t* targets, GPTGrads& grads, StepKernels kernels) {
    return kernels == StepKernels::fast ? gpt_loss_backward_fast(model, saved, targets, grads)
                                        : gpt_loss_backward_reference(model, saved, targets, grads);
}

// The parameters of model.state_dict()'s list (nn/gpt_checkpoint), without the mask buffers.
std::vector<ParameterView> named_parameters(GPTModel& model) {
    std::vector<ParameterView> out;
    for (const auto& e : gpt_state_entries(model)) {
        if (e.buffer) continue;
        std::size_t n = 1;
        for (const auto d : e.shape) n *= static_cast<std::size_t>(d);
        out.push_back({e.name, e.data, n});
    }
    return out;
}

void append_block_gradients(std::vector<std::pair<std::string, const std::vector<float>*>>& out, const std::string& p,
                            const BlockGrads& b) {
    auto linear = [&](const std::string& name, const LinearGrads& lin) {
        out.push_back({name + ".weight", &lin.weight});
        if (!lin.bias.empty()) out.push_back({name + ".bias", &lin.bias});
    };
    linear(p + "att.W_query", b.att.W_query);
    linear(p + "att.W_key", b.att.W_key);
    linear(p + "att.W_value", b.att.W_value);
    linear(p + "att.out_proj", b.att.out_proj);
    linear(p + "ff.layers.0", b.fc1);
    linear(p + "ff.layers.2", b.fc2);
    out.push_back({p + "norm1.scale", &b.norm1_scale});
    out.push_back({p + "norm1.shift", &b.norm1_shift});
    out.push_back({p + "norm2.scale", &b.norm2_scale});
    out.push_back({p + "norm2.shift", &b.norm2_shift});
}

std::vector<std::pair<std::string, const std::vector<float>*>> named_gradients(const GPTGrads& g) {
    std::vector<std::pair<std::string, const std::vector<float>*>> out{{"tok_emb.weight", &g.tok_emb}, {"pos_emb.weight", &g.pos_emb}};
    for (std::size_t l = 0; l < g.blocks.size(); ++l) append_block_gradients(out, "trf_blocks." + std::to_string(l) + ".", g.blocks[l]);
    out.push_back({"final_norm.scale", &g.final_scale});
    out.push_back({"final_norm.shift", &g.final_shift});
    out.push_back({"out_head.weight", &g.out_head});
    return out;
}

}  // namespace llmfs
