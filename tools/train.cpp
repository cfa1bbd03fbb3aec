// llmfs-train: the book's ch05/01_main-chapter-code/gpt_train.py as a tool. Trains the book's
// GPTModel on a text (default the-verdict.txt) exactly as PyTorch trains it on a CPU, and prints
// what the script prints: "Ep N (Step NNNNNN): Train loss X, Val loss Y" every --eval-freq steps
// and a 50-token greedy sample after each epoch. Progress goes to stderr; --figure draws the
// script's loss plot, --save writes the trained weights for llmfs-generate --weights
// (docs/training.md).
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <system_error>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/plot.hpp"
#include "llmfs/fast/memory.hpp"
#include "llmfs/nn/safetensors.hpp"
#include "llmfs/text/data_dir.hpp"
#include "llmfs/train/gpt_train.hpp"

using namespace llmfs;
namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kMaxTextBytes = std::uintmax_t{256} << 20;

struct Options {
    GptTrainOptions train;
    std::string text;  // --text FILE; empty: the shipped the-verdict.txt
    std::string bernoulli = "default", pytorch = "2", figure, save;
};

// `path` can be written (a file created beside it and removed again), before any training: a run
// must not end in an error after its work is done. Exit 1 otherwise.
int run(Options& opt) {
    GptTrainOptions& o = opt.train;
    o.bernoulli = *parse_bernoulli_kernel(opt.bernoulli);
    o.adamw.version = *parse_pytorch_version(opt.pytorch);
    if (const std::string problem = gpt_train_problem(o); !problem.empty()) throw std::invalid_argument(problem);
    if (const std::optional<double> memory = physical_memory_bytes(); memory && gpt_train_bytes(o) > *memory)
        throw std::runtime_error(fmt::format("training this model would take at least {:.3g} GB (weights, gradients, AdamW's moments, "
                                             "one batch's activations), more than this machine's {:.3g} GB of memory: choose smaller sizes",
                                             gpt_train_bytes(o) / 1e9, *memory / 1e9));
    if (!opt.save.empty()) check_writable_path(opt.save, "--save");
    if (!opt.figure.empty()) check_writable_path(opt.figure, "--figure");

    // with open(file_path, "r", encoding="utf-8") as file: text_data = file.read()
    const std::string name = opt.text.empty() ? (data_dir() / "the-verdict.txt").string() : opt.text;
    const std::string text = read_python_text(
        opt.text.empty() ? read_file_checked(name) : read_input(opt.text, kMaxTextBytes, "training text"), name);
    const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
    if (o.bernoulli == BernoulliKernel::mkl)
        std::cerr << "llmfs-train: --bernoulli mkl: dropout masks drawn as PyTorch's MKL builds draw them (x86-64 wheels up to 2.6, "
                     "Colab). What that matches: the masks such a build draws from the seed. What it cannot: that build's losses "
                     "and text, because it also multiplies with MKL's sgemm, whose rounding nobody outside MKL can reproduce (llmfs "
                     "multiplies as OpenBLAS does). The exact reference is PyTorch on OpenBLAS: --bernoulli default.\n";

    GptTrain training(o, tokenizer, text);  // torch.manual_seed; GPTModel; AdamW; the loaders
    TrainProgress progress(training.total_steps());
    TrainCallbacks callbacks;
    callbacks.print = [&](const std::string& line) {
        progress.clear();
        std::cout << line << "\n" << std::flush;
    };
    callbacks.on_step = [&](std::size_t epoch, std::size_t step, std::size_t steps, std::size_t tokens) { progress(epoch, step, steps, tokens); };
    const TrainHistory history = training.train(callbacks);
    progress.finish();
    if (!std::cout) return kExitRuntimeError;

    if (!opt.figure.empty()) {
        plot_losses(opt.figure, o.settings.num_epochs, history.train_losses, history.val_losses, history.tokens_seen);
        std::cerr << "loss plot written to " << opt.figure << "\n";
    }
    if (!opt.save.empty()) {
        save_gpt_as_gpt2(training.model(), opt.save);
        std::cerr << fmt::format("weights written to {} (Hugging Face's GPT-2 layout; continue text with llmfs-generate --weights {})\n",
                                 opt.save, opt.save);
    }
    return 0;
}

// --flag N for a count held in a std::size_t
CLI::Option* add_count(CLI::App& app, const std::string& name, std::size_t& target, int min, int max, const std::string& help) {
    return app.add_option_function<std::string>(
                  name, [&target, name, min, max](const std::string& text) { target = static_cast<std::size_t>(parse_decimal(text, min, max, name)); },
                  help)
        ->type_name("N")
        ->default_str(std::to_string(target));
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Train the book's GPTModel as its ch05 gpt_train.py does, exactly as PyTorch does on a CPU (OpenBLAS):\n"
                 "torch.manual_seed, GPTModel, AdamW, the 90/10 split of the text into windows of --context-length tokens,\n"
                 "train_model_simple. Prints what the script prints (the losses every --eval-freq steps, a sample after\n"
                 "each epoch); progress on stderr. Defaults are the script's (GPT-2 124M, context 256). See docs/training.md.",
                 "llmfs-train"};
    Options opt;
    GptTrainOptions& o = opt.train;
    app.add_option("--text", opt.text, "the text to train on, UTF-8 (default: the shipped data/the-verdict.txt)")->type_name("FILE");
    add_seed_option(app, "--seed", o.seed, "torch.manual_seed before building the model");
    add_count(app, "--context-length", o.model.context_length, 1, 1 << 20, "the model's context, and the loaders' window and stride");
    add_count(app, "--emb-dim", o.model.emb_dim, 1, 1 << 16, "embedding dimension");
    add_count(app, "--n-heads", o.model.n_heads, 1, 1 << 16, "attention heads (must divide --emb-dim)");
    add_count(app, "--n-layers", o.model.n_layers, 1, 1 << 12, "transformer blocks");
    add_real_option(app, "--drop-rate", o.model.drop_rate, 0.0, 1.0, "dropout rate, below 1");
    app.add_flag("--qkv-bias", o.model.qkv_bias, "query/key/value projections with bias (default: without)");
    add_real_option(app, "--lr", o.adamw.lr, 0.0, 1e6, "AdamW's learning rate");
    add_real_option(app, "--weight-decay", o.adamw.weight_decay, 0.0, 1e6, "AdamW's weight decay");
    add_count(app, "--epochs", o.settings.num_epochs, 1, 1 << 20, "training epochs");
    add_count(app, "--batch-size", o.batch_size, 1, 1 << 16, "windows per batch");
    add_count(app, "--eval-freq", o.settings.eval_freq, 1, 1 << 30, "evaluate (and print the losses) every N steps");
    add_count(app, "--eval-iter", o.settings.eval_iter, 1, 1 << 30, "batches per loss evaluation");
    app.add_option("--start-context", o.settings.start_context, "what the sample after each epoch continues")->capture_default_str();
    app.add_option("--pytorch", opt.pytorch,
                   "whose AdamW update to reproduce: 2 (PyTorch 2.x's, as the book ran; exp_avg.lerp_) or 1.13\n"
                   "(Debian's python3-torch; mul_ then add_): the last bits of the weights differ")
        ->capture_default_str()
        ->check(CLI::IsMember({"2", "1.13"}));
    app.add_option("--bernoulli", opt.bernoulli,
                   "PyTorch's CPU dropout kernel to reproduce: default (the default: PyTorch's own, as builds without MKL\n"
                   "draw, the exact reference) or mkl (the masks of MKL builds, whose sgemm cannot be matched: a warning says what it can)")
        ->check(CLI::IsMember({"default", "mkl"}));
    app.add_option("--figure", opt.figure, "draw the script's plot of the losses against epochs and tokens seen into this PNG")->type_name("PNG");
    app.add_option("--save", opt.save,
                   "write the trained weights here, in Hugging Face's GPT-2 model.safetensors layout (plus lm_head.weight),\n"
                   "for llmfs-generate --weights FILE")
        ->type_name("FILE");
    return run_tool(app, argc, argv, [&] { return run(opt); });
}
