#include "llmfs/app/script.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <new>
#include <optional>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <xtensor/xadapt.hpp>
#include <xtensor/xview.hpp>

#include "llmfs/app/cli.hpp"
#include "llmfs/fast/memory.hpp"
#include "llmfs/nn/memory_estimate.hpp"

namespace llmfs {

void print_script_banner(Notebook& nb, const std::string& title) {
    const std::string rule(50, '=');
    nb.print(fmt::format("\n{}\n{}{}\n{}", rule, std::string(22, ' '), title, rule));
}

IdArray<2> print_script_input(Notebook& nb, const Gpt2Tokenizer& tokenizer, const std::string& start_context) {
    const std::vector<std::int64_t> encoded = tokenizer.encode(start_context);
    print_script_banner(nb, "IN");
    nb.print("\nInput text:", start_context);
    nb.print("Encoded input text:", encoded);
    nb.print("encoded_tensor.shape:", Size{{1, encoded.size()}});
    return xt::adapt(encoded, std::array<std::size_t, 2>{1, encoded.size()});  // [1, T]
}

void print_script_output(Notebook& nb, const Gpt2Tokenizer& tokenizer, const IdArray<2>& token_ids) {
    const IdArray<1> first = xt::view(token_ids, 0);  // token_ids.squeeze(0)
    const std::string decoded_text = tokenizer.decode(std::vector<std::int64_t>(first.begin(), first.end()));
    nb.print("");  // the banner's leading "\n\n": one empty line, then the banner's own
    print_script_banner(nb, "OUT");
    nb.print("\nOutput:", token_ids);
    nb.print("Output length:", token_ids.shape()[1]);
    nb.print("Output text:", decoded_text);
}

void print_script_timing(double total_time, std::size_t tokens) {
    std::cerr << fmt::format("\nTime: {:.2f} sec\n{} tokens/sec\n", total_time,
                             static_cast<long>(static_cast<double>(tokens) / total_time));
}

int run_script(int argc, char** argv, const std::string& description,
               const std::function<void(ArgumentParser&)>& add_arguments,
               const std::function<void(const ArgumentParser&)>& body) {
    ArgumentParser parser(argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "llmfs", description);
    add_arguments(parser);
    parser.add_hidden_choice("--bernoulli", {"mkl", "default"}, "mkl");  // dropout is 0 in these scripts
    if (const auto status = parser.parse(argc, argv)) return *status;
    if (const std::string error = thread_setting_error(); !error.empty()) {
        std::cerr << parser.prog() << ": error: " << error << "\n";
        return kExitUsage;
    }
    try {
        body(parser);
        std::cout.flush();
        return std::cout ? 0 : 1;
    } catch (const PythonError& e) {  // what the script raises, as its traceback ends
        std::cout.flush();
        std::cerr << e.what() << "\n";
        return 1;
    } catch (const std::bad_alloc&) {
        std::cout.flush();
        std::cerr << parser.prog() << ": error: out of memory: the sizes asked for need more memory than this machine "
                                      "could give (std::bad_alloc); choose smaller ones\n";
        return 1;
    } catch (const std::exception& e) {
        std::cout.flush();
        std::cerr << parser.prog() << ": error: " << e.what() << "\n";
        return 1;
    }
}

KVEstimateArgs kv_estimate_args(const ArgumentParser& args) {
    KVEstimateArgs a;
    a.context_length = *args.get_int("context_length");
    a.emb_dim = *args.get_int("emb_dim");
    a.n_heads = *args.get_int("n_heads");
    a.n_layers = *args.get_int("n_layers");
    a.n_kv_groups = *args.get_int("n_kv_groups");
    a.batch_size = *args.get_int("batch_size");
    a.dtype = args.get_string("dtype");
    return a;
}

std::size_t script_size(const ArgumentParser& args, const std::string& name) {
    const std::int64_t v = *args.get_int(name);
    if (v < 0)
        throw PythonError("RuntimeError: Trying to create tensor with negative dimension " + std::to_string(v) + " (--" + name + ")");
    return static_cast<std::size_t>(v);
}

VariantConfig script_base_config(const ArgumentParser& args) {
    VariantConfig cfg;
    cfg.emb_dim = script_size(args, "emb_dim");
    cfg.n_heads = script_size(args, "n_heads");
    // nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])]): below 0, no blocks
    cfg.n_layers = static_cast<std::size_t>(std::max<std::int64_t>(0, *args.get_int("n_layers")));
    cfg.hidden_dim = 4 * cfg.emb_dim;
    return cfg;
}

namespace {

// A command line asking for a model larger than the machine's memory (--n_layers 10000000000, say)
// stops before the first allocation, with the sizes, rather than after minutes of swapping or in the
// kernel's out-of-memory kill. The scripts themselves fail in an allocation, or are killed. Besides
// the tensors, each block's objects count (measured with --emb_dim 0: 2.1 to 2.4 KB a block and
// 0.8 KB an expert; counted as 4 KB and 1 KB), so that empty blocks by the billion stop here too.
void check_fits_in_memory(const VariantConfig& cfg) {
    const double blocks = static_cast<double>(cfg.n_layers) * (4096.0 + 1024.0 * static_cast<double>(cfg.num_experts));
    const double model_bytes = variant_model_bytes(cfg) + blocks;
    const std::optional<double> memory = physical_memory_bytes();
    if (!memory || model_bytes <= *memory) return;
    throw std::runtime_error(fmt::format("the model would take {:.4g} GB (float32 weights, the KV cache at the full context, the blocks' objects), "
                                         "more than this machine's {:.1f} GB of memory: choose smaller sizes "
                                         "(--emb_dim, --n_layers, --max_new_tokens, --hidden_dim, ...)",
                                         model_bytes / 1e9, *memory / 1e9));
}

}  // namespace

int run_gpt_script(int argc, char** argv, const GptScript& script) {
    return run_script(argc, argv, script.description, script.add_arguments, [&](const ArgumentParser& args) {
        Notebook nb;
        const auto tokenizer = Gpt2Tokenizer::load_default();
        const std::string start_context = "Hello, I am";
        const std::vector<std::int64_t> encoded = tokenizer.encode(start_context);
        const std::int64_t max_new_tokens = *args.get_int("max_new_tokens");
        VariantConfig cfg = script.config(args);
        cfg.context_length = max_new_tokens + static_cast<std::int64_t>(encoded.size());

        check_fits_in_memory(cfg);
        Generator gen;
        gen.manual_seed(123);  // torch.manual_seed(123); model = GPTModel(cfg); model.eval()
        VariantGPTModel model(gen, cfg);
        print_script_input(nb, tokenizer, start_context);
        std::cout.flush();

        const bool use_cache = !(script.preallocated && args.get_flag("no_kv_cache"));
        if (script.preallocated && max_new_tokens < 0) {  // generated = torch.empty(1, 4 + max_new_tokens); generated[:, :4] = idx
            const std::string total = std::to_string(static_cast<std::int64_t>(encoded.size()) + max_new_tokens);
            throw PythonError("RuntimeError: The expanded size of the tensor (" + total + ") must match the existing size (" +
                              std::to_string(encoded.size()) + ") at non-singleton dimension 1.  Target sizes: [1, " + total +
                              "].  Tensor sizes: [" + std::to_string(encoded.size()) + "]");
        }
        if (cfg.context_length == 0)  // idx[:, -0:] is the whole prompt, and pos_emb has no rows
            throw PythonError("RuntimeError: index_select(): self indexing axis dim should be positive");

        const auto start = std::chrono::steady_clock::now();
        const std::vector<std::int64_t> ids = generate_variant(model, encoded, max_new_tokens, use_cache);
        const double total_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!script.ff_time_label.empty() && !model.ff_time_ms.empty()) {
            double sum = 0;
            for (double t : model.ff_time_ms) sum += t;
            std::cerr << fmt::format("{}: {:.3f} ms\n", script.ff_time_label, sum / static_cast<double>(model.ff_time_ms.size()));
        }
        IdArray<2> token_ids = IdArray<2>::from_shape({1, ids.size()});
        std::copy(ids.begin(), ids.end(), token_ids.begin());
        print_script_output(nb, tokenizer, token_ids);
        print_script_timing(total_time, ids.size());
    });
}

}  // namespace llmfs
