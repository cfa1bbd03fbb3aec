// Bonus: ch04/02_performance-analysis/flops-analysis.ipynb, its first benchmark cell ("Simple
// benchmark with fixed batch size"): thop's count of the floating-point operations of one forward
// pass of GPT-2's four sizes on a batch of 2 x 1024 tokens. The count depends on the modules'
// shapes only (nn/flops.hpp says what thop counts and what it leaves out), so nothing is built or
// run: the numbers come from the configurations. The notebook's later cells time the models on a
// CUDA GPU (batch-size search, model FLOPs utilisation on an A100) and have no CPU counterpart.
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/nn/flops.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "Bonus 4: FLOPs of GPT-2's sizes (ch04/02_performance-analysis, flops-analysis.ipynb)",
                       [](Notebook& nb, Generator&) {
        nb.section("Simple benchmark with fixed batch size");
        nb.code("BASE_CONFIG = {\"vocab_size\": 50257, \"context_length\": 1024, \"drop_rate\": 0.0, \"qkv_bias\": True}\n"
                "model_configs = {\"gpt-small (124M)\": {...}, \"gpt-medium (355M)\": {...}, ...}\n"
                "batch_size = 2\n"
                "input_tensor = torch.randint(0, 50257, (batch_size, 1024)).to(device)");
        nb.note("The cell runs on the GPU when there is one; thop's count is the same on any device and dtype\n"
                "(the cell casts to bfloat16). The input's values do not matter, so none are drawn here.");
        const std::vector<std::pair<std::string, GPTConfig>> model_configs = {
            {"gpt-small (124M)", GPTConfig::gpt2_small()},
            {"gpt-medium (355M)", GPTConfig::gpt2_medium()},
            {"gpt-large (774M)", GPTConfig::gpt2_large()},
            {"gpt-xl (1558M)", GPTConfig::gpt2_xl()},
        };
        const std::size_t batch_size = 2, tokens = 1024;
        nb.code("for size in model_configs:\n"
                "    BASE_CONFIG.update(model_configs[size])\n"
                "    model = GPTModel(BASE_CONFIG).bfloat16()\n"
                "    macs, params = profile(model, inputs=(input_tensor,), verbose=False)\n"
                "    flops = 2*macs\n"
                "    print(f\"{size:18}: {flops:.1e} FLOPS\")");
        nb.note("thop counts only the nn.Linear layers (in_features x output elements, bias left out):\n"
                "embeddings, the book's LayerNorm and GELU and the attention matmuls count nothing.");
        for (auto [size, cfg] : model_configs) {
            cfg.qkv_bias = true;  // BASE_CONFIG["qkv_bias"] (thop does not count biases either way)
            const double macs = thop_macs(cfg, batch_size, tokens);
            const double flops = 2 * macs;
            nb.print(fmt::format("{:<18}: {:.1e} FLOPS", size, flops));
        }
        nb.note("The notebook's next cells (the largest batch that fits, tokens per second, model FLOPs\n"
                "utilisation against an A100's peak) need a CUDA GPU and are not reproduced.");
    });
}
