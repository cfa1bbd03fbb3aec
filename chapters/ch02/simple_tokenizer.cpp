// 2.3 Converting tokens into token IDs (SimpleTokenizerV1) and 2.4 Adding special context tokens
// (SimpleTokenizerV2: <|unk|>, <|endoftext|>), over the vocabulary of the-verdict.txt.
#include <stdexcept>
#include <string>
#include <vector>

#include "llmfs/app/cli.hpp"
#include "llmfs/text/data_dir.hpp"
#include "llmfs/text/python_text.hpp"
#include "llmfs/text/simple_tokenizer.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "2.3 SimpleTokenizerV1 and 2.4 Adding special context tokens (SimpleTokenizerV2)",
                       [](Notebook& nb, Generator&) {
        // What 2.2 and 2.3 leave (ch02_tokenizing prints them): the words of the-verdict.txt, their vocabulary.
        const std::vector<std::string> preprocessed = split_words(read_file_checked(data_dir() / "the-verdict.txt"));
        Vocabulary vocab = Vocabulary::build(preprocessed);

        nb.section("2.3 Converting tokens into token IDs");
        nb.code("class SimpleTokenizerV1:\n"
                "    def __init__(self, vocab):\n"
                "        self.str_to_int = vocab\n"
                "        self.int_to_str = {i:s for s,i in vocab.items()}\n"
                "    \n"
                "    def encode(self, text):\n"
                "        preprocessed = re.split(r'([,.:;?_!\"()\\']|--|\\s)', text)\n"
                "                                \n"
                "        preprocessed = [\n"
                "            item.strip() for item in preprocessed if item.strip()\n"
                "        ]\n"
                "        ids = [self.str_to_int[s] for s in preprocessed]\n"
                "        return ids\n"
                "        \n"
                "    def decode(self, ids):\n"
                "        text = \" \".join([self.int_to_str[i] for i in ids])\n"
                "        # Replace spaces before the specified punctuations\n"
                "        text = re.sub(r'\\s+([,.?!\"()\\'])', r'\\1', text)\n"
                "        return text");
        nb.note("SimpleTokenizerV1: common/text/simple_tokenizer.cpp");

        nb.code("tokenizer = SimpleTokenizerV1(vocab)\n"
                "\n"
                "text = \"\"\"\"It's the last he painted, you know,\" \n"
                "           Mrs. Gisburn said with pardonable pride.\"\"\"\n"
                "ids = tokenizer.encode(text)\n"
                "print(ids)");
        const SimpleTokenizerV1 tokenizer_v1(vocab);
        std::string text = "\"It's the last he painted, you know,\" \n"
                           "           Mrs. Gisburn said with pardonable pride.";
        const std::vector<std::int64_t> ids = tokenizer_v1.encode(text);
        nb.print(ids);

        nb.code("tokenizer.decode(ids)");
        nb.print(python_repr(tokenizer_v1.decode(ids)));  // the cell displays the str's repr

        nb.code("tokenizer.decode(tokenizer.encode(text))");
        nb.print(python_repr(tokenizer_v1.decode(tokenizer_v1.encode(text))));

        nb.section("2.4 Adding special context tokens");
        nb.code("tokenizer = SimpleTokenizerV1(vocab)\n"
                "\n"
                "text = \"Hello, do you like tea. Is this-- a test?\"\n"
                "\n"
                "tokenizer.encode(text)");
        text = "Hello, do you like tea. Is this-- a test?";
        try {
            tokenizer_v1.encode(text);
        } catch (const std::out_of_range& e) {  // the notebook's cell raises it too: it shows a traceback
            nb.note(std::string("raises ") + e.what() + ", as in the notebook: \"Hello\" is not in the-verdict.txt");
        }

        nb.code("all_tokens = sorted(list(set(preprocessed)))\n"
                "all_tokens.extend([\"<|endoftext|>\", \"<|unk|>\"])\n"
                "\n"
                "vocab = {token:integer for integer,token in enumerate(all_tokens)}");
        vocab = Vocabulary::build(preprocessed, {"<|endoftext|>", "<|unk|>"});

        nb.code("len(vocab.items())");
        nb.print(vocab.size());

        nb.code("for i, item in enumerate(list(vocab.items())[-5:]):\n"
                "    print(item)");
        for (std::size_t i = vocab.size() - std::min<std::size_t>(5, vocab.size()); i < vocab.size(); ++i) {
            nb.print("(" + python_repr(vocab.tokens[i]) + ", " + std::to_string(i) + ")");  // a (token, id) tuple
        }

        nb.code("class SimpleTokenizerV2:\n"
                "    def __init__(self, vocab):\n"
                "        self.str_to_int = vocab\n"
                "        self.int_to_str = { i:s for s,i in vocab.items()}\n"
                "    \n"
                "    def encode(self, text):\n"
                "        preprocessed = re.split(r'([,.:;?_!\"()\\']|--|\\s)', text)\n"
                "        preprocessed = [item.strip() for item in preprocessed if item.strip()]\n"
                "        preprocessed = [\n"
                "            item if item in self.str_to_int \n"
                "            else \"<|unk|>\" for item in preprocessed\n"
                "        ]\n"
                "\n"
                "        ids = [self.str_to_int[s] for s in preprocessed]\n"
                "        return ids\n"
                "        \n"
                "    def decode(self, ids):\n"
                "        text = \" \".join([self.int_to_str[i] for i in ids])\n"
                "        # Replace spaces before the specified punctuations\n"
                "        text = re.sub(r'\\s+([,.:;?!\"()\\'])', r'\\1', text)\n"
                "        return text");
        nb.note("SimpleTokenizerV2: common/text/simple_tokenizer.cpp");

        nb.code("tokenizer = SimpleTokenizerV2(vocab)\n"
                "\n"
                "text1 = \"Hello, do you like tea?\"\n"
                "text2 = \"In the sunlit terraces of the palace.\"\n"
                "\n"
                "text = \" <|endoftext|> \".join((text1, text2))\n"
                "\n"
                "print(text)");
        const SimpleTokenizerV2 tokenizer(vocab);
        const std::string text1 = "Hello, do you like tea?";
        const std::string text2 = "In the sunlit terraces of the palace.";
        text = text1 + " <|endoftext|> " + text2;
        nb.print(text);

        nb.code("tokenizer.encode(text)");
        nb.print(tokenizer.encode(text));  // the list's repr

        nb.code("tokenizer.decode(tokenizer.encode(text))");
        nb.print(python_repr(tokenizer.decode(tokenizer.encode(text))));
    });
}
