// llmfs-train: the book's ch05/01_main-chapter-code/gpt_train.py as a tool. Trains the book's
// GPTModel on a text (default the-verdict.txt) exactly as PyTorch trains it on a CPU, and prints
// what the script prints: "Ep N (Step NNNNNN): Train loss X, Val loss Y" every --eval-freq steps
// and a 50-token greedy sample after each epoch. Progress goes to stderr; --figure draws the
// script's loss plot, --save writes the trained weights (Hugging Face's safetensors, or section
// 5.4's model.pth / model_and_optimizer.pth), --resume continues from such a .pth as exercise 5.4
// does (docs/training.md, docs/checkpoints.md).
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
#include "llmfs/nn/gpt_checkpoint.hpp"
#include "llmfs/nn/safetensors.hpp"
#include "llmfs/text/data_dir.hpp"
#include "llmfs/train/checkpoint.hpp"
#include "llmfs/train/gpt_train.hpp"

using namespace llmfs;
namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kMaxTextBytes = std::uintmax_t{256} << 20;

struct Options {
    GptTrainOptions train;
    WarmupSettings warmup;  // --warmup-steps and the flags that go with it
    std::string text;  // --text FILE; empty: the shipped the-verdict.txt
    std::string bernoulli = "default", pytorch = "2", figure, save, resume;
    bool with_optimizer = false;  // --with-optimizer: --save writes model_and_optimizer.pth
};

// What --save writes, chosen by the file's extension.
enum class SaveFormat { none, safetensors, state_dict, checkpoint };

SaveFormat save_format(const Options& opt) {
    if (opt.save.empty()) {
        if (opt.with_optimizer) throw std::invalid_argument("--with-optimizer saves the optimizer with the model: give --save NAME.pth too");
        return SaveFormat::none;
    }
    const std::string ext = fs::path(opt.save).extension().string();
    if (ext == ".pth") return opt.with_optimizer ? SaveFormat::checkpoint : SaveFormat::state_dict;
    if (ext == ".safetensors") {
        if (opt.with_optimizer)
            throw std::invalid_argument(fmt::format("--save {} --with-optimizer: a .safetensors file holds weights only; save the model and "
                                                    "AdamW's state as a .pth (torch.save, as section 5.4: model_and_optimizer.pth)",
                                                    opt.save));
        return SaveFormat::safetensors;
    }
    throw std::invalid_argument(fmt::format("--save {}: name the file NAME.pth (torch.save(model.state_dict(), PATH) as section 5.4; "
                                            "with --with-optimizer, the model and AdamW's state) or NAME.safetensors (Hugging Face's "
                                            "GPT-2 layout)",
                                            opt.save));
}

// --resume: the checkpoint's sizes, checked against the sizes the command line gives (`app`
// says which were given); n_heads and drop_rate from the command line (a state dict records
// neither). What was chosen goes to stderr.
void take_checkpoint_sizes(const TorchStateDict& checkpoint, const CLI::App& app, GptTrainOptions& o) {
    const GPTConfig given = o.model;
    const GPTConfig shapes = infer_gpt_config(checkpoint, std::size_t{1});  // the sizes alone (one head divides any width)
    const auto disagree = [&](const char* flag, const std::string& value, const std::string& theirs, const char* what) {
        if (app.get_option(flag)->count() > 0 && value != theirs)
            throw std::invalid_argument(fmt::format("{} {} disagrees with the checkpoint {}, whose {} is {}: a resumed run takes the "
                                                    "model's sizes from the checkpoint (leave {} out)",
                                                    flag, value, checkpoint.name(), what, theirs, flag));
    };
    disagree("--context-length", std::to_string(given.context_length), std::to_string(shapes.context_length), "context_length (pos_emb.weight's rows)");
    disagree("--emb-dim", std::to_string(given.emb_dim), std::to_string(shapes.emb_dim), "emb_dim");
    disagree("--n-layers", std::to_string(given.n_layers), std::to_string(shapes.n_layers), "n_layers");
    disagree("--qkv-bias", given.qkv_bias ? "on" : "off", shapes.qkv_bias ? "on" : "off", "qkv_bias");
    const GPTConfig cfg = checkpoint_config(checkpoint, given);  // with --n-heads and --drop-rate
    o.model = cfg;
    std::cerr << fmt::format("llmfs-train: resuming from {}: context_length {}, emb_dim {}, {} layer(s), qkv_bias {} (the checkpoint's "
                             "shapes); {} heads and drop_rate {} (--n-heads, --drop-rate: a state dict records neither)\n",
                             checkpoint.name(), cfg.context_length, cfg.emb_dim, cfg.n_layers, cfg.qkv_bias ? "on" : "off", cfg.n_heads,
                             cfg.drop_rate);
}

// `path` can be written (a file created beside it and removed again), before any training: a run
// must not end in an error after its work is done. Exit 1 otherwise.
int run(Options& opt, const CLI::App& app) {
    GptTrainOptions& o = opt.train;
    if (app.get_option("--warmup-steps")->count() > 0) {
        o.warmup = opt.warmup;
    } else {
        for (const char* flag : {"--initial-lr", "--min-lr", "--max-norm", "--orig-book-version"})
            if (app.get_option(flag)->count() > 0)
                throw std::invalid_argument(fmt::format("{} belongs to appendix D's train_model: give --warmup-steps N too", flag));
    }
    o.bernoulli = *parse_bernoulli_kernel(opt.bernoulli);
    o.adamw.version = *parse_pytorch_version(opt.pytorch);
    const SaveFormat format = save_format(opt);
    std::optional<TorchStateDict> checkpoint;
    if (!opt.resume.empty()) {
        checkpoint.emplace(TorchStateDict::open(opt.resume));  // torch.load(PATH)
        take_checkpoint_sizes(*checkpoint, app, o);
    }
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

    // torch.manual_seed; GPTModel; AdamW; the loaders (resuming: GPTModel, load_state_dict, AdamW,
    // its load_state_dict, torch.manual_seed, the loaders)
    GptTrain training = checkpoint ? GptTrain(o, tokenizer, text, *checkpoint) : GptTrain(o, tokenizer, text);
    if (checkpoint) {
        const AdamWOptions& a = training.optimizer().options();
        if (has_optimizer_state(*checkpoint)) {
            std::cerr << fmt::format("llmfs-train: AdamW's state from {}: lr {}, weight_decay {} (the checkpoint's, as "
                                     "optimizer.load_state_dict takes them)\n",
                                     checkpoint->name(), a.lr, a.weight_decay);
            for (const char* flag : {"--lr", "--weight-decay"})
                if (app.get_option(flag)->count() > 0)
                    std::cerr << fmt::format("llmfs-train: note: {} is replaced by the checkpoint's value, as AdamW(lr=..., "
                                             "weight_decay=...) is by optimizer.load_state_dict\n",
                                             flag);
        } else {
            std::cerr << fmt::format("llmfs-train: {} holds no optimizer state (a model's state dict): a fresh AdamW, lr {}, "
                                     "weight_decay {}\n",
                                     checkpoint->name(), a.lr, a.weight_decay);
        }
    }
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
    switch (format) {
        case SaveFormat::none:
            break;
        case SaveFormat::safetensors:
            save_gpt_as_gpt2(training.model(), opt.save);
            std::cerr << fmt::format("weights written to {} (Hugging Face's GPT-2 layout; continue text with llmfs-generate --weights {})\n",
                                     opt.save, opt.save);
            break;
        case SaveFormat::state_dict:
            save_state_dict(opt.save, training.model());  // torch.save(model.state_dict(), "model.pth")
            std::cerr << fmt::format("weights written to {} (torch.save(model.state_dict(), PATH): torch.load(PATH, weights_only=True) "
                                     "in PyTorch; llmfs-generate --weights {}; llmfs-train --resume {})\n",
                                     opt.save, opt.save, opt.save);
            break;
        case SaveFormat::checkpoint:
            save_checkpoint(opt.save, training.model(), training.optimizer());
            std::cerr << fmt::format("weights and AdamW's state written to {} (torch.save({{\"model_state_dict\": ..., "
                                     "\"optimizer_state_dict\": ...}}, PATH), as section 5.4; continue with llmfs-train --resume {})\n",
                                     opt.save, opt.save);
            break;
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
    add_count(app, "--warmup-steps", opt.warmup.warmup_steps, 1, 1 << 30,
              "train with appendix D's train_model instead: linear warmup over N steps from --initial-lr to --lr (the\n"
              "peak), then cosine decay to --min-lr, gradients clipped to --max-norm from step N on; prints\n"
              "\"Ep N (Iter NNNNNN)\" lines (the notebook uses 20% of the steps: int(0.2 * epochs * batches))");
    add_real_option(app, "--initial-lr", opt.warmup.initial_lr, 0.0, 1e6, "with --warmup-steps: the first step's learning rate")
        ->default_str("3e-05");
    add_real_option(app, "--min-lr", opt.warmup.min_lr, 0.0, 1e6, "with --warmup-steps: where the cosine decay ends")->default_str("1e-06");
    add_real_option(app, "--max-norm", opt.warmup.max_norm, 0.0, 1e6,
                    "with --warmup-steps: torch.nn.utils.clip_grad_norm_'s max_norm (the book's: 1.0)")
        ->default_str("1.0");
    app.add_flag("--orig-book-version", opt.warmup.orig_book_version,
                 "with --warmup-steps: the book's print edition (ORIG_BOOK_VERSION = True): clip from step N + 1, not N");
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
                   "write the trained weights here, as the extension says: NAME.pth is torch.save(model.state_dict(), PATH)\n"
                   "(section 5.4's model.pth; PyTorch loads it with weights_only=True), NAME.safetensors Hugging Face's GPT-2\n"
                   "layout (plus lm_head.weight); both for llmfs-generate --weights FILE")
        ->type_name("FILE");
    app.add_flag("--with-optimizer", opt.with_optimizer,
                 "with --save NAME.pth: save AdamW's state too, {\"model_state_dict\", \"optimizer_state_dict\"} as section 5.4's\n"
                 "model_and_optimizer.pth (param_groups with --pytorch's keys), for --resume");
    app.add_option("--resume", opt.resume,
                   "continue training from this torch.save file as exercise 5.4 does: load the model (and AdamW's state, if\n"
                   "it holds one; else a fresh AdamW), torch.manual_seed(--seed), new loaders, --epochs more epochs. The\n"
                   "checkpoint's shapes decide the sizes; --n-heads and --drop-rate are taken from here")
        ->type_name("FILE");
    return run_tool(app, argc, argv, [&] { return run(opt, app); });
}
