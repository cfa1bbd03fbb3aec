// The main() of the book's generation scripts (ch04/01_main-chapter-code/gpt.py,
// ch04/03_kv-cache/gpt_with_kv_cache*.py, the ch04/04-07 bonus folders) prints the same frame
// around its generate call:
//
//     ==================================================
//                           IN
//     ==================================================
//
//     Input text: Hello, I am
//     Encoded input text: [15496, 11, 314, 716]
//     encoded_tensor.shape: torch.Size([1, 4])
//
//
//     ==================================================
//                           OUT
//     ==================================================
//
//     Output: tensor([[15496,    11,   314,   716, ...]])
//     Output length: 14
//     Output text: Hello, I am ...
//
// These functions print those blocks, so that every script program frames its run identically.
#pragma once

#include <functional>
#include <string>

#include "llmfs/app/argparse.hpp"
#include "llmfs/app/notebook.hpp"
#include "llmfs/nn/gpt_variants.hpp"
#include "llmfs/nn/memory_estimate.hpp"
#include "llmfs/text/tokenizer.hpp"

namespace llmfs {

// print(f"\n{50*'='}\n{22*' '}{title}\n{50*'='}")
void print_script_banner(Notebook& nb, const std::string& title);

// The IN block: encodes start_context and prints the banner, the text, the ids and the shape.
// Returns encoded_tensor = torch.tensor(encoded).unsqueeze(0), [1, T].
IdArray<2> print_script_input(Notebook& nb, const Gpt2Tokenizer& tokenizer, const std::string& start_context);

// The OUT block for token_ids [1, T']: the ids as a tensor, their count, and the decoded text.
void print_script_output(Notebook& nb, const Gpt2Tokenizer& tokenizer, const IdArray<2>& token_ids);

// The scripts' timing lines, print(f"\nTime: {total_time:.2f} sec") and
// print(f"{int(len(token_ids[0])/total_time)} tokens/sec"), on stderr: the programs keep stdout
// equal to what the script prints on any machine.
void print_script_timing(double total_time, std::size_t tokens);

// The frame of a program named after a book script with an argparse command line (the bonus
// folders' GPT scripts and memory estimators): add_arguments(p) declares the script's arguments
// (plus a hidden --bernoulli mkl|default, which every chapter program takes), p.parse_args(), then
// body(args). Returns the exit status: 0; 0 after --help; 2 after a usage error (argparse's text);
// 1 when body throws (its message on stderr: the script's exception as its traceback's last line,
// e.g. "ValueError: n_kv_groups must divide n_heads exactly.").
int run_script(int argc, char** argv, const std::string& description,
               const std::function<void(ArgumentParser&)>& add_arguments,
               const std::function<void(const ArgumentParser&)>& body);

// One of the GPT scripts of the bonus folders ch04/04_gqa .. 07_moe (gpt_with_kv_{mha,gqa,mla,swa,
// ffn,moe}.py) as a program: its argparse command line, then its main(): the model seeded with 123
// for context_length = max_new_tokens + 4, the IN block, greedy generation from "Hello, I am", the
// OUT block; the timing lines on stderr.
struct GptScript {
    std::string description;                                // argparse's (none: "")
    std::function<void(ArgumentParser&)> add_arguments;     // the script's arguments, in its order
    std::function<VariantConfig(const ArgumentParser&)> config;  // cfg from args (context_length set by run_gpt_script)
    // gpt_with_kv_{ffn,moe}.py: generate into a preallocated tensor, --no_kv_cache, and print the
    // average time of the feed-forward calls under this label ("Avg FFN time/call").
    bool preallocated = false;
    std::string ff_time_label;
};
int run_gpt_script(int argc, char** argv, const GptScript& script);
// The arguments every GPT script has: --emb_dim, --n_heads, --n_layers (and a GELU feed-forward of
// 4 * emb_dim units, chapter 4's).
VariantConfig script_base_config(const ArgumentParser& args);
// The arguments memory_estimator_{gqa,mla,swa}.py share: --context_length, --emb_dim, --n_heads,
// --n_layers, --n_kv_groups, --batch_size, --dtype (each script declares them in its own order).
KVEstimateArgs kv_estimate_args(const ArgumentParser& args);
// args.<name> as a size. A negative one throws PythonError, as PyTorch refuses a tensor with a
// negative dimension.
std::size_t script_size(const ArgumentParser& args, const std::string& name);

}  // namespace llmfs
