#include "llmfs/app/script.hpp"

#include <array>
#include <iostream>
#include <vector>

#include <fmt/format.h>
#include <xtensor/xadapt.hpp>
#include <xtensor/xview.hpp>

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

}  // namespace llmfs
