// golden_diff [--rel-tol TOL] [--strip-annotations] [--close] GOLDEN ACTUAL
// Compares two program outputs line by line. Text must match exactly, except numbers printed at
// full precision (10 or more significant digits, like Python's repr of a float32 gradient mean),
// which may differ by the relative tolerance (default 0): PyTorch builds differ in those last
// digits. --strip-annotations first drops what --annotate adds to ACTUAL: "## " section lines
// with the blank line before them, ">>> " code lines and "# C++: " / "# Note: " lines.
// --close (for other CPUs than x86, whose BLAS rounds differently) also accepts an ACTUAL that is
// close to GOLDEN by llmfs::compare_outputs, llmfs-nbcheck's rule.
// Prints the verdict on stdout, then the OpenBLAS kernel that computed the products (golden_diff
// runs in the program's environment, so OpenBLAS picks the same one): "exact KERNEL"
// (byte-identical), "tolerance KERNEL" (equal but for full-precision numbers within TOL), "close
// KERNEL (first line that differs)" or "differ KERNEL".
// --training TOL (llmfs-train's runs on another kernel): a training run whose products round
// otherwise drifts, so close means the same lines in the same places: each "Ep N (Step S): Train
// loss X, Val loss Y" line with the golden's N and S and losses within TOL (absolute), and a sample
// line wherever the golden has one, its words free (a greedy sample flips with the weights' last
// bits): "close KERNEL (training: largest loss difference D, K of M samples differ)".
// Exit 0 if equal (or close, with --close), 1 with the differing lines on stderr, 2 on usage errors.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "llmfs/torch/blas.hpp"
#include "llmfs/app/compare.hpp"

namespace {

struct Split {
    std::string text;             // the line with each full-precision number replaced by "<#>"
    std::vector<double> numbers;  // those numbers, in order
};

Split split(const std::string& line) {
    static const std::regex number(R"(-?\d+\.\d+(?:e[+-]?\d+)?)");
    Split out;
    std::size_t last = 0;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), number); it != std::sregex_iterator(); ++it) {
        const std::string token = it->str();
        std::size_t digits = 0;
        for (char c : token.substr(0, token.find('e'))) digits += std::isdigit(static_cast<unsigned char>(c)) != 0;
        if (digits < 10) continue;
        out.text += line.substr(last, static_cast<std::size_t>(it->position()) - last) + "<#>";
        out.numbers.push_back(std::stod(token));
        last = static_cast<std::size_t>(it->position() + it->length());
    }
    out.text += line.substr(last);
    return out;
}

std::vector<std::string> lines_of(const char* path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(std::string("cannot open ") + path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    return text;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<std::string> strip_annotations(const std::vector<std::string>& lines) {
    std::vector<std::string> kept;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const bool blank_before_section = lines[i].empty() && i + 1 < lines.size() && starts_with(lines[i + 1], "## ");
        const bool annotation = starts_with(lines[i], "## ") || starts_with(lines[i], ">>> ") ||
                                starts_with(lines[i], "# C++: ") || starts_with(lines[i], "# Note: ");
        if (!blank_before_section && !annotation) kept.push_back(lines[i]);
    }
    return kept;
}

}  // namespace

// --training's rule (above): the verdict's words, or nothing when the runs are not close.
std::optional<std::string> training_close(const std::vector<std::string>& golden, const std::vector<std::string>& actual, double tol) {
    if (golden.size() != actual.size()) return std::nullopt;
    static const std::regex eval(R"(^(Ep \d+ \(Step \d+\): Train loss )(-?[0-9.]+|nan)(, Val loss )(-?[0-9.]+|nan)$)");
    double largest = 0;
    std::size_t samples = 0, differ = 0;
    for (std::size_t i = 0; i < golden.size(); ++i) {
        std::smatch g, a;
        const bool g_eval = std::regex_match(golden[i], g, eval), a_eval = std::regex_match(actual[i], a, eval);
        if (g_eval != a_eval) return std::nullopt;
        if (!g_eval) {
            ++samples;
            differ += golden[i] != actual[i];
            continue;
        }
        if (g[1] != a[1]) return std::nullopt;
        for (const int k : {2, 4}) {
            const double d = std::abs(std::stod(g[k]) - std::stod(a[k]));
            if (!(d <= tol)) return std::nullopt;
            largest = std::max(largest, d);
        }
    }
    std::ostringstream out;
    out << "largest loss difference " << largest << ", " << differ << " of " << samples << " samples differ";
    return out.str();
}

int main(int argc, char** argv) {
    double tol = 0.0;
    bool strip = false, close_ok = false;
    double training_tol = -1;  // --training TOL
    std::vector<std::string> files;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            if (arg == "--rel-tol" && i + 1 < argc) tol = std::stod(argv[++i]);
            else if (arg == "--strip-annotations") strip = true;
            else if (arg == "--close") close_ok = true;
            else if (arg == "--training" && i + 1 < argc) training_tol = std::stod(argv[++i]);
            else files.push_back(arg);
        }
    } catch (const std::exception&) {
        files.clear();
    }
    if (files.size() != 2) {
        std::cerr << "usage: golden_diff [--rel-tol TOL] [--strip-annotations] [--close] [--training TOL] GOLDEN ACTUAL\n";
        return 2;
    }
    try {
        const auto golden = lines_of(files[0].c_str());
        const auto actual = strip ? strip_annotations(lines_of(files[1].c_str())) : lines_of(files[1].c_str());
        const std::string kernel = llmfs::blas_kernel();
        if (golden == actual) {
            std::cout << "exact " << kernel << "\n";
            return 0;
        }
        std::ostringstream report;
        int bad = 0;
        for (std::size_t i = 0; i < std::max(golden.size(), actual.size()); ++i) {
            const std::string g = i < golden.size() ? golden[i] : "<missing>";
            const std::string a = i < actual.size() ? actual[i] : "<missing>";
            const Split sg = split(g), sa = split(a);
            bool same = sg.text == sa.text && sg.numbers.size() == sa.numbers.size();
            for (std::size_t k = 0; same && k < sg.numbers.size(); ++k)
                same = std::abs(sg.numbers[k] - sa.numbers[k]) <= tol * std::abs(sg.numbers[k]);
            if (!same) {
                report << "line " << i + 1 << ":\n  golden: " << g << "\n  actual: " << a << "\n";
                ++bad;
            }
        }
        if (bad == 0) {
            std::cout << "tolerance " << kernel << "\n";
            return 0;
        }
        if (close_ok) {
            const auto comparison = llmfs::compare_outputs(joined(golden), joined(actual));
            if (comparison.verdict == llmfs::Verdict::close) {
                std::cout << "close " << kernel << " (first at line " << comparison.line << ": golden \"" << comparison.expected_line
                          << "\", actual \"" << comparison.actual_line << "\"; " << bad << " line(s) differ)\n";
                return 0;
            }
        }
        if (training_tol >= 0) {
            if (const auto verdict = training_close(golden, actual, training_tol)) {
                std::cout << "close " << kernel << " (training: " << *verdict << ")\n";
                return 0;
            }
        }
        std::cout << "differ " << kernel << "\n";
        std::cerr << report.str();
        if (const std::string note = llmfs::blas_kernel_note(); !note.empty()) std::cerr << "(" << note << ")\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "golden_diff: " << e.what() << "\n";
        return 2;
    }
}
