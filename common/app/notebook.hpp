// Output the way a notebook shows it. By default only what the notebook's cells print, so that
// `diff` against the notebook's outputs is clean; with --annotate also section headers and the
// notebook code line behind each output, for reading along.
#pragma once

#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "llmfs/nn/buffers.hpp"
#include "llmfs/nn/layers.hpp"
#include "llmfs/torch/tensor.hpp"

namespace llmfs {

// str() of the values Python's print() receives in the notebooks.
inline std::string to_text(std::string_view s) { return std::string(s); }
inline std::string to_text(const char* s) { return s; }
inline std::string to_text(const std::string& s) { return s; }
inline std::string to_text(double x) { return python_float_repr(x); }  // a Python float
inline std::string to_text(std::size_t n) { return std::to_string(n); }  // a Python int
// f"{n:,}": digits grouped by thousands with commas
std::string with_commas(std::size_t n);
template <std::size_t N>
std::string to_text(const Tensor<N>& t) { return repr(t); }
inline std::string to_text(const Size& s) { return repr(s); }
template <std::size_t N>
std::string to_text(const IdArray<N>& ids) { return repr(ids); }  // an int64 tensor
// A Python list of ints, e.g. [15496, 11, 314, 716]
std::string to_text(const std::vector<std::int64_t>& list);

// What a notebook shows for a cell that ends in `module.state_dict()`: IPython's pretty display of
// the OrderedDict (IPython.lib.pretty, 79 columns), e.g.
//     OrderedDict([('W_query.weight',
//                   tensor([[-0.2354,  0.0191, -0.2867],
//                           [ 0.2177, -0.4919,  0.4232]])),
//                  ('W_key.weight',
//                   ...)])
// Items that fit stay on one line; the whole dict too, if it fits.
std::string ipython_repr(const StateDict& state);

// How --annotate ends the "# C++:" line of a cell a program adds to the book's notebook.
inline constexpr std::string_view kAddedCellMark = "  (added: not in the book's notebook)";

class Notebook {
public:
    explicit Notebook(bool annotate = false, std::ostream& out = std::cout) : annotate_(annotate), out_(out) {}

    bool annotated() const { return annotate_; }

    // A notebook heading, e.g. section("3.3.1 A simple self-attention mechanism without trainable weights").
    void section(std::string_view title) {
        if (annotate_) out_ << "\n## " << title << "\n";
    }
    // One notebook code cell, `python` exactly as the book's notebook has it: everything printed
    // until the next code() is that cell's output. Under --annotate it shows as
    //     # C++: chapters/ch03/naive_attention.cpp:19      (the C++ line that runs the cell)
    //     >>> <each line of the cell's code>
    // llmfs-nbcheck reads this to map a notebook's cells onto the programs' output.
    void code(std::string_view python, const char* cpp_file = __builtin_FILE(), int cpp_line = __builtin_LINE()) {
        cell(python, source_relative(cpp_file) + ':' + std::to_string(cpp_line));
    }
    // A cell that defines a class: its "# C++:" line also names where the class is implemented,
    // e.g. "(the class: common/nn/attention.cpp:112, CausalAttention::forward)".
    void code(std::string_view python, const SourceLine& implementation, const char* cpp_file = __builtin_FILE(),
              int cpp_line = __builtin_LINE()) {
        cell(python, source_relative(cpp_file) + ':' + std::to_string(cpp_line) + " (the class: " +
                         source_relative(implementation.file) + ':' + std::to_string(implementation.line) + ", " +
                         implementation.function + ")");
    }
    // A cell the program adds to the book's notebook (a print of what an exercise asks, say):
    // its "# C++:" line ends in kAddedCellMark, so llmfs-nbcheck does not look for it in notebooks.
    void added_code(std::string_view python, const char* cpp_file = __builtin_FILE(), int cpp_line = __builtin_LINE()) {
        cell(python, source_relative(cpp_file) + ':' + std::to_string(cpp_line) + std::string(kAddedCellMark));
    }
    // A remark for the reader under --annotate, e.g. where the printed book differs from the
    // notebook: shown as "# Note: ..." lines.
    void note(std::string_view text) {
        if (!annotate_) return;
        std::istringstream lines{std::string(text)};
        for (std::string line; std::getline(lines, line);) out_ << "# Note: " << line << "\n";
    }
    // A cell's last expression, as the notebook displays it (IPython's repr).
    void display(const StateDict& state) { out_ << ipython_repr(state) << '\n'; }
    // Python's print(*args): str() of each argument, separated by a space, then a newline.
    template <class First, class... Rest>
    void print(const First& first, const Rest&... rest) {
        out_ << to_text(first);
        ((out_ << ' ' << to_text(rest)), ...);
        out_ << '\n';
    }

private:
    void cell(std::string_view python, const std::string& cpp) {
        if (!annotate_) return;
        out_ << "# C++: " << cpp << '\n';
        std::istringstream lines{std::string(python)};
        for (std::string line; std::getline(lines, line);) out_ << ">>> " << line << "\n";
    }
    // "chapters/ch03/x.cpp" out of the compiler's absolute path (the part from chapters/ or tools/).
    static std::string source_relative(std::string_view path) {
        for (std::string_view root : {"/chapters/", "/tools/", "/common/"}) {
            const std::size_t at = path.rfind(root);
            if (at != std::string_view::npos) return std::string(path.substr(at + 1));
        }
        return std::string(path);
    }

    bool annotate_;
    std::ostream& out_;
};

}  // namespace llmfs
