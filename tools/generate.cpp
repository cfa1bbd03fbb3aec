// llmfs-generate: build GPT-2 from a seed, exactly as PyTorch's GPTModel(cfg) after
// torch.manual_seed(seed), and continue a prompt greedily with generate_text_simple (4.7), or with
// the book's ch05 generate() (--temperature, --top-k, --eos-id), its multinomial draws continuing
// the generator that built the model, as in PyTorch.
// Prints the token ids (prompt and continuation) on one line, then the decoded text. Three ways to
// decode, all giving the same tokens (tests/generate_test.cpp):
//   (default)    the no-cache algorithm through the fast kernels (generate_text_simple_fast);
//   --kv-cache   the book's bonus KV cache (generate_text_simple_cached): several times faster;
//   --teaching   the chapter's GPTModel::forward at every step (generate_text_simple): the slowest.
// The speed goes to stderr.
// --weights FILE: GPT-2's real weights instead, from Hugging Face's model.safetensors (the book's
// 5.5 order: model = GPTModel(cfg); load_weights_into_gpt(model, params); torch.manual_seed(seed)),
// or the book's GPTModel state dict from torch.save (5.4's model.pth or model_and_optimizer.pth:
// model.load_state_dict(torch.load(FILE))), told apart by their first bytes (a zip's "PK\3\4").
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <xtensor/xadapt.hpp>

#include "llmfs/app/cli.hpp"
#include "llmfs/nn/gpt.hpp"
#include "llmfs/nn/gpt_checkpoint.hpp"
#include "llmfs/nn/kv_cache.hpp"
#include "llmfs/nn/safetensors.hpp"
#include "llmfs/nn/tf_checkpoint.hpp"
#include "llmfs/app/notebook.hpp"

using namespace llmfs;

namespace {

struct Options {
    std::string prompt = "Hello, I am";
    int max_new_tokens = 6;
    std::uint64_t seed = 123;
    std::string model = "gpt2-small";
    DecodePath path = DecodePath::fast;  // --kv-cache, --teaching
    SamplingOptions sampling;            // --temperature, --top-k, --eos-id (5.3.3)
    std::string weights;                 // --weights FILE: a GPT-2 model.safetensors or a GPTModel model.pth
    bool model_given = false;            // --model on the command line (checked against --weights)
    int heads = 0;                       // --heads N with --weights (0: inferred)
};

// --weights: the model from a checkpoint. The config comes from the file's shapes (a --model that
// disagrees is a usage error); the parameters start at zero, nothing drawn, then are all loaded;
// the seed is set after loading, as the book's 5.5 does before generate().
GPTModel load_checkpoint(const Options& opt, Generator& gen) {
    const auto start = std::chrono::steady_clock::now();
    unsigned char magic[4] = {0, 0, 0, 0};
    std::ifstream(opt.weights, std::ios::binary).read(reinterpret_cast<char*>(magic), 4);
    std::optional<SafeTensors> params;
    std::optional<TorchStateDict> state;
    std::string how;
    // With --model, the file's sizes are compared with the named model's before its heads are
    // chosen (1 head always divides: the shapes alone), so a mismatch is said as one.
    const std::optional<std::size_t> heads = opt.heads ? std::optional<std::size_t>(static_cast<std::size_t>(opt.heads))
                                             : opt.model_given ? std::optional<std::size_t>(1)
                                                               : std::nullopt;
    GPTConfig cfg;
    if (looks_like_zip(magic, 4)) {
        state.emplace(TorchStateDict::open(opt.weights));  // torch.load(FILE, weights_only=True), restricted
        cfg = infer_gpt_config(*state, heads, &how);
        if (cfg.vocab_size != 50257)
            throw std::runtime_error(fmt::format("{}: tok_emb.weight has {} rows, but GPT-2's tokenizer has 50257 tokens; generate with the "
                                                 "model's own tokenizer in Python", opt.weights, cfg.vocab_size));
    } else {
        params.emplace(open_gpt2_weights(opt.weights));  // model.safetensors or gpt_download.py's folder
        cfg = infer_gpt_config(*params, heads, &how);
    }
    if (opt.model_given) {
        const GPTConfig named = GPTConfig::by_name(opt.model);
        if (named.emb_dim != cfg.emb_dim || named.n_layers != cfg.n_layers || named.context_length != cfg.context_length)
            throw std::invalid_argument(fmt::format("the sizes disagree: --model {} has emb_dim {}, {} layers, context {}, but {} has emb_dim {}, "
                                                    "{} layers, context {}; leave --model out to take the file's sizes",
                                                    opt.model, named.emb_dim, named.n_layers, named.context_length, opt.weights,
                                                    cfg.emb_dim, cfg.n_layers, cfg.context_length));
        cfg.n_heads = named.n_heads;
        how = fmt::format("{} heads (--model {})", cfg.n_heads, opt.model);
    }
    GPTModel model(gen, cfg, Init::zeros);  // model = GPTModel(BASE_CONFIG), without the random draw
    if (state) {
        load_state_dict(model, *state);       // model.load_state_dict(torch.load(FILE))
    } else {
        load_weights_into_gpt(model, *params);  // load_weights_into_gpt(gpt, params)
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << fmt::format("{}: {} parameters (emb_dim {}, {} layers, context {}, {}) loaded in {:.2f} s\n", opt.weights,
                             with_commas(model.num_parameters()), cfg.emb_dim, cfg.n_layers, cfg.context_length, how, seconds);
    gen.manual_seed(opt.seed);  // torch.manual_seed(seed), after loading
    return model;
}

int run(const Options& opt) {
    if (opt.prompt.empty()) throw std::invalid_argument("--prompt: the prompt must not be empty");
    if (opt.heads != 0 && opt.weights.empty()) throw std::invalid_argument("--heads needs --weights (a seed-built model takes --model's heads)");
    const auto tokenizer = Gpt2Tokenizer::load_default();
    const auto encoded = tokenizer.encode(opt.prompt);
    if (encoded.empty()) throw std::invalid_argument("the prompt encodes to no tokens");

    Generator gen;
    GPTModel model = opt.weights.empty() ? [&] {
        const GPTConfig cfg = GPTConfig::by_name(opt.model);
        const auto start = std::chrono::steady_clock::now();
        gen.manual_seed(opt.seed);  // torch.manual_seed(seed); model = GPTModel(cfg)
        Progress building("building " + opt.model + ": block");
        GPTModel built(gen, cfg, [&](std::size_t done, std::size_t total) {
            if (cfg.n_layers > 12) building(done, total);
        });
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::cerr << fmt::format("{} ({} parameters) built in {:.2f} s\n", opt.model, with_commas(built.num_parameters()), seconds);
        return built;
    }() : load_checkpoint(opt, gen);
    model.train(false);  // model.eval()
    const GPTConfig& cfg = model.cfg;

    const IdArray<2> idx = xt::adapt(encoded, std::array<std::size_t, 2>{1, encoded.size()});  // [1, T]
    const auto max_new = static_cast<std::size_t>(opt.max_new_tokens);
    Progress generating("generating: token");
    const auto progress = [&](std::size_t step) { generating(step, max_new); };
    const auto gen_start = std::chrono::steady_clock::now();
    // generate(model, idx, max_new, context_size, temperature, top_k, eos_id): samples from gen
    const IdArray<2> out = generate(opt.path, model, idx, max_new, cfg.context_length, opt.sampling, gen, progress);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - gen_start).count();
    const std::size_t added = out.shape()[1] - idx.shape()[1];  // fewer than max_new after eos_id
    std::cerr << fmt::format("{} new tokens in {:.2f} s ({:.1f} tokens/s)\n", added, seconds,
                             seconds > 0 ? static_cast<double>(added) / seconds : 0.0);

    const std::vector<std::int64_t> ids(out.begin(), out.end());
    std::cout << fmt::format("{}\n", fmt::join(ids, " ")) << tokenizer.decode(ids) << "\n";
    std::cout.flush();
    return std::cout ? 0 : kExitRuntimeError;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Build GPT-2 from a seed as PyTorch does (torch.manual_seed(seed); GPTModel(cfg)) and continue\n"
                 "the prompt greedily (the book's generate_text_simple), or sampling as the book's ch05 generate()\n"
                 "does with --temperature / --top-k / --eos-id. Prints the token ids, then the text.",
                 "llmfs-generate"};
    Options opt;
    app.add_option("--prompt", opt.prompt, "text to continue")->capture_default_str();
    add_decimal_option(app, "--max-new-tokens", opt.max_new_tokens, 0, 1 << 20, "how many tokens to generate");
    // A negative seed wraps to 2^64 + seed, as torch.manual_seed reinterprets it.
    add_seed_option(app, "--seed", opt.seed, "torch.manual_seed before building the model");
    auto* model = app.add_option("--model", opt.model, "model size (exercise 4.2); with --weights, the size the file must have")
        ->capture_default_str()
        ->check(CLI::IsMember({"gpt2-small", "gpt2-medium", "gpt2-large", "gpt2-xl"}));
    app.add_option("--weights", opt.weights,
                   "GPT-2's weights from Hugging Face's model.safetensors (e.g. https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors),\n"
                   "the gpt2/124M folder (or 355M, ...) the book's gpt_download.py writes (TensorFlow's checkpoint),\n"
                   "or the book's GPTModel saved by torch.save(model.state_dict(), \"model.pth\") (section 5.4),\n"
                   "instead of a seed-built model; the size comes from the file; --seed is set after loading");
    add_decimal_option(app, "--heads", opt.heads, 1, 4096, "with --weights: attention heads (default: GPT-2's for its sizes, else emb_dim / 64)")
        ->excludes(model);
    auto* kv = app.add_flag_callback("--kv-cache", [&] { opt.path = DecodePath::kv_cache; },
                                     "decode with a key/value cache (the book's ch04/03_kv-cache bonus): the same tokens, faster");
    app.add_flag_callback("--teaching", [&] { opt.path = DecodePath::teaching; },
                          "run the chapter's GPTModel.forward on the whole window at every step, as the book's\n"
                          "generate_text_simple does (the same tokens, slower; default: the same algorithm\n"
                          "through the fast kernels)")
        ->excludes(kv);
    add_sampling_options(app, opt.sampling, /*with_eos=*/true);
    return run_tool(app, argc, argv, [&] {
        opt.model_given = model->count() > 0;
        return run(opt);
    });
}
