// 4.1 Coding an LLM architecture: the placeholder GPT model
#include "llmfs/cli.hpp"
#include "llmfs/gpt.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "4.1 Coding an LLM architecture", [](Notebook& nb, Generator& gen) {
        nb.section("4.1 Coding an LLM architecture");
        nb.code("tokenizer = tiktoken.get_encoding(\"gpt2\")\nbatch = torch.stack([torch.tensor(tokenizer.encode(txt1)), "
                "torch.tensor(tokenizer.encode(txt2))], dim=0)\nprint(batch)");
        const auto tokenizer = Gpt2Tokenizer::load_default();
        const IdArray<2> batch = encode_batch(tokenizer, {"Every effort moves you", "Every day holds a"});  // [B=2, T=4]
        nb.print(batch);

        nb.code("torch.manual_seed(123)\nmodel = DummyGPTModel(GPT_CONFIG_124M)\nlogits = model(batch)");
        gen.manual_seed(123);
        const DummyGPTModel model(gen, GPTConfig::gpt2_small());
        const auto logits = model.forward(batch);  // [B, T, V]; training mode: dropout is active
        nb.print("Output shape:", shape_of(logits));
        nb.print(logits);
    });
}
