// llmfs-bench: how long the expensive steps take, for the closing notes and for spotting
// regressions (benchmarks, not timed tests). Each step is timed over --repeat runs; the best
// and the median are printed.
#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <xtensor/xadapt.hpp>

#include "llmfs/cli.hpp"
#include "llmfs/gpt.hpp"

using namespace llmfs;

namespace {

void time_step(const std::string& name, int repeat, const std::function<void()>& step) {
    std::vector<double> seconds;
    for (int i = 0; i < repeat; ++i) {
        const auto start = std::chrono::steady_clock::now();
        step();
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(seconds.begin(), seconds.end());
    std::cout << fmt::format("{:<44} best {:8.3f} s   median {:8.3f} s\n", name, seconds.front(), seconds[seconds.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Time the tokenizer, the GPT-2 build, a training-mode forward pass and greedy generation.", "llmfs-bench"};
    int repeat = 3;
    std::string model_name = "gpt2-small";
    app.add_option("--repeat", repeat, "runs per step")->capture_default_str()->check(CLI::Range(1, 100));
    app.add_option("--model", model_name, "model size")
        ->capture_default_str()
        ->check(CLI::IsMember({"gpt2-small", "gpt2-medium", "gpt2-large", "gpt2-xl"}));
    return run_tool(app, argc, argv, [&] {
        const GPTConfig cfg = GPTConfig::by_name(model_name);
        std::optional<Gpt2Tokenizer> tokenizer;
        time_step("load tokenizer (with SHA-256 checks)", repeat, [&] { tokenizer = Gpt2Tokenizer::load_default(); });
        const IdArray<2> batch = encode_batch(*tokenizer, {"Every effort moves you", "Every day holds a"});

        Generator gen;
        std::optional<GPTModel> model;
        time_step(fmt::format("build {} (seed 123)", model_name), repeat, [&] {
            model.reset();
            gen.manual_seed(123);
            model.emplace(gen, cfg);
        });
        time_step("forward [2, 4], training mode", repeat, [&] { model->forward(batch); });
        model->train(false);
        const auto prompt = tokenizer->encode("Hello, I am");
        const IdArray<2> idx = xt::adapt(prompt, std::array<std::size_t, 2>{1, prompt.size()});
        time_step("generate 6 tokens from \"Hello, I am\"", repeat,
                  [&] { generate_text_simple(*model, idx, 6, cfg.context_length); });
        return 0;
    });
}
