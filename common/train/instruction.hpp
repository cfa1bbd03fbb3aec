// Chapter 7's instruction data, as the book's code prepares it (ch07/01_main-chapter-code/ch07.ipynb,
// gpt_instruction_finetuning.py):
//
//   data = json.load(open("instruction-data.json"))           # a list of {"instruction", "input", "output"}
//   format_input(entry)                                          # the Alpaca prompt
//   train_portion = int(len(data) * 0.85); test_portion = int(len(data) * 0.1)
//   train_data, test_data, val_data = data[:train_portion], data[train_portion:train_portion + test_portion], data[...:]
//   InstructionDataset(data, tokenizer)                          # format_input + "\n\n### Response:\n" + output, encoded
//   custom_collate_fn(batch, pad_token_id=50256, ignore_index=-100, allowed_max_length=None)
//   DataLoader(dataset, batch_size, collate_fn=..., shuffle, drop_last, num_workers=0)
//
// Dimension letters: B batch size, T the batch's padded length (its longest item + 1, less the
// shift; at most allowed_max_length).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llmfs/text/tokenizer.hpp"
#include "llmfs/torch/rng.hpp"
#include "llmfs/train/data.hpp"

namespace llmfs {

// One entry of the data: its keys and string values in the file's order ("instruction", "input",
// "output", and "model_response" once section 7.7 adds it).
struct InstructionEntry {
    std::vector<std::pair<std::string, std::string>> fields;
    // entry[key]; std::out_of_range naming the key when there is none.
    const std::string& at(std::string_view key) const;
    // entry[key] = value: replaces the value, or appends the key (a Python dict's order).
    void set(const std::string& key, std::string value);
};

// {"instruction": instruction, "input": input, "output": output}, in that order.
InstructionEntry instruction_entry(std::string instruction, std::string input, std::string output);

// json.loads of the data: a list of objects whose values are strings, each with "instruction",
// "input" and "output". Anything else (not JSON, another shape, a number for a value, a missing
// key) is a std::invalid_argument naming `what` (the file) and the entry.
std::vector<InstructionEntry> parse_instruction_data(std::string_view json_text, std::string_view what);
// The file read and parsed (a missing file: std::runtime_error naming it).
std::vector<InstructionEntry> load_instruction_data(const std::filesystem::path& path);
// data_dir()/instruction/instruction-data.json: the book's file, shipped with llmfs.
std::filesystem::path default_instruction_data_path();

// json.dump(data, file, indent=4): Python's text, byte for byte (ensure_ascii: non-ASCII as
// \uXXXX, surrogate pairs above U+FFFF; no newline at the end).
std::string dump_instruction_data(const std::vector<InstructionEntry>& data);

// str(entry), as print() shows the dict: {'instruction': '...', 'input': '', 'output': "..."}.
std::string python_repr(const InstructionEntry& entry);
// repr(s) of a Python str holding UTF-8 `s` (the quote Python picks, its escapes).
std::string python_str_repr(std::string_view s);

// format_input(entry): the Alpaca prompt, without the response.
std::string format_input(const InstructionEntry& entry);
// f"\n\n### Response:\n{entry['output']}"
std::string desired_response(const InstructionEntry& entry);

// The 85/10/5 split, in the file's order.
struct InstructionSplit {
    std::vector<InstructionEntry> train, test, validation;
};
InstructionSplit split_instruction_data(const std::vector<InstructionEntry>& data);

// InstructionDataset: each entry's format_input + desired_response, encoded as tiktoken's
// encode(text) does: an entry holding "<|endoftext|>" is a std::invalid_argument (tiktoken's
// ValueError, "disallowed special token").
struct InstructionDataset {
    InstructionDataset(const std::vector<InstructionEntry>& data, const Gpt2Tokenizer& tokenizer);
    std::vector<std::vector<std::int64_t>> encoded_texts;
    std::size_t size() const { return encoded_texts.size(); }  // len(dataset)
};

// custom_collate_fn's options; mask_padding false is the chapter's custom_collate_draft_2 (and,
// using only the inputs, draft_1).
struct CollateOptions {
    std::int64_t pad_token_id = Gpt2Tokenizer::kEndOfText;
    std::int64_t ignore_index = -100;
    std::optional<std::size_t> allowed_max_length;
    bool mask_padding = true;
};

// custom_collate_fn(batch): each item + [pad], padded with pad to the longest + 1; inputs the
// padded[:-1], targets padded[1:], every pad in the targets after the first one set to
// ignore_index; both cut to allowed_max_length. Batch.inputs, .targets [B, T]. An empty batch is a
// std::invalid_argument (Python's max() of nothing).
Batch custom_collate(const std::vector<const std::vector<std::int64_t>*>& items, const CollateOptions& options = {});

// DataLoader(dataset, batch_size, collate_fn=custom_collate_fn, shuffle, drop_last,
// num_workers=0): drawing from the generator as chapter 5's DataLoader does.
class InstructionLoader {
public:
    // Throws std::invalid_argument for batch_size 0, and for a shuffling loader over no entries.
    InstructionLoader(const InstructionDataset& dataset, std::size_t batch_size, bool shuffle, bool drop_last,
                      CollateOptions options = {});
    std::size_t size() const;  // len(loader)

    class Epoch {
    public:
        bool next(Batch& batch);  // the next batch; false at the end
    private:
        friend class InstructionLoader;
        Epoch(const InstructionLoader& loader, Generator& gen);
        const InstructionLoader& loader;
        Generator& gen;
        std::vector<std::size_t> order;
        std::size_t batch_index = 0;
        bool started = false;
    };
    // iter(loader); the dataset and `gen` must outlive the epoch.
    Epoch begin(Generator& gen) const;

    // The loader for train_model_simple and calc_loss_loader; it must outlive the view.
    LoaderView view() const;

private:
    const InstructionDataset* data;
    std::size_t batch_size;
    bool shuffle, drop_last;
    CollateOptions options;
};

}  // namespace llmfs
