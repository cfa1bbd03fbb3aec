// llmfs-nbcheck's logic: read a Jupyter notebook, map each of its output cells onto the cell of a
// chapter program that reproduces it, and classify the pair (match / close / differ / not covered).
//
// Cells are mapped by what they contain, never by their numbers: a program's `--annotate` output
// shows, for each notebook cell it reproduces, the cell's code (">>> " lines, see Notebook::code),
// and a notebook cell maps to the program cell whose code lines it contains (comments, blank lines
// and spacing ignored; ties broken by how well the outputs agree). So a translated notebook, one
// without markdown, or one whose cells ran out of order maps the same.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llmfs/app/compare.hpp"

namespace llmfs {

// One code cell of the user's notebook.
struct NotebookCell {
    std::size_t index = 0;  // 1-based number among the notebook's code cells (markdown does not count)
    std::string code;       // the cell's source
    std::string output;     // what it printed: stdout streams and text results, in order
    bool figure = false;    // it displayed an image
    bool error = false;     // it raised an error
    std::string error_text = {};  // its "ename: evalue" (an .ipynb's error output), e.g. "NameError: name 'x' is not defined"
    bool ran = true;        // it was executed: an execution count, or outputs ("In [ ]:" in a text export: no)
    bool undivided = false; // a text export's cell: `code` holds code, output and markdown alike
    bool has_output() const { return !output.empty() || figure || error; }
};

// The code cells of a notebook: .ipynb JSON (nbformat 4), or the plain-text export the seed
// notebooks come in ("In [N]:", the code, a blank line, its output). Throws std::invalid_argument
// for text that is neither (broken JSON, not a notebook).
std::vector<NotebookCell> read_notebook(std::string_view text);

// One cell a chapter program reproduces, cut out of its `--annotate` output.
struct ProgramCell {
    std::string program;          // e.g. "ch03_naive_attention"
    std::string section;          // the "## " heading it falls under, e.g. "3.3.1 A simple ..."
    std::string cpp;              // the C++ that runs it, e.g. "chapters/ch03/naive_attention.cpp:19"
    std::string code;             // the notebook code it shows (">>> " lines, joined)
    std::string output;           // what it prints
    bool added = false;           // a cell the program adds to the book's notebook ("# C++ (added): ...")
};
std::vector<ProgramCell> parse_annotated(std::string_view program, std::string_view annotated);

// Python code as a list of logical lines without comments or whitespace: a statement split over
// several lines inside brackets is one line, so `f(\n    a, b\n)` and `f(a, b)` compare equal.
// `print(x)` of one expression is the line `x`: a notebook shows a cell's last value either way
// (translated notebooks write `attn_scores_2` where the book writes `print(attn_scores_2)`).
std::vector<std::string> logical_lines(std::string_view code);

// The program cell (index into `cells`) that reproduces `cell`, if any: the one whose code lines
// the notebook cell contains best (more than half of them), the most specific on a tie, then the
// one whose output agrees best.
std::optional<std::size_t> map_cell(const NotebookCell& cell, const std::vector<ProgramCell>& cells);

enum class CellStatus { match, close, differ, not_covered };
const char* to_string(CellStatus status);  // "match", "close", "differ", "not covered"

struct CellResult {
    std::size_t index = 0;  // NotebookCell::index
    CellStatus status = CellStatus::not_covered;
    std::optional<std::size_t> program_cell;  // into the program cells checked against
    std::string reason;                       // why not covered, e.g. "version print"
    std::string diff;                         // unified diff, notebook against program (close, differ)
    std::string code_change;                  // the notebook's code lines the book's cell lacks, e.g.
                                              // "torch.manual_seed(124)" ("" when the code is the book's)
};

// A notebook's output as the CPU prints it: PyTorch's device suffix of a GPU's or a Mac's tensors
// (",\n       device='mps:0')", "device='cuda:0')") left out and a "Device: cuda|mps" line made
// "Device: cpu"; `device` (if not null) gets the device named. A cell whose output then matches
// its program's is not covered, with the device as the reason (the book's ch07 ran on a Mac).
std::string without_device(std::string_view output, std::string* device = nullptr);

// A notebook's output without its timing lines ("Training completed in 2.16 minutes.", as the
// book's training cells print): the minutes are the machine's, and the programs write that line to
// standard error. The rest of the output is compared.
std::string without_timing(std::string_view output);

// Checks every output cell of `notebook` against `cells` (their outputs without_timing).
std::vector<CellResult> check_notebook(const std::vector<NotebookCell>& notebook, const std::vector<ProgramCell>& cells);

// Once the notebook's chapter is known (`chapter_programs`, its group's programs): a cell mapped to
// another chapter's program whose code differs from that program's cell (code_change) and whose
// output does not match is not covered: it runs the earlier chapter's code on what this chapter
// changed (chapter 7 computes chapter 5's losses of GPT-2 medium), which that program never prints.
void set_aside_other_chapters(std::vector<CellResult>& results, const std::vector<ProgramCell>& cells,
                              const std::vector<std::string>& chapter_programs);

// What a notebook lacks or did not finish, for --strict: the book's cells no notebook cell holds
// (program cells of `chapter_programs`, those not marked as added to the book's notebook), and the
// notebook's cells that never ran or raised an error.
struct Completeness {
    std::vector<std::size_t> missing;  // into the program cells, in program order
    std::vector<std::size_t> not_run;  // NotebookCell::index of cells with code that never ran
    std::vector<std::size_t> errors;   // NotebookCell::index of cells that raised an error
    bool complete() const { return missing.empty() && not_run.empty() && errors.empty(); }
};
Completeness check_completeness(const std::vector<NotebookCell>& notebook, const std::vector<ProgramCell>& cells,
                                const std::vector<std::string>& chapter_programs);
// "3 cells of the book missing, 1 cell not run, 1 cell raised an error"
std::string completeness_line(const Completeness& completeness);

struct Summary {
    std::size_t match = 0, close = 0, differ = 0, not_covered = 0;
    std::size_t covered() const { return match + close + differ; }
};
Summary summarize(const std::vector<CellResult>& results);
// "N/M covered output cells match, C close, D differ (U not covered)"
std::string summary_line(const Summary& summary);

}  // namespace llmfs
