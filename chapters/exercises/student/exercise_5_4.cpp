// Exercise 5.4: Continued pretraining
//
// The problem: section 5.4 saved the trained model and its AdamW optimizer with
//   torch.save({"model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict()},
//              "model_and_optimizer.pth")
// In a new session, load both from that file and continue pretraining for one more epoch with
// train_model_simple, as if the training had never stopped: the optimizer's moments and step
// counts must come back with the weights, or the first steps would be a fresh AdamW's.
//
// The chapter's code around it (ch05.ipynb, sections 5.2 and 5.4):
//   checkpoint = torch.load("model_and_optimizer.pth", weights_only=True)
//   model = GPTModel(GPT_CONFIG_124M)
//   optimizer = torch.optim.AdamW(model.parameters(), lr=0.0005, weight_decay=0.1)
//   train_losses, val_losses, tokens_seen = train_model_simple(
//       model, train_loader, val_loader, optimizer, device,
//       num_epochs=num_epochs, eval_freq=5, eval_iter=5,
//       start_context="Every effort moves you", tokenizer=tokenizer
//   )
//
// The checkpoint is --checkpoint FILE (default model_and_optimizer.pth in the current folder, as
// the notebook's). GPT_CONFIG_124M's sizes are replaced by the checkpoint's shapes, so a small model
// trained with llmfs-train continues too; the heads (12) and the dropout rate (0.1) are the
// config's, as a state dict records neither.
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"
#include "llmfs/text/data_dir.hpp"
#include "llmfs/train/checkpoint.hpp"
#include "llmfs/train/gpt_train.hpp"

using namespace llmfs;

// --variant 1 (llmfs-exercise grade): the same continuation with the training batches shuffled
// after another seed and evaluated every 3 steps: other losses, from the same loaded state.
struct Variant {
    std::uint64_t seed;
    std::size_t eval_freq;
};
const Variant kVariants[] = {{123, 5}, {456, 3}};  // [0]: the book's case

int main(int argc, char** argv) {
    std::string checkpoint_path = "model_and_optimizer.pth", pytorch = "2";
    return run_exercise(
        argc, argv, "Exercise 5.4: continued pretraining, one more epoch from model_and_optimizer.pth", 1,
        [&](CLI::App& app) {
            app.add_option("--checkpoint", checkpoint_path,
                           "the file section 5.4 saved (default: model_and_optimizer.pth in the current folder; make one with\n"
                           "llmfs-train --save model_and_optimizer.pth --with-optimizer)")
                ->type_name("FILE");
            app.add_option("--pytorch", pytorch, "whose AdamW update to reproduce: 2 (the default; the book's notebooks ran 2.x) or 1.13")
                ->type_name("{2,1.13}")
                ->check(CLI::IsMember({"2", "1.13"}));
        },
        [&](Notebook& nb, Generator& gen, int variant) {
            nb.section("Exercise 5.4: Continued pretraining");
            const Variant v = kVariants[variant];
            if (variant)
                nb.note(fmt::format("--variant {}: torch.manual_seed({}) before the loaders, eval_freq={}", variant, v.seed, v.eval_freq));
            if (std::error_code ec; !std::filesystem::exists(checkpoint_path, ec))
                throw std::runtime_error(fmt::format(
                    "{} does not exist: this exercise continues the training section 5.4 saved. Make one, e.g. a small model in "
                    "seconds: llmfs-train --context-length 16 --emb-dim 24 --n-layers 1 --lr 0.0004 --epochs 1 --save "
                    "model_and_optimizer.pth --with-optimizer (or the chapter's 124M GPT as section 5.2 trains it: llmfs-train --lr 0.0004 "
                    "--eval-iter 5 --save model_and_optimizer.pth --with-optimizer, about 15 CPU minutes), or give --checkpoint FILE",
                    checkpoint_path));
            nb.added_code("import tiktoken\n"
                          "import torch\n"
                          "from previous_chapters import GPTModel\n"
                          "\n"
                          "\n"
                          "GPT_CONFIG_124M = {\n"
                          "    \"vocab_size\": 50257,   # Vocabulary size\n"
                          "    \"context_length\": 256, # Shortened context length (orig: 1024)\n"
                          "    \"emb_dim\": 768,        # Embedding dimension\n"
                          "    \"n_heads\": 12,         # Number of attention heads\n"
                          "    \"n_layers\": 12,        # Number of layers\n"
                          "    \"drop_rate\": 0.1,      # Dropout rate\n"
                          "    \"qkv_bias\": False      # Query-key-value bias\n"
                          "}\n"
                          "\n"
                          "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
                          "\n"
                          "tokenizer = tiktoken.get_encoding(\"gpt2\")\n"
                          "\n"
                          "checkpoint = torch.load(\"model_and_optimizer.pth\", weights_only=True)\n"
                          "model = GPTModel(GPT_CONFIG_124M)\n"
                          "# exercise 5.4: load the model's weights from checkpoint\n"
                          "model.to(device)\n"
                          "\n"
                          "optimizer = torch.optim.AdamW(model.parameters(), lr=0.0004, weight_decay=0.1)\n"
                          "# exercise 5.4: load AdamW's state from checkpoint\n"
                          "model.train();");
            const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
            const TorchStateDict checkpoint = TorchStateDict::open(checkpoint_path);
            GPTConfig gpt_config_124m;  // GPT_CONFIG_124M: 12 heads, drop_rate 0.1, qkv_bias False
            gpt_config_124m.context_length = 256;
            const GPTConfig cfg = checkpoint_config(checkpoint, gpt_config_124m);  // the sizes of the checkpoint's tensors
            nb.note(fmt::format("The model's sizes are the checkpoint's ({}: context_length {}, emb_dim {}, {} layer(s)); the heads\n"
                                "(12) and drop_rate (0.1) are GPT_CONFIG_124M's. The notebook's output below comes from its\n"
                                "124M GPT trained for 10 epochs on a GPU, which a CI run cannot repeat; this program prints\n"
                                "what PyTorch prints on a CPU (OpenBLAS) for the checkpoint given.",
                                checkpoint_path, cfg.context_length, cfg.emb_dim, cfg.n_layers));
            GPTModel model(gen, cfg);  // model = GPTModel(GPT_CONFIG_124M)
            AdamWOptions adamw;
            adamw.lr = 0.0004;
            adamw.weight_decay = 0.1;
            adamw.version = *parse_pytorch_version(pytorch);
            AdamW optimizer(model, adamw);  // torch.optim.AdamW(model.parameters(), lr=0.0004, weight_decay=0.1)
            // TODO(exercise 5.4): load the model's weights and then AdamW's state from the checkpoint into model and optimizer
            exercise_todo("5.4", "load the model's weights and then AdamW's state from the checkpoint into model and optimizer");

            nb.added_code("# exercise 5.4: the-verdict.txt as text_data, its 90/10 split into train_data and val_data, and\n"
                          "# section 5.1.3's train_loader and val_loader (batch_size=2, after torch.manual_seed(123))");
            const std::string text = read_python_text(read_file_checked(data_dir() / "the-verdict.txt"), "the-verdict.txt");
            gen.manual_seed(v.seed);
            const GptTrainData data(tokenizer, text, cfg.context_length, /*batch_size=*/2);

            nb.added_code("# exercise 5.4: section 5.2's train_model_simple for one more epoch (num_epochs is 1)\n"
                          "train_losses, val_losses, tokens_seen = train_model_simple(\n"
                          "    model, train_loader, val_loader, optimizer, device,\n"
                          "    num_epochs=num_epochs, eval_freq=5, eval_iter=5,\n"
                          "    start_context=\"Every effort moves you\", tokenizer=tokenizer\n"
                          ")");
            TrainSettings settings;
            settings.num_epochs = 1;
            settings.eval_freq = v.eval_freq;
            settings.eval_iter = 5;
            TrainProgress progress(data.train_loader.size());
            TrainCallbacks callbacks;
            callbacks.print = [&](const std::string& line) {
                progress.clear();
                nb.print(line);
                std::cout.flush();
            };
            callbacks.on_step = [&](std::size_t epoch, std::size_t step, std::size_t steps, std::size_t tokens) { progress(epoch, step, steps, tokens); };
            train_model_simple(model, data.train_loader, data.val_loader, optimizer, gen, tokenizer, settings, callbacks);
            progress.finish();
        },
        /*training=*/true);
}
