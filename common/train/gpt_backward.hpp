// The book's GPTModel in training mode: a forward that keeps what the backward needs, the loss,
// and the backward through every layer, as autograd computes them on a CPU (the per-layer passes:
// backward.hpp, attention_backward.hpp). Letters: B batch, T tokens, N = B * T rows, C = emb_dim,
// V vocabulary. Gradients of a tensor used twice are added in autograd's arrival order: a block's
// input gets ((shortcut's + norm's Sub) + Var) + Mean, norm1's output (V's + Q's) + K's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "llmfs/nn/gpt.hpp"
#include "llmfs/train/attention_backward.hpp"

namespace llmfs {

struct BlockSaved {
    std::vector<float> x_in;       // [N, C] the block's input: norm1's input and the first shortcut
    AttentionSaved att;            // norm1's output is att.x
    std::vector<float> noise_att;  // [N, C] drop_shortcut's mask after the attention (empty: none)
    std::vector<float> x_mid;      // [N, C] after the first shortcut: norm2's input
    std::vector<float> normed2;    // [N, C] norm2's output, fc1's input
    std::vector<float> u;          // [N, 4C] fc1's output, GELU's input
    std::vector<float> h;          // [N, 4C] GELU's output, fc2's input
    std::vector<float> noise_ff;   // [N, C] drop_shortcut's mask after the feed-forward
};

struct GPTSaved {
    std::size_t B = 0, T = 0;
    std::vector<std::int64_t> ids;    // [N]
    std::vector<float> noise_emb;     // [N, C] drop_emb's mask (empty: none)
    std::vector<BlockSaved> blocks;
    std::vector<float> x_final;       // [N, C] final_norm's input
    std::vector<float> normed;        // [N, C] out_head's input
    std::vector<float> logits;        // [N, V]
};

struct BlockGrads {
    AttentionGrads att;
    LinearGrads fc1, fc2;
    std::vector<float> norm1_scale, norm1_shift, norm2_scale, norm2_shift;
};

// One gradient per parameter, in model.parameters() order when walked as the fields are listed.
struct GPTGrads {
    std::vector<float> tok_emb, pos_emb;
    std::vector<BlockGrads> blocks;
    std::vector<float> final_scale, final_shift, out_head;
};

// One parameter of the model, as model.named_parameters() yields them.
struct ParameterView {
    std::string name;
    float* data;
    std::size_t size;
};
std::vector<ParameterView> named_parameters(GPTModel& model);
// The gradients in the same order (names as named_parameters gives them).
std::vector<std::pair<std::string, const std::vector<float>*>> named_gradients(const GPTGrads& grads);
// One block's gradients, named as its parameters with `prefix` ("trf_blocks.3."), appended to `out`
// in named_parameters() order.
void append_block_gradients(std::vector<std::pair<std::string, const std::vector<float>*>>& out, const std::string& prefix,
                            const BlockGrads& block);

// Which code runs the step: the teaching modules (the chapter's Tensor operations, each layer's
// reference backward), or the fast kernels (the same float operations in the same order, so the
// same bits: gpt_backward_test compares the two; fewer passes, the elementwise work and attention
// heads on compute_pool(), buffers reused from step to step, FMA instructions where the CPU has them).
enum class StepKernels { reference, fast };

// model(in_idx) in the mode the model is set to (train(): dropout draws its masks as the forward
// does), keeping the activations; the logits [B, T, V] are saved.logits, the bits of
// model.forward(in_idx). Throws std::invalid_argument for a sequence longer than the context.
void gpt_forward(const GPTModel& model, const IdArray<2>& in_idx, GPTSaved& saved, StepKernels kernels = StepKernels::fast);

// gpt_forward's check, for callers that run its parts: throws std::invalid_argument when T tokens
// exceed model.cfg.context_length (pos_emb has no row for them).
void check_sequence_fits(const GPTModel& model, std::size_t T);

// gpt_forward's fast path in its three parts, for a caller that starts above the first block
// (frozen_trunk.hpp): the embeddings into x [N, C] (tok_embeds + pos_embeds, drop_emb's mask into
// saved.noise_emb; sets saved.B, T, ids), one block on x in place (its activations into `bs`;
// branch [N, C] is scratch), and final_norm with out_head from x (saved.x_final, normed, logits).
void embeddings_forward_fast(const GPTModel& model, const IdArray<2>& in_idx, GPTSaved& saved, std::vector<float>& x);
void block_forward_fast(const TransformerBlock& block, std::size_t B, std::size_t T, std::vector<float>& x, BlockSaved& bs,
                        std::vector<float>& branch);
void head_forward_fast(const GPTModel& model, const std::vector<float>& x, GPTSaved& saved);

// Scratch of block_backward, reused from block to block.
struct BlockBackwardBuffers {
    std::vector<float> branch, dnorm;  // [N, C]
    std::vector<float> dh, du;         // [N, 4C]
};

// One TransformerBlock's backward (chapters 5 and 6, appendix E): dx [N, C] holds the gradient of
// the block's output and becomes its input's (shortcut's + norm1's, in autograd's order); `bg` gets
// every parameter's gradient (set), through the fc2, GELU, fc1, norm2, attention and norm1 passes
// of `kernels`. Without `input_grad` (nothing below trains and neither does norm1, as appendix E's
// lowest block) the pass stops at the attention's weights: dx and norm1's gradients are left as
// they are.
void block_backward(const TransformerBlock& block, const BlockSaved& saved, std::size_t N, float* dx, BlockGrads& bg, StepKernels kernels,
                    BlockBackwardBuffers& buffers, bool input_grad = true);

// Below the first block: dx [N, C], the gradient of the first block's input, through drop_emb's
// mask, into tok_emb [V, C] and pos_emb [context, C] (both set): tok_embeds + pos_embeds' backward.
void embeddings_backward(const GPTModel& model, const GPTSaved& saved, std::vector<float>& dx, std::vector<float>& tok_emb,
                         std::vector<float>& pos_emb);

// loss = cross_entropy(logits.flatten(0, 1), targets.flatten()) of the saved forward, then
// loss.backward() into `grads` (set, not accumulated). targets [N]. Returns the loss.
float gpt_loss_backward(const GPTModel& model, const GPTSaved& saved, const std::int64_t* targets, GPTGrads& grads,
                        StepKernels kernels = StepKernels::fast);

}  // namespace llmfs
