// Python's argparse (3.11), as the book's bonus scripts use it, so that a program named after a
// script takes the script's flags and answers bad input with the script's words:
//
//     p = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter, description=...)
//     p.add_argument("--emb_dim", type=int, default=768, help="Model embedding dimension.")
//     p.add_argument("--dtype", choices=DTYPE_BYTES.keys(), default="fp16")
//     p.add_argument("--no_kv_cache", action="store_true", help="...")
//     args = p.parse_args()
//
// What it reproduces: the usage line and its wrapping (by program name and $COLUMNS), --help with
// "(default: ...)" after every option that has a help text, unique prefixes (--emb for --emb_dim),
// --opt=value, int() syntax (" 7 ", "+5", "1_0"), the order in which errors are found (ambiguous
// prefixes first, then values left to right, then missing required options, then leftovers), and
// every message ("argument --emb_dim: invalid int value: 'abc'", "ambiguous option: --n could
// match --n_heads, --n_layers", ...): usage and "PROG: error: ..." on stderr, exit status 2.
// Only optional arguments exist (the scripts have no positionals). Integers are limited to 64 bits,
// where Python's have no limit: a larger value is refused with its own message.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "llmfs/text/validate.hpp"  // python_int

namespace llmfs {

class ArgumentParser {
public:
    // prog: what usage and errors call the program (argparse: os.path.basename(sys.argv[0])).
    ArgumentParser(std::string prog, std::string description = "");

    // p.add_argument(name, type=int, default=..., required=..., help=...)
    void add_int(const std::string& name, std::optional<std::int64_t> default_value, const std::string& help = "",
                 bool required = false);
    // p.add_argument(name, default="1:0", help=...): a string kept as typed
    void add_string(const std::string& name, const std::string& default_value, const std::string& help = "");
    // p.add_argument(name, choices=[...], default=...)
    void add_choice(const std::string& name, const std::vector<std::string>& choices, const std::string& default_value,
                    const std::string& help = "");
    // p.add_argument(name, action="store_true", help=...)
    void add_flag(const std::string& name, const std::string& help = "");
    // An option argparse would declare with help=argparse.SUPPRESS: accepted, not shown in usage or
    // help, and matched only when spelled in full (so that it never makes a prefix ambiguous).
    void add_hidden_choice(const std::string& name, const std::vector<std::string>& choices, const std::string& default_value);

    // args = p.parse_args(argv[1:]). Returns the exit status when parsing ends the program
    // (0 after printing --help to stdout, 2 after a usage error on stderr), nothing when the
    // program goes on.
    std::optional<int> parse(int argc, const char* const* argv);

    // args.<name> (name without the dashes). An int option without a value (default None) has none.
    std::optional<std::int64_t> get_int(const std::string& name) const;
    const std::string& get_string(const std::string& name) const;
    bool get_flag(const std::string& name) const;

    std::string format_usage() const;  // "usage: PROG [-h] ...\n"
    std::string format_help() const;
    const std::string& prog() const { return prog_; }

    // The width argparse wraps to: $COLUMNS (else the terminal's width, else 80), minus 2.
    static int text_width();

private:
    enum class Kind { help, integer, string, choice, flag };
    struct Action {
        std::string option;  // "--emb_dim"
        std::string dest;    // "emb_dim"
        Kind kind;
        std::string help;
        bool required = false;
        bool hidden = false;
        std::vector<std::string> choices;
        std::string default_text;  // what %(default)s prints: "768", "None", "False", "fp16"
    };
    struct Match {
        const Action* action;
        std::optional<std::string> explicit_arg;
    };

    std::optional<Match> parse_optional(const std::string& arg) const;  // throws UsageError on ambiguity
    std::string metavar(const Action& a) const;
    std::string invocation(const Action& a) const;  // "--emb_dim EMB_DIM", "-h, --help"
    Action& add(const std::string& name, Kind kind);

    std::string prog_, description_;
    std::vector<Action> actions_;
    std::map<std::string, std::optional<std::int64_t>> ints_;
    std::map<std::string, std::string> strings_;
    std::map<std::string, bool> flags_;
};

// repr(text) of a Python str: '...' (or "..." when text holds ' and no "), with \\, \n, \t, \r
// and other control characters escaped.
std::string python_repr(const std::string& text);

}  // namespace llmfs
