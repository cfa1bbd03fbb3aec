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
#include "llmfs/text/data_dir.hpp"
#include "llmfs/text/tokenizer.hpp"

namespace {


// The most standard input may hold: 64 MiB of text is some 15 million tokens (the book's
// the-verdict.txt is 20 kB); more (/dev/zero, say) is refused, not read until memory runs out.
constexpr std::uintmax_t kMaxInputBytes = std::uintmax_t{64} << 20;

// A token id written in decimal, or std::invalid_argument.
std::int64_t parse_id(const std::string& arg) {
    std::int64_t id = 0;
    const auto [end, error] = std::from_chars(arg.data(), arg.data() + arg.size(), id);
    if (arg.empty() || error != std::errc() || end != arg.data() + arg.size()) {
        throw std::invalid_argument(llmfs::quoted(arg) + " is not a token id (a decimal integer)");
    }
    return id;
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
        text = llmfs::read_input("-", kMaxInputBytes, "text");
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
    // A pure flag: "-d5" or "--decode=5" is a usage error, not a value for the flag (CLI11 would
    // take "=5" as the flag's value and read the IDs from standard input).
    app.add_flag("-d,--decode", decode, "Decode token IDs to text instead of encoding TEXT")->disable_flag_override();
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
    // "-d5" and "--decode=5": CLI11 reads the first as "-d" and the ID -5, the second as a value for
    // the flag; either way the user meant an ID after the flag.
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--") break;
        if ((arg.rfind("-d", 0) == 0 && arg.size() > 2 && arg[1] == 'd') || arg.rfind("--decode=", 0) == 0) {
            std::cerr << "llmfs-tokenize: " << llmfs::quoted(arg) << ": -d/--decode takes no value; put the IDs after it, "
                      << "as in -d 15496 11\nRun with --help for more information.\n";
            return llmfs::kExitUsage;
        }
    }
    return llmfs::run_tool(app, argc, argv, [&] { return run(decode, args); });
}
