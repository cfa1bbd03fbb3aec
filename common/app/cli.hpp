// The command line every chapter program shares:
//   --bernoulli mkl|default   which PyTorch CPU dropout kernel to reproduce (default mkl; training programs: default)
//   --annotate                also print section headers and the notebook code lines
//   --help
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "llmfs/app/notebook.hpp"
#include "llmfs/torch/rng.hpp"
#include "llmfs/torch/sampling.hpp"

// CLI11's classes, declared only: <CLI/CLI.hpp> costs each file that includes it about 9 s of
// compiling at -O3 (its validators and formatter are compiled there again), so only the files
// that add options or parse include it.
namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace llmfs {

// Exit codes of every llmfs program.
constexpr int kExitRuntimeError = 1;  // e.g. missing or corrupt data, unwritable output
constexpr int kExitUsage = 2;         // bad flags, values or input

// $LLMFS_THREADS checked before any work, so that a bad value is refused at once (exit 2), not
// after a model is built: the message, or "" when it is unset or a whole number from 1 to 256.
// run_chapter, run_tool and run_script check it after parsing the command line.
std::string thread_setting_error();

struct ChapterOptions {
    BernoulliKernel bernoulli = BernoulliKernel::mkl;
    bool annotate = false;
};

// Parses the options, then runs body(notebook, generator) with a generator using the chosen
// Bernoulli kernel. Returns the process exit code: 0 on success, 0 after --help, 2 for a usage
// error (message and usage on stderr), 1 when the body throws (its message on stderr).
int run_chapter(int argc, char** argv, const std::string& description,
                const std::function<void(Notebook&, Generator&)>& body);
// The same, letting the program add options of its own first.
int run_chapter(int argc, char** argv, const std::string& description,
                const std::function<void(CLI::App&)>& add_options,
                const std::function<void(Notebook&, Generator&)>& body);
// A training program's (chapter 5): the same, but --bernoulli defaults to `default`. A training run
// of an MKL build multiplies with MKL's sgemm, which cannot be matched; --bernoulli mkl is accepted
// and says so on stderr.
int run_training_chapter(int argc, char** argv, const std::string& description,
                         const std::function<void(CLI::App&)>& add_options,
                         const std::function<void(Notebook&, Generator&)>& body);

// A training program's --pytorch {2,1.13} into `version_text` (parse it with train/adamw.hpp's
// parse_pytorch_version): whose AdamW update to reproduce; another value is a usage error.
void add_pytorch_option(CLI::App& app, std::string& version_text);

// An exercise program's (chapters/exercises): run_chapter (run_training_chapter when `training`),
// plus --variant N, 1 <= N <= `variants`: the exercise's computation, through the same functions a
// student edits, on other inputs (another seed, other sizes or configuration), which
// `llmfs-exercise grade` judges against the solution's own output for them. Without --variant the
// program runs the book's case, as before: body gets variant 0.
int run_exercise(int argc, char** argv, const std::string& description, int variants,
                 const std::function<void(Notebook&, Generator&, int variant)>& body);
int run_exercise(int argc, char** argv, const std::string& description, int variants,
                 const std::function<void(CLI::App&)>& add_options,
                 const std::function<void(Notebook&, Generator&, int variant)>& body, bool training = false);

// --NAME N for a size: parse_decimal from 1 to 65536 into `target`, whose value is the default shown.
CLI::Option* add_size_option(CLI::App& app, const std::string& name, std::size_t& target, const std::string& help);

// `text` for an error message, in double quotes: control bytes (NUL, newlines, escape sequences)
// as \xNN so that a message never ends early or moves the terminal, and at most `max_bytes` of it,
// then "..." (in bytes; a UTF-8 character is not split).
std::string quoted(std::string_view text, std::size_t max_bytes = 60);

// A whole number written in decimal, as a user types it: an optional '-', then digits, nothing
// else (no spaces, no "0x10", no "+3", not empty), between `min` and `max`. Otherwise a
// CLI::ValidationError (a usage error) naming `option` and the range.
long long parse_decimal(const std::string& text, long long min, long long max, const std::string& option);
// --seed: any integer torch.manual_seed takes, -2^63 .. 2^64 - 1; a negative seed wraps to
// 2^64 + seed, as PyTorch reinterprets it. Otherwise a CLI::ValidationError.
std::uint64_t parse_seed(const std::string& text, const std::string& option = "--seed");
// A real number written in decimal, as Python's float() reads it from a user: an optional '-',
// digits with an optional '.' and fraction, an optional exponent (e/E, optional sign, digits);
// no spaces, no hex, no inf or nan; between `min` and `max`. Otherwise a CLI::ValidationError.
double parse_real(const std::string& text, double min, double max, const std::string& option);
// Adds an option whose value must pass parse_decimal (parse_real, parse_seed), stored in `target`.
CLI::Option* add_decimal_option(CLI::App& app, const std::string& name, int& target, int min, int max,
                                const std::string& help);
CLI::Option* add_real_option(CLI::App& app, const std::string& name, double& target, double min, double max,
                             const std::string& help);
CLI::Option* add_seed_option(CLI::App& app, const std::string& name, std::uint64_t& target, const std::string& help);

// --temperature T and --top-k K (and with_eos: --eos-id ID): the book's generate() options
// (section 5.3), checked against GPT-2's vocabulary; used by llmfs-generate and llmfs-bench.
void add_sampling_options(CLI::App& app, SamplingOptions& sampling, bool with_eos);

// Progress on stderr ("generating: token 3/6"): redrawn in place on a terminal, and in a log (stderr
// not a terminal) only the first and the last step, each on its own line.
class Progress {
public:
    explicit Progress(std::string what);  // e.g. "generating: token"
    void operator()(std::size_t done, std::size_t total);
private:
    std::string what_;
    bool terminal_;
    bool open_line_ = false;
};

// A training run's progress on stderr: "step 12/90 (epoch 2/10), 1,234 tokens/s, 0:42 left",
// counted over the steps so far (evaluations and samples included). On a terminal one line,
// redrawn at most ten times a second; in a log (stderr not a terminal) a line at the end of each
// epoch, no carriage return. Call clear() before printing to stdout (it takes the line away on a
// terminal), finish() at the end.
// Before long work that ends by writing `path` (given by `flag`): throws std::runtime_error with
// the reason if it is a folder or cannot be written, so no run ends without its output.
void check_writable_path(const std::string& path, const std::string& flag);

class TrainProgress {
public:
    explicit TrainProgress(std::size_t total_steps);
    // after each step: the epoch (0-based), the step in it (1-based), steps per epoch, tokens so far
    void operator()(std::size_t epoch, std::size_t step_in_epoch, std::size_t steps_per_epoch, std::size_t tokens_seen);
    void clear();
    void finish();
private:
    std::string line(std::size_t epoch, std::size_t epochs) const;
    std::size_t total_, done_ = 0, tokens_ = 0;
    double start_, last_draw_ = -1;
    bool terminal_;
    bool open_line_ = false;
};

// The llmfs-* tools' frame: parses argv with `app` (--help exits 0; a usage error is reported as
// "<name>: ..." and exits 2), then returns body()'s exit code. Bad input the body throws as
// std::invalid_argument or std::out_of_range exits 2, any other exception 1, each with
// "<name>: ..." on stderr.
int run_tool(CLI::App& app, int argc, char** argv, const std::function<int()>& body);

}  // namespace llmfs
