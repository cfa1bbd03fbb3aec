// Appendix D, Adding bells and whistles to the training loop: D.1 learning-rate warmup, D.2 cosine
// decay, D.3 gradient clipping, D.4 the modified training function, on the-verdict.txt as the
// notebook (appendix-D/01_main-chapter-code/appendix-D.ipynb) runs them: the 124M GPT with context
// 256, 15 epochs. --context-length, --emb-dim, --n-heads, --n-layers and --epochs change
// GPT_CONFIG_124M and n_epochs (the tests' small runs); --stop-after ends after a section.
//
// The notebook ran on a GPU (Apple's MPS): its tensors print device='mps:0' and its gradients and
// losses differ from a CPU's. The goldens are PyTorch's on this CPU, the notebook's own cells
// (tests/goldens/appendix_d_reference.py).
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <xtensor/xadapt.hpp>

#include "llmfs/app/cli.hpp"
#include "llmfs/nn/gpt.hpp"
#include "llmfs/text/data_dir.hpp"
#include "llmfs/torch/print.hpp"
#include "llmfs/train/clip_grad.hpp"
#include "llmfs/train/gpt_train.hpp"
#include "llmfs/train/loop.hpp"
#include "llmfs/train/lr_schedule.hpp"

using namespace llmfs;

namespace {

struct Options {
    GPTConfig cfg = [] {
        GPTConfig c = GPTConfig::gpt2_small();
        c.context_length = 256;  // Shortened context length (orig: 1024)
        return c;
    }();
    std::size_t n_epochs = 15;
    PyTorchVersion pytorch = PyTorchVersion::v2;
    std::string stop_after = "D.4";
};

// What the sections share: the tokenizer, the loaders, the warmup length, the last batch of D.2's loop.
struct State {
    Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
    std::unique_ptr<GptTrainData> data;
    std::size_t total_steps = 0, warmup_steps = 0;
    Batch last_batch;
};

// for epoch in range(n_epochs): for input_batch, target_batch in train_loader: ... (each epoch
// draws the loader's shuffle); the lr of every step as the cell computes it
std::vector<double> run_schedule(State& s, Generator& gen, const LrSchedule& schedule, std::size_t n_epochs) {
    std::vector<double> track_lrs;
    std::size_t global_step = 0;
    for (std::size_t epoch = 0; epoch < n_epochs; ++epoch) {
        auto batches = s.data->train_loader.begin(gen);
        for (Batch batch; batches.next(batch); ++global_step) {
            track_lrs.push_back(learning_rate(schedule, global_step));
            s.last_batch = batch;
        }
    }
    return track_lrs;
}

void setup(Notebook& nb, Generator& gen, const Options& o, State& s) {
    nb.code("GPT_CONFIG_124M = {\n"
            "    \"vocab_size\": 50257,   # Vocabulary size\n"
            "    \"context_length\": 256, # Shortened context length (orig: 1024)\n"
            "    \"emb_dim\": 768,        # Embedding dimension\n"
            "    \"n_heads\": 12,         # Number of attention heads\n"
            "    \"n_layers\": 12,        # Number of layers\n"
            "    \"drop_rate\": 0.1,      # Dropout rate\n"
            "    \"qkv_bias\": False      # Query-key-value bias\n"
            "}");
    const Options notebook;
    if (o.cfg.context_length != notebook.cfg.context_length || o.cfg.emb_dim != notebook.cfg.emb_dim ||
        o.cfg.n_heads != notebook.cfg.n_heads || o.cfg.n_layers != notebook.cfg.n_layers || o.n_epochs != notebook.n_epochs)
        nb.note(fmt::format("Run with context_length {}, emb_dim {}, n_heads {}, n_layers {} and n_epochs = {} (the command line's).",
                            o.cfg.context_length, o.cfg.emb_dim, o.cfg.n_heads, o.cfg.n_layers, o.n_epochs));
    // The cell's torch.manual_seed(123); model = GPTModel(...) is not built: the next seed
    // (the loaders' cell) replaces its draws, and only D.1's unused optimizer refers to it.
    nb.code("torch.manual_seed(123)\n"
            "\n"
            "train_loader = create_dataloader_v1(\n"
            "    text_data[:split_idx],\n"
            "    batch_size=2,\n"
            "    max_length=GPT_CONFIG_124M[\"context_length\"],\n"
            "    stride=GPT_CONFIG_124M[\"context_length\"],\n"
            "    drop_last=True,\n"
            "    shuffle=True,\n"
            "    num_workers=0\n"
            ")");
    const std::string path = (data_dir() / "the-verdict.txt").string();
    const std::string text = read_python_text(read_file_checked(path), path);
    s.data = std::make_unique<GptTrainData>(s.tokenizer, text, o.cfg.context_length, 2);
    gen.manual_seed(123);
}

void section_d1(Notebook& nb, Generator& gen, const Options& o, State& s) {
    nb.section("D.1 Learning rate warmup");
    nb.code("total_steps = len(train_loader) * n_epochs\n"
            "warmup_steps = int(0.2 * total_steps) # 20% warmup\n"
            "print(warmup_steps)");
    s.total_steps = s.data->train_loader.size() * o.n_epochs;
    s.warmup_steps = warmup_steps_of(s.total_steps);
    nb.print(s.warmup_steps);
    nb.code("lr_increment = (peak_lr - initial_lr) / warmup_steps");
    LrSchedule warmup;
    warmup.initial_lr = 0.0001;
    warmup.peak_lr = 0.01;
    warmup.warmup_steps = s.warmup_steps;
    warmup.total_steps = s.total_steps;
    warmup.decay = LrDecay::constant;
    run_schedule(s, gen, warmup, o.n_epochs);
}

void section_d2(Notebook& nb, Generator& gen, const Options& o, State& s) {
    nb.section("D.2 Cosine decay");
    nb.code("min_lr = 0.1 * initial_lr");
    LrSchedule cosine;
    cosine.initial_lr = 0.0001;
    cosine.peak_lr = 0.01;
    cosine.min_lr = 0.1 * cosine.initial_lr;
    cosine.warmup_steps = s.warmup_steps;
    cosine.total_steps = s.total_steps;
    run_schedule(s, gen, cosine, o.n_epochs);
}

void section_d3(Notebook& nb, Generator& gen, const Options& o, State& s) {
    nb.section("D.3 Gradient clipping");
    nb.code("torch.manual_seed(123)\n"
            "model = GPTModel(GPT_CONFIG_124M)\n"
            "model.to(device)\n"
            "\n"
            "loss = calc_loss_batch(input_batch, target_batch, model, device)\n"
            "loss.backward()");
    gen.manual_seed(123);
    GPTModel model(gen, o.cfg);
    model.train(true);  // a new module trains: dropout draws
    GPTSaved saved;
    GPTGrads grads;
    const Batch& b = s.last_batch;  // the last batch of D.2's loop: input_batch [B, T]
    gpt_forward(model, xt::adapt(b.inputs, std::array<std::size_t, 2>{b.B, b.T}), saved);
    gpt_loss_backward(model, saved, b.targets.data(), grads);
    nb.code("def find_highest_gradient(model):\n"
            "    max_grad = None\n"
            "    for param in model.parameters():\n"
            "        if param.grad is not None:\n"
            "            grad_values = param.grad.data.flatten()\n"
            "            max_grad_param = grad_values.max()\n"
            "            if max_grad is None or max_grad_param > max_grad:\n"
            "                max_grad = max_grad_param\n"
            "    return max_grad\n"
            "\n"
            "print(find_highest_gradient(model))");
    nb.note("The notebook ran on Apple's MPS device: it prints device='mps:0' and other digits.");
    const std::vector<GradView> views = gradient_views(grads);
    const float before = find_highest_gradient(views);
    nb.print(format_tensor({}, &before));
    nb.code("torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
            "print(find_highest_gradient(model))");
    clip_grad_norm_(views, 1.0);
    const float after = find_highest_gradient(views);
    nb.print(format_tensor({}, &after));
}

void section_d4(Notebook& nb, Generator& gen, const Options& o, State& s) {
    nb.section("D.4 The modified training function");
    nb.code("ORIG_BOOK_VERSION = False\n"
            "\n"
            "\n"
            "def train_model(model, train_loader, val_loader, optimizer, device,\n"
            "                n_epochs, eval_freq, eval_iter, start_context, tokenizer,\n"
            "                warmup_steps, initial_lr=3e-05, min_lr=1e-6):\n"
            "    ...");
    nb.code("torch.manual_seed(123)\n"
            "model = GPTModel(GPT_CONFIG_124M)\n"
            "model.to(device)\n"
            "\n"
            "peak_lr = 0.001  # this was originally set to 5e-4 in the book by mistake\n"
            "optimizer = torch.optim.AdamW(model.parameters(), lr=peak_lr, weight_decay=0.1)  # the book accidentally omitted the lr assignment\n"
            "tokenizer = tiktoken.get_encoding(\"gpt2\")");
    nb.note(fmt::format("AdamW updates as PyTorch {} computes them (--pytorch 2|1.13). The notebook trained on Apple's\n"
                        "MPS device: its losses and samples differ from a CPU's; the lines below are PyTorch's on a CPU.",
                        o.pytorch == PyTorchVersion::v2 ? "2.x" : "1.13"));
    gen.manual_seed(123);
    GPTModel model(gen, o.cfg);
    AdamWOptions adamw;
    adamw.lr = 0.001;
    adamw.weight_decay = 0.1;
    adamw.version = o.pytorch;
    AdamW optimizer(model, adamw);
    TrainSettings settings;
    settings.num_epochs = o.n_epochs;
    settings.eval_freq = 5;
    settings.eval_iter = 1;
    settings.start_context = "Every effort moves you";
    WarmupSettings warmup;
    warmup.warmup_steps = s.warmup_steps;
    warmup.initial_lr = 1e-5;
    warmup.min_lr = 1e-5;
    TrainProgress progress(s.total_steps);
    TrainCallbacks callbacks;
    callbacks.print = [&](const std::string& line) {
        progress.clear();
        nb.print(line);
        std::cout.flush();
    };
    callbacks.on_step = [&](std::size_t epoch, std::size_t step, std::size_t steps, std::size_t tokens) { progress(epoch, step, steps, tokens); };
    train_model(model, s.data->train_loader, s.data->val_loader, optimizer, gen, s.tokenizer, settings, warmup, callbacks);
    progress.finish();
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    std::string pytorch = "2";
    return run_training_chapter(
        argc, argv, "Appendix D: learning-rate warmup, cosine decay, gradient clipping and the modified training function",
        [&](CLI::App& app) {
            add_pytorch_option(app, pytorch);
            app.add_option("--stop-after", o.stop_after, "the last section to run: D.1, D.2, D.3 (no training, seconds) or D.4 (the default: "
                                                          "trains for n_epochs, minutes at the notebook's size)")
                ->check(CLI::IsMember({"D.1", "D.2", "D.3", "D.4"}));
            add_size_option(app, "--context-length", o.cfg.context_length, "GPT_CONFIG_124M's context_length, the loaders' window and stride");
            add_size_option(app, "--emb-dim", o.cfg.emb_dim, "GPT_CONFIG_124M's emb_dim");
            add_size_option(app, "--n-heads", o.cfg.n_heads, "GPT_CONFIG_124M's n_heads (must divide --emb-dim)");
            add_size_option(app, "--n-layers", o.cfg.n_layers, "GPT_CONFIG_124M's n_layers");
            add_size_option(app, "--epochs", o.n_epochs, "n_epochs of sections D.1 and D.4");
            app.callback([&o] {  // after parsing: a usage error (exit 2), as a bad value is
                if (o.cfg.emb_dim % o.cfg.n_heads != 0)
                    throw CLI::ValidationError("--n-heads", fmt::format("{} does not divide --emb-dim {}", o.cfg.n_heads, o.cfg.emb_dim));
            });
        },
        [&](Notebook& nb, Generator& gen) {
            o.pytorch = *parse_pytorch_version(pytorch);
            State s;
            setup(nb, gen, o, s);
            section_d1(nb, gen, o, s);
            if (o.stop_after == "D.1") return;
            section_d2(nb, gen, o, s);
            if (o.stop_after == "D.2") return;
            section_d3(nb, gen, o, s);
            if (o.stop_after == "D.3") return;
            section_d4(nb, gen, o, s);
        });
}
