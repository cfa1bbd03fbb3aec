// Exercise 2.1: Byte pair encoding of unknown words
//
// The problem: GPT-2's tokenizer has no entry for a made-up word such as "Akwirw ier", yet it
// encodes it: into subword tokens. Encode the text, print the token ids, print each id with the
// text of that one token, then encode each of those pieces alone and decode all the ids back into
// the original text.
//
// BEGIN BOOK SOLUTION: the book's solution in PyTorch (the solutions build only; the student copy shows the chapter's code)
// The notebook code around it (exercise-solutions.ipynb of chapter 2; the answer is in the
// solution, next to its C++):
//   tokenizer = tiktoken.get_encoding("gpt2")
//   integers = tokenizer.encode("Akwirw ier")
//   print(integers)
//   for i in integers:
//       print(f"{i} -> {...}")  # exercise 2.1: the text of token i alone
// STUDENT COPY: // The chapter's code around it (ch02.ipynb, section 2.5: encoding a text with GPT-2's tokenizer):
// STUDENT COPY: //   tokenizer = tiktoken.get_encoding("gpt2")
// STUDENT COPY: //   integers = tokenizer.encode(text, allowed_special={"<|endoftext|>"})
// STUDENT COPY: //   print(integers)
// STUDENT COPY: // The exercise encodes the text "Akwirw ier" that way, then prints each id with the text of that one token.
// END BOOK SOLUTION
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"
#include "llmfs/text/python_text.hpp"
#include "llmfs/text/tokenizer.hpp"

using namespace llmfs;

// The text of the single token `id`.
static std::string token_text(const Gpt2Tokenizer& tokenizer, std::int64_t id) {
    // BEGIN SOLUTION(exercise 2.1): return the text that the one token id stands for
    return tokenizer.decode({id});
    // END SOLUTION
}

// --variant N (llmfs-exercise grade): other unknown words.
const char* const kVariants[] = {"Akwirw ier", "someunknownPlace", "Zzyzx roadz", "blorptastic wug"};  // [0]: the book's case

int main(int argc, char** argv) {
    return run_exercise(argc, argv, "Exercise 2.1: byte pair encoding of unknown words", 3,
                       [](Notebook& nb, Generator&, int variant) {
        nb.section("Exercise 2.1: Byte pair encoding of unknown words");
        const std::string text = kVariants[variant];
        if (variant) nb.note(fmt::format("--variant {}: the text \"{}\"", variant, text));
        nb.code("import tiktoken\n"
                "\n"
                "tokenizer = tiktoken.get_encoding(\"gpt2\")");
        const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();

        // BEGIN BOOK SOLUTION: the notebook's answer cells (the student copy says what they print)
        nb.code("integers = tokenizer.encode(\"" + text + "\")\n"
                "print(integers)");
        // STUDENT COPY: nb.added_code("# exercise 2.1: the token ids of \"" + text + "\"");
        // END BOOK SOLUTION
        const std::vector<std::int64_t> integers = tokenizer.encode(text);
        nb.print(integers);

        // BEGIN BOOK SOLUTION: the notebook's answer cells (the student copy says what they print)
        nb.code("for i in integers:\n"
                "    print(f\"{i} -> {tokenizer.decode([i])}\")");
        // STUDENT COPY: nb.added_code("# exercise 2.1: each token id with the text of that one token");
        // END BOOK SOLUTION
        std::vector<std::string> pieces;
        for (const std::int64_t i : integers) {
            pieces.push_back(token_text(tokenizer, i));
            nb.print(fmt::format("{} -> {}", i, pieces.back()));
        }

        for (const std::string& piece : pieces) {  // one cell per token: tokenizer.encode("Ak") ...
            nb.code("tokenizer.encode(\"" + piece + "\")");
            nb.print(tokenizer.encode(piece));  // the cell displays the list
        }

        nb.code("tokenizer.decode(" + to_text(integers) + ")");
        nb.print(python_repr(tokenizer.decode(integers)));
    });
}
