#include "llmfs/app/cli.hpp"
#include "llmfs/fast/memory.hpp"
#include "llmfs/fast/thread_pool.hpp"
#include "llmfs/nn/gpt.hpp"
#include "llmfs/train/adamw.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <typeinfo>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>


namespace llmfs {

namespace {

// Which dropout kernel drew this run's masks, and the flag for the other (on stderr: stdout stays
// the notebook's text). The two kernels print different numbers for the same seed.
void note_dropout_kernel(const std::string& program, BernoulliKernel kernel) {
    if (kernel == BernoulliKernel::mkl) {
        std::cerr << program << ": dropout drawn with PyTorch's mkl kernel (the default), as in the Colab notebooks this "
                                "project began from (Intel Linux, PyTorch up to 2.6). Reading the English book, or running "
                                "its notebooks on a Mac, ARM or AMD? Add --bernoulli default to get its numbers\n";
    } else {
        std::cerr << program << ": dropout drawn with PyTorch's default kernel, as in the English book's notebooks (macOS) "
                                "and ARM/AMD machines; --bernoulli mkl gives the Colab notebooks this project began from "
                                "(Intel Linux, PyTorch up to 2.6)\n";
    }
}

// The arguments as CLI11 should see them. "--name=" (an empty value) is split into "--name" and
// "": CLI11 would otherwise take "--name=" as a missing value and swallow the next argument
// ("--prompt= --max-new-tokens 1" made "1" unexpected).
std::vector<std::string> normalized_args(int argc, char** argv) {
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.size() > 3 && arg.rfind("--", 0) == 0 && arg.back() == '=' && arg.find('=') == arg.size() - 1) {
            args.push_back(arg.substr(0, arg.size() - 1));
            args.emplace_back();
        } else {
            args.push_back(arg);
        }
    }
    std::reverse(args.begin(), args.end());  // CLI::App::parse(std::vector) takes them last first
    return args;
}

}  // namespace

std::string thread_setting_error() {
    try {
        default_thread_count();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

namespace {

// --bernoulli's help: which kernel is the default, and what each reproduces.
const char* const kBernoulliHelp =
    "PyTorch's CPU dropout kernel to reproduce. mkl (the default): the Colab notebooks this project "
    "began from (Intel Linux, PyTorch up to 2.6). default: the English book's notebooks (macOS) and "
    "ARM/AMD machines, and PyTorch builds without MKL: reading the English book, use --bernoulli default";
const char* const kTrainingBernoulliHelp =
    "PyTorch's CPU dropout kernel to reproduce. default (the default): PyTorch built without MKL (Debian's, "
    "macOS, ARM), whose training this program reproduces. mkl: the dropout masks of Colab's builds; their "
    "training multiplies with MKL's sgemm, whose bits cannot be matched, so the losses differ from the first step";

int run_chapter_with(int argc, char** argv, const std::string& description, BernoulliKernel default_kernel,
                     const std::function<void(CLI::App&)>& add_options,
                     const std::function<void(Notebook&, Generator&)>& body) {
    reuse_freed_memory();
    CLI::App app{description, argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "llmfs"};
    ChapterOptions options;
    // Shown as "--bernoulli {mkl,default}" with the default in words, not CLI11's enum mapping.
    const bool training = default_kernel == BernoulliKernel::standard;
    std::string kernel_name = training ? "default" : "mkl";
    app.add_option("--bernoulli", kernel_name, training ? kTrainingBernoulliHelp : kBernoulliHelp)
        ->type_name("{mkl,default}")
        ->check(CLI::Validator(
            [](std::string& value) {
                return parse_bernoulli_kernel(value) ? std::string()
                                                     : "'" + value + "' is not a dropout kernel: use mkl or default";
            },
            ""));
    app.add_flag("--annotate", options.annotate, "also print the section headings, each notebook cell's code (>>> lines) and the C++ line that runs it");
    add_options(app);
    try {
        app.parse(normalized_args(argc, argv));
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << app.get_name() << ": " << e.what() << "\n\n" << app.help();
        return kExitUsage;
    }
    if (const std::string error = thread_setting_error(); !error.empty()) {
        std::cerr << app.get_name() << ": " << error << "\n";
        return kExitUsage;
    }
    try {
        options.bernoulli = *parse_bernoulli_kernel(kernel_name);
        Generator gen(options.bernoulli);
        Notebook notebook(options.annotate);
        if (training && options.bernoulli == BernoulliKernel::mkl)
            std::cerr << app.get_name()
                      << ": --bernoulli mkl: dropout draws its masks as PyTorch's MKL builds (Colab) do, but such a build "
                         "multiplies with MKL's sgemm, which OpenBLAS does not reproduce: its training losses differ from "
                         "this program's from the first step on (see --help)\n";
        body(notebook, gen);
        if (gen.drew_bernoulli()) note_dropout_kernel(app.get_name(), options.bernoulli);
        std::cout.flush();
        return std::cout ? 0 : kExitRuntimeError;
    } catch (const std::exception& e) {
        std::cerr << app.get_name() << ": error: " << e.what() << "\n";
        return kExitRuntimeError;
    }
}

}  // namespace

int run_chapter(int argc, char** argv, const std::string& description,
                const std::function<void(Notebook&, Generator&)>& body) {
    return run_chapter_with(argc, argv, description, BernoulliKernel::mkl, [](CLI::App&) {}, body);
}

int run_chapter(int argc, char** argv, const std::string& description,
                const std::function<void(CLI::App&)>& add_options,
                const std::function<void(Notebook&, Generator&)>& body) {
    return run_chapter_with(argc, argv, description, BernoulliKernel::mkl, add_options, body);
}

int run_exercise(int argc, char** argv, const std::string& description, int variants,
                 const std::function<void(Notebook&, Generator&, int variant)>& body) {
    return run_exercise(argc, argv, description, variants, [](CLI::App&) {}, body);
}

int run_exercise(int argc, char** argv, const std::string& description, int variants,
                 const std::function<void(CLI::App&)>& add_options,
                 const std::function<void(Notebook&, Generator&, int variant)>& body, bool training) {
    int variant = 0;  // the book's case
    const auto options = [&](CLI::App& app) {
        add_decimal_option(app, "--variant", variant, 1, variants,
                           fmt::format("run the exercise on other inputs, variant N of {} (llmfs-exercise grade's hidden "
                                       "checks); without it, the book's case",
                                       variants))
            ->type_name("N");
        add_options(app);
    };
    return run_chapter_with(argc, argv, description, training ? BernoulliKernel::standard : BernoulliKernel::mkl, options,
                            [&](Notebook& nb, Generator& gen) { body(nb, gen, variant); });
}

void add_pytorch_option(CLI::App& app, std::string& version_text) {
    app.add_option("--pytorch", version_text, "whose AdamW update to reproduce: 2 (the default; the book's notebooks ran 2.9) or 1.13")
        ->type_name("{2,1.13}")
        ->check(CLI::Validator(
            [](std::string& value) {
                return parse_pytorch_version(value) ? std::string() : "'" + value + "' is not a PyTorch version: use 2 or 1.13";
            },
            ""));
}

int run_training_chapter(int argc, char** argv, const std::string& description,
                         const std::function<void(CLI::App&)>& add_options,
                         const std::function<void(Notebook&, Generator&)>& body) {
    return run_chapter_with(argc, argv, description, BernoulliKernel::standard, add_options, body);
}

int run_tool(CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
    reuse_freed_memory();
    const std::string name = app.get_name();
    app.failure_message([name](const CLI::App* failed, const CLI::Error& e) {
        return name + ": " + CLI::FailureMessage::simple(failed, e);
    });
    try {
        app.parse(normalized_args(argc, argv));
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : kExitUsage;  // --help exits 0
    }
    if (const std::string error = thread_setting_error(); !error.empty()) {
        std::cerr << name << ": " << error << "\n";
        return kExitUsage;
    }
    // Every failure says something: an exception without a message is named as such.
    const auto message = [](const std::exception& e) {
        const std::string what = e.what();
        return what.empty() ? std::string("an error without a message (") + typeid(e).name() + ")" : what;
    };
    try {
        return body();
    } catch (const std::invalid_argument& e) {
        std::cerr << name << ": " << message(e) << "\nRun with --help for more information.\n";
        return kExitUsage;
    } catch (const std::out_of_range& e) {
        std::cerr << name << ": " << message(e) << "\nRun with --help for more information.\n";
        return kExitUsage;
    } catch (const std::exception& e) {
        std::cerr << name << ": error: " << message(e) << "\n";
        return kExitRuntimeError;
    } catch (...) {
        std::cerr << name << ": error: an unknown exception\n";
        return kExitRuntimeError;
    }
}

std::string quoted(std::string_view text, std::size_t max_bytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "\"";
    std::size_t i = 0;
    for (; i < text.size() && i < max_bytes; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
            out += c == '"' ? "\\\"" : c == '\\' ? "\\\\" : std::string("\\x") + kHex[c >> 4] + kHex[c & 0xf];
        } else {
            out += static_cast<char>(c);
        }
    }
    // Do not end inside a UTF-8 character: drop the bytes of the one text[i] continues (bytes of
    // 0x80 and over were copied one for one).
    if (i < text.size()) {
        std::size_t lead = i;
        while (lead > 0 && (static_cast<unsigned char>(text[lead]) & 0xC0) == 0x80) --lead;
        out.resize(out.size() - (i - lead));
        out += "...";
    }
    return out + "\"";
}

CLI::Option* add_size_option(CLI::App& app, const std::string& name, std::size_t& target, const std::string& help) {
    return app.add_option_function<std::string>(
                  name, [&target, name](const std::string& text) { target = static_cast<std::size_t>(parse_decimal(text, 1, 1 << 16, name)); },
                  help)
        ->type_name("N")
        ->default_str(std::to_string(target));
}

long long parse_decimal(const std::string& text, long long min, long long max, const std::string& option) {
    const auto fail = [&] {
        throw CLI::ValidationError(option, fmt::format("{} is not a whole number from {} to {} (written in decimal)",
                                                       llmfs::quoted(text), min, max));
    };
    const std::size_t digits_from = !text.empty() && text[0] == '-' ? 1 : 0;
    if (text.size() == digits_from || text.size() > 20) fail();
    for (std::size_t i = digits_from; i < text.size(); ++i) {
        if (text[i] < '0' || text[i] > '9') fail();
    }
    errno = 0;
    const long long value = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == ERANGE || value < min || value > max) fail();
    return value;
}

double parse_real(const std::string& text, double min, double max, const std::string& option) {
    const auto fail = [&] {
        throw CLI::ValidationError(option, fmt::format("{} is not a number from {} to {} (written in decimal)",
                                                       llmfs::quoted(text), min, max));
    };
    std::size_t i = !text.empty() && text[0] == '-' ? 1 : 0;
    const auto digits = [&] {
        const std::size_t from = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
        return i - from;
    };
    std::size_t mantissa_digits = digits();
    if (i < text.size() && text[i] == '.') {
        ++i;
        mantissa_digits += digits();
    }
    if (mantissa_digits == 0 || text.size() > 64) fail();
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
        if (digits() == 0) fail();
    }
    if (i != text.size()) fail();
    const double value = std::strtod(text.c_str(), nullptr);  // correctly rounded, as Python's float()
    if (!std::isfinite(value) || value < min || value > max) fail();
    return value;
}

std::uint64_t parse_seed(const std::string& text, const std::string& option) {
    const auto fail = [&] {
        throw CLI::ValidationError(option, llmfs::quoted(text) + " is not a seed torch.manual_seed takes: a whole number from "
                                           "-9223372036854775808 to 18446744073709551615, in decimal");
    };
    const bool negative = !text.empty() && text[0] == '-';
    const std::size_t from = negative ? 1 : 0;
    if (text.size() == from || text.size() > 21) fail();
    for (std::size_t i = from; i < text.size(); ++i) {
        if (text[i] < '0' || text[i] > '9') fail();
    }
    errno = 0;
    if (negative) {
        const long long value = std::strtoll(text.c_str(), nullptr, 10);
        if (errno == ERANGE) fail();
        return static_cast<std::uint64_t>(value);  // 2^64 + value, as torch.manual_seed reinterprets it
    }
    const unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
    if (errno == ERANGE) fail();
    return value;
}

CLI::Option* add_decimal_option(CLI::App& app, const std::string& name, int& target, int min, int max,
                                const std::string& help) {
    return app
        .add_option_function<std::string>(
            name, [&target, min, max, name](const std::string& text) { target = static_cast<int>(parse_decimal(text, min, max, name)); },
            help)
        ->type_name("INT")
        ->default_str(std::to_string(target));
}

CLI::Option* add_real_option(CLI::App& app, const std::string& name, double& target, double min, double max,
                             const std::string& help) {
    return app
        .add_option_function<std::string>(name, [&target, min, max, name](const std::string& text) { target = parse_real(text, min, max, name); },
                                          help)
        ->type_name("FLOAT")
        ->default_str(fmt::format("{}", target));
}

CLI::Option* add_seed_option(CLI::App& app, const std::string& name, std::uint64_t& target, const std::string& help) {
    return app.add_option_function<std::string>(name, [&target, name](const std::string& text) { target = parse_seed(text, name); }, help)
        ->type_name("INT")
        ->default_str(std::to_string(target));
}

Progress::Progress(std::string what) : what_(std::move(what)), terminal_(::isatty(STDERR_FILENO) != 0) {}

void Progress::operator()(std::size_t done, std::size_t total) {
    if (terminal_) {
        std::cerr << fmt::format("\r{} {}/{}", what_, done, total) << std::flush;
        open_line_ = done < total;
        if (!open_line_) std::cerr << "\n";
    } else if (done == 1 || done == total) {
        std::cerr << fmt::format("{} {}/{}\n", what_, done, total);
    }
}

namespace {
double now_seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

TrainProgress::TrainProgress(std::size_t total_steps)
    : total_(total_steps), start_(now_seconds()), terminal_(::isatty(STDERR_FILENO) != 0) {}

std::string TrainProgress::line(std::size_t epoch, std::size_t epochs) const {
    const double elapsed = now_seconds() - start_;
    std::string text = fmt::format("step {}/{} (epoch {}/{})", done_, total_, epoch + 1, epochs);
    if (elapsed > 0 && done_ > 0) {
        const auto left = static_cast<long long>(std::llround(elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_)));
        text += fmt::format(", {} tokens/s, {}:{:02d} left", with_commas(static_cast<std::size_t>(static_cast<double>(tokens_) / elapsed)),
                            left / 60, left % 60);
    }
    return text;
}

void TrainProgress::operator()(std::size_t epoch, std::size_t step_in_epoch, std::size_t steps_per_epoch, std::size_t tokens_seen) {
    ++done_;
    tokens_ = tokens_seen;
    const std::size_t epochs = steps_per_epoch ? (total_ + steps_per_epoch - 1) / steps_per_epoch : 0;
    if (terminal_) {
        const double t = now_seconds();
        if (t - last_draw_ < 0.1 && done_ < total_) return;
        last_draw_ = t;
        std::cerr << "\r\033[K" << line(epoch, epochs) << std::flush;
        open_line_ = true;
    } else if (step_in_epoch == steps_per_epoch) {
        std::cerr << line(epoch, epochs) << "\n" << std::flush;
    }
}

void TrainProgress::clear() {
    if (!open_line_) return;
    std::cerr << "\r\033[K" << std::flush;
    open_line_ = false;
}

void TrainProgress::finish() {
    if (open_line_) std::cerr << "\n";
    open_line_ = false;
    const double elapsed = now_seconds() - start_;
    std::cerr << fmt::format("trained {} steps in {:.1f} s", done_, elapsed) << std::endl;
}

void add_sampling_options(CLI::App& app, SamplingOptions& sampling, bool with_eos) {
    constexpr int vocab = static_cast<int>(GPTConfig{}.vocab_size);  // every GPT-2 size
    add_real_option(app, "--temperature", sampling.temperature, 0.0, 1e30,
                    "0: greedy (argmax); > 0: sample from softmax(logits / T) with torch.multinomial, drawing from\n"
                    "the generator that built the model (PyTorch's default CPU exponential_ kernel: the book's\n"
                    "outputs and 2.7+ wheels; not the MKL draws of 2.0-2.6 x86-64 wheels)");
    app.add_option_function<std::string>(
           "--top-k", [&sampling](const std::string& text) { sampling.top_k = parse_decimal(text, 1, vocab, "--top-k"); },
           "sample only among the K largest logits (ties with the K-th included)")
        ->type_name("K");
    if (!with_eos) return;
    app.add_option_function<std::string>(
           "--eos-id", [&sampling](const std::string& text) { sampling.eos_id = parse_decimal(text, 0, vocab - 1, "--eos-id"); },
           "stop before this token id (50256: <|endoftext|>)")
        ->type_name("ID");
}

void check_writable_path(const std::string& path, const std::string& flag) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw std::runtime_error(fmt::format("{} {}: is a directory; give a file name", flag, path));
    const std::filesystem::path probe = path + ".partial";
    {
        std::ofstream out(probe, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error(fmt::format("{} {}: cannot write there: {} (choose a writable path)", flag, path, std::strerror(errno)));
    }
    std::filesystem::remove(probe, ec);
}

}  // namespace llmfs
