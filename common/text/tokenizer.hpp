// The GPT-2 tokenizer: byte-level BPE giving the same ids as tiktoken's "gpt2" encoding (and as
// OpenAI's original gpt-2 src/encoder.py).
//
//   auto tok = llmfs::Gpt2Tokenizer::load_default();      // data_dir()/"gpt2"
//   tok.encode("Hello, I am")                              -> {15496, 11, 314, 716}
//   tok.encode("a<|endoftext|>b")                          -> {64, 50256, 65}
//   tok.decode({15496, 11, 314, 716})                      -> "Hello, I am"
//
// encode(text) is tiktoken's `encode(text, allowed_special={"<|endoftext|>"})`, the book's usage;
// encode_ordinary(text) is tiktoken's `encode_ordinary(text)` (the special token is plain text).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llmfs {

class Gpt2Tokenizer {
public:
    // Id of "<|endoftext|>", the only special token.
    static constexpr std::int64_t kEndOfText = 50256;

    // Loads encoder.json (token -> id) and vocab.bpe (merges, best first) from `dir`, checking both
    // against dir/SHA256SUMS. A missing, corrupt or malformed file is a std::runtime_error naming it.
    static Gpt2Tokenizer load(const std::filesystem::path& dir);
    // load(data_dir() / "gpt2").
    static Gpt2Tokenizer load_default();

    // Token ids of UTF-8 `text`; each "<|endoftext|>" in it becomes kEndOfText and the text between
    // them is encoded with encode_ordinary. Text that is not valid UTF-8 is a std::invalid_argument.
    std::vector<std::int64_t> encode(std::string_view text) const;
    // Token ids of UTF-8 `text` with no special tokens: "<|endoftext|>" is encoded as plain text.
    std::vector<std::int64_t> encode_ordinary(std::string_view text) const;
    // encode_ordinary through encoder.py's own merge loop, literally (quadratic in a piece's
    // length, uncached): the reference the tests hold encode_ordinary's O(n log n) merges to.
    std::vector<std::int64_t> encode_ordinary_reference(std::string_view text) const;

    // UTF-8 text of `ids`: their bytes, decoded as Python's bytes.decode("utf-8", errors="replace")
    // does (each maximal invalid subpart becomes U+FFFD). An id outside [0, vocab_size()) is a
    // std::out_of_range.
    std::string decode(const std::vector<std::int64_t>& ids) const;

    // Number of token ids, 50257 for GPT-2 (ids 0..50256).
    std::size_t vocab_size() const;

private:
    struct Impl;
    explicit Gpt2Tokenizer(std::shared_ptr<const Impl> impl);
    // Copies share the (immutable) vocabulary and the (internally synchronised) BPE cache.
    std::shared_ptr<const Impl> impl_;
};

}  // namespace llmfs
