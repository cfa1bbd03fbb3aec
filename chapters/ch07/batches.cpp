// 7.3 Organizing data into training batches: custom_collate_fn's drafts and the final one (padding
// with <|endoftext|> 50256, targets shifted, ignore_index -100 for all but the first padding), and
// cross_entropy skipping the targets of -100.
#include <string>
#include <vector>

#include "llmfs/app/cli.hpp"
#include "llmfs/torch/loss.hpp"
#include "llmfs/torch/print.hpp"
#include "llmfs/train/instruction.hpp"

using namespace llmfs;

namespace {

// print(tensor) of a batch's inputs or targets [B, T]
std::string batch_text(const Batch& batch, const std::vector<std::int64_t>& ids) { return format_tensor({batch.B, batch.T}, ids.data()); }

// print(F.cross_entropy(logits, targets)): logits [N, V], a 0-D tensor
float cross_entropy_of(const std::vector<float>& logits, std::size_t V, const std::vector<std::int64_t>& targets) {
    return cross_entropy(logits.data(), targets.size(), V, targets.data());
}

}  // namespace

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "7.3 Organizing data into training batches", [](Notebook& nb, Generator&) {
        nb.section("7.3 Organizing data into training batches");
        nb.code("import torch\n"
                "from torch.utils.data import Dataset\n"
                "\n"
                "\n"
                "class InstructionDataset(Dataset):\n"
                "    def __init__(self, data, tokenizer):\n"
                "        self.data = data\n"
                "\n"
                "        # Pre-tokenize texts\n"
                "        self.encoded_texts = []\n"
                "        for entry in data:\n"
                "            instruction_plus_input = format_input(entry)\n"
                "            response_text = f\"\\n\\n### Response:\\n{entry['output']}\"\n"
                "            full_text = instruction_plus_input + response_text\n"
                "            self.encoded_texts.append(\n"
                "                tokenizer.encode(full_text)\n"
                "            )\n"
                "\n"
                "    def __getitem__(self, index):\n"
                "        return self.encoded_texts[index]\n"
                "\n"
                "    def __len__(self):\n"
                "        return len(self.data)");
        nb.code("import tiktoken\n"
                "tokenizer = tiktoken.get_encoding(\"gpt2\")\n"
                "\n"
                "print(tokenizer.encode(\"<|endoftext|>\", allowed_special={\"<|endoftext|>\"}))");
        const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
        nb.print(tokenizer.encode("<|endoftext|>"));

        nb.code("def custom_collate_draft_1(\n"
                "    batch,\n"
                "    pad_token_id=50256,\n"
                "    device=\"cpu\"\n"
                "):\n"
                "    # Find the longest sequence in the batch\n"
                "    # and increase the max length by +1, which will add one extra\n"
                "    # padding token below\n"
                "    batch_max_length = max(len(item)+1 for item in batch)\n"
                "\n"
                "    # Pad and prepare inputs\n"
                "    inputs_lst = []\n"
                "\n"
                "    for item in batch:\n"
                "        new_item = item.copy()\n"
                "        # Add an <|endoftext|> token\n"
                "        new_item += [pad_token_id]\n"
                "        # Pad sequences to batch_max_length\n"
                "        padded = (\n"
                "            new_item + [pad_token_id] *\n"
                "            (batch_max_length - len(new_item))\n"
                "        )\n"
                "        # Via padded[:-1], we remove the extra padded token\n"
                "        # that has been added via the +1 setting in batch_max_length\n"
                "        # (the extra padding token will be relevant in later codes)\n"
                "        inputs = torch.tensor(padded[:-1])\n"
                "        inputs_lst.append(inputs)\n"
                "\n"
                "    # Convert list of inputs to tensor and transfer to target device\n"
                "    inputs_tensor = torch.stack(inputs_lst).to(device)\n"
                "    return inputs_tensor");
        CollateOptions draft;  // custom_collate_draft_1 and _2: no ignore_index yet
        draft.mask_padding = false;
        nb.code("inputs_1 = [0, 1, 2, 3, 4]\n"
                "inputs_2 = [5, 6]\n"
                "inputs_3 = [7, 8, 9]\n"
                "\n"
                "batch = (\n"
                "    inputs_1,\n"
                "    inputs_2,\n"
                "    inputs_3\n"
                ")\n"
                "\n"
                "print(custom_collate_draft_1(batch))");
        const std::vector<std::int64_t> inputs_1{0, 1, 2, 3, 4}, inputs_2{5, 6}, inputs_3{7, 8, 9};
        const std::vector<const std::vector<std::int64_t>*> batch{&inputs_1, &inputs_2, &inputs_3};
        Batch collated = custom_collate(batch, draft);
        nb.print(batch_text(collated, collated.inputs));

        nb.code("def custom_collate_draft_2(\n"
                "    batch,\n"
                "    pad_token_id=50256,\n"
                "    device=\"cpu\"\n"
                "):\n"
                "    # Find the longest sequence in the batch\n"
                "    batch_max_length = max(len(item)+1 for item in batch)\n"
                "\n"
                "    # Pad and prepare inputs\n"
                "    inputs_lst, targets_lst = [], []\n"
                "\n"
                "    for item in batch:\n"
                "        new_item = item.copy()\n"
                "        # Add an <|endoftext|> token\n"
                "        new_item += [pad_token_id]\n"
                "        # Pad sequences to max_length\n"
                "        padded = (\n"
                "            new_item + [pad_token_id] *\n"
                "            (batch_max_length - len(new_item))\n"
                "        )\n"
                "        inputs = torch.tensor(padded[:-1])  # Truncate the last token for inputs\n"
                "        targets = torch.tensor(padded[1:])  # Shift +1 to the right for targets\n"
                "        inputs_lst.append(inputs)\n"
                "        targets_lst.append(targets)\n"
                "\n"
                "    # Convert list of inputs to tensor and transfer to target device\n"
                "    inputs_tensor = torch.stack(inputs_lst).to(device)\n"
                "    targets_tensor = torch.stack(targets_lst).to(device)\n"
                "    return inputs_tensor, targets_tensor");
        nb.code("inputs, targets = custom_collate_draft_2(batch)\n"
                "print(inputs)\n"
                "print(targets)");
        collated = custom_collate(batch, draft);
        nb.print(batch_text(collated, collated.inputs));
        nb.print(batch_text(collated, collated.targets));

        nb.code("def custom_collate_fn(\n"
                "    batch,\n"
                "    pad_token_id=50256,\n"
                "    ignore_index=-100,\n"
                "    allowed_max_length=None,\n"
                "    device=\"cpu\"\n"
                "):\n"
                "    # Find the longest sequence in the batch\n"
                "    batch_max_length = max(len(item)+1 for item in batch)\n"
                "\n"
                "    # Pad and prepare inputs and targets\n"
                "    inputs_lst, targets_lst = [], []\n"
                "\n"
                "    for item in batch:\n"
                "        new_item = item.copy()\n"
                "        # Add an <|endoftext|> token\n"
                "        new_item += [pad_token_id]\n"
                "        # Pad sequences to max_length\n"
                "        padded = (\n"
                "            new_item + [pad_token_id] *\n"
                "            (batch_max_length - len(new_item))\n"
                "        )\n"
                "        inputs = torch.tensor(padded[:-1])  # Truncate the last token for inputs\n"
                "        targets = torch.tensor(padded[1:])  # Shift +1 to the right for targets\n"
                "\n"
                "        # New: Replace all but the first padding tokens in targets by ignore_index\n"
                "        mask = targets == pad_token_id\n"
                "        indices = torch.nonzero(mask).squeeze()\n"
                "        if indices.numel() > 1:\n"
                "            targets[indices[1:]] = ignore_index\n"
                "\n"
                "        # New: Optionally truncate to maximum sequence length\n"
                "        if allowed_max_length is not None:\n"
                "            inputs = inputs[:allowed_max_length]\n"
                "            targets = targets[:allowed_max_length]\n"
                "\n"
                "        inputs_lst.append(inputs)\n"
                "        targets_lst.append(targets)\n"
                "\n"
                "    # Convert list of inputs and targets to tensors and transfer to target device\n"
                "    inputs_tensor = torch.stack(inputs_lst).to(device)\n"
                "    targets_tensor = torch.stack(targets_lst).to(device)\n"
                "\n"
                "    return inputs_tensor, targets_tensor");
        nb.code("inputs, targets = custom_collate_fn(batch)\n"
                "print(inputs)\n"
                "print(targets)");
        collated = custom_collate(batch);
        nb.print(batch_text(collated, collated.inputs));
        nb.print(batch_text(collated, collated.targets));

        nb.code("logits_1 = torch.tensor(\n"
                "    [[-1.0, 1.0],  # 1st training example\n"
                "     [-0.5, 1.5]]  # 2nd training example\n"
                ")\n"
                "targets_1 = torch.tensor([0, 1])\n"
                "\n"
                "\n"
                "loss_1 = torch.nn.functional.cross_entropy(logits_1, targets_1)\n"
                "print(loss_1)");
        const std::vector<float> logits_1{-1.0f, 1.0f,   // 1st training example
                                          -0.5f, 1.5f};  // 2nd training example   [N=2, V=2]
        const std::vector<std::int64_t> targets_1{0, 1};
        const float loss_1 = cross_entropy_of(logits_1, 2, targets_1);
        nb.print(format_tensor({}, &loss_1));

        nb.code("logits_2 = torch.tensor(\n"
                "    [[-1.0, 1.0],\n"
                "     [-0.5, 1.5],\n"
                "     [-0.5, 1.5]]  # New 3rd training example\n"
                ")\n"
                "targets_2 = torch.tensor([0, 1, 1])\n"
                "\n"
                "loss_2 = torch.nn.functional.cross_entropy(logits_2, targets_2)\n"
                "print(loss_2)");
        const std::vector<float> logits_2{-1.0f, 1.0f, -0.5f, 1.5f,
                                          -0.5f, 1.5f};  // New 3rd training example   [N=3, V=2]
        const std::vector<std::int64_t> targets_2{0, 1, 1};
        const float loss_2 = cross_entropy_of(logits_2, 2, targets_2);
        nb.print(format_tensor({}, &loss_2));

        nb.code("targets_3 = torch.tensor([0, 1, -100])\n"
                "\n"
                "loss_3 = torch.nn.functional.cross_entropy(logits_2, targets_3)\n"
                "print(loss_3)\n"
                "print(\"loss_1 == loss_3:\", loss_1 == loss_3)");
        const std::vector<std::int64_t> targets_3{0, 1, kIgnoreIndex};
        const float loss_3 = cross_entropy_of(logits_2, 2, targets_3);
        nb.print(format_tensor({}, &loss_3));
        nb.print("loss_1 == loss_3:", loss_1 == loss_3 ? "tensor(True)" : "tensor(False)");
    });
}
