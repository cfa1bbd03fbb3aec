#include "llmfs/app/exercise.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "llmfs/app/compare.hpp"

namespace llmfs {

const std::vector<Exercise>& exercises() {
    static const std::vector<Exercise> all = {
        {"3.1", "ch03_exercise_3_1", "Comparing SelfAttention_v1 and SelfAttention_v2",
         "SelfAttention_v2 projects with nn.Linear layers, which store their weight as [d_out, d_in] and compute\n"
         "x @ W.T; SelfAttention_v1 keeps raw [d_in, d_out] parameters and computes x @ W. Build one of each\n"
         "after torch.manual_seed(123) and give sa_v1 the weights of sa_v2, so that sa_v1(inputs) prints the\n"
         "same context vectors as sa_v2(inputs)."},
        {"3.2", "ch03_exercise_3_2", "Returning two-dimensional embedding vectors",
         "MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, num_heads=2) concatenates the outputs of\n"
         "its two heads, so its context vectors have 2 * d_out dimensions. Change the call, without changing\n"
         "num_heads=2, so that each context vector is two-dimensional, and print context_vecs and its shape."},
        {"3.3", "ch03_exercise_3_3", "Initializing GPT-2 size attention modules",
         "Build a MultiHeadAttention the size of the smallest GPT-2: 12 heads, 768-dimensional input and\n"
         "output embeddings, a context length of 1024 tokens (dropout 0.0), and print its number of\n"
         "trainable parameters."},
        {"4.1", "ch04_exercise_4_1", "Number of parameters in feed forward and attention modules",
         "Print a TransformerBlock(GPT_CONFIG_124M) (the module tree PyTorch prints), then count the\n"
         "parameters in its feed forward module and in its multi-head attention module. Which holds more?"},
        {"4.2", "ch04_exercise_4_2", "Initializing larger GPT models",
         "Besides GPT-2 small (768-dimensional embeddings, 12 blocks, 12 heads) there are GPT-2 medium (1024,\n"
         "24 blocks, 16 heads), large (1280, 36, 20) and XL (1600, 48, 25). Write the configuration of each size,\n"
         "build each model, and print its total number of parameters, the number with the output layer's\n"
         "weights tied to the token embedding, and its size in MB as float32."},
        {"4.3", "ch04_exercise_4_3", "Using separate dropout parameters",
         "GPT_CONFIG_124M has one drop_rate for every dropout layer. Give the configuration three rates instead,\n"
         "drop_rate_emb (after the embeddings), drop_rate_attn (on the attention weights) and\n"
         "drop_rate_shortcut (on the shortcut connections), and build a GPTModel whose dropout layers use\n"
         "them. Run it in training mode on the chapter-4 batch and print the logits as section 4.6 does."},
    };
    return all;
}

const Exercise& find_exercise(std::string_view id) {
    std::string ids;
    for (const auto& e : exercises()) {
        if (e.id == id) return e;
        ids += (ids.empty() ? "" : ", ") + e.id;
    }
    throw std::invalid_argument(fmt::format("there is no exercise '{}' (the exercises are {})", id, ids));
}

std::string student_source(const Exercise& exercise) {
    std::string file = exercise.program.substr(exercise.program.find("exercise_"));
    return "chapters/exercises/student/" + file + ".cpp";
}

void exercise_todo(std::string_view id, std::string_view todo) {
    const Exercise& e = find_exercise(id);
    throw ExerciseNotDone(fmt::format("exercise {} is not done yet: TODO(exercise {}): {}\n"
                                      "Write your answer at that TODO in {} and rebuild "
                                      "(cmake --build build --target {}).",
                                      id, id, todo, student_source(e), e.program));
}

// ---- student copies ----------------------------------------------------------------------------

namespace {

std::vector<std::string> split_lines(std::string_view text) {
    std::vector<std::string> lines;
    std::istringstream in{std::string(text)};
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

std::string student_copy(std::string_view solution_source) {
    static constexpr std::string_view kBegin = "// BEGIN SOLUTION(exercise ", kEnd = "// END SOLUTION";
    std::string out;
    bool in_region = false;
    std::size_t line_no = 0;
    for (const std::string& line : split_lines(solution_source)) {
        ++line_no;
        const std::size_t indent = line.find_first_not_of(' ');
        const std::string_view body = indent == std::string::npos ? std::string_view{} : std::string_view(line).substr(indent);
        const auto fail = [&](const std::string& what) {
            throw std::invalid_argument(fmt::format("line {}: {}: {}", line_no, what, line));
        };
        if (starts_with(body, kBegin)) {
            if (in_region) fail("a BEGIN SOLUTION inside another region (missing END SOLUTION?)");
            const std::size_t close = body.find("): ");
            if (close == std::string_view::npos) fail("expected \"// BEGIN SOLUTION(exercise N.M): what to do\"");
            const std::string_view id = body.substr(kBegin.size(), close - kBegin.size());
            const std::string_view todo = body.substr(close + 3);
            // The id goes into generated C++ ("exercise_todo(\"3.1\", ...)"): only an exercise's id.
            const bool known = std::any_of(exercises().begin(), exercises().end(), [&](const Exercise& e) { return e.id == id; });
            if (!known) fail("\"" + std::string(id).substr(0, 20) + "\" is not an exercise id (3.1 ... 4.3)");
            if (todo.find('"') != std::string_view::npos || todo.find('\\') != std::string_view::npos)
                fail("the TODO text must not contain quotes or backslashes");
            const std::string pad(indent, ' ');
            out += fmt::format("{}// TODO(exercise {}): {}\n{}exercise_todo(\"{}\", \"{}\");\n", pad, id, todo, pad, id, todo);
            in_region = true;
        } else if (starts_with(body, kEnd)) {
            if (!in_region) fail("END SOLUTION without BEGIN SOLUTION");
            in_region = false;
        } else if (!in_region) {
            out += line + "\n";
        }
    }
    if (in_region) throw std::invalid_argument("the last BEGIN SOLUTION region has no END SOLUTION");
    return out;
}

// ---- checking an answer ------------------------------------------------------------------------

namespace {

struct OutputLine {
    std::string text;
    std::string code;  // the notebook line that printed it (the last ">>> " line before it)
};

// The output lines of an --annotate run without what --annotate adds, each with its code line.
std::vector<OutputLine> strip_annotations(std::string_view annotated) {
    const auto lines = split_lines(annotated);
    std::vector<OutputLine> kept;
    std::string code;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (starts_with(lines[i], ">>> ")) {
            code = lines[i].substr(4);
            continue;
        }
        const bool blank_before_section = lines[i].empty() && i + 1 < lines.size() && starts_with(lines[i + 1], "## ");
        const bool annotation = starts_with(lines[i], "## ") || starts_with(lines[i], "# C++: ") || starts_with(lines[i], "# Note: ");
        if (!blank_before_section && !annotation) kept.push_back({lines[i], code});
    }
    return kept;
}

// How to name what printed a line: "sa_v1(inputs)" for the code "sa_v1(inputs)" or
// "print(sa_v1(inputs))"; the whole line in backquotes otherwise.
std::string what_printed(const std::string& code) {
    if (code.empty()) return "output";
    std::string inner = code;
    if (starts_with(code, "print(") && code.back() == ')') inner = code.substr(6, code.size() - 7);
    int depth = 0;
    for (char c : inner) {
        depth += (c == '(' || c == '[') - (c == ')' || c == ']');
        if ((c == ',' && depth == 0) || c == '"' || c == '=') return "output of `" + code + "`";
    }
    return inner;
}

}  // namespace

ExerciseCheck check_exercise_output(const Exercise& exercise, std::string_view expected, std::string_view annotated_output,
                                    int exit_code, std::string_view errors) {
    const std::string name = "exercise " + exercise.id;
    if (exit_code != 0) {
        std::string why(errors);
        while (!why.empty() && why.back() == '\n') why.pop_back();
        return {ExerciseVerdict::unfinished,
                fmt::format("{}: not finished: {} stopped with exit code {} before printing everything:\n  {}", name,
                            exercise.program, exit_code, why.empty() ? "(no message)" : why)};
    }
    const auto actual = strip_annotations(annotated_output);
    std::string actual_text;
    for (const auto& line : actual) actual_text += line.text + "\n";
    const Comparison c = compare_outputs(expected, actual_text);
    if (c.verdict == Verdict::match)
        return {ExerciseVerdict::match, fmt::format("{}: right: your output is PyTorch's, byte for byte.", name)};
    // The notebook code behind the first differing line (or, past the end, behind the last line).
    const std::string code = c.line - 1 < actual.size() ? actual[c.line - 1].code : (actual.empty() ? "" : actual.back().code);
    const auto shown = [](const std::string& line, bool present) { return present ? line : std::string("<end of output>"); };
    const std::string lines = fmt::format("  expected: {}\n  yours:    {}", shown(c.expected_line, c.line <= split_lines(expected).size()),
                                          shown(c.actual_line, c.line <= actual.size()));
    if (c.verdict == Verdict::close)
        return {ExerciseVerdict::close,
                fmt::format("{}: right, but not bit-exact: your {} differs from PyTorch's only in the last printed digits "
                            "(or spacing); first such line (line {} of the output):\n{}",
                            name, what_printed(code), c.line, lines)};
    return {ExerciseVerdict::differ,
            fmt::format("{}: your {} differs from the expected output; first differing line (line {} of the output):\n{}", name,
                        what_printed(code), c.line, lines)};
}

}  // namespace llmfs
