// The buffers notebook's two classes: the same forward pass as chapter 3's CausalAttention, and
// state_dict()/load_state_dict() as PyTorch's (which names, in which order, what a strict load
// refuses). ch03_buffers' golden checks the printed values against the notebook run by PyTorch.
#include <catch2/catch.hpp>

#include "llmfs/nn/attention.hpp"
#include "llmfs/nn/buffers.hpp"

using namespace llmfs;

namespace {

std::vector<std::string> names(const StateDict& state) {
    std::vector<std::string> out;
    for (const auto& entry : state) out.push_back(entry.first);
    return out;
}

}  // namespace

TEST_CASE("both classes compute chapter 3's CausalAttention, and a mask of 2s masks as one of 1s") {
    Generator g1, g2;
    g1.manual_seed(123);
    g2.manual_seed(123);
    CausalAttentionWithBuffer with_buffer(g1, 3, 2, 6, 0.0);
    const CausalAttention chapter3(g2, 3, 2, 6, 0.0);
    const Tensor<2> inputs = your_journey_inputs();
    const Tensor<3> batch = stack<2>({inputs, inputs});
    const Array<3> expected = chapter3.forward(batch).data;
    CHECK((with_buffer.forward(batch).data == expected));
    with_buffer.mask = with_buffer.mask * 2.0f;
    CHECK((with_buffer.forward(batch).data == expected));
}

TEST_CASE("state_dict: a registered buffer comes first, a plain attribute not at all") {
    Generator gen;
    const CausalAttentionWithoutBuffers without(gen, 3, 2, 6, 0.0);
    const CausalAttentionWithBuffer with(gen, 3, 2, 6, 0.0, /*qkv_bias=*/true);
    CHECK(names(without.state_dict()) == std::vector<std::string>{"W_query.weight", "W_key.weight", "W_value.weight"});
    CHECK(names(with.state_dict()) == std::vector<std::string>{"mask", "W_query.weight", "W_query.bias", "W_key.weight",
                                                               "W_key.bias", "W_value.weight", "W_value.bias"});
    const StateDict state = with.state_dict();
    CHECK((state[0].second == with.mask));
    CHECK((state[1].second == with.W_query.weight.data));
}

TEST_CASE("load_state_dict copies every entry, and refuses missing, unexpected and mis-shaped keys") {
    Generator gen;
    CausalAttentionWithBuffer source(gen, 3, 2, 6, 0.0);
    source.mask = source.mask * 2.0f;
    CausalAttentionWithBuffer target(gen, 3, 2, 6, 0.0);
    target.load_state_dict(source.state_dict());
    CHECK((target.mask == source.mask));
    CHECK((target.W_value.weight.data == source.W_value.weight.data));

    CausalAttentionWithoutBuffers plain(gen, 3, 2, 6, 0.0);
    CHECK_THROWS_WITH(target.load_state_dict(plain.state_dict()),
                      "Error(s) in loading state_dict for CausalAttentionWithBuffer:\n\tMissing key(s) in state_dict: \"mask\".");
    CHECK_THROWS_WITH(plain.load_state_dict(source.state_dict()),
                      "Error(s) in loading state_dict for CausalAttentionWithoutBuffers:\n\tUnexpected key(s) in state_dict: \"mask\".");
    const CausalAttentionWithBuffer wider(gen, 3, 4, 6, 0.0);
    CHECK_THROWS_WITH(target.load_state_dict(wider.state_dict()),
                      Catch::Contains("size mismatch for W_query.weight: copying a param with shape torch.Size([4, 3]) from "
                                      "checkpoint, the shape in current model is torch.Size([2, 3])."));
    CHECK((target.mask == source.mask));  // a refused load changes nothing
}
