// Chapter 5's data, as the book's code prepares it (ch05/01_main-chapter-code/previous_chapters.py):
//
//   train_ratio = 0.90
//   split_idx = int(train_ratio * len(text_data))        # len counts Python characters (code points)
//   train_data, val_data = text_data[:split_idx], text_data[split_idx:]
//
//   class GPTDatasetV1:                                    # chapter 2
//       token_ids = tokenizer.encode(txt, allowed_special={"<|endoftext|>"})
//       for i in range(0, len(token_ids) - max_length, stride):
//           input_chunk = token_ids[i:i + max_length]; target_chunk = token_ids[i + 1: i + max_length + 1]
//
//   DataLoader(dataset, batch_size, shuffle, drop_last, num_workers=0)
//
// A shuffling DataLoader draws from torch's global generator exactly as torch.utils.data does
// (1.13 and 2.x alike, measured: data/tests/train_cases.txt): iter(loader) draws the iterator's
// _base_seed (one int64: two 32-bit words) even with num_workers=0; the first batch then draws the
// RandomSampler's seed (another int64), whose low 32 bits seed a private generator that shuffles
// 0..n-1 with torch.randperm (for i in 0..n-2: swap(r[i], r[i + random() % (n - i)])). A loader
// without shuffling draws only the _base_seed. Dimension letters: B batch size, T = max_length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "llmfs/text/python_text.hpp"  // count_characters, byte_offset: len(text), text[:n]
#include "llmfs/text/tokenizer.hpp"
#include "llmfs/torch/rng.hpp"

namespace llmfs {

// text_data[:split_idx], text_data[split_idx:] with split_idx = int(ratio * len(text_data)), len
// and the index counted in code points. `text` must be valid UTF-8 (std::invalid_argument naming
// the first bad byte otherwise).
struct TextSplit {
    std::string train, validation;
    std::size_t characters = 0, split_index = 0;  // len(text_data), split_idx
};
TextSplit split_text(std::string_view text, double train_ratio);

// GPTDatasetV1: overlapping windows of max_length token ids, stride apart, each with its target
// window one token on. No window (too few tokens) leaves it empty.
class GPTDataset {
public:
    GPTDataset(std::vector<std::int64_t> token_ids, std::size_t max_length, std::size_t stride);
    GPTDataset(const Gpt2Tokenizer& tokenizer, std::string_view text, std::size_t max_length, std::size_t stride);
    std::size_t size() const { return starts.size(); }  // len(dataset)
    std::size_t max_length() const { return T; }
    std::size_t token_count() const { return ids.size(); }  // len(token_ids)
    const std::int64_t* input(std::size_t i) const { return ids.data() + starts.at(i); }       // [T]
    const std::int64_t* target(std::size_t i) const { return ids.data() + starts.at(i) + 1; }  // [T]

private:
    std::vector<std::int64_t> ids;
    std::size_t T;
    std::vector<std::size_t> starts;  // i of each window
};

// One batch: B windows stacked, as the default collate_fn does. inputs, targets [B, T] row-major.
struct Batch {
    std::size_t B = 0, T = 0;
    std::vector<std::int64_t> inputs, targets;
};

// torch.utils.data.DataLoader(dataset, batch_size, shuffle, drop_last, num_workers=0).
class DataLoader {
public:
    // Throws std::invalid_argument for batch_size 0, and for a shuffling loader over an empty
    // dataset (PyTorch's RandomSampler refuses num_samples=0).
    DataLoader(const GPTDataset& dataset, std::size_t batch_size, bool shuffle, bool drop_last);
    std::size_t size() const;  // len(loader): batches per epoch
    const GPTDataset& dataset() const { return *data; }

    // One pass, as `for input_batch, target_batch in loader:`; begin() draws as iter(loader) and
    // the first next() do. The dataset and `gen` must outlive it.
    class Epoch {
    public:
        bool next(Batch& batch);  // the next batch; false at the end
    private:
        friend class DataLoader;
        Epoch(const DataLoader& loader, Generator& gen);
        const DataLoader& loader;
        Generator& gen;
        std::vector<std::size_t> order;  // the sampler's indices, drawn at the first next()
        std::size_t batch_index = 0;
        bool started = false;
    };
    Epoch begin(Generator& gen) const;

private:
    const GPTDataset* data;
    std::size_t batch_size;
    bool shuffle, drop_last;
};

// The sampler's indices for one epoch of n items, drawn at its first batch: a shuffling loader's
// RandomSampler draws a seed from `gen` and permutes 0..n-1 with it; otherwise 0..n-1.
std::vector<std::size_t> sampler_order(Generator& gen, std::size_t n, bool shuffle);

// Any loader train_model_simple and calc_loss_loader walk: len(loader), and iter(loader) as a
// function that gives the next batch (false at the end), drawing from the generator as iter(loader)
// and its batches do. Chapter 5's DataLoader and chapter 7's InstructionLoader both give one; the
// loader must outlive the view.
struct LoaderView {
    std::size_t size = 0;
    std::function<std::function<bool(Batch&)>(Generator&)> begin;
};
LoaderView view_of(const DataLoader& loader);

// torch.randperm(n, generator=g) on the CPU, for n below 2^32 / 20 (PyTorch's small-n path).
std::vector<std::size_t> randperm(Generator& gen, std::size_t n);

}  // namespace llmfs
