#include "llmfs/app/exercise.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <fmt/ranges.h>

#include "llmfs/app/compare.hpp"
#include "llmfs/text/data_dir.hpp"

namespace llmfs {

namespace {

// {"--variant", "1"} ... {"--variant", "<count>"}: an exercise program's hidden variants.
std::vector<std::vector<std::string>> numbered_variants(int count) {
    std::vector<std::vector<std::string>> variants;
    for (int n = 1; n <= count; ++n) variants.push_back({"--variant", std::to_string(n)});
    return variants;
}

}  // namespace

const std::vector<Exercise>& exercises() {
    static const std::vector<Exercise> all = [] {
    std::vector<Exercise> list = {
        {"2.1", "ch02_exercise_2_1", "Byte pair encoding of unknown words",
         "GPT-2's tokenizer has no entry for a made-up word such as \"Akwirw ier\", yet it encodes it, into\n"
         "subword tokens. Print the token ids of the text, then each id with the text of that one token (the\n"
         "program then encodes each piece alone and decodes all the ids back into the text).",
         {"Gpt2Tokenizer::decode(ids)", "std::vector<std::int64_t>{id}"}},
        {"2.2", "ch02_exercise_2_2", "Data loaders with different strides and context sizes",
         "Section 2.6's data loader cuts the-verdict.txt's token ids into windows of max_length tokens, stride\n"
         "tokens apart. Build the dataset and the loader of create_dataloader(raw_text, batch_size, max_length,\n"
         "stride) (DataLoader(dataset, batch_size=batch_size): no shuffling, the last batch kept) and return the\n"
         "inputs x of its first batch; the program displays them for max_length=2, stride=2 and max_length=8, stride=2.",
         {"GPTDataset(tokenizer, text, max_length, stride)", "DataLoader(dataset, batch_size, shuffle, drop_last)",
          "DataLoader::begin(gen), Epoch::next(batch)", "xt::adapt(batch.inputs, shape)"}},
        {"3.1", "ch03_exercise_3_1", "Comparing SelfAttention_v1 and SelfAttention_v2",
         "SelfAttention_v2 projects with nn.Linear layers, which store their weight as [d_out, d_in] and compute\n"
         "x @ W.T; SelfAttention_v1 keeps raw [d_in, d_out] parameters and computes x @ W. Build one of each\n"
         "after torch.manual_seed(123) and give sa_v1 the weights of sa_v2, so that sa_v1(inputs) prints the\n"
         "same context vectors as sa_v2(inputs).",
         {"Tensor<2>::parameter(data)", "T(tensor)", "sa_v2.W_query.weight (a Linear's weight tensor)", ".data"}},
        {"3.2", "ch03_exercise_3_2", "Returning two-dimensional embedding vectors",
         "MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, num_heads=2) concatenates the outputs of\n"
         "its two heads, so its context vectors have 2 * d_out dimensions. Change the call, without changing\n"
         "num_heads=2, so that each context vector is two-dimensional, and print context_vecs and its shape. (head_d_out\n"
         "answers it for any width and head count: grade also tries others.)",
         {"std::size_t (the d_out of one head)", "MultiHeadAttentionWrapper (concatenates its num_heads heads)"}},
        {"3.3", "ch03_exercise_3_3", "Initializing GPT-2 size attention modules",
         "Build a MultiHeadAttention the size of the smallest GPT-2: 12 heads, 768-dimensional input and\n"
         "output embeddings, a context length of 1024 tokens (dropout 0.0), and print its number of\n"
         "trainable parameters.",
         {"MultiHeadAttention(gen, d_in, d_out, context_length, dropout, num_heads)", "Linear::num_parameters()", "mha.W_query, W_key, W_value, out_proj"}},
        {"4.1", "ch04_exercise_4_1", "Number of parameters in feed forward and attention modules",
         "Print a TransformerBlock(GPT_CONFIG_124M) (the module tree PyTorch prints), then count the\n"
         "parameters in its feed forward module and in its multi-head attention module. Which holds more?",
         {"block.ff.fc1, block.ff.fc2", "block.att.W_query, W_key, W_value, out_proj", "Linear::num_parameters()"}},
        {"4.2", "ch04_exercise_4_2", "Initializing larger GPT models",
         "Besides GPT-2 small (768-dimensional embeddings, 12 blocks, 12 heads) there are GPT-2 medium (1024,\n"
         "24 blocks, 16 heads), large (1280, 36, 20) and XL (1600, 48, 25). Write the configuration of each size,\n"
         "build each model, and print its total number of parameters, the number with the output layer's\n"
         "weights tied to the token embedding, and its size in MB as float32.",
         {"GPTConfig::emb_dim, n_layers, n_heads", "std::invalid_argument"}},
        {"4.3", "ch04_exercise_4_3", "Using separate dropout parameters",
         "GPT_CONFIG_124M has one drop_rate for every dropout layer. Give the configuration three rates instead,\n"
         "drop_rate_emb (after the embeddings), drop_rate_attn (on the attention weights) and\n"
         "drop_rate_shortcut (on the shortcut connections), and build a GPTModel whose dropout layers use\n"
         "them. Run it in training mode on the chapter-4 batch and print the logits as section 4.6 does.",
         {"Dropout(gen, rate)", "model.drop_emb, model.trf_blocks", "block.att.dropout, block.drop_shortcut", "cfg.drop_rate_emb, drop_rate_attn, drop_rate_shortcut"}},
        {"5.1", "ch05_exercise_5_1", "Temperature-scaled softmax scores and sampling probabilities",
         "print_sampled_tokens draws 1,000 tokens of the toy 9-word vocabulary from a probability vector and\n"
         "prints how often each word was drawn. Print these frequencies for the softmax probabilities scaled with\n"
         "the temperatures 1, 0.1 and 5: how often is \"pizza\" sampled in each case? Then give a faster and more\n"
         "accurate answer: the probability of \"pizza\" at temperature 5 itself.",
         {"print_sampled_tokens(nb, gen, probas)", "nb.print(...)", "select(tensor, i) (tensor[i])"}},
        {"5.3", "ch05_exercise_5_3", "Deterministic behavior in the decoding functions",
         "generate() samples the next token (top-k, temperature, torch.multinomial), so each call can return a\n"
         "different text. Choose its settings so that it is deterministic, like generate_text_simple: calling it\n"
         "twice must give the same text as generate_text_simple both times. (check runs the untrained model:\n"
         "--untrained; with a model.pth from chapter 5 the program runs the notebook's trained model.)",
         {"SamplingOptions::temperature", "SamplingOptions::top_k (std::optional)"}, {"--untrained"}},
        {"5.4", "ch05_exercise_5_4", "Continued pretraining",
         "Section 5.4 saved the trained model and its AdamW optimizer together in model_and_optimizer.pth. Load\n"
         "both from that file into a new GPTModel and AdamW and train one more epoch with train_model_simple\n"
         "(torch.manual_seed(123), new loaders, eval_iter 5), continuing as if the training had never stopped.\n"
         "The program reads model_and_optimizer.pth in the current folder or --checkpoint FILE; check first\n"
         "trains a small GPT for one epoch with llmfs-train (seconds) and continues that one.",
         {"TorchStateDict (checkpoint)", "load_state_dict(model, checkpoint)", "load_adamw_state_dict(checkpoint, model, optimizer)"},
         {},
         // tests/goldens/resume_reference.py's first run: the-verdict.txt, 2.x's AdamW
         {"--seed", "123", "--context-length", "16", "--emb-dim", "24", "--n-heads", "12", "--n-layers", "1", "--drop-rate", "0.1",
          "--lr", "0.0004", "--weight-decay", "0.1", "--epochs", "1"}},
        {"6.1", "ch06_exercise_6_1", "Increasing the context length",
         "Chapter 6 pads every message to the longest one in the training set. Pad the inputs to the maximum number of\n"
         "tokens the model supports instead (its context length) and compare the accuracies with the chapter's: choose\n"
         "the datasets' max_length as additional_experiments.py's --context_length names it. check runs a small random GPT\n"
         "on the tests' small collection (--small); with --data and OpenAI's weights it is the book's experiment.",
         {"\"longest_training_example\"", "\"model_context_length\"", "std::string"}, {"--small"}},
        {"6.2", "ch06_exercise_6_2", "Fine-tuning the whole model",
         "Chapter 6 fine-tunes only the last transformer block, final_norm and the new head. Fine-tune the entire model\n"
         "instead (the embeddings and every block too) and compare the accuracies: choose the trainable layers as\n"
         "additional_experiments.py's --trainable_layers names them. check runs a small random GPT on the tests' small\n"
         "collection (--small).",
         {"TrainableLayers::last_layer, last_block, last_two_blocks, all"}, {"--small"}},
        {"6.3", "ch06_exercise_6_3", "Fine-tuning the first versus last token",
         "Chapter 6 trains and judges the classifier on the last output token's logits, model(input_batch)[:, -1, :].\n"
         "Fine-tune on the first output token instead and compare the accuracies: return its index (a Python index\n"
         "into the tokens). check runs a small random GPT on the tests' small collection (--small).",
         {"int (a Python index: 0 the first, -1 the last)"}, {"--small"}},
        {"7.1", "ch07_exercise_7_1", "Changing prompt styles",
         "Chapter 7 prompts in the Alpaca style (\"Below is an instruction that describes a task. ... ### Instruction:\n...\").\n"
         "Microsoft's Phi-3 models use a shorter one: \"<|user|>\", a newline and the instruction, then a newline and\n"
         "the input when the entry has one (nothing when its input is empty). Write format_input for that style;\n"
         "the program prints it for two sample entries, one with an input and one without.",
         {"InstructionEntry::at(\"instruction\"), at(\"input\")", "std::string::empty()"}},
        {"7.2", "ch07_exercise_7_2", "Instruction and input masking",
         "custom_collate_fn lets the loss see the prompt's tokens too. Mask them: record each entry's instruction\n"
         "length, the number of tokens of format_input(entry), and set the first instruction_length - 1 targets of\n"
         "its row to -100, so that only the response (and its first <|endoftext|>) is left for cross_entropy.\n"
         "The program prints the second entry's inputs and targets and decodes what is left unmasked.",
         {"Gpt2Tokenizer::encode(text)", "format_input(entry)", "std::int64_t* targets (one row of T)"}},
    };
    // How many --variant N each program has (its kVariants or variant_config). 5.4 has one: its
    // computation is loading a checkpoint, whose training losses the book's case already tests, and
    // every run trains (seconds); the variant shuffles after another seed, so printed losses fail it.
    const std::map<std::string, int> counts = {{"2.1", 3}, {"2.2", 3}, {"3.1", 3}, {"3.2", 3}, {"3.3", 3}, {"4.1", 3}, {"4.2", 1},
                                               {"4.3", 3}, {"5.1", 3}, {"5.3", 3}, {"5.4", 1},
                                               {"6.1", 1}, {"6.2", 1}, {"6.3", 1}, {"7.1", 3}, {"7.2", 3}};
    for (Exercise& e : list) e.variants = numbered_variants(counts.at(e.id));
    return list;
    }();
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
                                      "Write your answer at that TODO in {}, then check it with "
                                      "./build/bin/llmfs-exercise check {} (which rebuilds {}).",
                                      id, id, todo, student_source(e), id, e.program));
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
    static constexpr std::string_view kBookBegin = "// BEGIN BOOK SOLUTION", kBookEnd = "// END BOOK SOLUTION",
                                      kStudentLine = "// STUDENT COPY: ";
    std::string out;
    bool in_region = false, in_book = false;
    std::size_t line_no = 0;
    for (const std::string& line : split_lines(solution_source)) {
        ++line_no;
        const std::size_t indent = line.find_first_not_of(' ');
        const std::string_view body = indent == std::string::npos ? std::string_view{} : std::string_view(line).substr(indent);
        const auto fail = [&](const std::string& what) {
            throw std::invalid_argument(fmt::format("line {}: {}: {}", line_no, what, line));
        };
        if (starts_with(body, kBookBegin)) {
            if (in_region || in_book) fail("a BEGIN BOOK SOLUTION inside another region (missing an END?)");
            in_book = true;
        } else if (starts_with(body, kBookEnd)) {
            if (!in_book) fail("END BOOK SOLUTION without BEGIN BOOK SOLUTION");
            in_book = false;
        } else if (in_book) {
            if (starts_with(body, kBegin) || starts_with(body, kEnd)) fail("a SOLUTION marker inside a BOOK SOLUTION block");
            if (starts_with(body, kStudentLine)) out += std::string(indent, ' ') + std::string(body.substr(kStudentLine.size())) + "\n";
        } else if (starts_with(body, kBegin)) {
            if (in_region) fail("a BEGIN SOLUTION inside another region (missing END SOLUTION?)");
            const std::size_t close = body.find("): ");
            if (close == std::string_view::npos) fail("expected \"// BEGIN SOLUTION(exercise N.M): what to do\"");
            const std::string_view id = body.substr(kBegin.size(), close - kBegin.size());
            const std::string_view todo = body.substr(close + 3);
            // The id goes into generated C++ ("exercise_todo(\"3.1\", ...)"): only an exercise's id.
            const bool known = std::any_of(exercises().begin(), exercises().end(), [&](const Exercise& e) { return e.id == id; });
            if (!known) fail("\"" + std::string(id).substr(0, 20) + "\" is not an exercise id (3.1 ... 5.3)");
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
    if (in_book) throw std::invalid_argument("the last BEGIN BOOK SOLUTION block has no END BOOK SOLUTION");
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

const char* grade_name(ExerciseVerdict verdict) {
    switch (verdict) {
        case ExerciseVerdict::match: return "right";
        case ExerciseVerdict::close: return "right-not-bit-exact";
        case ExerciseVerdict::differ_on_variants: return "differs-on-variants";
        case ExerciseVerdict::differ: return "differs";
        case ExerciseVerdict::build_error: return "build-error";
        case ExerciseVerdict::runtime_error: return "runtime-error";
        case ExerciseVerdict::unfinished: return "not-finished";
    }
    return "?";
}

namespace {

// The verdict of a program that did not exit with 0: `unfinished` at a TODO (exercise_todo's
// message), `runtime_error` otherwise; nothing for a program that exited with 0.
std::optional<ExerciseCheck> stopped(const Exercise& exercise, int exit_code, std::string_view errors) {
    if (exit_code == 0) return std::nullopt;
    const std::string name = "exercise " + exercise.id;
    std::string why(errors);
    while (!why.empty() && why.back() == '\n') why.pop_back();
    // exercise_todo's message: the student has not written this answer yet.
    if (why.find("is not done yet: TODO(exercise ") != std::string::npos) {
        return ExerciseCheck{ExerciseVerdict::unfinished, fmt::format("{}: not finished: {} stopped at a TODO:\n  {}", name, exercise.program, why)};
    }
    return ExerciseCheck{ExerciseVerdict::runtime_error,
                         fmt::format("{}: your code stops with an error: {} exited with code {}{}:\n  {}", name, exercise.program,
                                     exit_code, exit_code > 128 ? " (killed by signal " + std::to_string(exit_code - 128) + ")" : "",
                                     why.empty() ? "(no message)" : why)};
}

// The notebook code behind output line `line` (1-based; past the end, behind the last line).
std::string code_of(const std::vector<OutputLine>& actual, std::size_t line) {
    return line - 1 < actual.size() ? actual[line - 1].code : (actual.empty() ? "" : actual.back().code);
}

std::string shown(const std::string& line, bool present) { return present ? line : std::string("<end of output>"); }

ExerciseCheck differs(const Exercise& exercise, const std::string& code, std::size_t line, const std::string& lines) {
    return {ExerciseVerdict::differ, fmt::format("exercise {}: your {} differs from the expected output; first differing line (line {} of the output):\n{}",
                                                 exercise.id, what_printed(code), line, lines)};
}

}  // namespace

ExerciseCheck check_exercise_output(const Exercise& exercise, std::string_view expected, std::string_view annotated_output,
                                    int exit_code, std::string_view errors) {
    if (auto stop = stopped(exercise, exit_code, errors)) return *stop;
    const std::string name = "exercise " + exercise.id;
    const auto actual = strip_annotations(annotated_output);
    std::string actual_text;
    for (const auto& line : actual) actual_text += line.text + "\n";
    const Comparison c = compare_outputs(expected, actual_text);
    if (c.verdict == Verdict::match)
        return {ExerciseVerdict::match, fmt::format("{}: right: your output is PyTorch's, byte for byte.", name)};
    const std::string code = code_of(actual, c.line);
    const std::string lines = fmt::format("  expected: {}\n  yours:    {}", shown(c.expected_line, c.line <= split_lines(expected).size()),
                                          shown(c.actual_line, c.line <= actual.size()));
    if (c.verdict == Verdict::close)
        return {ExerciseVerdict::close,
                fmt::format("{}: right, but not bit-exact: your {} differs from PyTorch's only in the last printed digits "
                            "(or spacing); first such line (line {} of the output):\n{}",
                            name, what_printed(code), c.line, lines)};
    return differs(exercise, code, c.line, lines);
}

// ---- digests of an expected output -------------------------------------------------------------

std::string coarse_line(std::string_view line) {
    std::string out;
    std::size_t i = 0;
    const auto digit = [&](std::size_t k) { return k < line.size() && std::isdigit(static_cast<unsigned char>(line[k])); };
    while (i < line.size()) {
        const char c = line[i];
        if (c == ' ' || c == '\t' || c == '\r') {  // a run of spacing: one space, none at either end
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
            if (!out.empty() && i < line.size()) out += ' ';
            continue;
        }
        const bool word_before = i > 0 && (std::isalnum(static_cast<unsigned char>(line[i - 1])) || line[i - 1] == '_');
        if (!word_before && digit(i)) {  // a number: its integer part, then at most 2 fewer decimals
            std::size_t end = i;
            while (digit(end)) ++end;
            std::string number(line.substr(i, end - i));
            if (end < line.size() && line[end] == '.' && digit(end + 1)) {
                std::size_t frac = end + 1;
                while (digit(frac)) ++frac;
                const std::size_t decimals = frac - end - 1;
                const std::size_t keep = decimals > 2 ? decimals - 2 : (decimals > 1 ? 1 : decimals);
                number += line.substr(end, 1 + keep);
                end = frac;
            }
            // -0.00 and 0.00 are one number once cut: no sign on a zero
            if (number.find_first_not_of("0.") == std::string::npos && !out.empty() && out.back() == '-') out.pop_back();
            out += number;
            i = end;
            continue;
        }
        out += c;
        ++i;
    }
    return out;
}

std::string output_digests(std::string_view expected) {
    std::string digests;
    for (const std::string& line : split_lines(expected)) digests += sha256_hex(line) + " " + sha256_hex(coarse_line(line)) + "\n";
    return digests;
}

ExerciseCheck check_exercise_digests(const Exercise& exercise, std::string_view digests, std::string_view annotated_output,
                                     int exit_code, std::string_view errors) {
    if (auto stop = stopped(exercise, exit_code, errors)) return *stop;
    const std::string name = "exercise " + exercise.id;
    std::vector<std::pair<std::string, std::string>> expected;  // exact, coarse
    for (const std::string& line : split_lines(digests)) {
        if (line.size() != 129 || line[64] != ' ')
            throw std::invalid_argument(fmt::format("{}: the expected output's digests are damaged (line {}: not \"<sha256> <sha256>\")",
                                                    name, expected.size() + 1));
        expected.emplace_back(line.substr(0, 64), line.substr(65));
    }
    const auto actual = strip_annotations(annotated_output);
    std::size_t first_close = 0;
    for (std::size_t i = 0; i < std::max(expected.size(), actual.size()); ++i) {
        const std::size_t line = i + 1;
        if (i >= expected.size() || i >= actual.size())
            return differs(exercise, code_of(actual, line), line,
                           fmt::format("  expected: {}\n  yours:    {}", i < expected.size() ? "another line" : "<end of output>",
                                       shown(i < actual.size() ? actual[i].text : "", i < actual.size())));
        if (sha256_hex(actual[i].text) == expected[i].first) continue;
        if (sha256_hex(coarse_line(actual[i].text)) != expected[i].second)
            return differs(exercise, actual[i].code, line, fmt::format("  expected: another line\n  yours:    {}", actual[i].text));
        if (first_close == 0) first_close = line;
    }
    if (first_close == 0) return {ExerciseVerdict::match, fmt::format("{}: right: your output is PyTorch's, byte for byte.", name)};
    return {ExerciseVerdict::close,
            fmt::format("{}: right, but not bit-exact (probably): your {} agrees with PyTorch's once its numbers are cut to two "
                        "fewer decimals, not byte for byte; first such line (line {} of the output):\n  yours:    {}",
                        name, what_printed(code_of(actual, first_close)), first_close, actual[first_close - 1].text)};
}

std::string outputs_only(std::string_view annotated_output) {
    std::string text;
    for (const auto& line : strip_annotations(annotated_output)) text += line.text + "\n";
    return text;
}

ExerciseCheck combine_variants(const Exercise& exercise, const ExerciseCheck& book, const std::vector<ExerciseCheck>& variants) {
    if (!solved(book.verdict)) return book;
    std::size_t failed = 0;
    std::string first;
    for (std::size_t i = 0; i < variants.size(); ++i) {
        if (solved(variants[i].verdict)) continue;
        if (failed++ != 0) continue;
        std::string message = variants[i].message;  // indented under the first line
        for (std::size_t at = message.find('\n'); at != std::string::npos; at = message.find('\n', at + 3)) message.insert(at + 1, "  ");
        first = fmt::format("first on variant {} ({}):\n  {}", i + 1, fmt::join(exercise.variants.at(i), " "), message);
    }
    if (failed == 0) return book;
    return {ExerciseVerdict::differ_on_variants,
            fmt::format("exercise {}: right on the book's case, differs on {} of {} variant{}: {}", exercise.id, failed, variants.size(),
                        variants.size() == 1 ? "" : "s", first)};
}

ExerciseCheck build_failure(const Exercise& exercise, std::string_view build_output) {
    // The compiler's first error and what follows it (a few lines), else the output's end.
    const auto lines = split_lines(build_output);
    std::size_t first = lines.size();
    for (std::size_t i = 0; i < lines.size() && first == lines.size(); ++i) {
        if (lines[i].find("error") != std::string::npos) first = i;
    }
    if (first == lines.size()) first = lines.size() > 20 ? lines.size() - 20 : 0;
    std::string shown;
    std::size_t count = 0;
    for (std::size_t i = first; i < lines.size() && count < 20; ++i) {
        // make's and ninja's own lines say nothing the compiler did not.
        if (starts_with(lines[i], "gmake") || starts_with(lines[i], "make") || starts_with(lines[i], "ninja: ")) continue;
        shown += "  " + lines[i] + "\n";
        ++count;
    }
    return {ExerciseVerdict::build_error,
            fmt::format("exercise {}: does not compile: {} failed to build:\n{}", exercise.id, student_source(exercise), shown)};
}

// ---- instructors: answers, student sources, hand-outs --------------------------------------------

namespace {

namespace fs = std::filesystem;

std::string trim(std::string_view s) {
    const std::size_t begin = s.find_first_not_of(" \t\r");
    if (begin == std::string_view::npos) return "";
    return std::string(s.substr(begin, s.find_last_not_of(" \t\r") - begin + 1));
}

std::string read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_bytes(const fs::path& path, std::string_view bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!(out << bytes)) throw std::runtime_error("cannot write " + path.string());
}

// The exercises' source names: "exercise_3_1".
std::vector<std::string> exercise_names() {
    std::vector<std::string> names;
    for (const Exercise& e : exercises()) names.push_back(e.program.substr(e.program.find("exercise_")));
    return names;
}

constexpr const char* kManifest = "GENERATED.sha256";

// The lines of text in the C++ string literals on `line`: `nb.code("a = 1\n"  "b = 2");` holds
// "a = 1" and "b = 2" (the notebook code a program shows, which its binary holds as such).
std::vector<std::string> string_literal_lines(std::string_view line) {
    std::vector<std::string> lines(1);
    bool inside = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (!inside) {
            inside = c == '"';
            continue;
        }
        if (c == '"') {
            inside = false;
        } else if (c == '\\' && i + 1 < line.size()) {
            const char e = line[++i];
            if (e == 'n') lines.emplace_back();
            else lines.back() += e == 't' ? '\t' : e;
        } else {
            lines.back() += c;
        }
    }
    return lines;
}

// A comment's text: "//   x = 1" and "#  x = 1" hold "x = 1" (a trimmed line); "" for any other line.
std::string comment_text(const std::string& trimmed) {
    if (starts_with(trimmed, "//")) return trim(std::string_view(trimmed).substr(2));
    if (starts_with(trimmed, "#")) {
        const std::size_t text = trimmed.find_first_not_of('#');
        return text == std::string::npos ? "" : trim(std::string_view(trimmed).substr(text));
    }
    return "";
}

// The lines a source line shows a reader: itself, trimmed; a comment's text; and, where
// `literals`, the lines of its C++ string literals (the notebook code a program shows).
std::vector<std::string> shown_lines(const std::string& line, bool literals) {
    std::vector<std::string> shown{trim(line)};
    if (std::string text = comment_text(shown[0]); !text.empty()) shown.push_back(std::move(text));
    if (literals && line.find('"') != std::string::npos) {
        for (const std::string& piece : string_literal_lines(line))
            if (std::string t = trim(piece); !t.empty()) shown.push_back(std::move(t));
    }
    return shown;
}

// Whether `file` is C++ (whose string literals shown_lines reads).
bool cpp_file(const fs::path& file) {
    const std::string ext = file.extension().string();
    return ext == ".cpp" || ext == ".hpp" || ext == ".h" || ext == ".cc";
}

}  // namespace

std::vector<std::string> answer_lines(std::string_view solution_source) {
    std::vector<std::string> answers;
    bool inside = false;
    for (const std::string& line : split_lines(solution_source)) {
        const std::string t = trim(line);
        if (starts_with(t, "// BEGIN SOLUTION(")) {
            inside = true;
        } else if (starts_with(t, "// END SOLUTION")) {
            inside = false;
        } else if (inside && !t.empty()) {
            answers.push_back(t);
        }
    }
    return answers;
}

std::vector<std::string> write_student_sources(const fs::path& solutions_dir, const fs::path& student_dir, bool force) {
    // What the generator last wrote: "<sha256>  <file>" lines.
    std::map<std::string, std::string> recorded;
    if (fs::exists(student_dir / kManifest)) {
        for (const std::string& line : split_lines(read_bytes(student_dir / kManifest))) {
            if (line.size() > 66) recorded[line.substr(66)] = line.substr(0, 64);
        }
    }
    std::vector<std::pair<std::string, std::string>> copies;  // file name -> new content
    std::vector<std::string> edited;
    for (const std::string& name : exercise_names()) {
        const std::string file = name + ".cpp";
        copies.emplace_back(file, student_copy(read_bytes(solutions_dir / file)));
        const fs::path target = student_dir / file;
        if (!fs::exists(target)) continue;
        const std::string current = sha256_hex(read_bytes(target));
        if (current == sha256_hex(copies.back().second)) continue;  // already what it would become
        const auto it = recorded.find(file);
        if (it == recorded.end() || it->second != current) edited.push_back((student_dir / file).string());
    }
    if (!edited.empty() && !force) {
        std::string list;
        for (const std::string& f : edited) list += "\n  " + f;
        throw std::runtime_error("not overwriting student files that differ from what was last generated (edited, "
                                 "answered?):" + list + "\nMove them away first, or pass --force to overwrite them.");
    }
    std::vector<std::string> written;
    std::string manifest;
    for (const auto& [file, content] : copies) {
        const fs::path target = student_dir / file;
        if (!fs::exists(target) || read_bytes(target) != content) {
            write_bytes(target, content);
            written.push_back(target.string());
        }
        manifest += sha256_hex(content) + "  " + file + "\n";
    }
    write_bytes(student_dir / kManifest, manifest);
    return written;
}

namespace {

// The exercises' expected outputs in `source_dir`: data/golden/<kernel>/<program>.txt, each with its exercise.
std::vector<std::pair<fs::path, const Exercise*>> exercise_goldens(const fs::path& source_dir) {
    std::vector<std::pair<fs::path, const Exercise*>> goldens;
    const fs::path golden = source_dir / "data" / "golden";
    if (!fs::is_directory(golden)) return goldens;
    for (const auto& kernel : fs::directory_iterator(golden)) {
        if (!kernel.is_directory()) continue;
        for (const Exercise& e : exercises()) {
            const fs::path file = kernel.path() / (e.program + ".txt");
            if (fs::is_regular_file(file)) goldens.emplace_back(fs::relative(file, source_dir), &e);
        }
    }
    std::sort(goldens.begin(), goldens.end());
    return goldens;
}

// The book's exercise-solution notebooks (exercise-solutions.ipynb of chapters 3 to 5), kept for
// llmfs-nbcheck's tests: tests/nbcheck/ch03_exercises_book.ipynb...
bool book_solution_notebook(const std::string& relative) {
    return starts_with(relative, "tests/nbcheck/") && relative.size() > 21 &&
           relative.compare(relative.size() - 21, 21, "_exercises_book.ipynb") == 0;
}

// A notebook's cells (Jupyter's JSON), or null when `bytes` is not one. Any file may be one, whatever
// its name: one that starts with "{" and has "cells" is parsed.
nlohmann::json notebook_cells(const std::string& bytes) {
    const std::size_t start = bytes.find_first_not_of(" \t\r\n");
    if (start == std::string::npos || bytes[start] != '{' || bytes.find("\"cells\"") == std::string::npos) return nullptr;
    nlohmann::json notebook = nlohmann::json::parse(bytes, nullptr, false);
    if (!notebook.is_object() || !notebook.contains("cells") || !notebook["cells"].is_array()) return nullptr;
    return std::move(notebook["cells"]);
}

// The lines of a notebook text: a string or a list of strings (the lines of a cell's "source").
std::vector<std::string> notebook_text_lines(const nlohmann::json& text) {
    std::string joined;
    if (text.is_string()) joined = text.get<std::string>();
    if (text.is_array())
        for (const auto& piece : text)
            if (piece.is_string()) joined += piece.get<std::string>();
    return split_lines(joined);
}

// The lines of a notebook's code cells.
std::vector<std::string> notebook_code_lines(const std::string& bytes) {
    std::vector<std::string> lines;
    for (const auto& cell : notebook_cells(bytes)) {
        if (!cell.is_object() || cell.value("cell_type", "") != "code" || !cell.contains("source")) continue;
        for (std::string& line : notebook_text_lines(cell["source"])) lines.push_back(std::move(line));
    }
    return lines;
}

// The lines of a file as a reader sees them: a notebook's are the lines of its cells' sources and
// text outputs, decoded (in the file they are JSON strings: "    x = 1\n",), after the file's own
// lines; any other file's are its lines.
std::vector<std::string> readable_lines(const std::string& bytes) {
    std::vector<std::string> lines = split_lines(bytes);
    const auto add = [&](const nlohmann::json& text) {
        for (std::string& line : notebook_text_lines(text)) lines.push_back(std::move(line));
    };
    for (const auto& cell : notebook_cells(bytes)) {
        if (!cell.is_object()) continue;
        if (cell.contains("source")) add(cell["source"]);
        if (!cell.contains("outputs") || !cell["outputs"].is_array()) continue;
        for (const auto& output : cell["outputs"]) {
            if (!output.is_object()) continue;
            if (output.contains("text")) add(output["text"]);
            if (output.contains("data") && output["data"].is_object() && output["data"].contains("text/plain"))
                add(output["data"]["text/plain"]);
        }
    }
    return lines;
}

}  // namespace

std::vector<fs::path> handout_files(const fs::path& source_dir) {
    // What a student's tree holds: the build, the library, the chapters and exercises (student
    // version), the tools, the data and goldens, the tests and the scripts that made the goldens.
    static const std::vector<std::string> kTop = {"CMakeLists.txt", "cmake", "common", "chapters", "data", "docs", "tests", "tools"};
    // The solutions, the PyTorch reference solutions, the instructor's classroom tests (which
    // answer 3.2 to check the checking), and the classroom page (its walk-through of 3.2 shows the answer).
    static const std::vector<std::string> kLeftOut = {"chapters/exercises/solutions", "tests/goldens/exercises_reference.py",
                                                      "chapters/exercises/README-student.md", "tests/classroom",
                                                      "docs/classroom.md"};
    // The expected outputs, wherever a copy of one stands (5.4's is also llmfs-train's resume golden).
    std::map<std::uintmax_t, std::set<std::string>> expected;  // size -> SHA-256s
    for (const auto& [golden, exercise] : exercise_goldens(source_dir))
        expected[fs::file_size(source_dir / golden)].insert(sha256_hex(read_bytes(source_dir / golden)));
    const auto is_expected_output = [&](const fs::path& file) {
        const auto it = expected.find(fs::file_size(file));
        return it != expected.end() && it->second.count(sha256_hex(read_bytes(file)));
    };
    std::vector<fs::path> files;
    for (const std::string& top : kTop) {
        const fs::path root = source_dir / top;
        if (fs::is_regular_file(root)) {
            files.emplace_back(top);
            continue;
        }
        if (!fs::is_directory(root)) continue;
        for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
            const fs::path relative = fs::relative(it->path(), source_dir);
            const std::string rel = relative.generic_string();
            const std::string leaf = it->path().filename().string();
            const bool left_out = std::any_of(kLeftOut.begin(), kLeftOut.end(), [&](const std::string& x) {
                return rel == x || starts_with(rel, x + "/");
            });
            if (left_out || leaf == "__pycache__" || (it->is_directory() && starts_with(leaf, "build"))) {
                if (it->is_directory()) it.disable_recursion_pending();
                continue;
            }
            if (it->is_regular_file() && !book_solution_notebook(rel) && !is_expected_output(it->path())) files.push_back(relative);
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::size_t write_handout(const fs::path& source_dir, const fs::path& out_dir) {
    if (fs::exists(out_dir) && !fs::is_empty(out_dir)) {
        throw std::invalid_argument(out_dir.string() + " exists and is not empty: give a new folder for the hand-out");
    }
    const auto files = handout_files(source_dir);
    for (const fs::path& file : files) {
        fs::create_directories((out_dir / file).parent_path());
        fs::copy_file(source_dir / file, out_dir / file, fs::copy_options::overwrite_existing);
    }
    write_bytes(out_dir / "README.md", read_bytes(source_dir / "chapters" / "exercises" / "README-student.md"));
    // Each expected output as digests: data/golden/mkl/ch03_exercise_3_1.txt -> .lines
    const auto goldens = exercise_goldens(source_dir);
    for (const auto& [golden, exercise] : goldens) {
        fs::path digests = out_dir / golden;
        write_bytes(digests.replace_extension(".lines"), output_digests(read_bytes(source_dir / golden)));
    }
    return files.size() + 1 + goldens.size();
}

std::vector<std::string> find_answer_leaks(const fs::path& source_dir, const fs::path& tree) {
    // The answers, each with its kind: solution lines, the reference solutions' lines, the code of
    // the book's solution notebooks.
    std::map<std::string, std::string> answers;
    const fs::path solutions = source_dir / "chapters" / "exercises" / "solutions";
    for (const std::string& name : exercise_names()) {
        for (const std::string& line : answer_lines(read_bytes(solutions / (name + ".cpp")))) answers.emplace(line, "solution line");
    }
    const auto add_code = [&](const std::vector<std::string>& lines) {
        for (const std::string& line : lines) {
            const std::string t = trim(line);
            if (!t.empty() && !starts_with(t, "#")) answers.emplace(t, "the book's solution code");
        }
    };
    add_code(split_lines(read_bytes(source_dir / "tests" / "goldens" / "exercises_reference.py")));
    // The book's solution code the solutions mark (BEGIN BOOK SOLUTION blocks): as indented
    // comments, as the notebook code a program shows.
    for (const std::string& name : exercise_names()) {
        bool inside = false;
        for (const std::string& line : split_lines(read_bytes(solutions / (name + ".cpp")))) {
            const std::string t = trim(line);
            if (starts_with(t, "// BEGIN BOOK SOLUTION")) inside = true;
            else if (starts_with(t, "// END BOOK SOLUTION")) inside = false;
            else if (inside && starts_with(t, "//  ")) add_code({comment_text(t)});  // code, indented; not the prose around it
            else if (inside && !starts_with(t, "//")) add_code(string_literal_lines(line));
        }
    }
    for (const auto& entry : fs::directory_iterator(source_dir / "tests" / "nbcheck")) {
        if (book_solution_notebook(fs::relative(entry.path(), source_dir).generic_string()))
            add_code(notebook_code_lines(read_bytes(entry.path())));
    }
    // The expected outputs: two consecutive non-blank lines of one, or the whole of a one-line one.
    std::map<std::string, const Exercise*> outputs;  // "line\nnext line" or "line"
    for (const auto& [golden, exercise] : exercise_goldens(source_dir)) {
        std::vector<std::string> lines;
        for (const std::string& line : split_lines(read_bytes(source_dir / golden)))
            if (!trim(line).empty()) lines.push_back(trim(line));
        if (lines.size() == 1) outputs.emplace(lines[0], exercise);
        for (std::size_t i = 0; i + 1 < lines.size(); ++i) outputs.emplace(lines[i] + "\n" + lines[i + 1], exercise);
    }
    // What the source tree holds outside the answers (a lone "}", the chapter code's own lines, the
    // book's notebook cells the programs show as C++ string literals, output lines other programs
    // print too) is no evidence: drop it.
    for (const fs::path& file : handout_files(source_dir)) {
        // Only the programs (chapters/) show notebook code in string literals; a literal elsewhere
        // (a test that plants an answer, say) is no evidence.
        const bool program = starts_with(file.generic_string(), "chapters/") && cpp_file(file);
        std::string previous;
        for (const std::string& line : readable_lines(read_bytes(source_dir / file))) {
            const std::string t = trim(line);
            for (const std::string& shown : shown_lines(line, program)) answers.erase(shown);
            outputs.erase(t);
            outputs.erase(previous + "\n" + t);
            if (!t.empty()) previous = t;
        }
    }
    for (const std::string& name : exercise_names()) {  // the solutions' code outside their answers and book solution code
        bool inside = false;
        for (const std::string& line : split_lines(read_bytes(solutions / (name + ".cpp")))) {
            const std::string t = trim(line);
            if (starts_with(t, "// BEGIN SOLUTION(") || starts_with(t, "// BEGIN BOOK SOLUTION")) inside = true;
            if (!inside) answers.erase(t);
            if (starts_with(t, "// END SOLUTION") || starts_with(t, "// END BOOK SOLUTION")) inside = false;
        }
    }
    // Each file once, with what it holds and the first line of each kind.
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(tree); it != fs::recursive_directory_iterator(); ++it) {
        if (!it->is_regular_file()) continue;
        std::map<std::string, std::pair<std::size_t, std::string>> kinds;  // kind -> (count, first)
        const auto hit = [&](const std::string& kind, const std::string& text) {
            auto& [count, first] = kinds[kind];
            if (count++ == 0) first = text;
        };
        std::string previous;
        const bool cpp = cpp_file(it->path());
        for (const std::string& line : readable_lines(read_bytes(it->path()))) {
            const std::string t = trim(line);
            // The line, a comment's text, a C++ string literal's lines: the first that is an answer.
            for (const std::string& shown : shown_lines(line, cpp)) {
                if (const auto a = answers.find(shown); a != answers.end()) {
                    hit(a->second, shown);
                    break;
                }
            }
            if (const auto o = outputs.find(t); o != outputs.end()) hit("expected output of exercise " + o->second->id, t);
            if (const auto o = outputs.find(previous + "\n" + t); o != outputs.end() && !t.empty())
                hit("expected output of exercise " + o->second->id, previous + " / " + t);
            if (!t.empty()) previous = t;
        }
        if (kinds.empty()) continue;
        std::string what;
        for (const auto& [kind, hits] : kinds)
            what += fmt::format("{}{} ({} line{}, e.g. `{}`)", what.empty() ? "" : "; ", kind, hits.first, hits.first == 1 ? "" : "s", hits.second);
        found.push_back(fmt::format("{}: {}", fs::relative(it->path(), tree).generic_string(), what));
    }
    std::sort(found.begin(), found.end());
    return found;
}

}  // namespace llmfs
