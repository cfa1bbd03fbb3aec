#include "llmfs/train/class_experiments.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "llmfs/nn/lora.hpp"
#include "llmfs/train/class_finetune.hpp"
#include "llmfs/train/classification_data.hpp"

namespace llmfs {
namespace {

namespace fs = std::filesystem;

// instantiate_model's BASE_CONFIG updated with model_configs[choose_model]; std::invalid_argument
// naming the four choices for another.
GPTConfig base_config(const std::string& model_size, const Gpt2Size** size) {
    for (const Gpt2Size& s : kGpt2Sizes) {
        if (model_size != fmt::format("{} ({})", s.name, s.folder)) continue;
        GPTConfig c = GPTConfig::by_name(s.name);
        c.context_length = 1024;
        c.drop_rate = 0.0;
        c.qkv_bias = true;
        *size = &s;
        return c;
    }
    throw std::invalid_argument("Invalid --model_size argument '" + model_size +
                                "' (gpt2-small (124M), gpt2-medium (355M), gpt2-large (774M) or gpt2-xl (1558M))");
}

// create_dataset_csvs: the balanced set (ch06's create_balanced_dataset), shuffled by
// balanced_df.sample(frac=1, random_state=123).reset_index(drop=True), labels mapped, then
// random_split(balanced_df, 0.7, 0.1) (which shuffles again).
SplitData dataset_split(const std::string& data) {
    const std::vector<SmsMessage> balanced = create_balanced_dataset(parse_sms_tsv(read_sms_spam_collection(data)));
    std::vector<SmsMessage> shuffled;
    for (const std::size_t i : numpy_permutation(balanced.size(), 123)) shuffled.push_back(balanced[i]);
    return random_split(map_labels(shuffled), 0.7, 0.1);
}

std::string read_csv_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path.string());
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// --context_length: the datasets' max_length (nullopt: the training set's longest text).
std::optional<std::size_t> context_choice(const std::string& choice, std::size_t model_context) {
    if (choice == "longest_training_example") return std::nullopt;
    if (choice == "model_context_length") return model_context;  // model.pos_emb.weight.shape[0]
    std::size_t used = 0;
    long long n = 0;
    try {
        n = std::stoll(choice, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != choice.size() || choice.empty() || n <= 0)
        throw std::invalid_argument("Invalid --context_length argument '" + choice +
                                    "' (longest_training_example, model_context_length or a positive number)");
    return static_cast<std::size_t>(n);
}

}  // namespace

Readout parse_readout(const std::string& trainable_token_pos, bool average_embeddings) {
    Readout r;
    if (trainable_token_pos == "first") r = Readout(0);
    else if (trainable_token_pos == "last") r = Readout(-1);
    else if (trainable_token_pos == "flexible") r = Readout::flexible();
    else throw std::invalid_argument("Invalid --trainable_token_pos argument '" + trainable_token_pos + "' (first, last or flexible)");
    if (average_embeddings && r.tokens != Readout::Tokens::flexible) r = Readout::mean();
    return r;
}

void run_class_experiment(const ClassExperimentOptions& o, const std::function<void(const std::string&)>& print,
                          const std::function<void(const std::string&)>& timing, const std::function<void(const std::string&)>& progress) {
    const auto note = [&](const std::string& s) {
        if (progress) progress(s);
    };
    if (o.batch_size == 0) throw std::invalid_argument("--batch_size must be positive");
    if (o.accumulation_steps == 0) throw std::invalid_argument("--accumulation_steps must be positive");
    const Gpt2Size* size = nullptr;
    const GPTConfig asked = base_config(o.model_size, &size);
    // Load model: instantiate_model(args.model_size, load_weights)
    Generator gen(o.bernoulli);
    std::unique_ptr<GPTModel> model;
    if (o.pretrained) {
        const std::string path = o.weights_file.empty() ? (fs::path(o.models_dir) / size->folder).string() : o.weights_file;
        note("loading " + path);
        model = load_pretrained_gpt(gen, path, std::nullopt);
        if (model->cfg.emb_dim != asked.emb_dim || model->cfg.n_layers != asked.n_layers)
            throw std::runtime_error(fmt::format("{} holds a GPT of emb_dim {} and {} layers, not {}'s ({}, {}): "
                                                 "give --model_size the size the weights are",
                                                 path, model->cfg.emb_dim, model->cfg.n_layers, o.model_size, asked.emb_dim, asked.n_layers));
    } else {
        gen.manual_seed(123);
        model = std::make_unique<GPTModel>(gen, o.random_config ? *o.random_config : asked);
    }
    if (o.disable_causal_mask) disable_causal_mask(*model);  // GPTModel(BASE_CONFIG, disable_causal_mask=args.disable_causal_mask)
    model->train(false);  // model.eval()
    // every parameter frozen; torch.manual_seed(123); the new head (in_features: the model's emb_dim)
    gen.manual_seed(123);
    replace_out_head(*model, gen, 2);
    // the script's LoRALayer: self.alpha * (x @ self.A @ self.B), its A matrices drawn after the head's values
    const LoRATraining* lora = std::get_if<LoRATraining>(&o.trainable_layers);
    if (lora) replace_linear_with_lora(*model, gen, lora->rank, lora->alpha, LoRAScaling::alpha, lora->form);
    // Instantiate dataloaders: the CSVs from --data, else those already in out_dir
    const fs::path dir = o.out_dir;
    SplitData split;
    std::string csv[3];
    if (!o.data.empty()) {
        split = dataset_split(o.data);
        csv[0] = to_csv(split.train), csv[1] = to_csv(split.validation), csv[2] = to_csv(split.test);
    } else {
        const char* names[3] = {"train.csv", "validation.csv", "test.csv"};
        for (int i = 0; i < 3; ++i) {
            if (!fs::exists(dir / names[i]))
                throw std::invalid_argument("--data FILE is required: the SMS Spam Collection (sms_spam_collection.zip or SMSSpamCollection.tsv); " +
                                            dir.string() + " holds no " + names[i] + " of an earlier run");
            csv[i] = read_csv_file(dir / names[i]);
        }
    }
    const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
    // --no_padding: max_length None for all three (each set's own longest text), no padding
    const std::optional<std::size_t> max_length =
        o.no_padding ? std::nullopt : context_choice(o.context_length, model->cfg.context_length);
    const Padding padding = o.no_padding ? Padding::none : Padding::to_max_length;
    const SpamDataset train_dataset(read_labeled_csv(csv[0]), tokenizer, max_length, 50256, padding);
    const std::optional<std::size_t> eval_length = o.no_padding ? std::nullopt : std::optional(train_dataset.max_length());
    const SpamDataset val_dataset(read_labeled_csv(csv[1]), tokenizer, eval_length, 50256, padding);
    const SpamDataset test_dataset(read_labeled_csv(csv[2]), tokenizer, eval_length, 50256, padding);
    const std::size_t context = model->cfg.context_length;
    if (train_dataset.max_length() > context)
        throw std::runtime_error(fmt::format("Dataset length {} exceeds model's context length {}. Reinitialize data sets with "
                                             "`max_length={}`", train_dataset.max_length(), context, context));
    const Readout& readout = o.readout;
    if (readout.tokens == Readout::Tokens::position)  // an index past T: PyTorch's IndexError, before training
        token_index(readout.position, train_dataset.max_length());
    if (!o.data.empty() && o.write_csvs) write_split_csvs(dir, split);
    const ClassificationLoader train_loader(train_dataset, o.batch_size, true, true);
    const ClassificationLoader val_loader(val_dataset, o.batch_size, false, false);
    const ClassificationLoader test_loader(test_dataset, o.batch_size, false, false);
    // Train model
    const auto start = std::chrono::steady_clock::now();
    gen.manual_seed(123);
    AdamWOptions adamw;
    adamw.lr = 5e-5;
    adamw.weight_decay = 0.1;
    adamw.version = o.pytorch;
    const std::string read = readout.tokens == Readout::Tokens::mean       ? "averaged embeddings"
                             : readout.tokens == Readout::Tokens::flexible ? "token flexible"
                             : readout.position == 0                       ? "token first"
                             : readout.position == -1                      ? "token last"
                                                                           : fmt::format("token {}", readout.position);
    note(fmt::format("training ({}, {}{}): {} batches per epoch, {} epochs",
                     lora ? fmt::format("{}, rank {}, alpha {}", lora->form == LoRAForm::merged ? "lora_alternative" : "lora", lora->rank, lora->alpha)
                          : trainable_layers_name(std::get<TrainableLayers>(o.trainable_layers)),
                     read, readout.ignore_index == kIgnoreIndex ? "" : fmt::format(", ignore_index {}", readout.ignore_index),
                     train_loader.size(), o.num_epochs));
    // train_classifier_simple(..., eval_freq=50, eval_iter=5, trainable_token_pos, accumulation_steps)
    GradientAccumulation accumulation(o.accumulation_steps, train_loader.size());
    // the frozen blocks' output kept per message, for the training and the accuracies after it
    // (frozen_trunk.hpp; off for LoRA and --trainable_layers all, whose every block trains)
    FrozenTrunk trunk = lora ? FrozenTrunk(*model, 0) : frozen_trunk(*model, std::get<TrainableLayers>(o.trainable_layers));
    if (!lora) trunk.note_progress(note, /*training_done=*/false);
    if (lora) {
        LoRAAdamW optimizer(*model, adamw, LoRAHead::trained);
        train_classifier_simple(
            *model, train_loader, val_loader, [&](const ClassificationBatch& batch) { accumulation.step(*model, optimizer, batch, readout); },
            gen, o.num_epochs, 50, 5, print, readout);
    } else {
        ClassifierAdamW optimizer(*model, adamw, std::get<TrainableLayers>(o.trainable_layers));
        train_classifier_simple(
            *model, train_loader, val_loader,
            [&](const ClassificationBatch& batch) { accumulation.step(*model, optimizer, batch, readout, StepKernels::fast, &trunk); }, gen,
            o.num_epochs, 50, 5, print, readout, &trunk);
    }
    const double minutes = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 60;
    timing(fmt::format("Training completed in {:.2f} minutes.", minutes));
    trunk.note_progress(note, /*training_done=*/true);  // LoRA's inactive trunk ran no batch: nothing
    // Evaluate model
    const double train = calc_accuracy_loader(train_loader, *model, gen, std::nullopt, readout, &trunk);
    const double val = calc_accuracy_loader(val_loader, *model, gen, std::nullopt, readout, &trunk);
    const double test = calc_accuracy_loader(test_loader, *model, gen, std::nullopt, readout, &trunk);
    print(fmt::format("Training accuracy: {:.2f}%", train * 100));
    print(fmt::format("Validation accuracy: {:.2f}%", val * 100));
    print(fmt::format("Test accuracy: {:.2f}%", test * 100));
}

}  // namespace llmfs
