// Exercise 5.3: Deterministic behavior in the decoding functions
//
// The problem: which settings of generate() (section 5.3.3) make it deterministic, so that it
// returns the same text at every call, as generate_text_simple does? Set them, and generate from
// "Every effort moves you" with the model chapter 5 trained and saved as model.pth (section 5.4):
// once with generate_text_simple (always the most likely token) and twice with generate().
//
// The chapter's code around it (ch05.ipynb, section 5.3.3: generate() with top-k sampling and
// temperature scaling):
//   torch.manual_seed(123)
//   token_ids = generate(
//       model=model,
//       idx=text_to_token_ids("Every effort moves you", tokenizer).to(device),
//       max_new_tokens=15,
//       context_size=GPT_CONFIG_124M["context_length"],
//       top_k=25,
//       temperature=1.4
//   )
//   print("Output text:\n", token_ids_to_text(token_ids, tokenizer))
//
// model.pth: --weights FILE (default ./model.pth, as the notebook's torch.load("model.pth")), the
// book's GPTModel state dict as torch.save writes it (common/nn/gpt_checkpoint.hpp). --untrained
// leaves out the load_state_dict line: the model is the one GPTModel(GPT_CONFIG_124M) builds after
// torch.manual_seed(123), which needs no file and which PyTorch reproduces exactly (the golden and
// llmfs-exercise check run it). The book's own output needs its 124M model trained for 10 epochs.
// generate_text_simple and generate() run through the fast kernels by default (the same tokens as
// the notebook's path, which --teaching takes: kv_cache.hpp).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"
#include "llmfs/nn/gpt.hpp"
#include "llmfs/nn/gpt_checkpoint.hpp"
#include "llmfs/nn/kv_cache.hpp"
#include "llmfs/torch/sampling.hpp"
#include "llmfs/train/evaluate.hpp"

using namespace llmfs;

// The options of generate() that make it deterministic. They start as section 5.3.3's call
// (temperature=1.4, top_k=25), which samples a different text at each call.
static SamplingOptions deterministic_options() {
    SamplingOptions options;
    options.temperature = 1.4;
    options.top_k = 25;
    // TODO(exercise 5.3): change options so that generate() picks the same token at every call
    exercise_todo("5.3", "change options so that generate() picks the same token at every call");
    return options;
}

// torch.load(path, weights_only=True) (a restricted reader: nn/torch_save.hpp), refused at once with a
// hint when the file is missing or holds a GPTModel of other sizes than cfg's (load_state_dict would
// refuse it too, after the model is built).
static TorchStateDict open_model_pth(const std::string& path, const GPTConfig& cfg) {
    if (!std::filesystem::exists(path))
        throw std::runtime_error(fmt::format(
            "{}: no such file. The exercise loads the model chapter 5 trained, saved by torch.save(model.state_dict(), "
            "\"model.pth\") (section 5.4): make one with `llmfs-train --save model.pth` (GPT_CONFIG_124M is its default) "
            "or the book's chapter 5 in PyTorch, give another with --weights FILE, or run --untrained (the model GPTModel "
            "builds, no file)",
            path));
    TorchStateDict state = TorchStateDict::open(path);
    // The sizes the file's shapes imply (the head count is no shape: 1 divides any emb_dim).
    const GPTConfig found = infer_gpt_config(state, std::size_t{1});
    if (found.vocab_size != cfg.vocab_size || found.context_length != cfg.context_length || found.emb_dim != cfg.emb_dim ||
        found.n_layers != cfg.n_layers || found.qkv_bias != cfg.qkv_bias)
        throw std::runtime_error(fmt::format(
            "{} holds a GPTModel of other sizes (vocab_size {}, context_length {}, emb_dim {}, n_layers {}, qkv_bias {}) than "
            "the notebook's GPT_CONFIG_124M (vocab_size {}, context_length {}, emb_dim {}, n_layers {}, qkv_bias {}): "
            "train one of these sizes (llmfs-train's defaults), or try the file with llmfs-generate --weights",
            path, found.vocab_size, found.context_length, found.emb_dim, found.n_layers, found.qkv_bias, cfg.vocab_size,
            cfg.context_length, cfg.emb_dim, cfg.n_layers, cfg.qkv_bias));
    return state;
}

int main(int argc, char** argv) {
    std::string weights = "model.pth";
    bool untrained = false, teaching = false;
    return run_exercise(
        argc, argv, "Exercise 5.3: deterministic behavior in the decoding functions", 3,
        [&](CLI::App& app) {
            auto* w = app.add_option("--weights", weights,
                                     "the trained model to load, as torch.save(model.state_dict(), \"model.pth\") writes it (section 5.4),\n"
                                     "with the notebook's GPT_CONFIG_124M sizes (context 256); the default is model.pth in the current folder")
                          ->type_name("FILE");
            app.add_flag("--untrained", untrained,
                         "leave out model.load_state_dict: generate with the model torch.manual_seed(123); GPTModel(GPT_CONFIG_124M)\n"
                         "builds (no file needed; what the tests and llmfs-exercise check run)")
                ->excludes(w);
            app.add_flag("--teaching", teaching,
                         "generate through GPTModel::forward at every step, as the notebook's code does (slower); by default the\n"
                         "fast kernels give the same tokens (llmfs-generate's default path, tests/generate_test.cpp)");
        },
        [&](Notebook& nb, Generator& gen, int variant) {
            nb.section("Exercise 5.3: Deterministic behavior in the decoding functions");
            GPTConfig cfg;  // GPT_CONFIG_124M
            cfg.context_length = 256;
            // --variant N (llmfs-exercise grade): a small untrained GPT (a second, where the 124M one
            // takes many), another seed and another prompt; no model.pth.
            const char* const prompts[] = {"Every effort moves you", "The sun rises", "I had always thought", "He said that"};
            const std::string start_context = prompts[variant];
            const std::uint64_t seed = variant ? 200 + static_cast<std::uint64_t>(variant) : 123;
            if (variant) {
                cfg = {50257, 32, 16 * static_cast<std::size_t>(variant), 4, 2, 0.1, variant == 2};
                nb.note(fmt::format("--variant {}: an untrained GPTModel with emb_dim {}, 2 layers, context_length 32, "
                                    "torch.manual_seed({}), the prompt \"{}\"",
                                    variant, cfg.emb_dim, seed, start_context));
            }
            // model.pth, opened and checked against GPT_CONFIG_124M before anything is built.
            std::optional<TorchStateDict> state;
            if (!untrained && !variant) state.emplace(open_model_pth(weights, cfg));
            // The settings of the generate() calls below, chosen before the model is built (a student
            // build stops at their TODO at once).
            const SamplingOptions deterministic = deterministic_options();
            if (untrained)
                nb.note("--untrained: the model.load_state_dict line is left out: the model is the untrained one\n"
                        "GPTModel(GPT_CONFIG_124M) builds after torch.manual_seed(123). The notebook's outputs come from\n"
                        "the model chapter 5 trained for 10 epochs (model.pth).");
            nb.added_code("# exercise 5.3: GPT-2's tokenizer, and GPTModel(GPT_CONFIG_124M) with context_length 256 built after\n"
                          "# torch.manual_seed(123), the weights section 5.4 saved to model.pth loaded (unless --untrained),\n"
                          "# in eval mode");
            gen.manual_seed(seed);
            const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
            Progress building("building GPTModel(GPT_CONFIG_124M): block");
            GPTModel model(gen, cfg, [&](std::size_t i, std::size_t n) { building(i, n); });
            if (state) load_state_dict(model, *state);  // model.pth's weights, as the notebook's model.load_state_dict loads them
            model.train(false);                                                     // model.eval()

            nb.added_code("# exercise 5.3: chapter 5's generate (section 5.3.3), text_to_token_ids and token_ids_to_text\n"
                          "from previous_chapters import generate_text_simple");
            nb.code("# Deterministic function that used torch.argmax\n"
                    "\n"
                    "start_context = \"Every effort moves you\"\n"
                    "\n"
                    "token_ids = generate_text_simple(\n"
                    "    model=model,\n"
                    "    idx=text_to_token_ids(start_context, tokenizer),\n"
                    "    max_new_tokens=25,\n"
                    "    context_size=GPT_CONFIG_124M[\"context_length\"]\n"
                    ")\n"
                    "\n"
                    "print(\"Output text:\\n\", token_ids_to_text(token_ids, tokenizer))");
            Progress generating("generating: token");
            const auto on_token = [&](std::size_t step) { generating(step, 25); };
            const DecodePath path = teaching ? DecodePath::teaching : DecodePath::kv_cache;
            IdArray<2> token_ids = generate_greedy(path, model, text_to_token_ids(start_context, tokenizer), 25, cfg.context_length,
                                                   on_token);  // [1, 4 + 25]
            nb.print("Output text:\n", token_ids_to_text(token_ids, tokenizer));

            const std::string generate_cell = "# exercise 5.3: generate() with your deterministic settings (the same text twice)";
            for (int run = 0; run < 2; ++run) {  // the notebook runs the same cell twice: the same text
                nb.added_code(generate_cell);
                token_ids = generate(path, model, text_to_token_ids(start_context, tokenizer), 25, cfg.context_length,
                                     deterministic, gen, on_token);
                nb.print("Output text:\n", token_ids_to_text(token_ids, tokenizer));
            }
        });
}
