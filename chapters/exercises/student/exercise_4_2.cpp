// Exercise 4.2: Initializing larger GPT models
//
// The problem: chapter 4 builds GPT-2 small (768-dimensional embeddings, 12 transformer blocks, 12
// attention heads). The larger GPT-2 models differ only in these three numbers: medium has 1024, 24
// and 16, large 1280, 36 and 20, XL 1600, 48 and 25. Write the configuration of each size, build each
// model, and print its number of parameters, the number when the output layer shares its weights
// with the token embedding (weight tying), and the model's size in MB as float32 numbers.
//
// The chapter's code around it (ch04.ipynb, section 4.6: GPT-2 small, its parameters and size):
//   model = GPTModel(GPT_CONFIG_124M)
//   total_params = sum(p.numel() for p in model.parameters())
//   print(f"Total number of parameters: {total_params:,}")
//   total_params_gpt2 =  total_params - sum(p.numel() for p in model.out_head.parameters())
//   print(f"Number of trainable parameters considering weight tying: {total_params_gpt2:,}")
//   total_size_bytes = total_params * 4
//   total_size_mb = total_size_bytes / (1024 * 1024)
//   print(f"Total size of the model: {total_size_mb:.2f} MB")
//
// Each model is built for real, one at a time, as the notebook does: GPT-2 XL takes about 6.5 GB.
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"
#include "llmfs/nn/gpt.hpp"

using namespace llmfs;

// get_config(GPT_CONFIG_124M, model_name): GPT_CONFIG_124M with the embedding size, number of
// blocks and number of heads of model_name ("gpt2-small" ... "gpt2-xl").
static GPTConfig get_config(const std::string& model_name) {
    GPTConfig config;  // GPT_CONFIG_124M
    // TODO(exercise 4.2): set config.emb_dim, n_layers and n_heads for model_name; throw std::invalid_argument for an unknown name
    exercise_todo("4.2", "set config.emb_dim, n_layers and n_heads for model_name; throw std::invalid_argument for an unknown name");
}

// calculate_size(model), based on the chapter code (section 4.6)
static void calculate_size(Notebook& nb, const GPTModel& model) {
    const std::size_t total_params = model.num_parameters();
    nb.print(fmt::format("Total number of parameters: {}", with_commas(total_params)));
    const std::size_t total_params_gpt2 = total_params - model.out_head.num_parameters();
    nb.print(fmt::format("Number of trainable parameters considering weight tying: {}", with_commas(total_params_gpt2)));
    const double total_size_mb = static_cast<double>(total_params * 4) / (1024 * 1024);  // float32: 4 bytes each
    nb.print(fmt::format("Total size of the model: {:.2f} MB", total_size_mb));
}

// --variant 1 (llmfs-exercise grade): get_config's sizes for each name in another order, without
// building the models (XL alone needs 6.5 GB), and an unknown name, which must throw
// std::invalid_argument.
static void print_configs(Notebook& nb) {
    for (const char* model_name : {"gpt2-large", "gpt2-small", "gpt2-xl", "gpt2-medium", "gpt2-tiny"}) {
        try {
            const GPTConfig cfg = get_config(model_name);
            nb.print(fmt::format("{}: emb_dim {}, n_layers {}, n_heads {}, vocab_size {}, context_length {}", model_name, cfg.emb_dim,
                                 cfg.n_layers, cfg.n_heads, cfg.vocab_size, cfg.context_length));
        } catch (const std::invalid_argument&) {
            nb.print(fmt::format("{}: std::invalid_argument", model_name));
        }
    }
}

int main(int argc, char** argv) {
    return run_exercise(argc, argv, "Exercise 4.2: initializing larger GPT models (builds GPT-2 small to XL; XL needs 6.5 GB)", 1,
                       [](Notebook& nb, Generator& gen, int variant) {
        nb.section("Exercise 4.2: Initializing larger GPT models");
        if (variant) {
            nb.note("--variant 1: get_config for each name, in another order, and for an unknown one");
            print_configs(nb);
            return;
        }
        // (The notebook's cell before defines get_config and calculate_size: get_config is the answer.)
        nb.added_code("# exercise 4.2: for GPT-2 small, medium, large and XL: the model of get_config's configuration,\n"
                      "# its name, and calculate_size of it");
        for (const char* model_abbrev : {"small", "medium", "large", "xl"}) {
            const std::string model_name = fmt::format("gpt2-{}", model_abbrev);
            const GPTModel model(gen, get_config(model_name));  // freed before the next size is built
            nb.print(fmt::format("\n\n{}:", model_name));
            calculate_size(nb, model);
        }
    });
}
