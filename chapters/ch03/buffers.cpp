// Bonus: ch03/03_understanding-buffers, understanding-buffers.ipynb. Why chapter 3's
// CausalAttention registers its mask as a buffer: the notebook builds the class twice, with the
// mask as a plain attribute and as a registered buffer, and shows what changes. On a GPU a plain
// attribute stays behind when the module moves (the book's RuntimeError); on this CPU-only
// program every tensor is on the CPU, as when the notebook runs without a GPU. What shows on any
// machine: only the buffer is part of state_dict(), so only it survives a save and load.
#include "llmfs/app/cli.hpp"
#include "llmfs/nn/attention.hpp"
#include "llmfs/nn/buffers.hpp"

using namespace llmfs;

namespace {

const char* const kClassCode = "class CausalAttentionWithoutBuffers(nn.Module):\n    ...";
const char* const kForwardCode = "with torch.no_grad():\n    context_vecs = ca_without_buffer(batch)\n\nprint(context_vecs)";

// with torch.no_grad(): module(batch): the result has no autograd history, so it prints plain.
template <class Module>
Tensor<3> no_grad_forward(const Module& module, const Tensor<3>& batch) {
    return Tensor<3>(module.forward(batch).data);
}

}  // namespace

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "Bonus 3: understanding PyTorch buffers (ch03/03_understanding-buffers)",
                       [](Notebook& nb, Generator& gen) {
        nb.section("Using PyTorch modules without buffers");
        nb.code(kClassCode);
        nb.code("torch.manual_seed(123)\n"
                "inputs = torch.tensor(...)  # \"Your journey starts with one step\"\n"
                "batch = torch.stack((inputs, inputs), dim=0)\n"
                "context_length = batch.shape[1]\n"
                "d_in = inputs.shape[1]\n"
                "d_out = 2\n"
                "ca_without_buffer = CausalAttentionWithoutBuffers(d_in, d_out, context_length, 0.0)\n"
                "\n" + std::string(kForwardCode));
        gen.manual_seed(123);
        const Tensor<2> inputs = your_journey_inputs();     // [T=6, d_in=3]
        const Tensor<3> batch = stack<2>({inputs, inputs});  // [B=2, T=6, d_in=3]
        const std::size_t context_length = batch.size(1), d_in = inputs.size(1), d_out = 2;
        CausalAttentionWithoutBuffers ca_without_buffer(gen, d_in, d_out, context_length, 0.0);
        nb.print(no_grad_forward(ca_without_buffer, batch));

        nb.code("has_cuda = torch.cuda.is_available()\n"
                "has_mps = torch.backends.mps.is_available()\n"
                "print(\"Machine has GPU:\", has_cuda or has_mps)\n"
                "...\n"
                "print(f\"Using device: {device}\")\n"
                "batch = batch.to(device)\n"
                "ca_without_buffer = ca_without_buffer.to(device)");
        nb.note("The book ran on a CUDA GPU: \"Machine has GPU: True\", \"Using device: cuda\". This program has\n"
                "one device, the CPU, so it prints what the notebook prints on a machine without a GPU.");
        nb.print("Machine has GPU:", "False");
        nb.print("Using device: cpu");

        nb.code(kForwardCode);
        nb.note("On CUDA the book shows \"RuntimeError: expected self and mask to be on the same device, but got\n"
                "mask on cpu and self on cuda:0\": .to(device) moved the weights but not the plain attribute.\n"
                "On the CPU nothing moves, and the forward pass works.");
        nb.print(no_grad_forward(ca_without_buffer, batch));

        nb.code("print(\"W_query.device:\", ca_without_buffer.W_query.weight.device)\n"
                "print(\"mask.device:\", ca_without_buffer.mask.device)");
        nb.note("The book: W_query.device: cuda:0 and mask.device: cpu.");
        nb.print("W_query.device:", "cpu");
        nb.print("mask.device:", "cpu");
        nb.code("type(ca_without_buffer.mask)");
        nb.print("torch.Tensor");  // IPython shows a class as module.name
        nb.code("ca_without_buffer.mask = ca_without_buffer.mask.to(device)\n"
                "print(\"mask.device:\", ca_without_buffer.mask.device)");
        nb.print("mask.device:", "cpu");
        nb.code(kForwardCode);
        nb.note("The book's tensor ends with \", device='cuda:0')\".");
        nb.print(no_grad_forward(ca_without_buffer, batch));

        nb.section("Using PyTorch modules with buffers");
        nb.code("class CausalAttentionWithBuffer(nn.Module):\n"
                "    ...\n"
                "        self.register_buffer(\"mask\", torch.triu(torch.ones(context_length, context_length), diagonal=1))");
        nb.code("ca_with_buffer = CausalAttentionWithBuffer(d_in, d_out, context_length, 0.0)\n"
                "ca_with_buffer.to(device)\n"
                "\n"
                "print(\"W_query.device:\", ca_with_buffer.W_query.weight.device)\n"
                "print(\"mask.device:\", ca_with_buffer.mask.device)");
        nb.note("The book: cuda:0 for both (the buffer moved with the module).");
        CausalAttentionWithBuffer ca_with_buffer(gen, d_in, d_out, context_length, 0.0);
        nb.print("W_query.device:", "cpu");
        nb.print("mask.device:", "cpu");
        nb.code("with torch.no_grad():\n    context_vecs = ca_with_buffer(batch)\n\nprint(context_vecs)");
        nb.print(no_grad_forward(ca_with_buffer, batch));

        nb.section("Buffers and state_dict");
        nb.code("ca_without_buffer.state_dict()");
        nb.display(ca_without_buffer.state_dict());  // the weights only: a plain attribute is not state
        nb.code("ca_with_buffer.state_dict()");
        nb.note("The book's tensors end with \", device='cuda:0')\" here and in the next cell.");
        nb.display(ca_with_buffer.state_dict());  // the mask first, then the weights

        nb.code("ca_with_buffer.mask[ca_with_buffer.mask == 1.] = 2.\n"
                "ca_with_buffer.mask");
        ca_with_buffer.mask = xt::where(xt::equal(ca_with_buffer.mask, 1.0f), 2.0f, ca_with_buffer.mask);
        nb.print(Tensor<2>(ca_with_buffer.mask));

        nb.code("torch.save(ca_with_buffer.state_dict(), \"model.pth\")\n"
                "\n"
                "new_ca_with_buffer = CausalAttentionWithBuffer(d_in, d_out, context_length, 0.0)\n"
                "new_ca_with_buffer.load_state_dict(torch.load(\"model.pth\"))\n"
                "\n"
                "new_ca_with_buffer.mask");
        nb.note("Saved in memory here: a state_dict is the list of names and tensors torch.save writes.");
        const StateDict saved_with = ca_with_buffer.state_dict();
        CausalAttentionWithBuffer new_ca_with_buffer(gen, d_in, d_out, context_length, 0.0);
        new_ca_with_buffer.load_state_dict(saved_with);
        nb.print(Tensor<2>(new_ca_with_buffer.mask));  // the 2s came back with the weights

        nb.code("ca_without_buffer.mask[ca_without_buffer.mask == 1.] = 2.\n"
                "\n"
                "torch.save(ca_without_buffer.state_dict(), \"model.pth\")\n"
                "\n"
                "new_ca_without_buffer = CausalAttentionWithoutBuffers(d_in, d_out, context_length, 0.0)\n"
                "new_ca_without_buffer.load_state_dict(torch.load(\"model.pth\"))\n"
                "\n"
                "new_ca_without_buffer.mask");
        ca_without_buffer.mask = xt::where(xt::equal(ca_without_buffer.mask, 1.0f), 2.0f, ca_without_buffer.mask);
        const StateDict saved_without = ca_without_buffer.state_dict();
        CausalAttentionWithoutBuffers new_ca_without_buffer(gen, d_in, d_out, context_length, 0.0);
        new_ca_without_buffer.load_state_dict(saved_without);
        nb.print(Tensor<2>(new_ca_without_buffer.mask));  // still 1s: the changed mask was never saved
    });
}
