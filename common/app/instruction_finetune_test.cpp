// extract_response against Python's generated_text[len(input_text):].replace("### Response:", "").strip()
// (the expected strings are what Python 3.11 gives for the same inputs: code-point slicing, the
// replacement, and strip()'s Unicode whitespace).
#include <catch2/catch.hpp>

#include "llmfs/app/instruction_finetune.hpp"

using namespace llmfs;

TEST_CASE("extract_response: Python's slice by code points, replace and strip") {
    CHECK(extract_response("abc### Response:\n  x y \u3000", "abc") == "x y");
    CHECK(extract_response("caf\u00e9\n\n### Response:\nThe ### Response: end\n\x1c", "caf\u00e9") == "The  end");
    CHECK(extract_response("ab", "abc").empty());
    CHECK(extract_response("h\u00e9llo w\u00f6rld\t", "h\u00e9") == "llo w\u00f6rld");
}
