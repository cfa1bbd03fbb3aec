// Appendix E, Parameter-efficient fine-tuning with LoRA (appendix-E/01_main-chapter-code/appendix-E.ipynb):
// E.2 the SMS Spam Collection's loaders (--data FILE, as chapter 6), E.3 the GPT with chapter 6's
// two-class head, E.4 LoRA adapters on every Linear (rank 16, alpha 16), the trainable parameters
// counted, print(model), train_classifier_simple over the adapters only (AdamW lr 8e-4, 5 epochs).
//
// The notebook loads OpenAI's GPT-2 124M (--weights FILE: its model.safetensors or the book's
// model.pth; nothing is downloaded) and ran on Apple's MPS device. Without --weights the model is
// the random one GPTModel(BASE_CONFIG) draws at that point of the notebook; --emb-dim, --n-heads
// and --n-layers shrink it (the tests' runs); --stop-after E.2|E.3 ends before the adapters. The
// goldens are PyTorch's on this CPU running the notebook's own cells (tests/goldens/appendix_e_reference.py).
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "llmfs/app/classifier_program.hpp"
#include "llmfs/app/cli.hpp"
#include "llmfs/nn/lora.hpp"
#include "llmfs/nn/module.hpp"
#include "llmfs/train/class_finetune.hpp"
#include "llmfs/train/classification_data.hpp"
#include "llmfs/train/classifier.hpp"
#include "llmfs/train/evaluate.hpp"

using namespace llmfs;

namespace {

struct Options : ClassifierModelOptions {
    std::string stop_after = "E.4";
};

SpamData section_e2(Notebook& nb, Generator& gen, const Options& o, const Gpt2Tokenizer& tokenizer) {
    nb.section("E.2 Preparing the dataset");
    nb.note("The notebook downloads sms_spam_collection.zip; here it is read from --data " + o.data +
            " (the notebook's 'already exists. Skipping download' line is not printed).");
    nb.code("import requests\n"
            "from pathlib import Path\n"
            "import pandas as pd\n"
            "from previous_chapters import (\n"
            "    download_and_unzip_spam_data,\n"
            "    create_balanced_dataset,\n"
            "    random_split\n"
            ")\n"
            "\n"
            "url = \"https://archive.ics.uci.edu/static/public/228/sms+spam+collection.zip\"\n"
            "zip_path = \"sms_spam_collection.zip\"\n"
            "extracted_path = \"sms_spam_collection\"\n"
            "data_file_path = Path(extracted_path) / \"SMSSpamCollection.tsv\"\n"
            "\n"
            "try:\n"
            "    download_and_unzip_spam_data(url, zip_path, extracted_path, data_file_path)\n"
            "except (requests.exceptions.RequestException, TimeoutError) as e:\n"
            "    print(f\"Primary URL failed: {e}. Trying backup URL...\")\n"
            "    url = \"https://f001.backblazeb2.com/file/LLMs-from-scratch/sms%2Bspam%2Bcollection.zip\"\n"
            "    download_and_unzip_spam_data(url, zip_path, extracted_path, data_file_path)\n"
            "\n"
            "df = pd.read_csv(data_file_path, sep=\"\\t\", header=None, names=[\"Label\", \"Text\"])\n"
            "balanced_df = create_balanced_dataset(df)\n"
            "balanced_df[\"Label\"] = balanced_df[\"Label\"].map({\"ham\": 0, \"spam\": 1})\n"
            "\n"
            "train_df, validation_df, test_df = random_split(balanced_df, 0.7, 0.1)\n"
            "train_df.to_csv(\"train.csv\", index=None)\n"
            "validation_df.to_csv(\"validation.csv\", index=None)\n"
            "test_df.to_csv(\"test.csv\", index=None)");
    nb.code("import torch\n"
            "import tiktoken\n"
            "from previous_chapters import SpamDataset\n"
            "\n"
            "tokenizer = tiktoken.get_encoding(\"gpt2\")\n"
            "train_dataset = SpamDataset(\"train.csv\", max_length=None, tokenizer=tokenizer)\n"
            "val_dataset = SpamDataset(\"validation.csv\", max_length=train_dataset.max_length, tokenizer=tokenizer)\n"
            "test_dataset = SpamDataset(\"test.csv\", max_length=train_dataset.max_length, tokenizer=tokenizer)");
    nb.code(kSpamLoadersCell);
    SpamData l = load_spam_data(o.data, tokenizer, gen);  // the three cells above
    print_loader_cells(nb, gen, l);
    return l;
}

std::unique_ptr<GPTModel> section_e3(Notebook& nb, Generator& gen, const Options& o, const Gpt2Tokenizer& tokenizer, const SpamData& l) {
    nb.section("E.3 Initializing the model");
    nb.code("from gpt_download import download_and_load_gpt2\n"
            "from previous_chapters import GPTModel, load_weights_into_gpt\n"
            "\n"
            "CHOOSE_MODEL = \"gpt2-small (124M)\"\n"
            "INPUT_PROMPT = \"Every effort moves\"\n"
            "\n"
            "BASE_CONFIG = {\n"
            "    \"vocab_size\": 50257,     # Vocabulary size\n"
            "    \"context_length\": 1024,  # Context length\n"
            "    \"drop_rate\": 0.0,        # Dropout rate\n"
            "    \"qkv_bias\": True         # Query-key-value bias\n"
            "}\n"
            "\n"
            "model_configs = {\n"
            "    \"gpt2-small (124M)\": {\"emb_dim\": 768, \"n_layers\": 12, \"n_heads\": 12},\n"
            "    \"gpt2-medium (355M)\": {\"emb_dim\": 1024, \"n_layers\": 24, \"n_heads\": 16},\n"
            "    \"gpt2-large (774M)\": {\"emb_dim\": 1280, \"n_layers\": 36, \"n_heads\": 20},\n"
            "    \"gpt2-xl (1558M)\": {\"emb_dim\": 1600, \"n_layers\": 48, \"n_heads\": 25},\n"
            "}\n"
            "\n"
            "BASE_CONFIG.update(model_configs[CHOOSE_MODEL])\n"
            "\n"
            "model_size = CHOOSE_MODEL.split(\" \")[-1].lstrip(\"(\").rstrip(\")\")\n"
            "settings, params = download_and_load_gpt2(model_size=model_size, models_dir=\"gpt2\")\n"
            "\n"
            "model = GPTModel(BASE_CONFIG)\n"
            "load_weights_into_gpt(model, params)\n"
            "model.eval();");
    std::unique_ptr<GPTModel> model = build_classifier_base_model(nb, gen, o, l.train_dataset->max_length());
    nb.code("from previous_chapters import (\n"
            "    generate_text_simple,\n"
            "    text_to_token_ids,\n"
            "    token_ids_to_text\n"
            ")\n"
            "\n"
            "text_1 = \"Every effort moves you\"\n"
            "\n"
            "token_ids = generate_text_simple(\n"
            "    model=model,\n"
            "    idx=text_to_token_ids(text_1, tokenizer),\n"
            "    max_new_tokens=15,\n"
            "    context_size=BASE_CONFIG[\"context_length\"]\n"
            ")\n"
            "\n"
            "print(token_ids_to_text(token_ids, tokenizer))");
    const IdArray<2> token_ids =
        generate_text_simple(*model, text_to_token_ids("Every effort moves you", tokenizer), 15, model->cfg.context_length);
    nb.print(token_ids_to_text(token_ids, tokenizer));
    nb.code("torch.manual_seed(123)\n"
            "\n"
            "num_classes = 2\n"
            "model.out_head = torch.nn.Linear(in_features=768, out_features=num_classes)");
    gen.manual_seed(123);
    replace_out_head(*model, gen, 2);
    nb.code("if torch.cuda.is_available():\n"
            "    device = torch.device(\"cuda\")\n"
            "elif torch.backends.mps.is_available():\n"
            "    major, minor = map(int, torch.__version__.split(\".\")[:2])\n"
            "    if (major, minor) >= (2, 9):\n"
            "        device = torch.device(\"mps\")\n"
            "    else:\n"
            "        device = torch.device(\"cpu\")\n"
            "else:\n"
            "    device = torch.device(\"cpu\")\n"
            "\n"
            "print(\"Device:\", device)\n"
            "\n"
            "model.to(device);  # no assignment model = model.to(device) necessary for nn.Module classes");
    nb.note("The notebook ran on Apple's MPS device (it prints \"Device: mps\"): its accuracies and losses differ from a CPU's.");
    nb.print("Device: cpu");
    nb.code("from previous_chapters import calc_accuracy_loader\n"
            "\n"
            "torch.manual_seed(123)\n"
            "train_accuracy = calc_accuracy_loader(train_loader, model, device, num_batches=10)\n"
            "val_accuracy = calc_accuracy_loader(val_loader, model, device, num_batches=10)\n"
            "test_accuracy = calc_accuracy_loader(test_loader, model, device, num_batches=10)\n"
            "\n"
            "print(f\"Training accuracy: {train_accuracy*100:.2f}%\")\n"
            "print(f\"Validation accuracy: {val_accuracy*100:.2f}%\")\n"
            "print(f\"Test accuracy: {test_accuracy*100:.2f}%\")");
    gen.manual_seed(123);
    print_accuracies(nb, gen, *model, l, 10);
    return model;
}

void section_e4(Notebook& nb, Generator& gen, const Options& o, GPTModel& model, const SpamData& l) {
    nb.section("E.4 Parameter-efficient finetuning with LoRA");
    nb.code("import math\n"
            "\n"
            "class LoRALayer(torch.nn.Module):\n"
            "    def __init__(self, in_dim, out_dim, rank, alpha):\n"
            "        super().__init__()\n"
            "        self.A = torch.nn.Parameter(torch.empty(in_dim, rank))\n"
            "        torch.nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))  # similar to standard weight initialization\n"
            "        self.B = torch.nn.Parameter(torch.zeros(rank, out_dim))\n"
            "        self.alpha = alpha\n"
            "        self.rank = rank\n"
            "\n"
            "    def forward(self, x):\n"
            "        x = (self.alpha / self.rank) * (x @ self.A @ self.B)\n"
            "        return x");
    nb.code("class LinearWithLoRA(torch.nn.Module):\n"
            "    def __init__(self, linear, rank, alpha):\n"
            "        super().__init__()\n"
            "        self.linear = linear\n"
            "        self.lora = LoRALayer(\n"
            "            linear.in_features, linear.out_features, rank, alpha\n"
            "        )\n"
            "\n"
            "    def forward(self, x):\n"
            "        return self.linear(x) + self.lora(x)");
    nb.code("def replace_linear_with_lora(model, rank, alpha):\n"
            "    for name, module in model.named_children():\n"
            "        if isinstance(module, torch.nn.Linear):\n"
            "            setattr(model, name, LinearWithLoRA(module, rank, alpha))\n"
            "        else:\n"
            "            replace_linear_with_lora(module, rank, alpha)");
    nb.code("total_params = sum(p.numel() for p in model.parameters() if p.requires_grad)\n"
            "print(f\"Total trainable parameters before: {total_params:,}\")\n"
            "\n"
            "for param in model.parameters():\n"
            "    param.requires_grad = False\n"
            "\n"
            "total_params = sum(p.numel() for p in model.parameters() if p.requires_grad)\n"
            "print(f\"Total trainable parameters after: {total_params:,}\")");
    nb.print("Total trainable parameters before: " + with_commas(model.num_parameters()));
    nb.print("Total trainable parameters after: 0");
    nb.code("replace_linear_with_lora(model, rank=16, alpha=16)\n"
            "\n"
            "total_params = sum(p.numel() for p in model.parameters() if p.requires_grad)\n"
            "print(f\"Total trainable LoRA parameters: {total_params:,}\")");
    replace_linear_with_lora(model, gen, 16, 16.0);
    nb.print("Total trainable LoRA parameters: " + with_commas(lora_parameter_count(model)));
    nb.code("model.to(device)\n"
            "\n"
            "print(model)");
    ModuleRepr tree = module_repr(model);
    rename_children(tree, "drop_shortcut", "drop_resid");  // appendix E's previous_chapters.py names it so
    nb.print(repr(tree));
    nb.code("torch.manual_seed(123)\n"
            "train_accuracy = calc_accuracy_loader(train_loader, model, device, num_batches=10)\n"
            "val_accuracy = calc_accuracy_loader(val_loader, model, device, num_batches=10)\n"
            "test_accuracy = calc_accuracy_loader(test_loader, model, device, num_batches=10)\n"
            "\n"
            "print(f\"Training accuracy: {train_accuracy*100:.2f}%\")\n"
            "print(f\"Validation accuracy: {val_accuracy*100:.2f}%\")\n"
            "print(f\"Test accuracy: {test_accuracy*100:.2f}%\")");
    gen.manual_seed(123);
    print_accuracies(nb, gen, model, l, 10);
    nb.code("import time\n"
            "from previous_chapters import train_classifier_simple\n"
            "\n"
            "start_time = time.time()\n"
            "\n"
            "torch.manual_seed(123)\n"
            "\n"
            "optimizer = torch.optim.AdamW(model.parameters(), lr=8e-4, weight_decay=0.1)\n"
            "\n"
            "num_epochs = 5\n"
            "train_losses, val_losses, train_accs, val_accs, examples_seen = train_classifier_simple(\n"
            "    model, train_loader, val_loader, optimizer, device,\n"
            "    num_epochs=num_epochs, eval_freq=50, eval_iter=5,\n"
            ")\n"
            "\n"
            "end_time = time.time()\n"
            "execution_time_minutes = (end_time - start_time) / 60\n"
            "print(f\"Training completed in {execution_time_minutes:.2f} minutes.\")");
    const ClassifierHistory history = run_training_cell(nb, gen, o, model, l, 8e-4, /*lora=*/true);
    nb.code("from previous_chapters import plot_values\n"
            "\n"
            "epochs_tensor = torch.linspace(0, num_epochs, len(train_losses))\n"
            "examples_seen_tensor = torch.linspace(0, examples_seen, len(train_losses))\n"
            "\n"
            "plot_values(epochs_tensor, examples_seen_tensor, train_losses, val_losses, label=\"loss\")");
    draw_plot_values(history, "loss");
    nb.code("train_accuracy = calc_accuracy_loader(train_loader, model, device)\n"
            "val_accuracy = calc_accuracy_loader(val_loader, model, device)\n"
            "test_accuracy = calc_accuracy_loader(test_loader, model, device)\n"
            "\n"
            "print(f\"Training accuracy: {train_accuracy*100:.2f}%\")\n"
            "print(f\"Validation accuracy: {val_accuracy*100:.2f}%\")\n"
            "print(f\"Test accuracy: {test_accuracy*100:.2f}%\")");
    print_accuracies(nb, gen, model, l, std::nullopt);
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    return run_training_chapter(
        argc, argv,
        "Appendix E: parameter-efficient fine-tuning with LoRA (chapter 6's spam classifier; the data from --data FILE, "
        "OpenAI's weights from --weights FILE)",
        [&](CLI::App& app) {
            add_classifier_model_options(app, o);
            app.add_option("--stop-after", o.stop_after, "the last section to run: E.2, E.3 (no LoRA, no training) or E.4 (the default)")
                ->check(CLI::IsMember({"E.2", "E.3", "E.4"}));
        },
        [&](Notebook& nb, Generator& gen) {
            const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
            const SpamData loaders = section_e2(nb, gen, o, tokenizer);
            if (o.stop_after == "E.2") return;
            std::unique_ptr<GPTModel> model = section_e3(nb, gen, o, tokenizer, loaders);
            if (o.stop_after == "E.3") return;
            section_e4(nb, gen, o, *model, loaders);
        });
}
