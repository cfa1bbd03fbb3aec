// 5.1 Evaluating generative text models: the untrained 124M GPT (context 256) writes text, its
// loss and perplexity on two examples, then the-verdict.txt split 90/10 into the loaders and their
// mean losses. 5.2 Training an LLM: train_model_simple trains a new 124M GPT on those loaders for 10
// epochs (AdamW, lr 0.0004, weight decay 0.1) and prints its losses and a sample after each epoch.
//
// The book's notebook ran 5.1 on macOS and 5.2 on Apple's MPS device: its numbers differ from a CPU's
// (5.1 in the last digits, 5.2's losses from the first steps on). The goldens are PyTorch's on this
// CPU (data/golden/default/ch05_pretraining*.txt, tests/goldens/ch05_pretraining_reference.py).
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <xtensor/xadapt.hpp>
#include <xtensor/xview.hpp>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/plot.hpp"
#include "llmfs/nn/gpt.hpp"
#include "llmfs/text/data_dir.hpp"
#include "llmfs/torch/loss.hpp"
#include "llmfs/torch/sampling.hpp"
#include "llmfs/torch/vecmath.hpp"
#include "llmfs/train/evaluate.hpp"
#include "llmfs/train/loop.hpp"

using namespace llmfs;

namespace {

// GPT_CONFIG_124M of chapter 5: GPT-2 small with a context shortened to 256.
GPTConfig gpt_config_124m() {
    GPTConfig cfg = GPTConfig::gpt2_small();
    cfg.context_length = 256;  // Shortened context length (orig: 1024)
    return cfg;
}

// "torch.Size([2, 256]) torch.Size([2, 256])" for every batch of one pass
void print_batch_shapes(Notebook& nb, const DataLoader& loader, Generator& gen) {
    auto epoch = loader.begin(gen);
    for (Batch batch; epoch.next(batch);) nb.print(Size{{batch.B, batch.T}}, Size{{batch.B, batch.T}});
}

// input_batch.numel() summed over one pass
std::size_t count_tokens(const DataLoader& loader, Generator& gen) {
    std::size_t tokens = 0;
    auto epoch = loader.begin(gen);
    for (Batch batch; epoch.next(batch);) tokens += batch.inputs.size();
    return tokens;
}

// What 5.1 leaves for 5.2: the tokenizer and the loaders over the-verdict.txt's 90/10 split.
struct Section51 {
    Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
    std::unique_ptr<GPTDataset> train_set, val_set;
    std::unique_ptr<DataLoader> train_loader, val_loader;
};

void section_5_1(Notebook& nb, Generator& gen, Section51& out) {
    nb.section("5.1 Evaluating generative text models");
    nb.section("5.1.1 Using GPT to generate text");
    nb.code("GPT_CONFIG_124M = {\n"
            "    \"vocab_size\": 50257,   # Vocabulary size\n"
            "    \"context_length\": 256, # Shortened context length (orig: 1024)\n"
            "    \"emb_dim\": 768,        # Embedding dimension\n"
            "    \"n_heads\": 12,         # Number of attention heads\n"
            "    \"n_layers\": 12,        # Number of layers\n"
            "    \"drop_rate\": 0.1,      # Dropout rate\n"
            "    \"qkv_bias\": False      # Query-key-value bias\n"
            "}\n"
            "\n"
            "torch.manual_seed(123)\n"
            "model = GPTModel(GPT_CONFIG_124M)\n"
            "model.eval();  # Disable dropout during inference");
    const GPTConfig cfg = gpt_config_124m();
    gen.manual_seed(123);
    GPTModel model(gen, cfg);
    model.train(false);

    nb.code("start_context = \"Every effort moves you\"\n"
            "tokenizer = tiktoken.get_encoding(\"gpt2\")\n"
            "\n"
            "token_ids = generate_text_simple(\n"
            "    model=model,\n"
            "    idx=text_to_token_ids(start_context, tokenizer),\n"
            "    max_new_tokens=10,\n"
            "    context_size=GPT_CONFIG_124M[\"context_length\"]\n"
            ")\n"
            "\n"
            "print(\"Output text:\\n\", token_ids_to_text(token_ids, tokenizer))");
    const Gpt2Tokenizer& tokenizer = out.tokenizer;
    const IdArray<2> generated = generate_text_simple(model, text_to_token_ids("Every effort moves you", tokenizer), 10, cfg.context_length);
    nb.print("Output text:\n", token_ids_to_text(generated, tokenizer));

    nb.section("5.1.2 Calculating the text generation loss: cross-entropy and perplexity");
    nb.code("inputs = torch.tensor([[16833, 3626, 6100],   # [\"every effort moves\",\n"
            "                       [40,    1107, 588]])   #  \"I really like\"]\n"
            "\n"
            "targets = torch.tensor([[3626, 6100, 345  ],  # [\" effort moves you\",\n"
            "                        [1107,  588, 11311]]) #  \" really like chocolate\"]");
    const IdArray<2> inputs = {{16833, 3626, 6100}, {40, 1107, 588}};  // [B=2, T=3]
    const IdArray<2> targets = {{3626, 6100, 345}, {1107, 588, 11311}};
    const std::size_t B = 2, T = 3, V = cfg.vocab_size;

    nb.code("with torch.no_grad():\n"
            "    logits = model(inputs)\n"
            "\n"
            "probas = torch.softmax(logits, dim=-1) # Probability of each token in vocabulary\n"
            "print(probas.shape) # Shape: (batch_size, num_tokens, vocab_size)");
    const Tensor<3> logits(model.forward(inputs).data);  // [B, T, V]; torch.no_grad(): no grad_fn
    const Tensor<3> probas = softmax(logits, -1);          // [B, T, V]
    nb.print(shape_of(probas));

    nb.code("token_ids = torch.argmax(probas, dim=-1, keepdim=True)\n"
            "print(\"Token IDs:\\n\", token_ids)");
    IdArray<3> token_ids = IdArray<3>::from_shape({B, T, 1});  // [B, T, 1]
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t) token_ids(b, t, 0) = argmax(&probas.data(b, t, 0), V);
    nb.print("Token IDs:\n", token_ids);

    nb.code("print(f\"Targets batch 1: {token_ids_to_text(targets[0], tokenizer)}\")\n"
            "print(f\"Outputs batch 1: {token_ids_to_text(token_ids[0].flatten(), tokenizer)}\")");
    const IdArray<1> target_0 = xt::view(targets, 0);
    const IdArray<1> output_0 = xt::flatten(xt::view(token_ids, 0));
    nb.print("Targets batch 1: " + tokenizer.decode(std::vector<std::int64_t>(target_0.begin(), target_0.end())));
    nb.print("Outputs batch 1: " + tokenizer.decode(std::vector<std::int64_t>(output_0.begin(), output_0.end())));

    nb.code("text_idx = 0\n"
            "target_probas_1 = probas[text_idx, [0, 1, 2], targets[text_idx]]\n"
            "print(\"Text 1:\", target_probas_1)\n"
            "\n"
            "text_idx = 1\n"
            "target_probas_2 = probas[text_idx, [0, 1, 2], targets[text_idx]]\n"
            "print(\"Text 2:\", target_probas_2)");
    // probas[text_idx, [0, 1, 2], targets[text_idx]]: [T]
    auto target_probas = [&](std::size_t text_idx) {
        Array<1> picked = Array<1>::from_shape({T});
        for (std::size_t t = 0; t < T; ++t) picked(t) = probas.data(text_idx, t, static_cast<std::size_t>(targets(text_idx, t)));
        return Tensor<1>(picked);
    };
    const Tensor<1> target_probas_1 = target_probas(0), target_probas_2 = target_probas(1);
    nb.note("The book's notebook ran this on macOS, where Accelerate's matrix products print Text 1's first\n"
            "probability as 7.4541e-05; PyTorch on OpenBLAS prints 7.4540e-05, as here.");
    nb.print("Text 1:", target_probas_1);
    nb.print("Text 2:", target_probas_2);

    nb.code("# Compute logarithm of all token probabilities\n"
            "log_probas = torch.log(torch.cat((target_probas_1, target_probas_2)))\n"
            "print(log_probas)");
    const Tensor<1> joined = cat_lastdim<1>({target_probas_1, target_probas_2});  // [2T]
    Array<1> logged = Array<1>::from_shape({2 * T});
    vec_log(joined.data.data(), logged.data(), 2 * T);  // torch.log
    const Tensor<1> log_probas(logged);
    nb.print(log_probas);

    nb.code("# Calculate the average probability for each token\n"
            "avg_log_probas = torch.mean(log_probas)\n"
            "print(avg_log_probas)");
    Array<0> avg;
    avg() = sum(log_probas).data() / static_cast<float>(2 * T);  // mean: the sum, divided by the count
    const Tensor<0> avg_log_probas(avg);
    nb.print(avg_log_probas);

    nb.code("neg_avg_log_probas = avg_log_probas * -1\n"
            "print(neg_avg_log_probas)");
    nb.print(avg_log_probas * -1.0);

    nb.code("# Logits have shape (batch_size, num_tokens, vocab_size)\n"
            "print(\"Logits shape:\", logits.shape)\n"
            "\n"
            "# Targets have shape (batch_size, num_tokens)\n"
            "print(\"Targets shape:\", targets.shape)");
    nb.print("Logits shape:", shape_of(logits));
    nb.print("Targets shape:", Size{{B, T}});

    nb.code("logits_flat = logits.flatten(0, 1)\n"
            "targets_flat = targets.flatten()\n"
            "\n"
            "print(\"Flattened logits:\", logits_flat.shape)\n"
            "print(\"Flattened targets:\", targets_flat.shape)");
    nb.print("Flattened logits:", Size{{B * T, V}});
    nb.print("Flattened targets:", Size{{B * T}});

    nb.code("loss = torch.nn.functional.cross_entropy(logits_flat, targets_flat)\n"
            "print(loss)");
    Array<0> loss_value;
    loss_value() = cross_entropy(logits.data.data(), B * T, V, targets.data());  // [B*T, V] against [B*T]
    const Tensor<0> loss(loss_value);
    nb.print(loss);

    nb.code("perplexity = torch.exp(loss)\n"
            "print(perplexity)");
    nb.print(exp(loss));

    nb.section("5.1.3 Calculating the training and validation set losses");
    nb.code("file_path = \"the-verdict.txt\"\n"
            "...\n"
            "    with open(file_path, \"r\", encoding=\"utf-8\") as file:\n"
            "        text_data = file.read()");
    const std::string text_data = read_file_checked(data_dir() / "the-verdict.txt");

    nb.code("# First 99 characters\n"
            "print(text_data[:99])");
    const TextSplit whole = split_text(text_data, 1.0);  // checks the UTF-8; len(text_data)
    const std::size_t first_99 = byte_offset(text_data, 99), last_99 = byte_offset(text_data, whole.characters - 99);
    nb.print(text_data.substr(0, first_99));  // text_data[:99]

    nb.code("# Last 99 characters\n"
            "print(text_data[-99:])");
    nb.print(text_data.substr(last_99));  // text_data[-99:]

    nb.code("total_characters = len(text_data)\n"
            "total_tokens = len(tokenizer.encode(text_data))\n"
            "\n"
            "print(\"Characters:\", total_characters)\n"
            "print(\"Tokens:\", total_tokens)");
    nb.print("Characters:", whole.characters);
    const std::size_t total_tokens = tokenizer.encode(text_data).size();  // len(tokenizer.encode(text_data))
    nb.print("Tokens:", total_tokens);

    nb.code("# Train/validation ratio\n"
            "train_ratio = 0.90\n"
            "split_idx = int(train_ratio * len(text_data))\n"
            "train_data = text_data[:split_idx]\n"
            "val_data = text_data[split_idx:]\n"
            "\n"
            "\n"
            "torch.manual_seed(123)\n"
            "\n"
            "train_loader = create_dataloader_v1(\n"
            "    train_data,\n"
            "    batch_size=2,\n"
            "    max_length=GPT_CONFIG_124M[\"context_length\"],\n"
            "    stride=GPT_CONFIG_124M[\"context_length\"],\n"
            "    drop_last=True,\n"
            "    shuffle=True,\n"
            "    num_workers=0\n"
            ")\n"
            "\n"
            "val_loader = create_dataloader_v1(\n"
            "    val_data,\n"
            "    batch_size=2,\n"
            "    max_length=GPT_CONFIG_124M[\"context_length\"],\n"
            "    stride=GPT_CONFIG_124M[\"context_length\"],\n"
            "    drop_last=False,\n"
            "    shuffle=False,\n"
            "    num_workers=0\n"
            ")");
    const TextSplit split = split_text(text_data, 0.90);
    gen.manual_seed(123);
    out.train_set = std::make_unique<GPTDataset>(tokenizer, split.train, cfg.context_length, cfg.context_length);
    out.val_set = std::make_unique<GPTDataset>(tokenizer, split.validation, cfg.context_length, cfg.context_length);
    out.train_loader = std::make_unique<DataLoader>(*out.train_set, 2, /*shuffle=*/true, /*drop_last=*/true);
    out.val_loader = std::make_unique<DataLoader>(*out.val_set, 2, /*shuffle=*/false, /*drop_last=*/false);
    const DataLoader& train_loader = *out.train_loader;
    const DataLoader& val_loader = *out.val_loader;

    nb.code("# Sanity check\n"
            "\n"
            "if total_tokens * (train_ratio) < GPT_CONFIG_124M[\"context_length\"]:\n"
            "    print(\"Not enough tokens for the training loader. \"\n"
            "          \"Try to lower the `GPT_CONFIG_124M['context_length']` or \"\n"
            "          \"increase the `training_ratio`\")\n"
            "\n"
            "if total_tokens * (1-train_ratio) < GPT_CONFIG_124M[\"context_length\"]:\n"
            "    print(\"Not enough tokens for the validation loader. \"\n"
            "          \"Try to lower the `GPT_CONFIG_124M['context_length']` or \"\n"
            "          \"decrease the `training_ratio`\")");
    const auto tokens = static_cast<double>(total_tokens), context = static_cast<double>(cfg.context_length);
    if (tokens * 0.90 < context)
        nb.print("Not enough tokens for the training loader. Try to lower the `GPT_CONFIG_124M['context_length']` or increase the "
                 "`training_ratio`");
    if (tokens * (1 - 0.90) < context)
        nb.print("Not enough tokens for the validation loader. Try to lower the `GPT_CONFIG_124M['context_length']` or decrease the "
                 "`training_ratio`");

    nb.code("print(\"Train loader:\")\n"
            "for x, y in train_loader:\n"
            "    print(x.shape, y.shape)\n"
            "\n"
            "print(\"\\nValidation loader:\")\n"
            "for x, y in val_loader:\n"
            "    print(x.shape, y.shape)");
    nb.print("Train loader:");
    print_batch_shapes(nb, train_loader, gen);
    nb.print("\nValidation loader:");
    print_batch_shapes(nb, val_loader, gen);

    nb.code("train_tokens = 0\n"
            "for input_batch, target_batch in train_loader:\n"
            "    train_tokens += input_batch.numel()\n"
            "\n"
            "val_tokens = 0\n"
            "for input_batch, target_batch in val_loader:\n"
            "    val_tokens += input_batch.numel()\n"
            "\n"
            "print(\"Training tokens:\", train_tokens)\n"
            "print(\"Validation tokens:\", val_tokens)\n"
            "print(\"All tokens:\", train_tokens + val_tokens)");
    const std::size_t train_tokens = count_tokens(train_loader, gen), val_tokens = count_tokens(val_loader, gen);
    nb.print("Training tokens:", train_tokens);
    nb.print("Validation tokens:", val_tokens);
    nb.print("All tokens:", train_tokens + val_tokens);

    nb.code("def calc_loss_batch(input_batch, target_batch, model, device):\n"
            "    ...\n"
            "\n"
            "def calc_loss_loader(data_loader, model, device, num_batches=None):\n"
            "    ...");
    nb.code("device = torch.device(\"cpu\")\n"
            "\n"
            "print(f\"Using {device} device.\")\n"
            "\n"
            "model.to(device) # no assignment model = model.to(device) necessary for nn.Module classes\n"
            "\n"
            "torch.manual_seed(123) # For reproducibility due to the shuffling in the data loader\n"
            "\n"
            "with torch.no_grad(): # Disable gradient tracking for efficiency because we are not training, yet\n"
            "    train_loss = calc_loss_loader(train_loader, model, device)\n"
            "    val_loss = calc_loss_loader(val_loader, model, device)\n"
            "\n"
            "print(\"Training loss:\", train_loss)\n"
            "print(\"Validation loss:\", val_loss)");
    nb.note("The notebook picks the GPU (cuda, or mps on a Mac) when there is one: its stored outputs say\n"
            "\"Using mps device.\", and its losses differ from a CPU's in the last digits (10.987583054436577\n"
            "against PyTorch's 10.987583372328016 on OpenBLAS's Haswell kernel, as here).");
    nb.print("Using cpu device.");
    gen.manual_seed(123);
    const double train_loss = calc_loss_loader(train_loader, model, gen);
    const double val_loss = calc_loss_loader(val_loader, model, gen);
    nb.print("Training loss:", train_loss);
    nb.print("Validation loss:", val_loss);
}

// What the program's flags choose beyond the shared ones.
struct Options {
    PyTorchVersion pytorch = PyTorchVersion::v2;  // --pytorch 2|1.13: whose AdamW update
    bool stop_after_5_1 = false;                  // --stop-after 5.1: no training
    std::filesystem::path figure;                 // --figure FILE: the loss plot (default ./loss-plot.pdf, as the notebook)
};

void section_5_2(Notebook& nb, Generator& gen, const Section51& data, const Options& options) {
    nb.section("5.2 Training an LLM");
    nb.code("def train_model_simple(model, train_loader, val_loader, optimizer, device, num_epochs,\n"
            "                       eval_freq, eval_iter, start_context, tokenizer):\n"
            "    ...\n"
            "\n"
            "def evaluate_model(model, train_loader, val_loader, device, eval_iter):\n"
            "    ...\n"
            "\n"
            "def generate_and_print_sample(model, tokenizer, device, start_context):\n"
            "    ...");
    nb.code("torch.manual_seed(123)\n"
            "model = GPTModel(GPT_CONFIG_124M)\n"
            "model.to(device)\n"
            "optimizer = torch.optim.AdamW(model.parameters(), lr=0.0004, weight_decay=0.1)\n"
            "\n"
            "num_epochs = 10\n"
            "train_losses, val_losses, tokens_seen = train_model_simple(\n"
            "    model, train_loader, val_loader, optimizer, device,\n"
            "    num_epochs=num_epochs, eval_freq=5, eval_iter=5,\n"
            "    start_context=\"Every effort moves you\", tokenizer=tokenizer\n"
            ")");
    nb.note(fmt::format("AdamW updates as PyTorch {} computes them (--pytorch 2|1.13). The notebook trained on\n"
                        "Apple's MPS device: its losses differ from a CPU's from the first step on (9.817 against 9.781),\n"
                        "and so do its samples; the lines below are PyTorch's on a CPU with OpenBLAS.",
                        options.pytorch == PyTorchVersion::v2 ? "2.x" : "1.13"));
    gen.manual_seed(123);
    GPTModel model(gen, gpt_config_124m());
    AdamWOptions adamw;
    adamw.lr = 0.0004;
    adamw.weight_decay = 0.1;
    adamw.version = options.pytorch;
    AdamW optimizer(model, adamw);
    TrainSettings settings;
    settings.num_epochs = 10;
    settings.eval_freq = 5;
    settings.eval_iter = 5;
    settings.start_context = "Every effort moves you";
    TrainCallbacks callbacks;
    TrainProgress progress(settings.num_epochs * data.train_loader->size());
    callbacks.print = [&](const std::string& line) {
        progress.clear();
        nb.print(line);
        std::cout.flush();
    };
    callbacks.on_step = [&](std::size_t epoch, std::size_t step, std::size_t steps, std::size_t tokens) { progress(epoch, step, steps, tokens); };
    const TrainHistory history = train_model_simple(model, *data.train_loader, *data.val_loader, optimizer, gen,
                                                    data.tokenizer, settings, callbacks);
    progress.finish();

    nb.code("epochs_tensor = torch.linspace(0, num_epochs, len(train_losses))\n"
            "plot_losses(epochs_tensor, tokens_seen, train_losses, val_losses)   # plt.savefig(\"loss-plot.pdf\")");
    plot_losses(options.figure, settings.num_epochs, history.train_losses, history.val_losses, history.tokens_seen);
    std::cerr << "loss plot written to " << options.figure.string() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    std::string pytorch = "2", stop_after = "5.2";
    return run_training_chapter(
        argc, argv, "5.1 Evaluating generative text models and 5.2 Training an LLM (the 124M GPT on the-verdict.txt)",
        [&](CLI::App& app) {
            add_pytorch_option(app, pytorch);
            app.add_option("--stop-after", stop_after, "the last section to run: 5.1 (no training, seconds) or 5.2 (the default: "
                                                        "trains the 124M GPT for 10 epochs, minutes)")
                ->type_name("{5.1,5.2}")
                ->check(CLI::IsMember({"5.1", "5.2"}));
            app.add_option("--figure", options.figure, "where 5.2's loss plot goes: a .pdf (the default, ./loss-plot.pdf as the notebook's "
                                                       "plt.savefig) or a .png, relative to the current folder");
        },
        [&](Notebook& nb, Generator& gen) {
            options.pytorch = *parse_pytorch_version(pytorch);
            options.stop_after_5_1 = stop_after == "5.1";
            if (options.figure.empty()) options.figure = default_output_path("loss-plot.pdf");
            if (!options.stop_after_5_1) check_writable_path(options.figure.string(), "--figure");
            Section51 data;
            section_5_1(nb, gen, data);
            if (!options.stop_after_5_1) section_5_2(nb, gen, data, options);
        });
}
