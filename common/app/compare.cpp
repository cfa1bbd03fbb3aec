#include "llmfs/app/compare.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace llmfs {

const char* to_string(Verdict verdict) {
    switch (verdict) {
        case Verdict::match: return "match";
        case Verdict::close: return "close";
        case Verdict::differ: return "differ";
    }
    return "?";
}

namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

struct Token {
    bool number;
    std::string_view text;
};

// Splits printed output into numbers, words and single punctuation characters, dropping
// whitespace. A word swallows its digits ("MeanBackward1", "float32"), so only free-standing
// numbers ("-0.9995", "1.", "5.0000e-01", "768") count as numbers.
std::vector<Token> tokenize(std::string_view s) {
    std::vector<Token> tokens;
    std::size_t i = 0;
    const auto at = [&](std::size_t k) { return k < s.size() ? s[k] : '\0'; };
    while (i < s.size()) {
        const std::size_t start = i;
        const char c = s[i];
        if (is_space(c)) {
            ++i;
            continue;
        }
        if (is_word_char(c) && !is_digit(c)) {
            while (i < s.size() && is_word_char(s[i])) ++i;
            tokens.push_back({false, s.substr(start, i - start)});
            continue;
        }
        std::size_t k = i;
        if (c == '-' || c == '+') ++k;
        const bool number = is_digit(at(k)) || (at(k) == '.' && is_digit(at(k + 1)));
        if (!number) {
            tokens.push_back({false, s.substr(start, 1)});
            ++i;
            continue;
        }
        while (is_digit(at(k))) ++k;
        if (at(k) == '.') {
            ++k;
            while (is_digit(at(k))) ++k;
        }
        if (at(k) == 'e' || at(k) == 'E') {
            std::size_t e = k + 1;
            if (at(e) == '-' || at(e) == '+') ++e;
            if (is_digit(at(e))) {
                while (is_digit(at(e))) ++e;
                k = e;
            }
        }
        tokens.push_back({true, s.substr(start, k - start)});
        i = k;
    }
    return tokens;
}

// "768", "2." (PyTorch's integer-valued floats): no digit after a point and no exponent.
bool is_integer_text(std::string_view number) {
    if (number.find_first_of("eE") != std::string_view::npos) return false;
    const std::size_t dot = number.find('.');
    return dot == std::string_view::npos || dot + 1 == number.size();
}

// The value of one unit in the last printed digit: 1e-4 for "0.9995", 1e-12 for "-5.9605e-08".
double last_digit_unit(std::string_view number) {
    const std::size_t e = number.find_first_of("eE");
    const std::string_view mantissa = number.substr(0, e);
    const std::size_t dot = mantissa.find('.');
    const long decimals = dot == std::string_view::npos ? 0 : static_cast<long>(mantissa.size() - dot - 1);
    const long exponent = e == std::string_view::npos ? 0 : std::strtol(std::string(number.substr(e + 1)).c_str(), nullptr, 10);
    return std::pow(10.0, static_cast<double>(exponent - decimals));
}

std::vector<std::string_view> split_lines(std::string_view s) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < s.size()) {
        const std::size_t end = s.find('\n', start);
        if (end == std::string_view::npos) {
            lines.push_back(s.substr(start));
            break;
        }
        lines.push_back(s.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

// compare_outputs' `drift`: two non-integer numbers at most `drift` apart.
bool within_drift(std::string_view expected, std::string_view actual, double drift) {
    if (drift <= 0 || is_integer_text(expected) || is_integer_text(actual)) return false;
    const double a = std::strtod(std::string(expected).c_str(), nullptr);
    const double b = std::strtod(std::string(actual).c_str(), nullptr);
    return std::isfinite(a) && std::isfinite(b) && std::abs(a - b) <= drift;
}

}  // namespace

bool is_close(std::string_view expected, std::string_view actual) {
    const double a = std::strtod(std::string(expected).c_str(), nullptr);
    const double b = std::strtod(std::string(actual).c_str(), nullptr);
    if (is_integer_text(expected) || is_integer_text(actual)) return a == b;
    if (!std::isfinite(a) || !std::isfinite(b)) return false;  // "1e999" is no float32 print
    // Symmetric, and bounded by the finer text and the smaller magnitude, so that neither number
    // can widen the tolerance for itself: "1e300" or "0e99" in place of "0.1235" is a change of
    // magnitude (its coarse unit 1e300 or 1e99, its magnitude 1e300), not noise.
    const double unit = std::min(last_digit_unit(expected), last_digit_unit(actual));
    const double tolerance = std::max({2.0 * unit, 1e-6 * std::min(std::abs(a), std::abs(b)), 1e-6});
    // The slack absorbs the binary rounding of decimal texts (0.1237 - 0.1235 > 2e-4 in doubles).
    return std::abs(a - b) <= tolerance * (1.0 + 1e-9);
}

Comparison compare_outputs(std::string_view expected, std::string_view actual, double drift) {
    Comparison result;
    if (expected == actual) return result;

    const auto expected_lines = split_lines(expected);
    const auto actual_lines = split_lines(actual);
    std::size_t i = 0;
    while (i < expected_lines.size() && i < actual_lines.size() && expected_lines[i] == actual_lines[i]) ++i;
    result.line = i + 1;
    if (i < expected_lines.size()) result.expected_line = std::string(expected_lines[i]);
    if (i < actual_lines.size()) result.actual_line = std::string(actual_lines[i]);

    const auto a = tokenize(expected);
    const auto b = tokenize(actual);
    bool close = a.size() == b.size();
    for (std::size_t k = 0; close && k < a.size(); ++k) {
        close = a[k].number && b[k].number ? is_close(a[k].text, b[k].text) || within_drift(a[k].text, b[k].text, drift)
                                           : a[k].number == b[k].number && a[k].text == b[k].text;
    }
    result.verdict = close ? Verdict::close : Verdict::differ;
    return result;
}

// The largest LCS table unified_diff builds (ints): 16 M cells, 64 MB.
constexpr std::size_t kMaxDiffCells = std::size_t{16} << 20;

std::string unified_diff(std::string_view expected, std::string_view actual, std::string_view expected_name,
                         std::string_view actual_name, int context) {
    if (expected == actual) return "";
    const auto a = split_lines(expected);
    const auto b = split_lines(actual);
    const std::size_t n = a.size(), m = b.size();

    struct Edit {
        char op;            // ' ', '-', '+'
        std::size_t ai, bi;  // positions in a and b before this edit
    };
    std::vector<Edit> edits;
    if ((n + 1) * (m + 1) <= kMaxDiffCells) {
        // Longest common subsequence table: lcs[i][j] for a[i..], b[j..].
        std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
        for (std::size_t i = n; i-- > 0;) {
            for (std::size_t j = m; j-- > 0;) {
                lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        std::size_t i = 0, j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && a[i] == b[j]) {
                edits.push_back({' ', i++, j++});
            } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
                edits.push_back({'-', i++, j});  // deletions first, as diff -u prints them
            } else {
                edits.push_back({'+', i, j++});
            }
        }
    } else {
        // Too large for the table (a notebook cell of a million lines): the common first and last
        // lines, and everything between them as removed then added. Still a valid diff -u.
        std::size_t head = 0, tail = 0;
        while (head < n && head < m && a[head] == b[head]) ++head;
        while (tail < n - head && tail < m - head && a[n - 1 - tail] == b[m - 1 - tail]) ++tail;
        for (std::size_t i = 0; i < head; ++i) edits.push_back({' ', i, i});
        for (std::size_t i = head; i < n - tail; ++i) edits.push_back({'-', i, head});
        for (std::size_t j = head; j < m - tail; ++j) edits.push_back({'+', n - tail, j});
        for (std::size_t k = 0; k < tail; ++k) edits.push_back({' ', n - tail + k, m - tail + k});
    }

    std::string out = "--- " + std::string(expected_name) + "\n+++ " + std::string(actual_name) + "\n";
    const auto ctx = static_cast<std::size_t>(std::max(context, 0));
    std::size_t k = 0;
    while (k < edits.size()) {
        while (k < edits.size() && edits[k].op == ' ') ++k;
        if (k == edits.size()) break;
        // A hunk: `ctx` unchanged lines before the first change, every later change that is at
        // most 2 * ctx unchanged lines from the one before, and `ctx` unchanged lines after the last.
        const std::size_t begin = k >= ctx ? k - ctx : 0;
        std::size_t last = k;
        for (std::size_t t = k + 1; t < edits.size();) {
            std::size_t run_end = t;
            while (run_end < edits.size() && edits[run_end].op == ' ') ++run_end;
            if (run_end == edits.size() || run_end - t > 2 * ctx) break;
            last = run_end;
            t = run_end + 1;
        }
        const std::size_t end = std::min(edits.size(), last + 1 + ctx);
        std::size_t a_count = 0, b_count = 0;
        for (std::size_t t = begin; t < end; ++t) {
            a_count += edits[t].op != '+';
            b_count += edits[t].op != '-';
        }
        const std::size_t a_start = a_count ? edits[begin].ai + 1 : edits[begin].ai;
        const std::size_t b_start = b_count ? edits[begin].bi + 1 : edits[begin].bi;
        // GNU diff leaves out a count of 1: "@@ -3 +3,2 @@".
        const auto range = [](std::size_t start, std::size_t count) {
            return std::to_string(start) + (count == 1 ? "" : "," + std::to_string(count));
        };
        out += "@@ -" + range(a_start, a_count) + " +" + range(b_start, b_count) + " @@\n";
        for (std::size_t t = begin; t < end; ++t) {
            const std::string_view line = edits[t].op == '+' ? b[edits[t].bi] : a[edits[t].ai];
            out += edits[t].op;
            out += line;
            out += '\n';
        }
        k = end;
    }
    return out;
}

}  // namespace llmfs
