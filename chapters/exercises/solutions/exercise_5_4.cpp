// Exercise 5.4: Continued pretraining
//
// The problem: section 5.4 saved the trained model and its AdamW optimizer with
//   torch.save({"model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict()},
//              "model_and_optimizer.pth")
// In a new session, load both from that file and continue pretraining for one more epoch with
// train_model_simple, as if the training had never stopped: the optimizer's moments and step
// counts must come back with the weights, or the first steps would be a fresh AdamW's.
//
// BEGIN BOOK SOLUTION: the book's solution in PyTorch (the solutions build only; the student copy shows the chapter's code)
// The notebook code (the book's solution, exercise-solutions.ipynb of chapter 5):
//   tokenizer = tiktoken.get_encoding("gpt2")
//   checkpoint = torch.load("model_and_optimizer.pth", weights_only=True)
//   model = GPTModel(GPT_CONFIG_124M)
//   model.load_state_dict(checkpoint["model_state_dict"])
//   model.to(device)
//   optimizer = torch.optim.AdamW(model.parameters(), lr=0.0004, weight_decay=0.1)
//   optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
//   model.train();
//   ... (the-verdict.txt, the 90/10 split)
//   torch.manual_seed(123)
//   train_loader = create_dataloader_v1(train_data, batch_size=2, max_length=GPT_CONFIG_124M["context_length"],
//       stride=GPT_CONFIG_124M["context_length"], drop_last=True, shuffle=True, num_workers=0)
//   val_loader = create_dataloader_v1(val_data, ..., drop_last=False, shuffle=False, num_workers=0)
//   train_losses, val_losses, tokens_seen = train_model_simple(model, train_loader, val_loader, optimizer, device,
//       num_epochs=1, eval_freq=5, eval_iter=5, start_context="Every effort moves you", tokenizer=tokenizer)
// STUDENT COPY: // The chapter's code around it (ch05.ipynb, sections 5.2 and 5.4):
// STUDENT COPY: //   checkpoint = torch.load("model_and_optimizer.pth", weights_only=True)
// STUDENT COPY: //   model = GPTModel(GPT_CONFIG_124M)
// STUDENT COPY: //   optimizer = torch.optim.AdamW(model.parameters(), lr=0.0005, weight_decay=0.1)
// STUDENT COPY: //   train_losses, val_losses, tokens_seen = train_model_simple(
// STUDENT COPY: //       model, train_loader, val_loader, optimizer, device,
// STUDENT COPY: //       num_epochs=num_epochs, eval_freq=5, eval_iter=5,
// STUDENT COPY: //       start_context="Every effort moves you", tokenizer=tokenizer
// STUDENT COPY: //   )
// END BOOK SOLUTION
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
            // BEGIN BOOK SOLUTION: the notebook's cell holds the answer (the student copy's shows where it goes)
            nb.code("import tiktoken\n"
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
                    "model.load_state_dict(checkpoint[\"model_state_dict\"])\n"
                    "model.to(device)\n"
                    "\n"
                    "optimizer = torch.optim.AdamW(model.parameters(), lr=0.0004, weight_decay=0.1)\n"
                    "optimizer.load_state_dict(checkpoint[\"optimizer_state_dict\"])\n"
                    "model.train();");
            // STUDENT COPY: nb.added_code("import tiktoken\n"
            // STUDENT COPY:               "import torch\n"
            // STUDENT COPY:               "from previous_chapters import GPTModel\n"
            // STUDENT COPY:               "\n"
            // STUDENT COPY:               "\n"
            // STUDENT COPY:               "GPT_CONFIG_124M = {\n"
            // STUDENT COPY:               "    \"vocab_size\": 50257,   # Vocabulary size\n"
            // STUDENT COPY:               "    \"context_length\": 256, # Shortened context length (orig: 1024)\n"
            // STUDENT COPY:               "    \"emb_dim\": 768,        # Embedding dimension\n"
            // STUDENT COPY:               "    \"n_heads\": 12,         # Number of attention heads\n"
            // STUDENT COPY:               "    \"n_layers\": 12,        # Number of layers\n"
            // STUDENT COPY:               "    \"drop_rate\": 0.1,      # Dropout rate\n"
            // STUDENT COPY:               "    \"qkv_bias\": False      # Query-key-value bias\n"
            // STUDENT COPY:               "}\n"
            // STUDENT COPY:               "\n"
            // STUDENT COPY:               "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
            // STUDENT COPY:               "\n"
            // STUDENT COPY:               "tokenizer = tiktoken.get_encoding(\"gpt2\")\n"
            // STUDENT COPY:               "\n"
            // STUDENT COPY:               "checkpoint = torch.load(\"model_and_optimizer.pth\", weights_only=True)\n"
            // STUDENT COPY:               "model = GPTModel(GPT_CONFIG_124M)\n"
            // STUDENT COPY:               "# exercise 5.4: load the model's weights from checkpoint\n"
            // STUDENT COPY:               "model.to(device)\n"
            // STUDENT COPY:               "\n"
            // STUDENT COPY:               "optimizer = torch.optim.AdamW(model.parameters(), lr=0.0004, weight_decay=0.1)\n"
            // STUDENT COPY:               "# exercise 5.4: load AdamW's state from checkpoint\n"
            // STUDENT COPY:               "model.train();");
            // END BOOK SOLUTION
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
            // BEGIN SOLUTION(exercise 5.4): load the model's weights and then AdamW's state from the checkpoint into model and optimizer
            load_state_dict(model, checkpoint);                  // model.load_state_dict(checkpoint["model_state_dict"])
            load_adamw_state_dict(checkpoint, model, optimizer);  // optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
            // END SOLUTION

            // BEGIN BOOK SOLUTION: the notebook's data cell (the student copy says what it sets up)
            nb.code("import os\n"
                    "import requests\n"
                    "from previous_chapters import create_dataloader_v1\n"
                    "\n"
                    "\n"
                    "file_path = \"the-verdict.txt\"\n"
                    "url = \"https://raw.githubusercontent.com/rasbt/LLMs-from-scratch/main/ch02/01_main-chapter-code/the-verdict.txt\"\n"
                    "\n"
                    "if not os.path.exists(file_path):\n"
                    "    response = requests.get(url, timeout=30)\n"
                    "    response.raise_for_status()\n"
                    "    text_data = response.text\n"
                    "    with open(file_path, \"w\", encoding=\"utf-8\") as file:\n"
                    "        file.write(text_data)\n"
                    "else:\n"
                    "    with open(file_path, \"r\", encoding=\"utf-8\") as file:\n"
                    "        text_data = file.read()\n"
                    "\n"
                    "# The book originally used the following code below\n"
                    "# However, urllib uses older protocol settings that\n"
                    "# can cause problems for some readers using a VPN.\n"
                    "# The `requests` version above is more robust\n"
                    "# in that regard.\n"
                    "\n"
                    "\"\"\"\n"
                    "import urllib.request\n"
                    "\n"
                    "if not os.path.exists(file_path):\n"
                    "    with urllib.request.urlopen(url) as response:\n"
                    "        text_data = response.read().decode('utf-8')\n"
                    "    with open(file_path, \"w\", encoding=\"utf-8\") as file:\n"
                    "        file.write(text_data)\n"
                    "else:\n"
                    "    with open(file_path, \"r\", encoding=\"utf-8\") as file:\n"
                    "        text_data = file.read()\n"
                    "\"\"\"\n"
                    "\n"
                    "\n"
                    "# Train/validation ratio\n"
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
            // STUDENT COPY: nb.added_code("# exercise 5.4: the-verdict.txt as text_data, its 90/10 split into train_data and val_data, and\n"
            // STUDENT COPY:               "# section 5.1.3's train_loader and val_loader (batch_size=2, after torch.manual_seed(123))");
            // END BOOK SOLUTION
            const std::string text = read_python_text(read_file_checked(data_dir() / "the-verdict.txt"), "the-verdict.txt");
            gen.manual_seed(v.seed);
            const GptTrainData data(tokenizer, text, cfg.context_length, /*batch_size=*/2);

            // BEGIN BOOK SOLUTION: the notebook's training cell (the student copy says what it runs)
            nb.code("from gpt_train import train_model_simple\n"
                    "\n"
                    "num_epochs = 1\n"
                    "train_losses, val_losses, tokens_seen = train_model_simple(\n"
                    "    model, train_loader, val_loader, optimizer, device,\n"
                    "    num_epochs=num_epochs, eval_freq=5, eval_iter=5,\n"
                    "    start_context=\"Every effort moves you\", tokenizer=tokenizer\n"
                    ")");
            // STUDENT COPY: nb.added_code("# exercise 5.4: section 5.2's train_model_simple for one more epoch (num_epochs is 1)\n"
            // STUDENT COPY:               "train_losses, val_losses, tokens_seen = train_model_simple(\n"
            // STUDENT COPY:               "    model, train_loader, val_loader, optimizer, device,\n"
            // STUDENT COPY:               "    num_epochs=num_epochs, eval_freq=5, eval_iter=5,\n"
            // STUDENT COPY:               "    start_context=\"Every effort moves you\", tokenizer=tokenizer\n"
            // STUDENT COPY:               ")");
            // END BOOK SOLUTION
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
