// llmfs-finetune-instruction: the book's ch07/01_main-chapter-code/gpt_instruction_finetuning.py,
// its flags and its printed lines (common/app/instruction_finetune.hpp says what it runs).
//   --test_mode     the script's small test model on the first 10 entries of each split
//   --data FILE     the instruction data (default: llmfs's copy of the book's instruction-data.json)
//   --weights FILE  without --test_mode: GPT-2 medium's model.safetensors (llmfs never downloads)
#include "llmfs/app/instruction_finetune.hpp"
#include "llmfs/app/script.hpp"
#include "llmfs/train/instruction.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_script(argc, argv, "Finetune a GPT model for classification",
                      [](ArgumentParser& p) {
                          p.add_flag("--test_mode",
                                     "This flag runs the model in test mode for internal testing purposes. Otherwise, it runs the "
                                     "model as it is used in the chapter (recommended).");
                          p.add_string("--data", "", "The instruction data (llmfs: default its copy of the book's instruction-data.json).");
                          p.add_string("--weights", "", "Without --test_mode: GPT-2 medium's model.safetensors or gpt_download.py's gpt2/355M folder (llmfs never downloads).");
                      },
                      [](const ArgumentParser& args) {
                          InstructionFinetuneOptions options;
                          options.test_mode = args.get_flag("test_mode");
                          const std::string& data = args.get_string("data");
                          options.data = data.empty() ? default_instruction_data_path() : std::filesystem::path(data);
                          if (!args.get_string("weights").empty()) options.weights = args.get_string("weights");
                          Generator gen(args.get_string("bernoulli") == "mkl" ? BernoulliKernel::mkl : BernoulliKernel::standard);
                          Notebook nb;
                          run_instruction_finetuning(nb, gen, options);
                      });
}
