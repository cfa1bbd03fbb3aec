// 4.1 Coding an LLM architecture: the placeholder GPT model
#include "llmfs/app/cli.hpp"
#include "llmfs/nn/gpt.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "4.1 Coding an LLM architecture", [](Notebook& nb, Generator& gen) {
        nb.section("4.1 Coding an LLM architecture");
        nb.code("GPT_CONFIG_124M = {\n"
                "    \"vocab_size\": 50257,    # Vocabulary size\n"
                "    \"context_length\": 1024, # Context length\n"
                "    \"emb_dim\": 768,         # Embedding dimension\n"
                "    \"n_heads\": 12,          # Number of attention heads\n"
                "    \"n_layers\": 12,         # Number of layers\n"
                "    \"drop_rate\": 0.1,       # Dropout rate\n"
                "    \"qkv_bias\": False       # Query-Key-Value bias\n"
                "}");
        const GPTConfig cfg = GPTConfig::gpt2_small();

        nb.code("import tiktoken\n"
                "\n"
                "tokenizer = tiktoken.get_encoding(\"gpt2\")\n"
                "\n"
                "batch = []\n"
                "\n"
                "txt1 = \"Every effort moves you\"\n"
                "txt2 = \"Every day holds a\"\n"
                "\n"
                "batch.append(torch.tensor(tokenizer.encode(txt1)))\n"
                "batch.append(torch.tensor(tokenizer.encode(txt2)))\n"
                "batch = torch.stack(batch, dim=0)\n"
                "print(batch)");
        const auto tokenizer = Gpt2Tokenizer::load_default();
        const IdArray<2> batch = encode_batch(tokenizer, {"Every effort moves you", "Every day holds a"});  // [B=2, T=4]
        nb.print(batch);

        nb.code("torch.manual_seed(123)\n"
                "model = DummyGPTModel(GPT_CONFIG_124M)\n"
                "\n"
                "logits = model(batch)\n"
                "print(\"Output shape:\", logits.shape)\n"
                "print(logits)");
        gen.manual_seed(123);
        const DummyGPTModel model(gen, cfg);
        const auto logits = model.forward(batch);  // [B, T, V]; training mode: dropout is active
        nb.print("Output shape:", shape_of(logits));
        nb.print(logits);
    });
}
