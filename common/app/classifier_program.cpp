#include "llmfs/app/classifier_program.hpp"

#include <filesystem>
#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/plot.hpp"
#include "llmfs/text/data_dir.hpp"
#include "llmfs/train/class_finetune.hpp"
#include "llmfs/train/classifier.hpp"

namespace llmfs {

const char* const kSpamLoadersCell = "from torch.utils.data import DataLoader\n"
                                      "\n"
                                      "num_workers = 0\n"
                                      "batch_size = 8\n"
                                      "\n"
                                      "torch.manual_seed(123)\n"
                                      "\n"
                                      "train_loader = DataLoader(\n"
                                      "    dataset=train_dataset,\n"
                                      "    batch_size=batch_size,\n"
                                      "    shuffle=True,\n"
                                      "    num_workers=num_workers,\n"
                                      "    drop_last=True,\n"
                                      ")\n"
                                      "\n"
                                      "val_loader = DataLoader(\n"
                                      "    dataset=val_dataset,\n"
                                      "    batch_size=batch_size,\n"
                                      "    num_workers=num_workers,\n"
                                      "    drop_last=False,\n"
                                      ")\n"
                                      "\n"
                                      "test_loader = DataLoader(\n"
                                      "    dataset=test_dataset,\n"
                                      "    batch_size=batch_size,\n"
                                      "    num_workers=num_workers,\n"
                                      "    drop_last=False,\n"
                                      ")";

GPTConfig ClassifierModelOptions::base_config_124m() {
    GPTConfig c = GPTConfig::gpt2_small();
    c.context_length = 1024;
    c.drop_rate = 0.0;
    c.qkv_bias = true;
    return c;
}

void add_classifier_model_options(CLI::App& app, ClassifierModelOptions& o) {
    app.add_option("--data", o.data, "the SMS Spam Collection: sms_spam_collection.zip as the notebook downloads it, or its TSV")
        ->type_name("FILE")
        ->required();
    auto* weights = app.add_option("--weights", o.weights,
                                   "GPT-2 124M's weights: Hugging Face's model.safetensors, the book's model.pth or the gpt2/124M "
                                   "folder gpt_download.py writes (without it: GPTModel's random weights)")
                        ->type_name("FILE");
    app.add_option_function<std::size_t>(
           "--heads", [&o](std::size_t n) { o.heads = n; }, "the weights' attention heads, when their shapes cannot tell")
        ->check(CLI::Range(1, 4096));
    std::size_t* dims[3] = {&o.cfg.emb_dim, &o.cfg.n_heads, &o.cfg.n_layers};
    const char* names[3] = {"--emb-dim", "--n-heads", "--n-layers"};
    const char* helps[3] = {"the random model's emb_dim (BASE_CONFIG's 768)", "the random model's n_heads (must divide --emb-dim)",
                            "the random model's n_layers"};
    for (int i = 0; i < 3; ++i) add_size_option(app, names[i], *dims[i], helps[i])->excludes(weights);
    app.callback([&o] {  // after parsing: a usage error (exit 2), as a bad value is
        if (o.cfg.emb_dim % o.cfg.n_heads != 0)
            throw CLI::ValidationError("--n-heads", fmt::format("{} does not divide --emb-dim {}", o.cfg.n_heads, o.cfg.emb_dim));
    });
    add_pytorch_option(app, o.pytorch);
}

std::unique_ptr<GPTModel> build_classifier_base_model(Notebook& nb, Generator& gen, const ClassifierModelOptions& o,
                                                      std::size_t max_length) {
    std::unique_ptr<GPTModel> model;
    if (!o.weights.empty()) {
        nb.note("OpenAI's weights from --weights " + o.weights + " (the notebook's 'File already exists' lines are not printed).");
        model = load_pretrained_gpt(gen, o.weights, o.heads);
    } else {
        nb.note(fmt::format("No --weights: GPTModel's random weights, drawn where the notebook builds the model (emb_dim {}, "
                            "n_heads {}, n_layers {}); OpenAI's are read from --weights FILE.",
                            o.cfg.emb_dim, o.cfg.n_heads, o.cfg.n_layers));
        model = std::make_unique<GPTModel>(gen, o.cfg);
    }
    model->train(false);  // model.eval()
    const std::size_t context = model->cfg.context_length;
    if (max_length > context)
        throw std::runtime_error(fmt::format("Dataset length {} exceeds model's context length {}. Reinitialize data sets with "
                                             "`max_length={}`", max_length, context, context));
    return model;
}

void print_loader_cells(Notebook& nb, Generator& gen, const SpamData& d) {
    nb.code("print(\"Train loader:\")\n"
            "for input_batch, target_batch in train_loader:\n"
            "    pass\n"
            "\n"
            "print(\"Input batch dimensions:\", input_batch.shape)\n"
            "print(\"Label batch dimensions\", target_batch.shape)");
    nb.print("Train loader:");
    ClassificationBatch batch;
    for (auto epoch = d.train_loader->begin(gen); epoch.next(batch);) {
    }
    nb.print(fmt::format("Input batch dimensions: torch.Size([{}, {}])", batch.B, batch.T));
    nb.print(fmt::format("Label batch dimensions torch.Size([{}])", batch.B));
    nb.code("print(f\"{len(train_loader)} training batches\")\n"
            "print(f\"{len(val_loader)} validation batches\")\n"
            "print(f\"{len(test_loader)} test batches\")");
    nb.print(fmt::format("{} training batches", d.train_loader->size()));
    nb.print(fmt::format("{} validation batches", d.val_loader->size()));
    nb.print(fmt::format("{} test batches", d.test_loader->size()));
}

void print_accuracies(Notebook& nb, Generator& gen, GPTModel& model, const SpamData& d, std::optional<std::size_t> num_batches,
                      FrozenTrunk* trunk) {
    const double train = calc_accuracy_loader(*d.train_loader, model, gen, num_batches, {}, trunk);
    const double val = calc_accuracy_loader(*d.val_loader, model, gen, num_batches, {}, trunk);
    const double test = calc_accuracy_loader(*d.test_loader, model, gen, num_batches, {}, trunk);
    nb.print(fmt::format("Training accuracy: {:.2f}%", train * 100));
    nb.print(fmt::format("Validation accuracy: {:.2f}%", val * 100));
    nb.print(fmt::format("Test accuracy: {:.2f}%", test * 100));
}

ClassifierHistory run_training_cell(Notebook& nb, Generator& gen, const ClassifierModelOptions& o, GPTModel& model, const SpamData& d,
                                    double lr, bool lora, FrozenTrunk* trunk) {
    nb.note(fmt::format("AdamW updates as PyTorch {} computes them (--pytorch 2|1.13). \"Training completed in X minutes.\" goes to "
                        "standard error: the minutes are this machine's.",
                        o.pytorch == "2" ? "2.x" : "1.13"));
    const auto start = std::chrono::steady_clock::now();
    gen.manual_seed(123);
    AdamWOptions adamw;
    adamw.lr = lr;
    adamw.weight_decay = 0.1;
    adamw.version = *parse_pytorch_version(o.pytorch);
    std::cerr << fmt::format("training {}: {} batches per epoch, 5 epochs",
                             lora ? "the LoRA adapters" : "the last block, final_norm and the head", d.train_loader->size())
              << std::endl;
    const auto print = [&](const std::string& line) { nb.print(line); };
    std::optional<FrozenTrunk> own;
    if (!lora && !trunk) trunk = &own.emplace(frozen_trunk(model, TrainableLayers::last_block));
    const auto note = [](const std::string& line) { std::cerr << line << std::endl; };
    if (!lora) trunk->note_progress(note, /*training_done=*/false);
    ClassifierHistory history;
    if (lora) {
        LoRAAdamW optimizer(model, adamw);
        history = train_classifier_simple(model, *d.train_loader, *d.val_loader, optimizer, gen, 5, 50, 5, print);
    } else {
        ClassifierAdamW optimizer(model, adamw);
        history = train_classifier_simple(model, *d.train_loader, *d.val_loader, optimizer, gen, 5, 50, 5, print, {}, trunk);
    }
    const double minutes = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 60;
    std::cerr << fmt::format("Training completed in {:.2f} minutes.", minutes) << std::endl;
    if (!lora) trunk->note_progress(note, /*training_done=*/true);
    return history;
}

void draw_plot_values(const ClassifierHistory& history, const std::string& label, const std::optional<std::filesystem::path>& folder) {
    const bool loss = label == "loss";
    const std::string name = label + "-plot.pdf";
    const std::filesystem::path figure = folder ? *folder / name : default_output_path(name);
    plot_values(figure, 5, history.examples_seen, loss ? history.train_losses : history.train_accs,
                loss ? history.val_losses : history.val_accs, label);
    std::cerr << label << " plot written to " << figure.string() << std::endl;
}

// ---- chapter 6's exercises ---------------------------------------------------------------------

void add_classifier_exercise_options(CLI::App& app, ClassifierExerciseOptions& o) {
    auto* data = app.add_option("--data", o.data, "the SMS Spam Collection: sms_spam_collection.zip as the notebook downloads it, or its TSV")
                     ->type_name("FILE");
    auto* weights = app.add_option("--weights", o.weights,
                                   "OpenAI's GPT-2 124M: the gpt2/124M folder gpt_download.py writes (the default, as the script reads it), "
                                   "Hugging Face's model.safetensors or the book's model.pth")
                        ->type_name("PATH");
    app.add_flag("--small", o.small,
                 "the tests' small SMS collection (data/tests/ch06/sms_clean.tsv) and a small random GPT (the script's --weights "
                 "random, emb_dim 12, 2 heads, 2 layers, context 256; --num_epochs 8 --batch_size 1): seconds; what llmfs-exercise check runs")
        ->excludes(data)
        ->excludes(weights);
    app.callback([&o] {  // after parsing: a usage error (exit 2)
        if (!o.small && o.data.empty())
            throw CLI::ValidationError("--data", "FILE is required (the SMS Spam Collection: sms_spam_collection.zip or its TSV), or --small");
    });
    add_pytorch_option(app, o.pytorch);
}

ClassExperimentOptions classifier_exercise_experiment(const ClassifierExerciseOptions& o, int variant) {
    ClassExperimentOptions e;
    e.write_csvs = false;
    e.pytorch = *parse_pytorch_version(o.pytorch);
    if (!o.small) {
        if (o.data.empty())
            throw std::invalid_argument("--data FILE is required (the SMS Spam Collection: sms_spam_collection.zip or its TSV), or --small");
        e.data = o.data;
        e.weights_file = o.weights;
        return e;
    }
    e.data = (data_dir() / "tests" / "ch06" / "sms_clean.tsv").string();
    e.pretrained = false;
    GPTConfig c = ClassifierModelOptions::base_config_124m();
    c.emb_dim = variant == 1 ? 16 : 12;
    c.n_heads = variant == 1 ? 4 : 2;
    c.n_layers = variant == 1 ? 1 : 2;
    c.context_length = variant == 1 ? 128 : 256;
    e.random_config = c;
    e.num_epochs = 8;
    e.batch_size = 1;
    return e;
}

void run_classifier_exercise(Notebook& nb, const ClassExperimentOptions& e, const std::string& flags) {
    if (e.random_config)
        nb.note(fmt::format("--small: the tests' SMS collection and the script's --weights random with a small GPT (emb_dim {}, "
                            "n_heads {}, n_layers {}, context_length {}), {} epochs of batches of {}: enough steps for the choices to print other digits",
                            e.random_config->emb_dim, e.random_config->n_heads, e.random_config->n_layers, e.random_config->context_length,
                            e.num_epochs, e.batch_size));
    nb.note("The script's download line is not printed (nothing is downloaded); \"Training completed in X minutes.\" goes to "
            "standard error: the minutes are this machine's.");
    std::string command = "python additional_experiments.py" + std::string(flags.empty() ? "" : " ") + flags;
    if (const ClassExperimentOptions defaults; e.num_epochs != defaults.num_epochs || e.batch_size != defaults.batch_size)
        command += fmt::format(" --num_epochs {} --batch_size {}", e.num_epochs, e.batch_size);
    nb.code(command);
    run_class_experiment(
        e, [&](const std::string& line) { nb.print(line); }, [](const std::string& line) { std::cerr << line << std::endl; },
        [](const std::string& line) { std::cerr << line << std::endl; });
}

}  // namespace llmfs
