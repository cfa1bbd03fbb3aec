#include "llmfs/app/argparse.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <regex>
#include <stdexcept>

#if __has_include(<sys/ioctl.h>) && __has_include(<unistd.h>)
#include <sys/ioctl.h>
#include <unistd.h>
#define LLMFS_HAVE_TIOCGWINSZ 1
#endif

namespace llmfs {

namespace {

// parser.error(message): usage, then "PROG: error: message", exit status 2
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

bool is_letter(char c) {  // textwrap's [^\d\W] for ASCII
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

// textwrap.TextWrapper's chunks with break_on_hyphens: words, single spaces, and a word split after
// a hyphen that has two letters (or letter-hyphen-letter) before it and letter(-)letter after it.
std::vector<std::string> chunks_of(const std::string& text) {
    std::vector<std::string> chunks;
    std::size_t i = 0;
    while (i < text.size()) {
        if (text[i] == ' ') {
            chunks.emplace_back(" ");
            ++i;
            continue;
        }
        std::size_t start = i;
        while (i < text.size() && text[i] != ' ') {
            if (text[i] == '-' && i > start) {
                const bool two_letters_before = i >= start + 2 && is_letter(text[i - 1]) && is_letter(text[i - 2]);
                const bool lt_hyphen_lt_before = i >= start + 3 && is_letter(text[i - 1]) && text[i - 2] == '-' && is_letter(text[i - 3]);
                std::size_t j = i + 1;
                bool letter_after = j < text.size() && is_letter(text[j]);
                if (letter_after) {
                    ++j;
                    if (j < text.size() && text[j] == '-') ++j;
                    letter_after = j < text.size() && is_letter(text[j]);
                }
                if ((two_letters_before || lt_hyphen_lt_before) && letter_after) {
                    chunks.push_back(text.substr(start, i + 1 - start));
                    start = i + 1;
                }
            }
            ++i;
        }
        chunks.push_back(text.substr(start, i - start));
    }
    return chunks;
}

// textwrap.wrap(text, width) after argparse collapsed the whitespace.
std::vector<std::string> wrap(const std::string& raw, int width) {
    std::string text;
    for (char c : raw) {
        const bool space = std::isspace(static_cast<unsigned char>(c));
        if (space && (text.empty() || text.back() == ' ')) continue;
        text.push_back(space ? ' ' : c);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    std::vector<std::string> chunks = chunks_of(text);
    std::reverse(chunks.begin(), chunks.end());
    std::vector<std::string> lines;
    const std::size_t w = static_cast<std::size_t>(std::max(width, 1));
    while (!chunks.empty()) {
        std::vector<std::string> line;
        std::size_t len = 0;
        if (chunks.back() == " " && !lines.empty()) chunks.pop_back();
        while (!chunks.empty() && len + chunks.back().size() <= w) {
            len += chunks.back().size();
            line.push_back(chunks.back());
            chunks.pop_back();
        }
        if (!chunks.empty() && chunks.back().size() > w) {  // _handle_long_word: break it
            std::string& chunk = chunks.back();
            const std::size_t space_left = len < w ? w - len : 1;
            std::size_t end = space_left;
            const std::size_t hyphen = chunk.rfind('-', space_left - 1);
            if (hyphen != std::string::npos && hyphen > 0 && hyphen < space_left &&
                chunk.find_first_not_of('-') < hyphen)
                end = hyphen + 1;
            line.push_back(chunk.substr(0, end));
            chunk = chunk.substr(end);
        }
        if (!line.empty() && line.back() == " ") line.pop_back();
        if (!line.empty()) {
            std::string joined;
            for (const auto& c : line) joined += c;
            lines.push_back(joined);
        }
    }
    return lines;
}

bool starts_with(const std::string& s, const std::string& prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

std::string python_repr(const std::string& text) {
    const bool has_single = text.find('\'') != std::string::npos, has_double = text.find('"') != std::string::npos;
    const char quote = has_single && !has_double ? '"' : '\'';
    std::string out(1, quote);
    for (unsigned char c : text) {
        if (c == '\\') out += "\\\\";
        else if (c == static_cast<unsigned char>(quote)) out += std::string("\\") + static_cast<char>(c);
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (c == '\r') out += "\\r";
        else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else out += static_cast<char>(c);
    }
    return out + quote;
}

ArgumentParser::ArgumentParser(std::string prog, std::string description)
    : prog_(std::move(prog)), description_(std::move(description)) {
    Action& help = add("--help", Kind::help);
    help.help = "show this help message and exit";
}

ArgumentParser::Action& ArgumentParser::add(const std::string& name, Kind kind) {
    if (!starts_with(name, "--") || name.size() < 3) throw std::invalid_argument("argparse: option names start with --: " + name);
    for (const auto& a : actions_)
        if (a.option == name) throw std::invalid_argument("argparse: conflicting option string: " + name);
    Action a;
    a.option = name;
    a.dest = name.substr(2);
    a.kind = kind;
    actions_.push_back(a);
    return actions_.back();
}

void ArgumentParser::add_int(const std::string& name, std::optional<std::int64_t> default_value, const std::string& help,
                             bool required) {
    Action& a = add(name, Kind::integer);
    a.help = help;
    a.required = required;
    a.default_text = default_value ? std::to_string(*default_value) : "None";
    ints_[a.dest] = default_value;
}

void ArgumentParser::add_string(const std::string& name, const std::string& default_value, const std::string& help) {
    Action& a = add(name, Kind::string);
    a.help = help;
    a.default_text = default_value;
    strings_[a.dest] = default_value;
}

void ArgumentParser::add_choice(const std::string& name, const std::vector<std::string>& choices,
                                const std::string& default_value, const std::string& help) {
    Action& a = add(name, Kind::choice);
    a.help = help;
    a.choices = choices;
    a.default_text = default_value;
    strings_[a.dest] = default_value;
}

void ArgumentParser::add_flag(const std::string& name, const std::string& help) {
    Action& a = add(name, Kind::flag);
    a.help = help;
    a.default_text = "False";
    flags_[a.dest] = false;
}

void ArgumentParser::add_hidden_choice(const std::string& name, const std::vector<std::string>& choices,
                                       const std::string& default_value) {
    add_choice(name, choices, default_value);
    actions_.back().hidden = true;
}

std::optional<std::int64_t> ArgumentParser::get_int(const std::string& name) const {
    const auto it = ints_.find(name);
    if (it == ints_.end()) throw std::invalid_argument("argparse: no int option " + name);
    return it->second;
}

const std::string& ArgumentParser::get_string(const std::string& name) const {
    const auto it = strings_.find(name);
    if (it == strings_.end()) throw std::invalid_argument("argparse: no string option " + name);
    return it->second;
}

bool ArgumentParser::get_flag(const std::string& name) const {
    const auto it = flags_.find(name);
    if (it == flags_.end()) throw std::invalid_argument("argparse: no flag " + name);
    return it->second;
}

int ArgumentParser::text_width() {
    int columns = 0;
    if (const char* env = std::getenv("COLUMNS")) {
        const auto v = python_int(env);
        if (v && *v > 0 && *v < 100000) columns = static_cast<int>(*v);
    }
#ifdef LLMFS_HAVE_TIOCGWINSZ
    if (columns <= 0) {
        winsize ws{};
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) columns = ws.ws_col;
    }
#endif
    if (columns <= 0) columns = 80;
    return columns - 2;
}

std::string ArgumentParser::metavar(const Action& a) const {
    if (a.kind == Kind::choice) {
        std::string m = "{";
        for (std::size_t i = 0; i < a.choices.size(); ++i) m += (i ? "," : "") + a.choices[i];
        return m + "}";
    }
    return upper(a.dest);
}

std::string ArgumentParser::invocation(const Action& a) const {
    if (a.kind == Kind::help) return "-h, --help";
    if (a.kind == Kind::flag) return a.option;
    return a.option + " " + metavar(a);
}

std::string ArgumentParser::format_usage() const {
    const std::string prefix = "usage: ";
    const int text_width = ArgumentParser::text_width();
    std::vector<std::string> parts;  // the regex's parts: [--opt METAVAR] whole, a required option in two
    for (const auto& a : actions_) {
        if (a.hidden) continue;
        if (a.kind == Kind::help) parts.emplace_back("[-h]");
        else if (a.kind == Kind::flag) parts.push_back("[" + a.option + "]");
        else if (a.required) {
            parts.push_back(a.option);
            parts.push_back(metavar(a));
        } else parts.push_back("[" + a.option + " " + metavar(a) + "]");
    }
    std::string one_line = prog_;
    for (const auto& p : parts) one_line += " " + p;
    if (static_cast<int>(prefix.size() + one_line.size()) <= text_width) return prefix + one_line + "\n";

    auto get_lines = [&](const std::vector<std::string>& ps, const std::string& indent, bool first) {
        std::vector<std::string> lines, line;
        std::size_t line_len = first ? prefix.size() - 1 : indent.size() - 1;
        auto flush = [&] {
            std::string s = indent;
            for (std::size_t i = 0; i < line.size(); ++i) s += (i ? " " : "") + line[i];
            lines.push_back(s);
            line.clear();
        };
        for (const auto& part : ps) {
            if (static_cast<int>(line_len + 1 + part.size()) > text_width && !line.empty()) {
                flush();
                line_len = indent.size() - 1;
            }
            line.push_back(part);
            line_len += part.size() + 1;
        }
        if (!line.empty()) flush();
        if (first && !lines.empty()) lines[0] = lines[0].substr(indent.size());
        return lines;
    };
    std::vector<std::string> lines;
    if (prefix.size() + prog_.size() <= 0.75 * text_width) {
        const std::string indent(prefix.size() + prog_.size() + 1, ' ');
        std::vector<std::string> with_prog{prog_};
        with_prog.insert(with_prog.end(), parts.begin(), parts.end());
        lines = get_lines(with_prog, indent, true);
    } else {  // a long program name: the options start on the next line
        const std::string indent(prefix.size(), ' ');
        lines = get_lines(parts, indent, false);
        lines.insert(lines.begin(), prog_);
    }
    std::string usage = prefix;
    for (std::size_t i = 0; i < lines.size(); ++i) usage += (i ? "\n" : "") + lines[i];
    return usage + "\n";
}

std::string ArgumentParser::format_help() const {
    const int width = text_width();
    const int max_help_position = std::min(24, std::max(width - 20, 4));
    std::size_t max_len = 0;
    for (const auto& a : actions_)
        if (!a.hidden) max_len = std::max(max_len, invocation(a).size() + 2);
    const int help_position = std::min(static_cast<int>(max_len) + 2, max_help_position);
    const int help_width = std::max(width - help_position, 11);
    const int action_width = help_position - 2 - 2;

    std::string out = format_usage() + "\n";
    if (!description_.empty()) {
        for (const auto& line : wrap(description_, std::max(width, 11))) out += line + "\n";
        out += "\n";
    }
    out += "options:\n";
    for (const auto& a : actions_) {
        if (a.hidden) continue;
        const std::string header = invocation(a);
        std::string help = a.help;
        if (!help.empty() && a.kind != Kind::help) help += " (default: " + a.default_text + ")";
        if (a.help.empty()) {
            out += "  " + header + "\n";
            continue;
        }
        std::size_t indent_first = 0;
        if (static_cast<int>(header.size()) <= action_width) {
            out += "  " + header + std::string(action_width - header.size(), ' ') + "  ";
        } else {
            out += "  " + header + "\n";
            indent_first = help_position;
        }
        const auto lines = wrap(help, help_width);
        for (std::size_t i = 0; i < lines.size(); ++i)
            out += std::string(i == 0 ? indent_first : help_position, ' ') + lines[i] + "\n";
    }
    return out;
}

std::optional<ArgumentParser::Match> ArgumentParser::parse_optional(const std::string& arg) const {
    if (arg.empty() || arg[0] != '-') return std::nullopt;
    for (const auto& a : actions_)
        if (arg == a.option || (a.kind == Kind::help && arg == "-h")) return Match{&a, std::nullopt};
    if (arg.size() == 1) return std::nullopt;  // "-" is a positional
    const auto eq = arg.find('=');
    if (eq != std::string::npos) {
        const std::string name = arg.substr(0, eq);
        for (const auto& a : actions_)
            if (name == a.option || (a.kind == Kind::help && name == "-h")) return Match{&a, arg.substr(eq + 1)};
    }
    // unique prefixes of the long options (and "-hX": -h with an explicit argument)
    std::vector<Match> matches;
    std::vector<std::string> names;
    if (starts_with(arg, "--")) {
        const std::string prefix = eq == std::string::npos ? arg : arg.substr(0, eq);
        std::optional<std::string> explicit_arg;
        if (eq != std::string::npos) explicit_arg = arg.substr(eq + 1);
        for (const auto& a : actions_) {
            if (a.hidden || !starts_with(a.option, prefix)) continue;
            matches.push_back(Match{&a, explicit_arg});
            names.push_back(a.option);
        }
    } else if (arg[1] != '-') {
        if (arg.compare(0, 2, "-h") == 0) {
            matches.push_back(Match{&actions_.front(), arg.substr(2)});
            names.emplace_back("-h");
        }
    }
    if (matches.size() > 1) {
        std::string list;
        for (std::size_t i = 0; i < names.size(); ++i) list += (i ? ", " : "") + names[i];
        throw UsageError("ambiguous option: " + arg + " could match " + list);
    }
    if (matches.size() == 1) return matches.front();
    static const std::regex negative_number("^-\\d+$|^-\\d*\\.\\d+$");
    if (std::regex_match(arg, negative_number)) return std::nullopt;  // no option looks like one
    if (arg.find(' ') != std::string::npos) return std::nullopt;
    return Match{nullptr, std::nullopt};  // an unknown optional: ends up with the leftovers
}

std::optional<int> ArgumentParser::parse(int argc, const char* const* argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    try {
        // Classify every argument first, as argparse does: 'O' an option, 'A' anything else.
        std::vector<std::optional<Match>> kinds;
        bool after_double_dash = false;
        for (const auto& arg : args) {
            if (after_double_dash) kinds.emplace_back(std::nullopt);
            else if (arg == "--") {
                after_double_dash = true;
                kinds.emplace_back(std::nullopt);
            } else kinds.push_back(parse_optional(arg));
        }
        std::vector<std::string> extras;
        std::vector<const Action*> seen;
        std::size_t i = 0;
        while (i < args.size()) {
            if (!kinds[i] || !kinds[i]->action) {  // not an option we know: a leftover
                extras.push_back(args[i]);
                ++i;
                continue;
            }
            const Match m = *kinds[i];
            const Action& a = *m.action;
            const std::string name = a.kind == Kind::help ? "-h/--help" : a.option;
            ++i;
            if (a.kind == Kind::help || a.kind == Kind::flag) {
                if (m.explicit_arg) throw UsageError("argument " + name + ": ignored explicit argument " + python_repr(*m.explicit_arg));
                if (a.kind == Kind::help) {
                    std::cout << format_help() << std::flush;
                    return 0;
                }
                flags_[a.dest] = true;
                seen.push_back(&a);
                continue;
            }
            std::string value;
            if (m.explicit_arg) value = *m.explicit_arg;
            else if (i < args.size() && !kinds[i] && args[i] != "--") value = args[i++];  // the next argument, unless an option
            else throw UsageError("argument " + name + ": expected one argument");
            if (a.kind == Kind::integer) {
                bool too_large = false;
                const auto v = python_int(value, &too_large);
                if (!v) {
                    if (too_large) throw UsageError("argument " + name + ": " + python_repr(value) + " is beyond llmfs's 64-bit integers");
                    throw UsageError("argument " + name + ": invalid int value: " + python_repr(value));
                }
                ints_[a.dest] = v;
            } else if (a.kind == Kind::choice) {
                if (std::find(a.choices.begin(), a.choices.end(), value) == a.choices.end()) {
                    std::string list;
                    for (std::size_t c = 0; c < a.choices.size(); ++c) list += (c ? ", " : "") + python_repr(a.choices[c]);
                    throw UsageError("argument " + name + ": invalid choice: " + python_repr(value) + " (choose from " + list + ")");
                }
                strings_[a.dest] = value;
            } else {
                strings_[a.dest] = value;
            }
            seen.push_back(&a);
        }
        std::string missing;
        for (const auto& a : actions_)
            if (a.required && std::find(seen.begin(), seen.end(), &a) == seen.end()) missing += (missing.empty() ? "" : ", ") + a.option;
        if (!missing.empty()) throw UsageError("the following arguments are required: " + missing);
        if (!extras.empty()) {
            std::string list;
            for (std::size_t e = 0; e < extras.size(); ++e) list += (e ? " " : "") + extras[e];
            throw UsageError("unrecognized arguments: " + list);
        }
    } catch (const UsageError& e) {
        std::cerr << format_usage() << prog_ << ": error: " << e.what() << "\n" << std::flush;
        return 2;
    }
    return std::nullopt;
}

}  // namespace llmfs
