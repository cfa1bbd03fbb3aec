// llmfs-classifier-experiments: the book's ch06/02_bonus_additional-experiments/additional_experiments.py
// as a tool: chapter 6's spam classifier fine-tuned under the script's choices (which token's
// logits, which layers train, how long the inputs are padded), exactly as PyTorch does on a CPU,
// printing what the script prints. The answers to exercises 6.1 to 6.3 are runs of it:
//   llmfs-classifier-experiments --data sms_spam_collection.zip --context_length model_context_length   # 6.1
//   llmfs-classifier-experiments --data sms_spam_collection.zip --trainable_layers all                  # 6.2
//   llmfs-classifier-experiments --data sms_spam_collection.zip --trainable_token_pos first             # 6.3
// OpenAI's weights come from the gpt2/<size> folder gpt_download.py writes (--models_dir, the
// script's "gpt2") or --weights_file; nothing is downloaded. docs/finetuning.md.
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/train/class_experiments.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    CLI::App app{"Fine-tune GPT-2 to classify SMS messages as spam under the choices of the book's ch06 bonus script\n"
                 "additional_experiments.py, exactly as PyTorch does on a CPU (OpenBLAS), printing what the script prints;\n"
                 "progress on stderr. Its runs answer exercises 6.1 (--context_length model_context_length), 6.2\n"
                 "(--trainable_layers all) and 6.3 (--trainable_token_pos first). See docs/finetuning.md.",
                 "llmfs-classifier-experiments"};
    ClassExperimentOptions o;
    std::string weights = "pretrained", layers = "last_block", token = "last", pytorch = "2", bernoulli = "default";
    std::size_t emb_dim = 0, n_heads = 0, n_layers = 0, context = 0;
    int ignore_index = -100, accumulation_steps = 1, lora_rank = 8, lora_alpha = 8;
    bool average_embeddings = false;
    app.add_option("--data", o.data,
                   "the SMS Spam Collection: the zip the script downloads (sms_spam_collection.zip) or its SMSSpamCollection TSV;\n"
                   "without it, the train.csv, validation.csv and test.csv an earlier run left in --out-dir")
        ->type_name("FILE");
    app.add_option("--model_size", o.model_size, "the script's: gpt2-small (124M), gpt2-medium (355M), gpt2-large (774M), gpt2-xl (1558M)")
        ->capture_default_str();
    app.add_option("--weights", weights, "the script's: pretrained (OpenAI's) or random (GPTModel's, after torch.manual_seed(123))")
        ->capture_default_str()
        ->check(CLI::IsMember({"pretrained", "random"}));
    app.add_option("--models_dir", o.models_dir, "where OpenAI's weights are: MODELS_DIR/124M, the folder gpt_download.py writes")
        ->capture_default_str();
    app.add_option("--weights_file", o.weights_file,
                   "OpenAI's weights from this file or folder instead (Hugging Face's model.safetensors, the book's model.pth)")
        ->type_name("PATH");
    app.add_option("--trainable_layers", layers,
                   "the script's: last_layer, last_block, last_two_blocks, all, lora or lora_alternative")
        ->capture_default_str();
    app.add_option("--trainable_token_pos", token, "the script's: first, last or flexible (each row's last token before the padding)")
        ->capture_default_str();
    app.add_option("--context_length", o.context_length, "the script's: longest_training_example, model_context_length or a number")
        ->capture_default_str();
    app.add_option("--num_epochs", o.num_epochs, "the script's")->capture_default_str()->check(CLI::Range(0, 1000000));
    app.add_option("--batch_size", o.batch_size, "the script's")->capture_default_str()->check(CLI::Range(1, 1 << 20));
    // The rest of the script's flags
    app.add_flag("--average_embeddings", average_embeddings, "the script's: the loss and accuracies read the logits' mean over the tokens");
    app.add_flag("--no_padding", o.no_padding, "the script's: each text its own length (then --batch_size 1, as the script needs)");
    app.add_flag("--disable_causal_mask", o.disable_causal_mask, "the script's: every token attends to every token");
    app.add_option("--accumulation_steps", accumulation_steps, "the script's: an optimizer step every N batches, the loss divided by N")
        ->capture_default_str()
        ->check(CLI::Range(1, 1 << 20));
    app.add_option("--ignore_index", ignore_index,
                   "the script's: parsed, and as in the script without effect (its __main__ never hands it to train_classifier_simple)")
        ->capture_default_str();
    app.add_option("--lora_rank", lora_rank, "the script's, for --trainable_layers lora and lora_alternative")->capture_default_str()->check(CLI::Range(1, 1 << 20));
    app.add_option("--lora_alpha", lora_alpha, "the script's, for --trainable_layers lora and lora_alternative")->capture_default_str();
    // A smaller random GPT than --model_size's (the tests').
    auto* emb = add_size_option(app, "--emb-dim", emb_dim, "with --weights random: this emb_dim instead of --model_size's");
    add_size_option(app, "--n-heads", n_heads, "with --weights random: this many heads")->needs(emb);
    add_size_option(app, "--n-layers", n_layers, "with --weights random: this many blocks")->needs(emb);
    add_size_option(app, "--model-context", context, "with --weights random: this context_length (BASE_CONFIG's 1024)")->needs(emb);
    app.add_option("--out-dir", o.out_dir, "where train.csv, validation.csv and test.csv are written (and read back)")
        ->type_name("DIR")
        ->capture_default_str();
    add_pytorch_option(app, pytorch);
    app.add_option("--bernoulli", bernoulli, "PyTorch's CPU dropout kernel: default or mkl (the script's drop_rate is 0.0: no mask is drawn)")
        ->capture_default_str()
        ->check(CLI::IsMember({"default", "mkl"}));
    return run_tool(app, argc, argv, [&] {
        o.accumulation_steps = static_cast<std::size_t>(accumulation_steps);
        if (layers == "lora" || layers == "lora_alternative")
            o.trainable_layers = LoRATraining{static_cast<std::size_t>(lora_rank), static_cast<double>(lora_alpha),
                                              layers == "lora" ? LoRAForm::separate : LoRAForm::merged};
        else o.trainable_layers = parse_trainable_layers(layers);
        // --ignore_index: the script's train_classifier_simple takes ignore_index, but its __main__
        // calls it without (its README's row 18, --ignore_index 50256, is the default's run): the loss
        // ignores no row whatever the flag says (Readout::ignore_index, the function's, stays -100)
        o.readout = parse_readout(token, average_embeddings);
        o.pretrained = weights == "pretrained";
        if (emb_dim != 0) {
            if (o.pretrained) throw std::invalid_argument("--emb-dim, --n-heads, --n-layers and --model-context size the random model: give --weights random");
            GPTConfig c = GPTConfig::gpt2_small();
            c.context_length = context ? context : 1024;
            c.drop_rate = 0.0;
            c.qkv_bias = true;
            c.emb_dim = emb_dim;
            c.n_heads = n_heads ? n_heads : 1;
            c.n_layers = n_layers ? n_layers : 1;
            if (c.emb_dim % c.n_heads != 0)
                throw std::invalid_argument(fmt::format("--n-heads {} does not divide --emb-dim {}", c.n_heads, c.emb_dim));
            o.random_config = c;
        }
        o.pytorch = *parse_pytorch_version(pytorch);
        o.bernoulli = *parse_bernoulli_kernel(bernoulli);
        const auto out = [](const std::string& line) { std::cout << line << std::endl; };
        run_class_experiment(o, out, out, [](const std::string& line) { std::cerr << line << std::endl; });
        return 0;
    });
}
