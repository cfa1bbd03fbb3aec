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

#include <string>

#include "llmfs/app/notebook.hpp"
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

}  // namespace llmfs
