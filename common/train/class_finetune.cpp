#include "llmfs/train/class_finetune.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "llmfs/nn/gpt_checkpoint.hpp"
#include "llmfs/nn/safetensors.hpp"
#include "llmfs/nn/tf_checkpoint.hpp"
#include "llmfs/nn/torch_save.hpp"
#include "llmfs/train/classification_data.hpp"
#include "llmfs/train/classifier.hpp"

namespace llmfs {
namespace {

namespace fs = std::filesystem;

// The script's BASE_CONFIG for --test_mode.
GPTConfig test_mode_config() {
    GPTConfig c;
    c.vocab_size = 50257;
    c.context_length = 120;
    c.drop_rate = 0.0;
    c.qkv_bias = false;
    c.emb_dim = 12;
    c.n_layers = 1;
    c.n_heads = 2;
    return c;
}

bool file_is_zip(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    unsigned char head[4] = {};
    in.read(reinterpret_cast<char*>(head), 4);
    return looks_like_zip(head, static_cast<std::size_t>(in.gcount()));
}

}  // namespace

std::unique_ptr<GPTModel> load_pretrained_gpt(Generator& gen, const std::string& path, std::optional<std::size_t> n_heads) {
    if (!std::filesystem::is_directory(path) && file_is_zip(path)) {
        const TorchStateDict state = TorchStateDict::open(path);
        const GPTConfig cfg = infer_gpt_config(state, n_heads);
        auto model = std::make_unique<GPTModel>(gen, cfg, Init::zeros);
        load_state_dict(*model, state);
        return model;
    }
    const SafeTensors file = open_gpt2_weights(path);  // model.safetensors, or the gpt2/124M folder of TensorFlow's checkpoint
    const GPTConfig cfg = infer_gpt_config(file, n_heads);
    auto model = std::make_unique<GPTModel>(gen, cfg, Init::zeros);
    load_weights_into_gpt(*model, file);
    return model;
}

ClassifierHistory run_class_finetune(const ClassFinetuneOptions& o, const std::function<void(const std::string&)>& print,
                        const std::function<void(const std::string&)>& progress) {
    if (o.data.empty()) throw std::invalid_argument("--data FILE is required: sms_spam_collection.zip or SMSSpamCollection.tsv");
    if (o.weights.empty() && !o.test_mode)
        throw std::invalid_argument("--weights FILE is required (the pretrained GPT-2: model.pth or model.safetensors), or --test_mode");
    if (!o.weights.empty() && o.test_mode)
        throw std::invalid_argument("--test_mode trains a small random model: it takes no --weights");
    const auto note = [&](const std::string& s) {
        if (progress) progress(s);
    };
    // Download and prepare dataset
    const std::vector<SmsMessage> df = parse_sms_tsv(read_sms_spam_collection(o.data));
    const std::vector<LabeledMessage> balanced = map_labels(create_balanced_dataset(df));
    const SplitData split = random_split(balanced, 0.7, 0.1);
    // Create data loaders (from the CSVs as pd.read_csv reads them back), checked before writing
    const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
    const SpamDataset train_dataset(read_labeled_csv(to_csv(split.train)), tokenizer);
    const SpamDataset val_dataset(read_labeled_csv(to_csv(split.validation)), tokenizer, train_dataset.max_length());
    const SpamDataset test_dataset(read_labeled_csv(to_csv(split.test)), tokenizer, train_dataset.max_length());
    Generator gen(o.bernoulli);
    gen.manual_seed(123);
    const ClassificationLoader train_loader(train_dataset, 8, true, true);
    const ClassificationLoader val_loader(val_dataset, 8, false, false);
    const ClassificationLoader test_loader(test_dataset, 8, false, false);
    // Load pretrained model
    std::unique_ptr<GPTModel> model;
    if (o.test_mode) {
        model = std::make_unique<GPTModel>(gen, test_mode_config());
        model->train(false);
    } else {
        note("loading " + o.weights);
        model = load_pretrained_gpt(gen, o.weights, o.n_heads);
        if (train_dataset.max_length() > model->cfg.context_length)
            throw std::runtime_error(fmt::format("Dataset length {} exceeds model's context length {}. Reinitialize data sets with "
                                                 "`max_length={}`", train_dataset.max_length(), model->cfg.context_length,
                                                 model->cfg.context_length));
    }
    write_split_csvs(o.out_dir, split);
    // Modify the pretrained model: every parameter frozen but the new head, the last block, final_norm
    gen.manual_seed(123);
    replace_out_head(*model, gen, 2);
    // Finetune the modified model
    const auto start = std::chrono::steady_clock::now();
    gen.manual_seed(123);
    AdamWOptions adamw;
    adamw.lr = 5e-5;
    adamw.weight_decay = 0.1;
    adamw.version = o.pytorch;
    ClassifierAdamW optimizer(*model, adamw);
    note(fmt::format("training: {} batches per epoch, 5 epochs", train_loader.size()));
    FrozenTrunk trunk = frozen_trunk(*model, optimizer.layers());
    trunk.note_progress(note, /*training_done=*/false);
    ClassifierHistory history = train_classifier_simple(*model, train_loader, val_loader, optimizer, gen, 5, 50, 5, print, {}, &trunk);
    const double minutes = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 60;
    trunk.note_progress(note, /*training_done=*/true);
    print(fmt::format("Training completed in {:.2f} minutes.", minutes));
    return history;
}

}  // namespace llmfs
