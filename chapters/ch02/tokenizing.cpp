// 2.2 Tokenizing text and 2.3 Converting tokens into token IDs: the-verdict.txt split into words
// and punctuation with re.split, and the vocabulary of its 1,130 distinct tokens.
#include <string>
#include <vector>

#include "llmfs/app/cli.hpp"
#include "llmfs/text/data_dir.hpp"
#include "llmfs/text/python_text.hpp"
#include "llmfs/text/simple_tokenizer.hpp"
#include "llmfs/train/data.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "2.2 Tokenizing text and 2.3 Converting tokens into token IDs (the-verdict.txt)",
                       [](Notebook& nb, Generator&) {
        nb.section("2.2 Tokenizing text");
        nb.code("with open(\"the-verdict.txt\", \"r\", encoding=\"utf-8\") as f:\n"
                "    raw_text = f.read()\n"
                "    \n"
                "print(\"Total number of character:\", len(raw_text))\n"
                "print(raw_text[:99])");
        const std::string raw_text = read_file_checked(data_dir() / "the-verdict.txt");
        nb.print("Total number of character:", count_characters(raw_text));
        nb.print(raw_text.substr(0, byte_offset(raw_text, 99)));  // raw_text[:99]

        nb.code("import re\n"
                "\n"
                "text = \"Hello, world. This, is a test.\"\n"
                "result = re.split(r'(\\s)', text)\n"
                "\n"
                "print(result)");
        std::string text = "Hello, world. This, is a test.";
        std::vector<std::string> result = re_split(R"((\s))", text);
        nb.print(python_list_repr(result));

        nb.code("result = re.split(r'([,.]|\\s)', text)\n"
                "\n"
                "print(result)");
        result = re_split(R"(([,.]|\s))", text);
        nb.print(python_list_repr(result));

        nb.code("# Strip whitespace from each item and then filter out any empty strings.\n"
                "result = [item for item in result if item.strip()]\n"
                "print(result)");
        std::vector<std::string> kept;  // the items themselves, not stripped
        for (const std::string& item : result) {
            if (!python_strip(item).empty()) kept.push_back(item);
        }
        result = kept;
        nb.print(python_list_repr(result));

        nb.code("text = \"Hello, world. Is this-- a test?\"\n"
                "\n"
                "result = re.split(r'([,.:;?_!\"()\\']|--|\\s)', text)\n"
                "result = [item.strip() for item in result if item.strip()]\n"
                "print(result)");
        text = "Hello, world. Is this-- a test?";
        result = strip_nonempty(re_split(kWordSplitPattern, text));
        nb.print(python_list_repr(result));

        nb.code("preprocessed = re.split(r'([,.:;?_!\"()\\']|--|\\s)', raw_text)\n"
                "preprocessed = [item.strip() for item in preprocessed if item.strip()]\n"
                "print(preprocessed[:30])");
        const std::vector<std::string> preprocessed = split_words(raw_text);
        nb.print(python_list_repr({preprocessed.begin(), preprocessed.begin() + std::min<std::size_t>(30, preprocessed.size())}));

        nb.code("print(len(preprocessed))");
        nb.print(preprocessed.size());

        nb.section("2.3 Converting tokens into token IDs");
        nb.code("all_words = sorted(set(preprocessed))\n"
                "vocab_size = len(all_words)\n"
                "\n"
                "print(vocab_size)");
        const Vocabulary vocab = Vocabulary::build(preprocessed);  // all_words, and their ids in order
        nb.print(vocab.tokens.size());                             // len(all_words)
        nb.code("vocab = {token:integer for integer,token in enumerate(all_words)}");

        nb.code("for i, item in enumerate(vocab.items()):\n"
                "    print(item)\n"
                "    if i >= 50:\n"
                "        break");
        for (std::size_t i = 0; i < vocab.size(); ++i) {
            nb.print("(" + python_repr(vocab.tokens[i]) + ", " + std::to_string(i) + ")");  // a (token, id) tuple
            if (i >= 50) break;
        }
    });
}
