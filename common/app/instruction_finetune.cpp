#include "llmfs/app/instruction_finetune.hpp"

#include <chrono>
#include <iostream>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <xtensor/xadapt.hpp>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/plot.hpp"
#include "llmfs/nn/gpt_checkpoint.hpp"
#include "llmfs/nn/safetensors.hpp"
#include "llmfs/nn/tf_checkpoint.hpp"
#include "llmfs/torch/print.hpp"
#include "llmfs/train/data.hpp"
#include "llmfs/train/evaluate.hpp"
#include "llmfs/train/instruction.hpp"
#include "llmfs/train/loop.hpp"

namespace llmfs {

namespace {

// str.isspace() of one code point starting at s[i] (UTF-8); its length in bytes, 0 if not a space.
std::size_t space_at(const std::string& s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F)) return 1;
    if (c < 0x80) return 0;
    const std::size_t n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (i + n > s.size()) return 0;
    char32_t cp = n == 2 ? (c & 0x1Fu) : n == 3 ? (c & 0x0Fu) : (c & 0x07u);
    for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
    const bool space = cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
                       cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
    return space ? n : 0;
}

// The start of the UTF-8 character that ends just before byte `end`.
std::size_t previous_start(const std::string& s, std::size_t end) {
    std::size_t i = end - 1;
    while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
    return i;
}

void write_atomically(const std::filesystem::path& path, const std::string& text) {
    const std::filesystem::path partial = path.string() + ".partial";
    {
        std::ofstream out(partial, std::ios::binary);
        out << text;
        if (!out.flush()) {
            std::filesystem::remove(partial);
            throw std::runtime_error("cannot write " + path.string());
        }
    }
    std::filesystem::rename(partial, path);
}

}  // namespace

std::string extract_response(const std::string& generated_text, const std::string& input_text) {
    // generated_text[len(input_text):], len counted in code points
    const std::size_t chars = count_characters(input_text);
    std::string rest = chars >= count_characters(generated_text) ? std::string() : generated_text.substr(byte_offset(generated_text, chars));
    // .replace("### Response:", "")
    const std::string needle = "### Response:";
    std::string replaced;
    for (std::size_t at = 0;;) {
        const std::size_t found = rest.find(needle, at);
        if (found == std::string::npos) {
            replaced += rest.substr(at);
            break;
        }
        replaced += rest.substr(at, found - at);
        at = found + needle.size();
    }
    // .strip()
    std::size_t begin = 0, end = replaced.size();
    while (begin < end) {
        const std::size_t n = space_at(replaced, begin);
        if (n == 0) break;
        begin += n;
    }
    while (end > begin) {
        const std::size_t start = previous_start(replaced, end);
        if (space_at(replaced, start) != end - start) break;
        end = start;
    }
    return replaced.substr(begin, end - begin);
}

void run_instruction_finetuning(Notebook& nb, Generator& gen, const InstructionFinetuneOptions& options) {
    const std::string dashes(50, '-');
    const std::string model_name = options.test_mode ? "Small test model" : "gpt2-medium (355M)";
    std::string file_stem;  // re.sub(r'[ ()]', '', CHOOSE_MODEL)
    for (const char c : model_name)
        if (c != ' ' && c != '(' && c != ')') file_stem += c;
    const std::filesystem::path plot_path = options.out_dir / "loss-plot-standalone.pdf";
    const std::filesystem::path responses_path = options.out_dir / "instruction-data-with-response-standalone.json";
    const std::filesystem::path model_path = options.out_dir / (file_stem + "-sft-standalone.pth");
    for (const auto& path : {plot_path, responses_path, model_path}) check_writable_path(path.string(), "the working directory");
    if (!options.test_mode && !options.weights)
        throw std::runtime_error("the script's own run fine-tunes GPT-2 medium (355M) from OpenAI's weights, which llmfs never "
                                 "downloads: give --weights FILE (gpt2-medium's model.safetensors from Hugging Face, or the gpt2/355M folder "
                                 "gpt_download.py writes), or "
                                 "--test_mode for the script's small test model");

    const std::vector<InstructionEntry> data = load_instruction_data(options.data);
    // The model, as the script builds it, after the data (its checks first: nothing is trained for bad data).
    nb.print("");
    nb.print(dashes);

    InstructionSplit split = split_instruction_data(data);
    if (options.test_mode) {  // Use very small subset for testing purposes
        for (auto* part : {&split.train, &split.validation, &split.test})
            if (part->size() > 10) part->resize(10);
    }
    nb.print("Training set length:", split.train.size());
    nb.print("Validation set length:", split.validation.size());
    nb.print("Test set length:", split.test.size());
    nb.print(dashes);

    const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
    nb.print("Device:", "cpu");
    nb.print(dashes);

    CollateOptions collate;
    collate.allowed_max_length = 1024;
    const std::size_t batch_size = 8;
    gen.manual_seed(123);
    const InstructionDataset train_dataset(split.train, tokenizer);
    const InstructionLoader train_loader(train_dataset, batch_size, /*shuffle=*/true, /*drop_last=*/true, collate);
    const InstructionDataset val_dataset(split.validation, tokenizer);
    const InstructionLoader val_loader(val_dataset, batch_size, /*shuffle=*/false, /*drop_last=*/false, collate);

    GPTConfig cfg;
    std::optional<GPTModel> model;
    if (options.test_mode) {
        cfg.vocab_size = 50257;
        cfg.context_length = 120;
        cfg.drop_rate = 0.0;
        cfg.qkv_bias = false;
        cfg.emb_dim = 12;
        cfg.n_layers = 1;
        cfg.n_heads = 2;
        model.emplace(gen, cfg);
    } else {
        const SafeTensors params = open_gpt2_weights(*options.weights);
        cfg = GPTConfig::gpt2_medium();
        cfg.drop_rate = 0.0;
        cfg.qkv_bias = true;
        const GPTConfig found = infer_gpt_config(params, cfg.n_heads);
        if (found.emb_dim != cfg.emb_dim || found.n_layers != cfg.n_layers)
            throw std::runtime_error(fmt::format("{} holds a GPT-2 of emb_dim {} and {} layers, not gpt2-medium (355M): emb_dim 1024, 24 layers",
                                                 options.weights->string(), found.emb_dim, found.n_layers));
        model.emplace(gen, cfg);  // GPTModel(BASE_CONFIG) draws its initial weights before they are replaced
        load_weights_into_gpt(*model, params);
    }
    model->train(false);
    nb.print("Loaded model:", model_name);
    nb.print(dashes);

    nb.print("Initial losses");
    const double train_loss = calc_loss_loader(train_loader.view(), *model, gen, 5);
    const double val_loss = calc_loss_loader(val_loader.view(), *model, gen, 5);
    nb.print("   Training loss:", train_loss);
    nb.print("   Validation loss:", val_loss);

    const auto start_time = std::chrono::steady_clock::now();
    AdamWOptions adamw;
    adamw.lr = 0.00005;
    adamw.weight_decay = 0.1;
    AdamW optimizer(*model, adamw);
    const std::size_t num_epochs = 2;
    gen.manual_seed(123);
    TrainSettings settings;
    settings.num_epochs = num_epochs;
    settings.eval_freq = 5;
    settings.eval_iter = 5;
    if (split.validation.empty()) throw std::runtime_error("no validation entry: format_input(val_data[0]) has no entry to start from");
    settings.start_context = format_input(split.validation[0]);
    TrainCallbacks callbacks;
    callbacks.print = [&](const std::string& line) { nb.print(line); };
    const TrainHistory history = train_model_simple(*model, train_loader.view(), val_loader.view(), optimizer, gen, tokenizer, settings, callbacks);
    const double minutes = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count() / 60;
    std::cerr << fmt::format("Training completed in {:.2f} minutes.", minutes) << std::endl;

    plot_losses(plot_path, num_epochs, history.train_losses, history.val_losses, history.tokens_seen);
    nb.print("Plot saved as " + plot_path.filename().string());
    nb.print(dashes);

    nb.print("Generating responses");
    SamplingOptions greedy;
    greedy.eos_id = Gpt2Tokenizer::kEndOfText;
    std::vector<InstructionEntry> test_data = split.test;
    for (auto& entry : test_data) {
        const std::string input_text = format_input(entry);
        const IdArray<2> token_ids = generate(*model, text_to_token_ids(input_text, tokenizer), 256, cfg.context_length, greedy, gen);
        entry.set("model_response", extract_response(token_ids_to_text(token_ids, tokenizer), input_text));
    }
    write_atomically(responses_path, dump_instruction_data(test_data));
    nb.print("Responses saved as " + responses_path.filename().string());

    save_state_dict(model_path, *model, "drop_resid");  // torch.save(model.state_dict(), ...): chapter 7's previous_chapters.py names the block's dropout drop_resid
    nb.print("Model saved as " + model_path.filename().string());
}

}  // namespace llmfs
