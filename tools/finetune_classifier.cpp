// llmfs-finetune-classifier: the book's ch06/01_main-chapter-code/gpt_class_finetune.py as a tool.
// Fine-tunes GPT-2 into a spam classifier on the SMS Spam Collection exactly as PyTorch does on a
// CPU, and prints what the script prints: "Ep N (Step NNNNNN): Train loss X, Val loss Y" every 50
// steps, the accuracies after each epoch, the time taken. The data and the weights are files given
// here (nothing is downloaded); train.csv, validation.csv and test.csv are written into --out-dir as
// the script writes them, and so are its two plots, loss-plot.pdf and accuracy-plot.pdf
// (docs/finetuning.md).
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "llmfs/app/classifier_program.hpp"
#include "llmfs/app/cli.hpp"
#include "llmfs/train/class_finetune.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    CLI::App app{"Fine-tune GPT-2 to classify SMS messages as spam, as the book's ch06 gpt_class_finetune.py does, exactly as\n"
                 "PyTorch does on a CPU (OpenBLAS): the balanced 70/10/20 split, the last block, final_norm and a new\n"
                 "two-class head trained by AdamW (lr 5e-5, weight decay 0.1) for 5 epochs. Prints what the script prints;\n"
                 "progress on stderr. See docs/finetuning.md.",
                 "llmfs-finetune-classifier"};
    ClassFinetuneOptions o;
    std::string pytorch = "2", bernoulli = "default";
    app.add_option("--data", o.data,
                   "the SMS Spam Collection: the zip the notebook downloads (sms_spam_collection.zip, from\n"
                   "https://archive.ics.uci.edu/static/public/228/sms+spam+collection.zip) or its SMSSpamCollection TSV")
        ->type_name("FILE")
        ->required();
    app.add_option("--weights", o.weights,
                   "the pretrained GPT-2: a torch.save file of the book's GPTModel (model.pth) or Hugging Face's\n"
                   "model.safetensors or the gpt2/124M folder gpt_download.py writes (TensorFlow's checkpoint; llmfs-generate\n"
                   "--weights takes the same); its shapes give the model's size")
        ->type_name("FILE");
    app.add_option("--heads", o.n_heads,
                   "the weights' attention heads, when their shapes do not tell (GPT-2's sizes have 64-wide heads)")
        ->type_name("N")
        ->check(CLI::Range(1, 1 << 16));
    app.add_flag("--test_mode", o.test_mode,
                 "the script's flag: a small random GPT (emb_dim 12, 1 layer, 2 heads, context 120) instead of the pretrained one");
    app.add_option("--out-dir", o.out_dir, "where train.csv, validation.csv, test.csv, loss-plot.pdf and accuracy-plot.pdf are written")->type_name("DIR")->capture_default_str();
    app.add_option("--pytorch", pytorch,
                   "whose AdamW update to reproduce: 2 (PyTorch 2.x's, as the book ran) or 1.13 (Debian's python3-torch)")
        ->capture_default_str()
        ->check(CLI::IsMember({"2", "1.13"}));
    app.add_option("--bernoulli", bernoulli, "PyTorch's CPU dropout kernel: default or mkl (the script's drop_rate is 0.0: no mask is drawn)")
        ->capture_default_str()
        ->check(CLI::IsMember({"default", "mkl"}));
    return run_tool(app, argc, argv, [&] {
        o.pytorch = *parse_pytorch_version(pytorch);
        o.bernoulli = *parse_bernoulli_kernel(bernoulli);
        const ClassifierHistory h = run_class_finetune(
            o, [](const std::string& line) { std::cout << line << std::endl; },
            [](const std::string& line) { std::cerr << line << std::endl; });
        draw_plot_values(h, "loss", o.out_dir);  // the script's loss plot, then its accuracy plot
        draw_plot_values(h, "accuracy", o.out_dir);
        return 0;
    });
}
