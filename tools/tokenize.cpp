// llmfs-tokenize: the GPT-2 token ids of a text, or the text of token ids (tiktoken's "gpt2").
//
//   llmfs-tokenize "Every effort moves you"     prints  6109 3626 6100 345
//   llmfs-tokenize --decode 15496 11 314 716    prints  Hello, I am
//   llmfs-tokenize < the-verdict.txt            a file's text (or "-" for standard input)
//
// Exit status: 0 on success, 2 for bad input (usage, a non-numeric or unknown id, text that is not
// UTF-8), 1 when the tokenizer cannot run (missing or corrupt data files).
#include <charconv>
#include <cstdint>
#include <exception>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "llmfs/app/cli.hpp"
#include "llmfs/text/tokenizer.hpp"

namespace {


// A token id written in decimal, or std::invalid_argument.
std::int64_t parse_id(const std::string& arg) {
    std::int64_t id = 0;
    const auto [end, error] = std::from_chars(arg.data(), arg.data() + arg.size(), id);
    if (arg.empty() || error != std::errc() || end != arg.data() + arg.size()) {
        throw std::invalid_argument("\"" + arg + "\" is not a token id (a decimal integer)");
    }
    return id;
}

// The whole of standard input.
std::string read_stdin() {
    std::ostringstream text;
    text << std::cin.rdbuf();
    return text.str();
}

// TEXT or IDs come from standard input when the argument is "-", or absent while stdin is not a
// terminal: `llmfs-tokenize < the-verdict.txt` encodes a file too long for a command line.
bool input_from_stdin(const std::vector<std::string>& args) {
    return (args.size() == 1 && args.front() == "-") || (args.empty() && !::isatty(STDIN_FILENO));
}

int run(bool decode, std::vector<std::string> args) {
    const bool from_stdin = input_from_stdin(args);
    std::string text;
    if (from_stdin) {
        text = read_stdin();
        args.clear();
        if (decode) {
            std::istringstream words(text);
            for (std::string word; words >> word;) args.push_back(word);
        } else if (!text.empty()) {
            args.push_back(text);
        }
    }
    std::vector<std::int64_t> ids;
    if (decode) {
        if (args.empty()) {
            throw std::invalid_argument(from_stdin ? "--decode read no token IDs from standard input"
                                                   : "--decode needs at least one token ID (or - to read them from standard input)");
        }
        for (const std::string& arg : args) {
            ids.push_back(parse_id(arg));
        }
    } else if (args.size() != 1) {
        throw std::invalid_argument(args.empty() ? std::string(from_stdin ? "no TEXT to encode: standard input was empty"
                                                                          : "no TEXT to encode (give it, or - to read standard input)")
                                                 : "expected one TEXT argument, got " +
                                                       std::to_string(args.size()) + " (quote the text)");
    }

    const llmfs::Gpt2Tokenizer tokenizer = llmfs::Gpt2Tokenizer::load_default();
    if (decode) {
        std::cout << tokenizer.decode(ids) << '\n';
    } else {
        std::string line;
        for (const std::int64_t id : tokenizer.encode(args.front())) {
            line += (line.empty() ? "" : " ") + std::to_string(id);
        }
        std::cout << line << '\n';
    }
    std::cout.flush();
    if (!std::cout) {
        throw std::runtime_error("cannot write to standard output");
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Print the GPT-2 token ids of TEXT (tiktoken's \"gpt2\" encoding; \"<|endoftext|>\"\n"
                 "is the special token 50256), or with --decode the text of token IDs.",
                 "llmfs-tokenize"};
    bool decode = false;
    std::vector<std::string> args;
    app.add_flag("-d,--decode", decode, "Decode token IDs to text instead of encoding TEXT");
    app.add_option("TEXT|ID", args,
                   "The text to encode (one argument), or the IDs to decode; - or none with input redirected: "
                   "read them from standard input")
        ->type_name("");
    app.footer("Examples:\n"
               "  llmfs-tokenize \"Every effort moves you\"    -> 6109 3626 6100 345\n"
               "  llmfs-tokenize --decode 15496 11 314 716   -> Hello, I am\n"
               "  llmfs-tokenize < the-verdict.txt            -> the ids of the file's text\n"
               "  echo 15496 11 314 716 | llmfs-tokenize -d   -> Hello, I am\n"
               "  llmfs-tokenize -- \"-text starting with a dash\"\n"
               "Data: $LLMFS_DATA_DIR/gpt2, <prefix>/share/llmfs/gpt2 or the source tree's data/gpt2.\n"
               "Exit status: 0 success, 1 missing or corrupt data files, 2 bad input.");
    return llmfs::run_tool(app, argc, argv, [&] { return run(decode, args); });
}
