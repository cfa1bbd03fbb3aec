// Chapter 2's word-level tokenizers (sections 2.2 to 2.4 of the book's ch02.ipynb):
//
//   preprocessed = re.split(r'([,.:;?_!"()\']|--|\s)', text)           split_words(text)
//   preprocessed = [item.strip() for item in preprocessed if item.strip()]
//   all_tokens = sorted(set(preprocessed)); all_tokens.extend([...])  Vocabulary::build(words, extra)
//   vocab = {token:integer for integer,token in enumerate(all_tokens)}
//   SimpleTokenizerV1(vocab).encode(text) / .decode(ids)                 an unknown word: KeyError
//   SimpleTokenizerV2(vocab)                                             an unknown word: <|unk|>
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace llmfs {

// The split pattern of 2.2 and of both tokenizers' encode().
inline constexpr std::string_view kWordSplitPattern = R"(([,.:;?_!"()\']|--|\s))";

// re.split(kWordSplitPattern, text), then the stripped non-empty items: the words and punctuation.
std::vector<std::string> split_words(std::string_view text);

// The book's vocab dict: tokens in insertion order (their ids 0, 1, ...) and the lookup.
struct Vocabulary {
    std::vector<std::string> tokens;            // list(vocab) : id -> token
    std::map<std::string, std::int64_t> ids;    // vocab[token]
    // sorted(set(words)) (by code point, as Python sorts str), then `extra` appended, numbered in order.
    static Vocabulary build(const std::vector<std::string>& words, const std::vector<std::string>& extra = {});
    std::size_t size() const { return tokens.size(); }  // len(vocab)
};

// A token missing from the vocabulary (V1) is Python's KeyError: std::out_of_range whose what() is
// "KeyError: 'Hello'"; an id missing from it (decode) likewise, "KeyError: 1234".
class SimpleTokenizerV1 {
public:
    explicit SimpleTokenizerV1(Vocabulary vocab) : vocab_(std::move(vocab)) {}
    std::vector<std::int64_t> encode(std::string_view text) const;
    // " ".join(tokens), then re.sub(r'\s+([,.?!"()\'])', r'\1', text)
    std::string decode(const std::vector<std::int64_t>& ids) const;
    const Vocabulary& vocab() const { return vocab_; }

protected:
    std::string join_tokens(const std::vector<std::int64_t>& ids) const;
    std::int64_t id_of(const std::string& token) const;
    Vocabulary vocab_;
};

// 2.4: words outside the vocabulary become "<|unk|>" (which the vocabulary must hold: else a
// KeyError as V1's); decode also removes the space before ':' and ';'.
class SimpleTokenizerV2 : public SimpleTokenizerV1 {
public:
    explicit SimpleTokenizerV2(Vocabulary vocab) : SimpleTokenizerV1(std::move(vocab)) {}
    std::vector<std::int64_t> encode(std::string_view text) const;
    // " ".join(tokens), then re.sub(r'\s+([,.:;?!"()\'])', r'\1', text)
    std::string decode(const std::vector<std::int64_t>& ids) const;
};

}  // namespace llmfs
