// 5.3 Decoding strategies to control randomness: the cells that need no trained model (the toy
// 9-word vocabulary: argmax, torch.multinomial, temperature scaling, top-k).
//
// torch.multinomial draws through PyTorch's default CPU exponential_ kernel in both --bernoulli
// modes: the book's outputs were made with it (as are 2.7+ wheels'), while the MKL draws of the
// x86-64 wheels 2.0-2.6 could not be verified (common/torch/sampling.hpp).
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <xtensor/xadapt.hpp>

#include "llmfs/app/cli.hpp"
#include "llmfs/torch/ops.hpp"
#include "llmfs/torch/sampling.hpp"

using namespace llmfs;

namespace {

const char* const kSamplingNote =
    "torch.multinomial follows PyTorch's default CPU exponential_ kernel with --bernoulli mkl too: the\n"
    "book's outputs come from it; MKL's (x86-64 wheels 2.0-2.6) could not be verified.";

// The cell's print_sampled_tokens(probas): 1,000 draws after torch.manual_seed(123), counted per id
// (torch.bincount(..., minlength=len(probas))), printed as f"{freq} x {inverse_vocab[i]}".  probas [V]
void print_sampled_tokens(Notebook& nb, Generator& gen, const Tensor<1>& probas, const std::vector<std::string>& inverse_vocab) {
    gen.manual_seed(123);  // Manual seed for reproducibility
    const auto sampled_ids = bincount_samples(gen, probas.data.data(), probas.data.size(), 1'000, probas.data.size());
    for (std::size_t i = 0; i < sampled_ids.size(); ++i) nb.print(fmt::format("{} x {}", sampled_ids[i], inverse_vocab[i]));
}

}  // namespace

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "5.3 Decoding strategies to control randomness (" + std::string(kSamplingNote) + ")",
                       [](Notebook& nb, Generator& gen) {
        nb.section("5.3 Decoding strategies to control randomness");
        nb.note(kSamplingNote);
        nb.section("5.3.1 Temperature scaling");
        nb.code("vocab = { \n"
                "    \"closer\": 0,\n"
                "    \"every\": 1, \n"
                "    \"effort\": 2, \n"
                "    \"forward\": 3,\n"
                "    \"inches\": 4,\n"
                "    \"moves\": 5, \n"
                "    \"pizza\": 6,\n"
                "    \"toward\": 7,\n"
                "    \"you\": 8,\n"
                "} \n"
                "\n"
                "inverse_vocab = {v: k for k, v in vocab.items()}\n"
                "\n"
                "# Suppose input is \"every effort moves you\", and the LLM\n"
                "# returns the following logits for the next token:\n"
                "next_token_logits = torch.tensor(\n"
                "    [4.51, 0.89, -1.90, 6.75, 1.63, -1.62, -1.89, 6.28, 1.79]\n"
                ")\n"
                "\n"
                "probas = torch.softmax(next_token_logits, dim=0)\n"
                "next_token_id = torch.argmax(probas).item()\n"
                "\n"
                "# The next generated token is then as follows:\n"
                "print(inverse_vocab[next_token_id])");
        const std::vector<std::string> inverse_vocab{"closer", "every", "effort", "forward", "inches",
                                                     "moves",  "pizza", "toward", "you"};
        const Tensor<1> next_token_logits = Array<1>{4.51f, 0.89f, -1.90f, 6.75f, 1.63f, -1.62f, -1.89f, 6.28f, 1.79f};  // [V=9]
        const Tensor<1> probas = softmax(next_token_logits, 0);
        std::int64_t next_token_id = argmax(probas.data.data(), probas.data.size());  // torch.argmax(probas).item()
        nb.print(inverse_vocab[static_cast<std::size_t>(next_token_id)]);

        nb.code("torch.manual_seed(123)\n"
                "next_token_id = torch.multinomial(probas, num_samples=1).item()\n"
                "print(inverse_vocab[next_token_id])");
        gen.manual_seed(123);
        next_token_id = multinomial_one(gen, probas.data.data(), probas.data.size());
        nb.print(inverse_vocab[static_cast<std::size_t>(next_token_id)]);

        nb.code("def print_sampled_tokens(probas):\n"
                "    torch.manual_seed(123) # Manual seed for reproducibility\n"
                "    sample = [torch.multinomial(probas, num_samples=1).item() for i in range(1_000)]\n"
                "    sampled_ids = torch.bincount(torch.tensor(sample), minlength=len(probas))\n"
                "    for i, freq in enumerate(sampled_ids):\n"
                "        print(f\"{freq} x {inverse_vocab[i]}\")\n"
                "\n"
                "print_sampled_tokens(probas)");
        print_sampled_tokens(nb, gen, probas, inverse_vocab);

        nb.code("def softmax_with_temperature(logits, temperature):\n"
                "    scaled_logits = logits / temperature\n"
                "    return torch.softmax(scaled_logits, dim=0)\n"
                "\n"
                "# Temperature values\n"
                "temperatures = [1, 0.1, 5]  # Original, higher confidence, and lower confidence\n"
                "\n"
                "# Calculate scaled probabilities\n"
                "scaled_probas = [softmax_with_temperature(next_token_logits, T) for T in temperatures]");
        std::vector<Tensor<1>> scaled_probas;
        for (const double T : {1.0, 0.1, 5.0}) scaled_probas.push_back(softmax_with_temperature(next_token_logits, T));
        nb.note("The bar plot of scaled_probas (the next cell) is left out.");

        nb.code("print_sampled_tokens(scaled_probas[1])");
        print_sampled_tokens(nb, gen, scaled_probas[1], inverse_vocab);

        nb.code("print_sampled_tokens(scaled_probas[2])");
        print_sampled_tokens(nb, gen, scaled_probas[2], inverse_vocab);

        nb.section("5.3.2 Top-k sampling");
        nb.code("top_k = 3\n"
                "top_logits, top_pos = torch.topk(next_token_logits, top_k)\n"
                "\n"
                "print(\"Top logits:\", top_logits)\n"
                "print(\"Top positions:\", top_pos)");
        const std::size_t top_k = 3;
        const TopK top = topk(next_token_logits.data.data(), next_token_logits.data.size(), top_k);
        const Tensor<1> top_logits = Array<1>(xt::adapt(top.values, {top_k}));   // [k]
        const IdArray<1> top_pos = xt::adapt(top.positions, {top_k});            // [k]
        nb.print("Top logits:", top_logits);
        nb.print("Top positions:", top_pos);

        nb.code("new_logits = torch.where(\n"
                "    condition=next_token_logits < top_logits[-1],\n"
                "    input=torch.tensor(float(\"-inf\")), \n"
                "    other=next_token_logits\n"
                ")\n"
                "\n"
                "print(new_logits)");
        Tensor<1> new_logits = next_token_logits;  // [V]
        mask_below_(new_logits.data.data(), new_logits.data.size(), top.values.back());
        nb.print(new_logits);

        nb.code("topk_probas = torch.softmax(new_logits, dim=0)\n"
                "print(topk_probas)");
        const Tensor<1> topk_probas = softmax(new_logits, 0);
        nb.print(topk_probas);

        nb.section("5.3.3 Modifying the text generation function");
        nb.note("The book's generate() (the next cell) is llmfs::generate in common/nn/gpt.hpp, its step\n"
                "llmfs::next_token in common/torch/sampling.hpp; llmfs-generate --temperature 1.4 --top-k 25 runs it.");
    });
}
