// 7.4 Creating data loaders for an instruction dataset: the loaders of the 85/10/5 split (batch 8,
// custom_collate_fn with allowed_max_length 1024, the training loader shuffled after
// torch.manual_seed(123) and dropping its last partial batch), the training batches' shapes, and
// the last batch's first input and target.
#include <string>

#include <fmt/format.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/torch/print.hpp"
#include "llmfs/train/instruction.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "7.4 Creating data loaders for an instruction dataset", [](Notebook& nb, Generator& gen) {
        const std::vector<InstructionEntry> data = load_instruction_data(default_instruction_data_path());
        const InstructionSplit split = split_instruction_data(data);
        const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();

        nb.section("7.4 Creating data loaders for an instruction dataset");
        nb.code("if torch.cuda.is_available():\n"
                "    device = torch.device(\"cuda\")\n"
                "elif torch.backends.mps.is_available():\n"
                "    # Use PyTorch 2.9 or newer for stable mps results\n"
                "    major, minor = map(int, torch.__version__.split(\".\")[:2])\n"
                "    if (major, minor) >= (2, 9):\n"
                "        device = torch.device(\"mps\")\n"
                "    else:\n"
                "        device = torch.device(\"cpu\")\n"
                "else:\n"
                "    device = torch.device(\"cpu\")\n"
                "\n"
                "print(\"Device:\", device)");
        nb.note("The notebook ran on a Mac (Device: mps, device='mps:0' in its tensors); llmfs runs on the CPU.");
        nb.print("Device:", "cpu");

        nb.code("from functools import partial\n"
                "\n"
                "customized_collate_fn = partial(\n"
                "    custom_collate_fn,\n"
                "    device=device,\n"
                "    allowed_max_length=1024\n"
                ")");
        CollateOptions customized_collate_fn;
        customized_collate_fn.allowed_max_length = 1024;

        nb.code("from torch.utils.data import DataLoader\n"
                "\n"
                "\n"
                "num_workers = 0\n"
                "batch_size = 8\n"
                "\n"
                "torch.manual_seed(123)\n"
                "\n"
                "train_dataset = InstructionDataset(train_data, tokenizer)\n"
                "train_loader = DataLoader(\n"
                "    train_dataset,\n"
                "    batch_size=batch_size,\n"
                "    collate_fn=customized_collate_fn,\n"
                "    shuffle=True,\n"
                "    drop_last=True,\n"
                "    num_workers=num_workers\n"
                ")");
        const std::size_t batch_size = 8;
        gen.manual_seed(123);
        const InstructionDataset train_dataset(split.train, tokenizer);
        const InstructionLoader train_loader(train_dataset, batch_size, /*shuffle=*/true, /*drop_last=*/true, customized_collate_fn);

        nb.code("val_dataset = InstructionDataset(val_data, tokenizer)\n"
                "val_loader = DataLoader(\n"
                "    val_dataset,\n"
                "    batch_size=batch_size,\n"
                "    collate_fn=customized_collate_fn,\n"
                "    shuffle=False,\n"
                "    drop_last=False,\n"
                "    num_workers=num_workers\n"
                ")\n"
                "\n"
                "test_dataset = InstructionDataset(test_data, tokenizer)\n"
                "test_loader = DataLoader(\n"
                "    test_dataset,\n"
                "    batch_size=batch_size,\n"
                "    collate_fn=customized_collate_fn,\n"
                "    shuffle=False,\n"
                "    drop_last=False,\n"
                "    num_workers=num_workers\n"
                ")");
        const InstructionDataset val_dataset(split.validation, tokenizer);
        const InstructionLoader val_loader(val_dataset, batch_size, false, false, customized_collate_fn);
        const InstructionDataset test_dataset(split.test, tokenizer);
        const InstructionLoader test_loader(test_dataset, batch_size, false, false, customized_collate_fn);

        nb.code("print(\"Train loader:\")\n"
                "for inputs, targets in train_loader:\n"
                "    print(inputs.shape, targets.shape)");
        nb.print("Train loader:");
        Batch batch;  // inputs, targets [B, T]
        for (auto epoch = train_loader.begin(gen); epoch.next(batch);)
            nb.print(format_size({batch.B, batch.T}), format_size({batch.B, batch.T}));

        nb.code("print(inputs[0])");
        nb.print(format_tensor({batch.T}, batch.inputs.data()));  // inputs[0] [T]
        nb.code("print(targets[0])");
        nb.print(format_tensor({batch.T}, batch.targets.data()));  // targets[0] [T]
    });
}
