// 6.4 Initializing a model with pretrained weights, 6.5 Adding a classification head, 6.6 the
// classification loss and accuracy, 6.7 Finetuning the model on supervised data, 6.8 Using the
// LLM as a spam classifier: ch06.ipynb's cells from 6.4 on, over the data of 6.2 and 6.3 (--data
// FILE, as ch06_data reads it; its cells are that program's).
//
// The notebook loads OpenAI's GPT-2 124M (--weights FILE: its model.safetensors or the book's
// model.pth; nothing is downloaded) and ran on Apple's MPS device. Without --weights the model is
// the random one GPTModel(BASE_CONFIG) draws at that point of the notebook; --emb-dim, --n-heads
// and --n-layers shrink it (the tests' runs); --stop-after ends after a section (6.6: no training).
// The goldens are PyTorch's on this CPU running the notebook's own cells
// (tests/goldens/ch06_finetune_reference.py).
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <xtensor/xadapt.hpp>

#include "llmfs/app/classifier_program.hpp"
#include "llmfs/app/cli.hpp"
#include "llmfs/app/plot.hpp"
#include "llmfs/nn/gpt_checkpoint.hpp"
#include "llmfs/nn/module.hpp"
#include "llmfs/torch/ops.hpp"
#include "llmfs/torch/sampling.hpp"
#include "llmfs/train/class_finetune.hpp"
#include "llmfs/train/classification_data.hpp"
#include "llmfs/train/classifier.hpp"
#include "llmfs/train/evaluate.hpp"

using namespace llmfs;

namespace {

struct Options : ClassifierModelOptions {
    std::string stop_after = "6.8";
};

// outputs[:, -1, :]: [B, T, K] -> [B, K]
Tensor<2> last_token(const Tensor<3>& outputs) {
    const std::size_t B = outputs.size(0), T = outputs.size(1), K = outputs.size(2);
    Array<2> last = Array<2>::from_shape({B, K});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t k = 0; k < K; ++k) last(b, k) = outputs.data(b, T - 1, k);
    return Tensor<2>(std::move(last));
}

// print(token_ids_to_text(generate_text_simple(model, text_to_token_ids(text), max_new_tokens, context)))
void print_generated(Notebook& nb, const GPTModel& model, const Gpt2Tokenizer& tokenizer, const std::string& text, std::size_t max_new_tokens) {
    const IdArray<2> ids = generate_text_simple(model, text_to_token_ids(text, tokenizer), max_new_tokens, model.cfg.context_length);
    nb.print(token_ids_to_text(ids, tokenizer));
}

std::unique_ptr<GPTModel> section_6_4(Notebook& nb, Generator& gen, const Options& o, const Gpt2Tokenizer& tokenizer, const SpamData& d) {
    nb.section("6.4 Initializing a model with pretrained weights");
    nb.code("CHOOSE_MODEL = \"gpt2-small (124M)\"\n"
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
            "assert train_dataset.max_length <= BASE_CONFIG[\"context_length\"], (\n"
            "    f\"Dataset length {train_dataset.max_length} exceeds model's context \"\n"
            "    f\"length {BASE_CONFIG['context_length']}. Reinitialize data sets with \"\n"
            "    f\"`max_length={BASE_CONFIG['context_length']}`\"\n"
            ")");
    nb.code("from gpt_download import download_and_load_gpt2\n"
            "from previous_chapters import GPTModel, load_weights_into_gpt\n"
            "\n"
            "model_size = CHOOSE_MODEL.split(\" \")[-1].lstrip(\"(\").rstrip(\")\")\n"
            "settings, params = download_and_load_gpt2(model_size=model_size, models_dir=\"gpt2\")\n"
            "\n"
            "model = GPTModel(BASE_CONFIG)\n"
            "load_weights_into_gpt(model, params)\n"
            "model.eval();");
    std::unique_ptr<GPTModel> model = build_classifier_base_model(nb, gen, o, d.train_dataset->max_length());
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
    print_generated(nb, *model, tokenizer, "Every effort moves you", 15);
    nb.code("text_2 = (\n"
            "    \"Is the following text 'spam'? Answer with 'yes' or 'no':\"\n"
            "    \" 'You are a winner you have been specially\"\n"
            "    \" selected to receive $1000 cash or a $2000 award.'\"\n"
            ")\n"
            "\n"
            "token_ids = generate_text_simple(\n"
            "    model=model,\n"
            "    idx=text_to_token_ids(text_2, tokenizer),\n"
            "    max_new_tokens=23,\n"
            "    context_size=BASE_CONFIG[\"context_length\"]\n"
            ")\n"
            "\n"
            "print(token_ids_to_text(token_ids, tokenizer))");
    print_generated(nb, *model, tokenizer,
                    "Is the following text 'spam'? Answer with 'yes' or 'no': 'You are a winner you have been specially selected to "
                    "receive $1000 cash or a $2000 award.'",
                    23);
    return model;
}

// 6.5; returns the outputs of "Do you have time" [1, 4, 2]
Tensor<3> section_6_5(Notebook& nb, Generator& gen, GPTModel& model, const Gpt2Tokenizer& tokenizer) {
    nb.section("6.5 Adding a classification head");
    nb.code("print(model)");
    ModuleRepr tree = module_repr(model);
    rename_children(tree, "drop_shortcut", "drop_resid");  // chapter 6's previous_chapters.py names it so
    nb.print(repr(tree));
    nb.code("for param in model.parameters():\n"
            "    param.requires_grad = False");
    nb.code("torch.manual_seed(123)\n"
            "\n"
            "num_classes = 2\n"
            "model.out_head = torch.nn.Linear(in_features=BASE_CONFIG[\"emb_dim\"], out_features=num_classes)");
    gen.manual_seed(123);
    replace_out_head(model, gen, 2);
    nb.code("for param in model.trf_blocks[-1].parameters():\n"
            "    param.requires_grad = True\n"
            "\n"
            "for param in model.final_norm.parameters():\n"
            "    param.requires_grad = True");
    nb.code("inputs = tokenizer.encode(\"Do you have time\")\n"
            "inputs = torch.tensor(inputs).unsqueeze(0)\n"
            "print(\"Inputs:\", inputs)\n"
            "print(\"Inputs dimensions:\", inputs.shape) # shape: (batch_size, num_tokens)");
    const std::vector<std::int64_t> ids = tokenizer.encode("Do you have time");
    const IdArray<2> inputs = xt::adapt(ids, std::array<std::size_t, 2>{1, ids.size()});  // .unsqueeze(0)
    nb.print("Inputs:", inputs);
    nb.print("Inputs dimensions:", Size{{1, ids.size()}});
    nb.code("with torch.no_grad():\n"
            "    outputs = model(inputs)\n"
            "\n"
            "print(\"Outputs:\\n\", outputs)\n"
            "print(\"Outputs dimensions:\", outputs.shape) # shape: (batch_size, num_tokens, num_classes)");
    const Tensor<3> outputs(model.forward(inputs).data);  // under no_grad: no grad_fn
    nb.print("Outputs:\n", outputs);
    nb.print("Outputs dimensions:", shape_of(outputs));
    nb.code("print(\"Last output token:\", outputs[:, -1, :])");
    nb.print("Last output token:", last_token(outputs));
    return outputs;
}

void section_6_6(Notebook& nb, Generator& gen, GPTModel& model, const SpamData& d, const Tensor<3>& outputs) {
    nb.section("6.6 Calculating the classification loss and accuracy");
    nb.code("print(\"Last output token:\", outputs[:, -1, :])");
    const Tensor<2> last = last_token(outputs);
    nb.print("Last output token:", last);
    nb.code("probas = torch.softmax(outputs[:, -1, :], dim=-1)\n"
            "label = torch.argmax(probas)\n"
            "print(\"Class label:\", label.item())");
    std::vector<float> probas(last.data.size());
    softmax_row(last.data.data(), probas.data(), probas.size());  // torch.softmax(outputs[:, -1, :], dim=-1)
    nb.print("Class label:", static_cast<std::size_t>(argmax(probas.data(), probas.size())));  // label.item()
    nb.code("logits = outputs[:, -1, :]\n"
            "label = torch.argmax(logits)\n"
            "print(\"Class label:\", label.item())");
    nb.print("Class label:", static_cast<std::size_t>(argmax(last.data.data(), last.data.size())));
    nb.code("def calc_accuracy_loader(data_loader, model, device, num_batches=None):\n"
            "    model.eval()\n"
            "    correct_predictions, num_examples = 0, 0\n"
            "\n"
            "    if num_batches is None:\n"
            "        num_batches = len(data_loader)\n"
            "    else:\n"
            "        num_batches = min(num_batches, len(data_loader))\n"
            "    for i, (input_batch, target_batch) in enumerate(data_loader):\n"
            "        if i < num_batches:\n"
            "            input_batch, target_batch = input_batch.to(device), target_batch.to(device)\n"
            "\n"
            "            with torch.no_grad():\n"
            "                logits = model(input_batch)[:, -1, :]  # Logits of last output token\n"
            "            predicted_labels = torch.argmax(logits, dim=-1)\n"
            "\n"
            "            num_examples += predicted_labels.shape[0]\n"
            "            correct_predictions += (predicted_labels == target_batch).sum().item()\n"
            "        else:\n"
            "            break\n"
            "    return correct_predictions / num_examples");
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
            "model.to(device) # no assignment model = model.to(device) necessary for nn.Module classes\n"
            "\n"
            "torch.manual_seed(123) # For reproducibility due to the shuffling in the training data loader\n"
            "\n"
            "train_accuracy = calc_accuracy_loader(train_loader, model, device, num_batches=10)\n"
            "val_accuracy = calc_accuracy_loader(val_loader, model, device, num_batches=10)\n"
            "test_accuracy = calc_accuracy_loader(test_loader, model, device, num_batches=10)\n"
            "\n"
            "print(f\"Training accuracy: {train_accuracy*100:.2f}%\")\n"
            "print(f\"Validation accuracy: {val_accuracy*100:.2f}%\")\n"
            "print(f\"Test accuracy: {test_accuracy*100:.2f}%\")");
    nb.note("The notebook ran on Apple's MPS device (it prints \"Device: mps\"): its accuracies and losses differ from a CPU's.");
    nb.print("Device: cpu");
    gen.manual_seed(123);
    print_accuracies(nb, gen, model, d, 10);
    nb.code("def calc_loss_batch(input_batch, target_batch, model, device):\n"
            "    input_batch, target_batch = input_batch.to(device), target_batch.to(device)\n"
            "    logits = model(input_batch)[:, -1, :]  # Logits of last output token\n"
            "    loss = torch.nn.functional.cross_entropy(logits, target_batch)\n"
            "    return loss");
    nb.code("def calc_loss_loader(data_loader, model, device, num_batches=None):\n"
            "    total_loss = 0.\n"
            "    if len(data_loader) == 0:\n"
            "        return float(\"nan\")\n"
            "    elif num_batches is None:\n"
            "        num_batches = len(data_loader)\n"
            "    else:\n"
            "        num_batches = min(num_batches, len(data_loader))\n"
            "    for i, (input_batch, target_batch) in enumerate(data_loader):\n"
            "        if i < num_batches:\n"
            "            loss = calc_loss_batch(input_batch, target_batch, model, device)\n"
            "            total_loss += loss.item()\n"
            "        else:\n"
            "            break\n"
            "    return total_loss / num_batches");
    nb.code("with torch.no_grad(): # Disable gradient tracking for efficiency because we are not training, yet\n"
            "    train_loss = calc_loss_loader(train_loader, model, device, num_batches=5)\n"
            "    val_loss = calc_loss_loader(val_loader, model, device, num_batches=5)\n"
            "    test_loss = calc_loss_loader(test_loader, model, device, num_batches=5)\n"
            "\n"
            "print(f\"Training loss: {train_loss:.3f}\")\n"
            "print(f\"Validation loss: {val_loss:.3f}\")\n"
            "print(f\"Test loss: {test_loss:.3f}\")");
    const double train_loss = calc_loss_loader(*d.train_loader, model, gen, 5);
    const double val_loss = calc_loss_loader(*d.val_loader, model, gen, 5);
    const double test_loss = calc_loss_loader(*d.test_loader, model, gen, 5);
    nb.print(fmt::format("Training loss: {:.3f}", train_loss));
    nb.print(fmt::format("Validation loss: {:.3f}", val_loss));
    nb.print(fmt::format("Test loss: {:.3f}", test_loss));
}

void section_6_7(Notebook& nb, Generator& gen, const Options& o, GPTModel& model, const SpamData& d) {
    nb.section("6.7 Finetuning the model on supervised data");
    nb.code("def train_classifier_simple(model, train_loader, val_loader, optimizer, device, num_epochs,\n"
            "                            eval_freq, eval_iter):\n"
            "    train_losses, val_losses, train_accs, val_accs = [], [], [], []\n"
            "    examples_seen, global_step = 0, -1\n"
            "\n"
            "    for epoch in range(num_epochs):\n"
            "        model.train()  # Set model to training mode\n"
            "\n"
            "        for input_batch, target_batch in train_loader:\n"
            "            optimizer.zero_grad() # Reset loss gradients from previous batch iteration\n"
            "            loss = calc_loss_batch(input_batch, target_batch, model, device)\n"
            "            loss.backward() # Calculate loss gradients\n"
            "            optimizer.step() # Update model weights using loss gradients\n"
            "            examples_seen += input_batch.shape[0] # New: track examples instead of tokens\n"
            "            global_step += 1\n"
            "\n"
            "            if global_step % eval_freq == 0:\n"
            "                train_loss, val_loss = evaluate_model(\n"
            "                    model, train_loader, val_loader, device, eval_iter)\n"
            "                train_losses.append(train_loss)\n"
            "                val_losses.append(val_loss)\n"
            "                print(f\"Ep {epoch+1} (Step {global_step:06d}): \"\n"
            "                      f\"Train loss {train_loss:.3f}, Val loss {val_loss:.3f}\")\n"
            "\n"
            "        train_accuracy = calc_accuracy_loader(train_loader, model, device, num_batches=eval_iter)\n"
            "        val_accuracy = calc_accuracy_loader(val_loader, model, device, num_batches=eval_iter)\n"
            "        print(f\"Training accuracy: {train_accuracy*100:.2f}% | \", end=\"\")\n"
            "        print(f\"Validation accuracy: {val_accuracy*100:.2f}%\")\n"
            "        train_accs.append(train_accuracy)\n"
            "        val_accs.append(val_accuracy)\n"
            "\n"
            "    return train_losses, val_losses, train_accs, val_accs, examples_seen");
    nb.code("def evaluate_model(model, train_loader, val_loader, device, eval_iter):\n"
            "    model.eval()\n"
            "    with torch.no_grad():\n"
            "        train_loss = calc_loss_loader(train_loader, model, device, num_batches=eval_iter)\n"
            "        val_loss = calc_loss_loader(val_loader, model, device, num_batches=eval_iter)\n"
            "    model.train()\n"
            "    return train_loss, val_loss");
    nb.code("import time\n"
            "\n"
            "start_time = time.time()\n"
            "\n"
            "torch.manual_seed(123)\n"
            "\n"
            "optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.1)\n"
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
    // the frozen blocks' output kept per message for the training and the accuracies after it
    // (frozen_trunk.hpp: the same bits, under the BLAS kernels that allow it)
    FrozenTrunk trunk = frozen_trunk(model, TrainableLayers::last_block);
    const ClassifierHistory history = run_training_cell(nb, gen, o, model, d, 5e-5, /*lora=*/false, &trunk);
    nb.code("import matplotlib.pyplot as plt\n"
            "\n"
            "def plot_values(epochs_seen, examples_seen, train_values, val_values, label=\"loss\"):\n"
            "    fig, ax1 = plt.subplots(figsize=(5, 3))\n"
            "\n"
            "    ax1.plot(epochs_seen, train_values, label=f\"Training {label}\")\n"
            "    ax1.plot(epochs_seen, val_values, linestyle=\"-.\", label=f\"Validation {label}\")\n"
            "    ax1.set_xlabel(\"Epochs\")\n"
            "    ax1.set_ylabel(label.capitalize())\n"
            "    ax1.legend()\n"
            "\n"
            "    ax2 = ax1.twiny()  # Create a second x-axis that shares the same y-axis\n"
            "    ax2.plot(examples_seen, train_values, alpha=0)  # Invisible plot for aligning ticks\n"
            "    ax2.set_xlabel(\"Examples seen\")\n"
            "\n"
            "    fig.tight_layout()  # Adjust layout to make room\n"
            "    plt.savefig(f\"{label}-plot.pdf\")\n"
            "    plt.show()");
    nb.code("epochs_tensor = torch.linspace(0, num_epochs, len(train_losses))\n"
            "examples_seen_tensor = torch.linspace(0, examples_seen, len(train_losses))\n"
            "\n"
            "plot_values(epochs_tensor, examples_seen_tensor, train_losses, val_losses)");
    draw_plot_values(history, "loss");
    nb.code("epochs_tensor = torch.linspace(0, num_epochs, len(train_accs))\n"
            "examples_seen_tensor = torch.linspace(0, examples_seen, len(train_accs))\n"
            "\n"
            "plot_values(epochs_tensor, examples_seen_tensor, train_accs, val_accs, label=\"accuracy\")");
    draw_plot_values(history, "accuracy");
    nb.code("train_accuracy = calc_accuracy_loader(train_loader, model, device)\n"
            "val_accuracy = calc_accuracy_loader(val_loader, model, device)\n"
            "test_accuracy = calc_accuracy_loader(test_loader, model, device)\n"
            "\n"
            "print(f\"Training accuracy: {train_accuracy*100:.2f}%\")\n"
            "print(f\"Validation accuracy: {val_accuracy*100:.2f}%\")\n"
            "print(f\"Test accuracy: {test_accuracy*100:.2f}%\")");
    print_accuracies(nb, gen, model, d, std::nullopt, &trunk);
}

void section_6_8(Notebook& nb, GPTModel& model, const Gpt2Tokenizer& tokenizer, const SpamData& d) {
    nb.section("6.8 Using the LLM as a spam classifier");
    nb.code("def classify_review(text, model, tokenizer, device, max_length=None, pad_token_id=50256):\n"
            "    model.eval()\n"
            "\n"
            "    input_ids = tokenizer.encode(text)\n"
            "    supported_context_length = model.pos_emb.weight.shape[0]\n"
            "\n"
            "    input_ids = input_ids[:min(max_length, supported_context_length)]\n"
            "    assert max_length is not None, (\n"
            "        \"max_length must be specified. If you want to use the full model context, \"\n"
            "        \"pass max_length=model.pos_emb.weight.shape[0].\"\n"
            "    )\n"
            "    assert max_length <= supported_context_length, (\n"
            "        f\"max_length ({max_length}) exceeds model's supported context length ({supported_context_length}).\"\n"
            "    )\n"
            "\n"
            "    input_ids += [pad_token_id] * (max_length - len(input_ids))\n"
            "    input_tensor = torch.tensor(input_ids, device=device).unsqueeze(0) # add batch dimension\n"
            "\n"
            "    with torch.no_grad():\n"
            "        logits = model(input_tensor)[:, -1, :]  # Logits of the last output token\n"
            "    predicted_label = torch.argmax(logits, dim=-1).item()\n"
            "\n"
            "    return \"spam\" if predicted_label == 1 else \"not spam\"");
    nb.code("text_1 = (\n"
            "    \"You are a winner you have been specially\"\n"
            "    \" selected to receive $1000 cash or a $2000 award.\"\n"
            ")\n"
            "\n"
            "print(classify_review(\n"
            "    text_1, model, tokenizer, device, max_length=train_dataset.max_length\n"
            "))");
    nb.print(classify_review("You are a winner you have been specially selected to receive $1000 cash or a $2000 award.", model, tokenizer,
                             d.train_dataset->max_length()));
    nb.code("text_2 = (\n"
            "    \"Hey, just wanted to check if we're still on\"\n"
            "    \" for dinner tonight? Let me know!\"\n"
            ")\n"
            "\n"
            "print(classify_review(\n"
            "    text_2, model, tokenizer, device, max_length=train_dataset.max_length\n"
            "))");
    nb.print(classify_review("Hey, just wanted to check if we're still on for dinner tonight? Let me know!", model, tokenizer,
                             d.train_dataset->max_length()));
    nb.code("torch.save(model.state_dict(), \"review_classifier.pth\")");
    // In the current folder, as the notebook's (LLMFS_FIGURE_DIR moves it: llmfs-nbcheck's runs).
    // Chapter 6's previous_chapters.py names each block's dropout drop_resid, which the state
    // dict's _metadata records.
    const std::filesystem::path saved = default_output_path("review_classifier.pth");
    save_state_dict(saved, model, "drop_resid");
    std::cerr << "the fine-tuned model written to " << saved.string() << std::endl;
    nb.code("model_state_dict = torch.load(\"review_classifier.pth\", map_location=device, weights_only=True)\n"
            "model.load_state_dict(model_state_dict)");
    load_state_dict(model, TorchStateDict::open(saved));  // strict: throws naming what does not fit
    nb.print("<All keys matched successfully>");          // the value Jupyter shows: the _IncompatibleKeys' repr
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    return run_training_chapter(
        argc, argv,
        "6.4 to 6.8: GPT-2 with a two-class head, fine-tuned to classify spam (the data from --data FILE, OpenAI's weights from "
        "--weights FILE)",
        [&](CLI::App& app) {
            add_classifier_model_options(app, o);
            app.add_option("--stop-after", o.stop_after, "the last section to run: 6.4, 6.5, 6.6 (no training), 6.7 or 6.8 (the default)")
                ->check(CLI::IsMember({"6.4", "6.5", "6.6", "6.7", "6.8"}));
        },
        [&](Notebook& nb, Generator& gen) {
            nb.note("Sections 6.2 and 6.3 (the data and its loaders) run as ch06_data prints them, from --data " + o.data + ".");
            const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
            const SpamData d = load_spam_data(o.data, tokenizer, gen);
            ClassificationBatch batch;
            for (auto epoch = d.train_loader->begin(gen); epoch.next(batch);) {  // 6.3's "for input_batch, target_batch in train_loader: pass"
            }
            std::unique_ptr<GPTModel> model = section_6_4(nb, gen, o, tokenizer, d);
            if (o.stop_after == "6.4") return;
            const Tensor<3> outputs = section_6_5(nb, gen, *model, tokenizer);
            if (o.stop_after == "6.5") return;
            section_6_6(nb, gen, *model, d, outputs);
            if (o.stop_after == "6.6") return;
            section_6_7(nb, gen, o, *model, d);
            if (o.stop_after == "6.7") return;
            section_6_8(nb, *model, tokenizer, d);
        });
}
