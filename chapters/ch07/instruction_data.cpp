// 7.2 Preparing a dataset for supervised instruction finetuning: the book's instruction-data.json
// (data/instruction/, shipped with llmfs: the program never downloads), two entries, the Alpaca
// prompt of format_input, and the 85/10/5 split.
#include <string>

#include "llmfs/app/cli.hpp"
#include "llmfs/train/instruction.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "7.2 Preparing a dataset for supervised instruction finetuning", [](Notebook& nb, Generator&) {
        nb.section("7.2 Preparing a dataset for supervised instruction finetuning");
        nb.code("import json\n"
                "import os\n"
                "import requests\n"
                "\n"
                "\n"
                "def download_and_load_file(file_path, url):\n"
                "    if not os.path.exists(file_path):\n"
                "        response = requests.get(url, timeout=30)\n"
                "        response.raise_for_status()\n"
                "        text_data = response.text\n"
                "        with open(file_path, \"w\", encoding=\"utf-8\") as file:\n"
                "            file.write(text_data)\n"
                "\n"
                "    with open(file_path, \"r\", encoding=\"utf-8\") as file:\n"
                "        data = json.load(file)\n"
                "\n"
                "    return data\n"
                "\n"
                "\n"
                "# The book originally used the following code below\n"
                "# However, urllib uses older protocol settings that\n"
                "# can cause problems for some readers using a VPN.\n"
                "# The `requests` version above is more robust\n"
                "# in that regard.\n"
                "\n"
                "\"\"\"\n"
                "import urllib\n"
                "\n"
                "def download_and_load_file(file_path, url):\n"
                "\n"
                "    if not os.path.exists(file_path):\n"
                "        with urllib.request.urlopen(url) as response:\n"
                "            text_data = response.read().decode(\"utf-8\")\n"
                "        with open(file_path, \"w\", encoding=\"utf-8\") as file:\n"
                "            file.write(text_data)\n"
                "\n"
                "    else:\n"
                "        with open(file_path, \"r\", encoding=\"utf-8\") as file:\n"
                "            text_data = file.read()\n"
                "\n"
                "    with open(file_path, \"r\", encoding=\"utf-8\") as file:\n"
                "        data = json.load(file)\n"
                "\n"
                "    return data\n"
                "\"\"\"\n"
                "\n"
                "\n"
                "file_path = \"instruction-data.json\"\n"
                "url = (\n"
                "    \"https://raw.githubusercontent.com/rasbt/LLMs-from-scratch\"\n"
                "    \"/main/ch07/01_main-chapter-code/instruction-data.json\"\n"
                ")\n"
                "\n"
                "data = download_and_load_file(file_path, url)\n"
                "print(\"Number of entries:\", len(data))");
        nb.note("llmfs reads data/instruction/instruction-data.json, the book's file (it never downloads).");
        const std::vector<InstructionEntry> data = load_instruction_data(default_instruction_data_path());
        nb.print("Number of entries:", data.size());

        nb.code("print(\"Example entry:\\n\", data[50])");
        nb.print("Example entry:\n", python_repr(data.at(50)));

        nb.code("print(\"Another example entry:\\n\", data[999])");
        nb.print("Another example entry:\n", python_repr(data.at(999)));

        nb.code("def format_input(entry):\n"
                "    instruction_text = (\n"
                "        f\"Below is an instruction that describes a task. \"\n"
                "        f\"Write a response that appropriately completes the request.\"\n"
                "        f\"\\n\\n### Instruction:\\n{entry['instruction']}\"\n"
                "    )\n"
                "\n"
                "    input_text = f\"\\n\\n### Input:\\n{entry['input']}\" if entry[\"input\"] else \"\"\n"
                "\n"
                "    return instruction_text + input_text");
        nb.code("model_input = format_input(data[50])\n"
                "desired_response = f\"\\n\\n### Response:\\n{data[50]['output']}\"\n"
                "\n"
                "print(model_input + desired_response)");
        std::string model_input = format_input(data.at(50));
        std::string response = desired_response(data.at(50));
        nb.print(model_input + response);

        nb.code("model_input = format_input(data[999])\n"
                "desired_response = f\"\\n\\n### Response:\\n{data[999]['output']}\"\n"
                "\n"
                "print(model_input + desired_response)");
        model_input = format_input(data.at(999));
        response = desired_response(data.at(999));
        nb.print(model_input + response);

        nb.code("train_portion = int(len(data) * 0.85)  # 85% for training\n"
                "test_portion = int(len(data) * 0.1)    # 10% for testing\n"
                "val_portion = len(data) - train_portion - test_portion  # Remaining 5% for validation\n"
                "\n"
                "train_data = data[:train_portion]\n"
                "test_data = data[train_portion:train_portion + test_portion]\n"
                "val_data = data[train_portion + test_portion:]");
        const InstructionSplit split = split_instruction_data(data);
        nb.code("print(\"Training set length:\", len(train_data))\n"
                "print(\"Validation set length:\", len(val_data))\n"
                "print(\"Test set length:\", len(test_data))");
        nb.print("Training set length:", split.train.size());
        nb.print("Validation set length:", split.validation.size());
        nb.print("Test set length:", split.test.size());
    });
}
