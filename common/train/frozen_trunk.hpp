// Chapter 6's frozen trunk, computed once per example. The chapter trains only the last block,
// final_norm and the head, with drop_rate 0.0: below the last block nothing changes and nothing is
// drawn, so an example's input to that block is the same at every step, evaluation and epoch.
// PyTorch computes it again each time; FrozenTrunk keeps it and runs only the blocks above:
//
//   PyTorch, every batch:   x = drop_emb(tok_emb(in_idx) + pos_emb(arange(T)))     # [B, T, C]
//                           x = trf_blocks[:first](x)                              # frozen: the same bits each time
//                           logits = out_head(final_norm(trf_blocks[first:](x)))
//   here:                   x[b] = kept[(ids[b], B)]   or, for a batch holding a row not kept,
//                                  the embeddings and trf_blocks[:first] of the whole batch, kept row by row
//                           logits = out_head(final_norm(trf_blocks[first:](x)))   # gpt_forward's code
//
// The same bits as gpt_forward, where OpenBLAS's sgemm gives an example's rows the same bits at
// every place of its batch: below `first` every other operation treats each example alone
// (LayerNorm by row, attention by example and head, GELU and the shortcuts by element). A row is
// reused only in a batch of the shape [B, T] it was computed in (the key holds B, and the ids T).
// Not every kernel does, nor at every shape: measured here (2026-12-07, OpenBLAS 0.3.21, rows of
// x [N, 768] @ W.T shifted), Haswell's and Zen's sgemm round a row by its place, keeping the bits
// only for moves by a multiple of 12 rows in a product of 960 (chapter 6's 8 x 120: every example's
// place) and of 14 in one of 56 (8 x 7: none); Prescott's changes the edge rows of an odd N;
// SkylakeX's, Cooperlake's, Sandybridge's and Nehalem's keep every row's bits at every place. So
// before it keeps anything for a batch shape, FrozenTrunk asks the kernel (places_keep_bits): the
// products of the trunk's Linear layers on random rows, and on the same rows with the examples
// rotated by one place, row for row (a rotation by one example chains every place to every other).
// A shape that fails runs every block, as PyTorch. frozen_trunk_test proves the result, under each
// of the 7 kernels this CPU runs. Valid while the weights below `first` stay as they were: the
// owner (train_classifier_simple, a program around it) keeps it no longer than the optimizer that
// leaves them frozen.
//
// LLMFS_TRUNK_CACHE=auto (unset), on or off: auto keeps up to a quarter of the physical memory (a
// batch past that is computed in full), on keeps every example, off keeps none (every batch
// through gpt_forward, as PyTorch). ch06's 1,494 messages of 120 tokens take 550 MB. Letters: B
// batch, T tokens, N = B * T, C emb_dim.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "llmfs/fast/settings.hpp"
#include "llmfs/nn/gpt.hpp"
#include "llmfs/train/gpt_backward.hpp"

namespace llmfs {

class FrozenTrunk {
public:
    // Keeps the input of trf_blocks[first_block] when first_block > 0 and no dropout of the
    // embeddings or of trf_blocks[0 .. first_block) has p > 0 (active()), for the batch shapes whose
    // places keep their bits (places_keep_bits); otherwise forward() is gpt_forward. `mode`:
    // LLMFS_TRUNK_CACHE's when unset. std::invalid_argument for a first_block past the model's blocks.
    explicit FrozenTrunk(const GPTModel& model, std::size_t first_block, std::optional<AutoOnOff> mode = std::nullopt);

    bool active() const { return active_; }
    // Why it keeps nothing ("" when active): "LLMFS_TRUNK_CACHE=off", "every block trains",
    // "dropout below the trained blocks".
    const std::string& off_reason() const { return off_reason_; }
    // A line for the programs' progress: "frozen trunk: blocks 0 to 10 computed once per message,
    // then kept" (and the batch shapes refused so far), or "frozen trunk off (REASON): every batch
    // runs every block".
    std::string describe() const;
    // A training run's progress line from the trunk: describe() when the training starts
    // (`training_done` false); when it is done, describe() again only if some batch shape ran every
    // block (the line names them), else nothing.
    void note_progress(const std::function<void(const std::string&)>& note, bool training_done) const;

    // Whether OpenBLAS gives each example's rows of a batch [B, T] the same bits at every place of
    // the batch in the trunk's products (each distinct Linear of trf_blocks[0], random rows, then
    // the examples rotated by one place): asked once per shape, remembered. true for B = 1.
    bool places_keep_bits(const GPTModel& model, std::size_t B, std::size_t T);
    std::size_t first_block() const { return first_; }

    // gpt_forward(model, in_idx, saved, StepKernels::fast): the same logits and the same activations
    // of trf_blocks[first_block ..], final_norm and out_head; the blocks below first_block keep
    // none (saved.blocks[l] empty) when active().
    void forward(const GPTModel& model, const IdArray<2>& in_idx, GPTSaved& saved);

    std::size_t rows_kept() const { return kept_.size(); }
    std::size_t batches_computed() const { return computed_; }  // batches that ran the trunk
    std::size_t batches_reused() const { return reused_; }      // batches served from kept rows only
    std::size_t batches_unkept() const { return unkept_; }      // batches of a shape whose places change bits

private:
    std::string key(const std::int64_t* ids, std::size_t B, std::size_t T) const;
    std::size_t first_;
    bool active_ = false;
    std::string off_reason_;
    std::size_t budget_floats_ = 0;  // the most floats kept
    std::size_t kept_floats_ = 0;
    std::unordered_map<std::string, std::vector<float>> kept_;  // key -> [T, C]
    std::size_t computed_ = 0, reused_ = 0, unkept_ = 0;
    std::map<std::pair<std::size_t, std::size_t>, bool> shapes_;  // [B, T] -> places_keep_bits
};

}  // namespace llmfs
