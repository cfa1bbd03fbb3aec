#include "llmfs/app/nbcheck.hpp"
#include "llmfs/app/notebook.hpp"
#include "llmfs/text/validate.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace llmfs {

namespace {

using json = nlohmann::json;

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::vector<std::string> split_lines(std::string_view text) {
    std::vector<std::string> lines;
    std::istringstream in{std::string(text)};
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::string join_lines(const std::vector<std::string>& lines, std::size_t begin, std::size_t end) {
    std::string text;
    for (std::size_t i = begin; i < end && i < lines.size(); ++i) text += lines[i] + "\n";
    return text;
}

// Where a notebook's JSON is wrong, for messages: "cell 3 (code cell 2), output 1".
std::string where(std::size_t cell, std::size_t code_cell, std::size_t output = 0) {
    std::string at = "cell " + std::to_string(cell);
    if (code_cell > 0) at += " (code cell " + std::to_string(code_cell) + ")";
    if (output > 0) at += ", output " + std::to_string(output);
    return at;
}

const char* type_name(const json& value) {
    switch (value.type()) {
        case json::value_t::null: return "null";
        case json::value_t::object: return "an object";
        case json::value_t::array: return "a list";
        case json::value_t::string: return "a string";
        case json::value_t::boolean: return "a boolean";
        case json::value_t::number_integer:
        case json::value_t::number_unsigned:
        case json::value_t::number_float: return "a number";
        default: return "a value of another type";
    }
}

[[noreturn]] void wrong_type(const std::string& at, std::string_view field, std::string_view expected, const json& value) {
    throw std::invalid_argument(fmt::format("not a valid notebook: {}: \"{}\" must be {}, not {}", at, field, expected,
                                            type_name(value)));
}

// The string `object[field]`, or `fallback` when it is absent; any other type is bad input.
std::string string_field(const json& object, std::string_view field, const std::string& at, std::string fallback = "") {
    const auto it = object.find(field);
    if (it == object.end()) return fallback;
    if (!it->is_string()) wrong_type(at, field, "a string", *it);
    return it->get<std::string>();
}

// nbformat keeps multi-line strings either as one string or as a list of strings (lines).
std::string multiline(const json& object, std::string_view field, const std::string& at) {
    const auto it = object.find(field);
    if (it == object.end()) return "";
    if (it->is_string()) return it->get<std::string>();
    if (!it->is_array()) wrong_type(at, field, "a string or a list of strings", *it);
    std::string text;
    for (const json& part : *it) {
        if (!part.is_string()) wrong_type(at, field, "a string or a list of strings", part);
        text += part.get<std::string>();
    }
    return text;
}

// Notebooks nest a few levels (cells, outputs, data, metadata); JSON nested deeper than this is
// refused while it is parsed, before it can exhaust the stack of code that walks it.
constexpr int kMaxJsonDepth = 64;

// A .ipynb's code cells. Only what a program prints to stdout counts as output: stderr streams
// (warnings) are left out; an expression's value (execute_result) is printed text with a newline.
// Bad input (broken or too deeply nested JSON, a field of the wrong type) is std::invalid_argument
// naming the cell and field.
std::vector<NotebookCell> read_ipynb(std::string_view text) {
    // First the depth, with a pass that builds nothing (nlohmann's callback parser, which could
    // count depth while building, is quadratic in a long list of cells). Then the document itself.
    if (check_json(text, kMaxJsonDepth, /*find_duplicate_keys=*/false).too_deep) {
        throw std::invalid_argument(fmt::format("not a notebook: its JSON is nested more than {} levels deep "
                                                "(a Jupyter notebook has fewer than 10)",
                                                kMaxJsonDepth));
    }
    json notebook;
    try {
        notebook = json::parse(text);
    } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
        throw std::invalid_argument(std::string("not valid notebook JSON: ") + e.what());
    }
    if (!notebook.is_object() || !notebook.contains("cells") || !notebook["cells"].is_array()) {
        throw std::invalid_argument("not a Jupyter notebook: the JSON has no \"cells\" list");
    }
    std::vector<NotebookCell> cells;
    const json& all = notebook["cells"];
    for (std::size_t n = 0; n < all.size(); ++n) {
        const json& c = all[n];
        if (!c.is_object()) throw std::invalid_argument(fmt::format("not a valid notebook: cell {} is {}, not an object", n + 1, type_name(c)));
        if (string_field(c, "cell_type", where(n + 1, 0)) != "code") continue;
        NotebookCell cell;
        cell.index = cells.size() + 1;
        const std::string at = where(n + 1, cell.index);
        cell.code = multiline(c, "source", at);
        const auto count = c.find("execution_count");
        cell.ran = count != c.end() && !count->is_null();
        const auto outputs = c.find("outputs");
        if (outputs != c.end() && !outputs->is_array()) wrong_type(at, "outputs", "a list", *outputs);
        for (std::size_t k = 0; outputs != c.end() && k < outputs->size(); ++k) {
            const json& out = (*outputs)[k];
            const std::string out_at = where(n + 1, cell.index, k + 1);
            if (!out.is_object()) throw std::invalid_argument(fmt::format("not a valid notebook: {} is {}, not an object", out_at, type_name(out)));
            const std::string type = string_field(out, "output_type", out_at);
            if (type == "stream") {
                if (string_field(out, "name", out_at) == "stdout") cell.output += multiline(out, "text", out_at);
            } else if (type == "execute_result" || type == "display_data") {
                const auto data = out.find("data");
                if (data == out.end()) continue;
                if (!data->is_object()) wrong_type(out_at, "data", "an object", *data);
                if (data->contains("image/png") || data->contains("image/svg+xml") || data->contains("image/jpeg")) {
                    cell.figure = true;
                } else if (data->contains("text/plain")) {
                    std::string value = multiline(*data, "text/plain", out_at);
                    if (!value.empty() && value.back() != '\n') value += '\n';
                    cell.output += value;
                }
            } else if (type == "error") {
                cell.error = true;
                cell.error_text = string_field(out, "ename", out_at, "an error");
                const std::string value = string_field(out, "evalue", out_at);
                if (!value.empty()) cell.error_text += ": " + value;
            }
        }
        cell.ran = cell.ran || (outputs != c.end() && !outputs->empty());
        cells.push_back(std::move(cell));
    }
    return cells;
}

// "In [12]:", "In [ ]:", "In [None]:": the line that starts a cell of a text export. A plain
// scanner: a backtracking regex recursed once per character and overflowed the stack on a long line.
bool is_in_marker(std::string_view line) {
    if (!starts_with(line, "In [")) return false;
    const std::size_t close = line.find(']', 4);
    if (close == std::string_view::npos || close + 1 >= line.size() || line[close + 1] != ':') return false;
    for (std::size_t i = close + 2; i < line.size(); ++i) {
        if (!std::isspace(static_cast<unsigned char>(line[i]))) return false;
    }
    return true;
}

// The plain-text export of the seeds: "In [N]:" starts a code cell; the code, one blank line, its
// output, two blank lines, then markdown up to the next "In [". The export does not mark where code
// ends and output begins, so a cell's code holds all of it until check_notebook splits it against
// the program cell it maps to (split_text_cell).
std::vector<NotebookCell> read_text_export(std::string_view text) {
    const auto lines = split_lines(text);
    std::vector<NotebookCell> cells;
    std::optional<std::size_t> begin;
    bool ran = true;
    const auto flush = [&](std::size_t end) {
        if (!begin) return;
        NotebookCell cell;
        cell.index = cells.size() + 1;
        cell.code = join_lines(lines, *begin, end);
        cell.undivided = true;
        cell.ran = ran;
        cells.push_back(std::move(cell));
    };
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (is_in_marker(lines[i])) {
            flush(i);
            begin = i + 1;
            // "In [ ]:" marks a cell that never ran.
            const std::string_view number = std::string_view(lines[i]).substr(4, lines[i].find(']') - 4);
            ran = number.find_first_not_of(' ') != std::string_view::npos;
        }
    }
    flush(lines.size());
    if (cells.empty()) {
        throw std::invalid_argument("not a notebook: neither .ipynb JSON nor a text export with \"In [N]:\" cells");
    }
    return cells;
}

bool is_text_export(std::string_view text) {
    const std::size_t first = text.find_first_not_of(" \t\r\n\xef\xbb\xbf");
    return first == std::string_view::npos || text[first] != '{';
}

struct LogicalLine {
    std::string text;  // without comments and whitespace
    std::size_t end;   // 1 + the index of the physical line it ends on
};

// `print(x)` -> `x` when x is one expression (no comma outside brackets or quotes).
std::string without_print(const std::string& line) {
    const std::string_view open = "print(";
    if (!starts_with(line, open) || line.back() != ')') return line;
    const std::string inner = line.substr(open.size(), line.size() - open.size() - 1);
    int depth = 0;
    char quote = 0;
    for (char c : inner) {
        if (quote) {
            if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '(' || c == '[' || c == '{') {
            ++depth;
        } else if (c == ')' || c == ']' || c == '}') {
            if (--depth < 0) return line;  // print(a)(b): the first ')' closes print
        } else if (c == ',' && depth == 0) {
            return line;
        }
    }
    return inner.empty() || depth != 0 || quote ? line : inner;
}

// logical_lines(), with where each statement ends (a bracket left open continues it).
std::vector<LogicalLine> logical_lines_with_ends(std::string_view code) {
    std::vector<LogicalLine> lines;
    std::string current;
    int depth = 0;
    const auto physical = split_lines(code);
    for (std::size_t i = 0; i < physical.size(); ++i) {
        char quote = 0;
        for (char c : physical[i]) {
            if (quote) {
                if (c == quote) quote = 0;
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == '#') {
                break;  // a comment, to the end of the line
            } else if (c == '(' || c == '[' || c == '{') {
                ++depth;
            } else if (c == ')' || c == ']' || c == '}') {
                --depth;
            }
            if (!std::isspace(static_cast<unsigned char>(c))) current += c;
        }
        if (depth <= 0) {
            if (!current.empty()) lines.push_back({without_print(current), i + 1});
            current.clear();
            depth = 0;
        }
    }
    if (!current.empty()) lines.push_back({without_print(current), physical.size()});
    return lines;
}

// A cell's code as a set of logical lines.
std::set<std::string> line_set(std::string_view code) {
    const auto lines = logical_lines(code);
    return {lines.begin(), lines.end()};
}

int verdict_rank(Verdict v) { return v == Verdict::match ? 2 : v == Verdict::close ? 1 : 0; }

// The output of a text-export cell mapped to `program`: from the program's first output line where
// it stands (else what follows the cell's last code line and one blank line) up to the markdown.
std::string split_text_cell(const std::string& body, const ProgramCell& program) {
    const auto code = line_set(program.code);
    const auto lines = split_lines(body);
    std::size_t code_end = 0;  // just after the last physical line of a statement the program shows
    for (const LogicalLine& statement : logical_lines_with_ends(body)) {
        if (code.count(statement.text)) code_end = statement.end;
    }
    std::size_t begin = code_end;
    if (begin < lines.size() && lines[begin].empty()) ++begin;
    // Where the program's first output line (or a close one) stands after the code, the output
    // starts there: a translated export may have reworded or added a last code line.
    const std::string first_output_line = program.output.substr(0, program.output.find('\n'));
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (!lines[i].empty() && compare_outputs(first_output_line, lines[i]).verdict != Verdict::differ) {
            begin = i;
            break;
        }
    }
    // It ends at a blank line followed by one that does not continue a tensor (markdown), but not
    // before it is as long as the program's output (whose 3-D tensors hold blank lines too).
    const auto program_lines = static_cast<std::size_t>(std::count(program.output.begin(), program.output.end(), '\n'));
    std::size_t end = begin;
    while (end < lines.size()) {
        if (lines[end].empty() && end >= begin + program_lines) {
            std::size_t next = end;
            while (next < lines.size() && lines[next].empty()) ++next;
            if (next == lines.size() || lines[next][0] != ' ') break;
        }
        ++end;
    }
    while (end > begin && lines[end - 1].empty()) --end;
    return join_lines(lines, begin, end);
}

// importlib.metadata's version("torch"), or chapter 2's print("PyTorch version:", torch.__version__)
bool is_version_print(const NotebookCell& cell) {
    return cell.code.find("version(") != std::string::npos || starts_with(cell.output, "torch version") ||
           starts_with(cell.output, "PyTorch version");
}

}  // namespace

std::string without_device(std::string_view output, std::string* device) {
    // a scan, not std::regex: its recursion overflows the stack on long outputs (the fuzz tests')
    std::string text;
    text.reserve(output.size());
    std::size_t i = 0;
    for (std::size_t at; (at = output.find("device='", i)) != std::string_view::npos;) {
        std::size_t comma = at;
        while (comma > i && std::isspace(static_cast<unsigned char>(output[comma - 1]))) --comma;
        std::size_t end = at + 8, name_end = end;
        while (name_end < output.size() && std::islower(static_cast<unsigned char>(output[name_end]))) ++name_end;
        const std::string_view name = output.substr(end, name_end - end);
        end = name_end;
        if (end < output.size() && output[end] == ':') {
            ++end;
            while (end < output.size() && std::isdigit(static_cast<unsigned char>(output[end]))) ++end;
        }
        const bool suffix = comma > i && output[comma - 1] == ',' && (name == "cuda" || name == "mps") &&
                            output.substr(end, 2) == "')";
        if (!suffix) {
            text.append(output.substr(i, at + 8 - i));
            i = at + 8;
            continue;
        }
        if (device) *device = std::string(name);
        text.append(output.substr(i, comma - 1 - i));  // up to the comma, left out with the suffix
        i = end + 1;                                    // from the ')'
    }
    text.append(output.substr(i));
    std::string result;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t newline = text.find('\n', start);
        const bool last = newline == std::string::npos;
        if (last) newline = text.size();
        const std::string_view line(text.data() + start, newline - start);
        if (line == "Device: cuda" || line == "Device: mps") {
            if (device) *device = std::string(line.substr(8));
            result += "Device: cpu";
        } else {
            result += line;
        }
        if (last) break;
        result += '\n';
        start = newline + 1;
    }
    return result;
}

std::string without_timing(std::string_view output) {
    static const std::string prefix = "Training completed in ", suffix = " minutes.";
    std::string result;
    std::size_t start = 0;
    while (start < output.size()) {
        std::size_t newline = output.find('\n', start);
        const std::size_t end = newline == std::string_view::npos ? output.size() : newline + 1;
        std::string_view line = output.substr(start, end - start);
        std::string_view text = line.substr(0, line.size() - (line.back() == '\n' ? 1 : 0));
        bool timing = text.size() > prefix.size() + suffix.size() && text.substr(0, prefix.size()) == prefix &&
                      text.substr(text.size() - suffix.size()) == suffix;
        if (timing) {
            for (char c : text.substr(prefix.size(), text.size() - prefix.size() - suffix.size()))
                timing = timing && (std::isdigit(static_cast<unsigned char>(c)) || c == '.');
        }
        if (!timing) result.append(line);
        start = end;
    }
    return result;
}

std::vector<NotebookCell> read_notebook(std::string_view text) {
    return is_text_export(text) ? read_text_export(text) : read_ipynb(text);
}

std::vector<std::string> logical_lines(std::string_view code) {
    std::vector<std::string> lines;
    for (LogicalLine& line : logical_lines_with_ends(code)) lines.push_back(std::move(line.text));
    return lines;
}

std::vector<ProgramCell> parse_annotated(std::string_view program, std::string_view annotated) {
    std::vector<ProgramCell> cells;
    std::string section;
    const auto lines = split_lines(annotated);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        if (starts_with(line, "## ")) {
            section = line.substr(3);
        } else if (line.empty() && i + 1 < lines.size() && starts_with(lines[i + 1], "## ")) {
            // the blank line --annotate puts before a heading
        } else if (starts_with(line, "# C++: ")) {
            std::string cpp = line.substr(7);
            const bool added = cpp.size() >= kAddedCellMark.size() && cpp.compare(cpp.size() - kAddedCellMark.size(), kAddedCellMark.size(), kAddedCellMark) == 0;
            if (added) cpp.resize(cpp.size() - kAddedCellMark.size());
            cells.push_back({std::string(program), section, cpp, "", "", added});
        } else if (starts_with(line, ">>> ") && !cells.empty()) {
            cells.back().code += line.substr(4) + "\n";
        } else if (starts_with(line, "# Note: ")) {
            // a remark for the reader
        } else if (!cells.empty()) {
            cells.back().output += line + "\n";
        }
    }
    return cells;
}

namespace {

// The program cells' code lines, worked out once per notebook, and which cells hold each line:
// a notebook cell is then compared only with the program cells it shares a line with, so a
// notebook of N cells takes time in proportion to N, not N times the program cells.
// With `silent`, program cells that print nothing (a class definition) are indexed too: they
// cannot be compared, but a notebook holds them or not.
struct ProgramIndex {
    std::vector<std::set<std::string>> lines;  // per program cell
    std::unordered_map<std::string, std::vector<std::size_t>> cells_with;
    explicit ProgramIndex(const std::vector<ProgramCell>& cells, bool silent = false) {
        for (std::size_t k = 0; k < cells.size(); ++k) {
            lines.push_back(cells[k].output.empty() && !silent ? std::set<std::string>{} : line_set(cells[k].code));
            for (const std::string& line : lines.back()) cells_with[line].push_back(k);
        }
    }
    // The program cells more than half of whose lines `notebook_lines` holds, with how many.
    std::map<std::size_t, std::size_t> candidates(const std::set<std::string>& notebook_lines) const {
        std::map<std::size_t, std::size_t> shared;
        for (const std::string& line : notebook_lines) {
            if (const auto it = cells_with.find(line); it != cells_with.end()) {
                for (std::size_t k : it->second) ++shared[k];
            }
        }
        for (auto it = shared.begin(); it != shared.end();) {
            it = 2 * it->second > lines[it->first].size() ? std::next(it) : shared.erase(it);
        }
        return shared;
    }
};

std::optional<std::size_t> map_cell(const NotebookCell& cell, const std::vector<ProgramCell>& cells, const ProgramIndex& index) {
    const auto notebook_lines = line_set(cell.code);
    std::optional<std::size_t> best;
    std::tuple<double, double, int> best_score;  // (coverage, specificity, agreement of the outputs)
    for (const auto& [k, count] : index.candidates(notebook_lines)) {  // in program order: the first of equal scores wins
        const double coverage = static_cast<double>(count) / index.lines[k].size();
        const double specificity = static_cast<double>(count) / notebook_lines.size();
        const int agreement = cell.output.empty() ? 0 : verdict_rank(compare_outputs(cell.output, cells[k].output).verdict);
        const std::tuple<double, double, int> score{coverage, specificity, agreement};
        if (!best || score > best_score) {
            best = k;
            best_score = score;
        }
    }
    return best;
}

// The notebook cell's code lines the book's cell lacks (comments, spacing and print() aside),
// joined by "; ": a changed seed shows as "torch.manual_seed(124)". A text export's cell holds its
// output and markdown too, so there only lines that look like the program's are kept: those
// sharing their start (up to a '(' or '=') with one of its lines.
std::string code_change(const NotebookCell& cell, const ProgramCell& program) {
    const auto book = line_set(program.code);
    std::set<std::string> starts;
    const auto start_of = [](const std::string& line) { return line.substr(0, line.find_first_of("(=")); };
    for (const std::string& line : book) starts.insert(start_of(line));
    std::string changed;
    std::size_t shown = 0, begin = 0;  // begin: the physical line a statement starts on
    const auto physical = split_lines(cell.code);
    for (const LogicalLine& statement : logical_lines_with_ends(cell.code)) {
        const std::size_t first = begin;
        begin = statement.end;
        const std::string& line = statement.text;
        if (book.count(line) || (cell.undivided && !starts.count(start_of(line)))) continue;
        if (++shown > 2) {
            changed += "; ...";
            break;
        }
        // As written when the statement is one line (its comment cut off), else without spaces.
        std::string shown_text = line;
        if (statement.end == first + 1) {
            const std::string& raw = physical[first];
            shown_text = raw.substr(0, raw.find(" #"));
            shown_text = shown_text.substr(shown_text.find_first_not_of(" \t"));
            shown_text.erase(shown_text.find_last_not_of(" \t\r") + 1);
        }
        changed += (changed.empty() ? "" : "; ") + (shown_text.size() > 60 ? shown_text.substr(0, 57) + "..." : shown_text);
    }
    return changed;
}

}  // namespace

std::optional<std::size_t> map_cell(const NotebookCell& cell, const std::vector<ProgramCell>& cells) {
    return map_cell(cell, cells, ProgramIndex(cells));
}

const char* to_string(CellStatus status) {
    switch (status) {
        case CellStatus::match: return "match";
        case CellStatus::close: return "close";
        case CellStatus::differ: return "differ";
        case CellStatus::not_covered: return "not covered";
    }
    return "?";
}

std::vector<CellResult> check_notebook(const std::vector<NotebookCell>& notebook, const std::vector<ProgramCell>& cells) {
    const ProgramIndex index(cells);
    std::vector<CellResult> results;
    for (const NotebookCell& original : notebook) {
        NotebookCell cell = original;
        CellResult result;
        result.index = cell.index;
        const auto mapped = is_version_print(cell) ? std::nullopt : map_cell(cell, cells, index);
        // A text export's cell is counted when it maps to a program (its output then split off
        // its code) or prints the version; what else it prints cannot be told from markdown.
        if (cell.undivided && mapped) cell.output = split_text_cell(cell.code, cells[*mapped]);
        if (!cell.has_output() && !(cell.undivided && is_version_print(cell))) continue;
        if (is_version_print(cell)) {
            result.reason = "version print";
        } else if (cell.error) {
            result.reason = "the cell raised an error";
        } else if (cell.figure) {
            result.reason = mapped ? "figure (" + cells[*mapped].program + " draws it to a PNG file)" : "figure";
        } else if (!mapped) {
            result.reason = "a cell the suite does not reproduce";
        } else {
            result.program_cell = mapped;
            const ProgramCell& program = cells[*mapped];
            result.code_change = code_change(cell, program);
            cell.output = without_timing(cell.output);
            const Comparison comparison = compare_outputs(cell.output, program.output);
            result.status = comparison.verdict == Verdict::match   ? CellStatus::match
                            : comparison.verdict == Verdict::close ? CellStatus::close
                                                                   : CellStatus::differ;
            std::string device;
            const std::string on_cpu = without_device(cell.output, &device);
            if (result.status != CellStatus::match && on_cpu != cell.output &&
                compare_outputs(on_cpu, program.output).verdict == Verdict::match) {
                result.status = CellStatus::not_covered;
                result.program_cell.reset();
                result.reason = "run on " + device + ": " + program.program + " prints the same on the CPU";
            } else if (result.status != CellStatus::match) {
                result.diff = unified_diff(cell.output, program.output, "notebook code cell " + std::to_string(cell.index),
                                           program.program + " (" + program.cpp + ")");
            }
        }
        results.push_back(std::move(result));
    }
    return results;
}

void set_aside_other_chapters(std::vector<CellResult>& results, const std::vector<ProgramCell>& cells,
                              const std::vector<std::string>& chapter_programs) {
    for (CellResult& r : results) {
        if (!r.program_cell || r.status == CellStatus::match || r.code_change.empty()) continue;
        const std::string& program = cells[*r.program_cell].program;
        if (std::find(chapter_programs.begin(), chapter_programs.end(), program) != chapter_programs.end()) continue;
        r.status = CellStatus::not_covered;
        r.reason = "another chapter's code (" + program + ") on this notebook's changes (" + r.code_change + ")";
        r.program_cell.reset();
        r.diff.clear();
        r.code_change.clear();
    }
}

Completeness check_completeness(const std::vector<NotebookCell>& notebook, const std::vector<ProgramCell>& cells,
                                const std::vector<std::string>& chapter_programs) {
    const ProgramIndex index(cells, /*silent=*/true);
    std::set<std::size_t> present;
    Completeness c;
    for (const NotebookCell& cell : notebook) {
        for (const auto& [k, count] : index.candidates(line_set(cell.code))) present.insert(k);
        if (cell.error) c.errors.push_back(cell.index);
        if (!cell.ran && !logical_lines(cell.code).empty()) c.not_run.push_back(cell.index);
    }
    for (std::size_t k = 0; k < cells.size(); ++k) {
        const bool of_chapter = std::find(chapter_programs.begin(), chapter_programs.end(), cells[k].program) != chapter_programs.end();
        if (of_chapter && !cells[k].added && !present.count(k) && !index.lines[k].empty()) c.missing.push_back(k);
    }
    return c;
}

std::string completeness_line(const Completeness& c) {
    const auto count = [](std::size_t n, const char* one, const char* many) {
        return std::to_string(n) + " " + (n == 1 ? one : many);
    };
    return count(c.missing.size(), "cell of the book missing", "cells of the book missing") + ", " +
           count(c.not_run.size(), "cell not run", "cells not run") + ", " +
           count(c.errors.size(), "cell raised an error", "cells raised an error");
}

Summary summarize(const std::vector<CellResult>& results) {
    Summary s;
    for (const CellResult& r : results) {
        switch (r.status) {
            case CellStatus::match: ++s.match; break;
            case CellStatus::close: ++s.close; break;
            case CellStatus::differ: ++s.differ; break;
            case CellStatus::not_covered: ++s.not_covered; break;
        }
    }
    return s;
}

std::string summary_line(const Summary& s) {
    return std::to_string(s.match) + "/" + std::to_string(s.covered()) + " covered output cells match, " +
           std::to_string(s.close) + " close, " + std::to_string(s.differ) + " differ (" + std::to_string(s.not_covered) +
           " not covered)";
}

}  // namespace llmfs
