// Tests of chapter 2's word-level tokenizers; expected values are the book's notebook's outputs
// (the full chapter runs in the ch02_simple_tokenizer golden).
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "llmfs/text/simple_tokenizer.hpp"

using namespace llmfs;
using Ids = std::vector<std::int64_t>;

TEST_CASE("split_words: the book's 2.2 example") {
    CHECK(split_words("Hello, world. Is this-- a test?") ==
          std::vector<std::string>{"Hello", ",", "world", ".", "Is", "this", "--", "a", "test", "?"});
}

TEST_CASE("Vocabulary::build: sorted unique words by code point - then the extra tokens") {
    const Vocabulary v = Vocabulary::build({"b", "a", "\u00c9", "Z", "a"}, {"<|endoftext|>", "<|unk|>"});
    CHECK(v.tokens == std::vector<std::string>{"Z", "a", "b", "\u00c9", "<|endoftext|>", "<|unk|>"});
    CHECK(v.ids.at("<|unk|>") == 5);
    CHECK(v.size() == 6);
}

TEST_CASE("SimpleTokenizerV1: round trip - KeyError for an unknown word or id") {
    const SimpleTokenizerV1 tok(Vocabulary::build(split_words("Hello, world. \"It's\" here!")));
    const Ids ids = tok.encode("world, Hello!");
    CHECK(tok.decode(ids) == "world, Hello!");
    try {
        tok.encode("Hello, tea");
        FAIL("no KeyError");
    } catch (const std::out_of_range& e) {
        CHECK(std::string(e.what()) == "KeyError: 'tea'");
    }
    CHECK_THROWS_AS(tok.decode({99}), std::out_of_range);
}

TEST_CASE("SimpleTokenizerV2: unknown words become the unk token and decode rejoins colons") {
    const SimpleTokenizerV2 tok(Vocabulary::build(split_words("a b : ;"), {"<|endoftext|>", "<|unk|>"}));
    const Ids ids = tok.encode("a x: b;");
    CHECK(ids == Ids{2, 5, 0, 3, 1});
    CHECK(tok.decode(ids) == "a <|unk|>: b;");
    const SimpleTokenizerV2 no_unk(Vocabulary::build(split_words("a")));
    CHECK_THROWS_AS(no_unk.encode("b"), std::out_of_range);
}
