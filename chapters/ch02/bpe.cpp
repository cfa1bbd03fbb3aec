// 2.5 BytePair encoding: GPT-2's tokenizer (tiktoken's "gpt2" encoding; common/text/tokenizer.hpp)
// on a text with <|endoftext|> and an unknown word, and back.
#include <string>
#include <vector>

#include "llmfs/app/cli.hpp"
#include "llmfs/text/tokenizer.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "2.5 BytePair encoding (GPT-2's tokenizer, as tiktoken's \"gpt2\" encoding)",
                       [](Notebook& nb, Generator&) {
        nb.section("2.5 BytePair encoding");
        nb.code("# pip install tiktoken");
        nb.code("tokenizer = tiktoken.get_encoding(\"gpt2\")");
        nb.note("tiktoken's \"gpt2\" encoding: Gpt2Tokenizer (common/text/tokenizer.cpp), over data/gpt2/");
        const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();

        nb.code("text = (\n"
                "    \"Hello, do you like tea? <|endoftext|> In the sunlit terraces\"\n"
                "     \"of someunknownPlace.\"\n"
                ")\n"
                "\n"
                "integers = tokenizer.encode(text, allowed_special={\"<|endoftext|>\"})\n"
                "\n"
                "print(integers)");
        const std::string text = "Hello, do you like tea? <|endoftext|> In the sunlit terraces"
                                 "of someunknownPlace.";
        const std::vector<std::int64_t> integers = tokenizer.encode(text);  // allowed_special={"<|endoftext|>"}
        nb.print(integers);

        nb.code("strings = tokenizer.decode(integers)\n"
                "\n"
                "print(strings)");
        const std::string strings = tokenizer.decode(integers);
        nb.print(strings);
    });
}
