#include "llmfs/app/nbcheck.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

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

// nbformat keeps multi-line strings either as one string or as a list of lines.
std::string multiline(const json& value) {
    if (value.is_string()) return value.get<std::string>();
    std::string text;
    if (value.is_array()) {
        for (const json& part : value) {
            if (part.is_string()) text += part.get<std::string>();
        }
    }
    return text;
}

// A .ipynb's code cells. Only what a program prints to stdout counts as output: stderr streams
// (warnings) are left out; an expression's value (execute_result) is printed text with a newline.
std::vector<NotebookCell> read_ipynb(std::string_view text) {
    json notebook;
    try {
        notebook = json::parse(text);
    } catch (const json::parse_error& e) {
        throw std::invalid_argument(std::string("not valid notebook JSON: ") + e.what());
    }
    if (!notebook.is_object() || !notebook.contains("cells") || !notebook["cells"].is_array()) {
        throw std::invalid_argument("not a Jupyter notebook: the JSON has no \"cells\" list");
    }
    std::vector<NotebookCell> cells;
    const json& all = notebook["cells"];
    for (const json& c : all) {
        if (!c.is_object() || c.value("cell_type", "") != "code") continue;
        NotebookCell cell;
        cell.index = cells.size() + 1;
        cell.code = multiline(c.value("source", json()));
        for (const json& out : c.value("outputs", json::array())) {
            const std::string type = out.value("output_type", "");
            if (type == "stream") {
                if (out.value("name", "") == "stdout") cell.output += multiline(out.value("text", json()));
            } else if (type == "execute_result" || type == "display_data") {
                const json data = out.value("data", json::object());
                if (data.contains("image/png") || data.contains("image/svg+xml") || data.contains("image/jpeg")) {
                    cell.figure = true;
                } else if (data.contains("text/plain")) {
                    std::string value = multiline(data["text/plain"]);
                    if (!value.empty() && value.back() != '\n') value += '\n';
                    cell.output += value;
                }
            } else if (type == "error") {
                cell.error = true;
            }
        }
        cells.push_back(std::move(cell));
    }
    return cells;
}

// The plain-text export of the seeds: "In [N]:" starts a code cell; the code, one blank line, its
// output, two blank lines, then markdown up to the next "In [". The export does not mark where code
// ends and output begins, so a cell's code holds all of it until check_notebook splits it against
// the program cell it maps to (split_text_cell).
std::vector<NotebookCell> read_text_export(std::string_view text) {
    static const std::regex in_marker(R"(^In \[[^\]]*\]:\s*$)");  // "In [12]:", "In [ ]:", "In [None]:"
    const auto lines = split_lines(text);
    std::vector<NotebookCell> cells;
    std::optional<std::size_t> begin;
    const auto flush = [&](std::size_t end) {
        if (!begin) return;
        NotebookCell cell;
        cell.index = cells.size() + 1;
        cell.code = join_lines(lines, *begin, end);
        cell.undivided = true;
        cells.push_back(std::move(cell));
    };
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (std::regex_match(lines[i], in_marker)) {
            flush(i);
            begin = i + 1;
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

bool is_version_print(const NotebookCell& cell) {
    return cell.code.find("version(") != std::string::npos || starts_with(cell.output, "torch version");
}

}  // namespace

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
            cells.push_back({std::string(program), section, line.substr(7), "", ""});
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

std::optional<std::size_t> map_cell(const NotebookCell& cell, const std::vector<ProgramCell>& cells) {
    const auto notebook_lines = line_set(cell.code);
    std::optional<std::size_t> best;
    std::tuple<double, double, int> best_score;  // (coverage, specificity, agreement of the outputs)
    for (std::size_t k = 0; k < cells.size(); ++k) {
        const auto program_lines = line_set(cells[k].code);
        if (cells[k].output.empty() || program_lines.empty()) continue;
        std::size_t shared = 0;
        for (const std::string& line : program_lines) shared += notebook_lines.count(line);
        const double coverage = static_cast<double>(shared) / program_lines.size();
        if (coverage <= 0.5) continue;
        const double specificity = static_cast<double>(shared) / notebook_lines.size();
        const int agreement = cell.output.empty() ? 0 : verdict_rank(compare_outputs(cell.output, cells[k].output).verdict);
        const std::tuple<double, double, int> score{coverage, specificity, agreement};
        if (!best || score > best_score) {
            best = k;
            best_score = score;
        }
    }
    return best;
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
    std::vector<CellResult> results;
    for (const NotebookCell& original : notebook) {
        NotebookCell cell = original;
        CellResult result;
        result.index = cell.index;
        const auto mapped = is_version_print(cell) ? std::nullopt : map_cell(cell, cells);
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
            const Comparison comparison = compare_outputs(cell.output, program.output);
            result.status = comparison.verdict == Verdict::match   ? CellStatus::match
                            : comparison.verdict == Verdict::close ? CellStatus::close
                                                                   : CellStatus::differ;
            if (result.status != CellStatus::match) {
                result.diff = unified_diff(cell.output, program.output, "notebook code cell " + std::to_string(cell.index),
                                           program.program + " (" + program.cpp + ")");
            }
        }
        results.push_back(std::move(result));
    }
    return results;
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
