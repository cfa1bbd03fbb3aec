// Exercise 6.1: Increasing the context length
//
// The problem: chapter 6 pads every message to the longest one in the training set (120 tokens on
// the whole collection). Pad the inputs to the maximum number of tokens the model supports (its
// context length, 1024 for GPT-2) instead and compare the accuracies with the chapter's.
//
// The chapter's code (ch06.ipynb, section 6.3):
//   train_dataset = SpamDataset(csv_file="train.csv", max_length=None, tokenizer=tokenizer)
//   val_dataset = SpamDataset(csv_file="validation.csv", max_length=train_dataset.max_length, tokenizer=tokenizer)
//
// The program runs the bonus script additional_experiments.py (common/train/class_experiments.hpp)
// with the datasets' max_length below, as the script's --context_length takes it:
// "longest_training_example" (the chapter's), "model_context_length" (the model's
// pos_emb.weight.shape[0]) or a number of tokens. OpenAI's weights (--weights, default the gpt2/124M
// folder) on the SMS Spam Collection (--data), or, with --small, a small random GPT on the tests'
// small collection in seconds (what llmfs-exercise check runs).
#include <string>

#include <fmt/format.h>

#include "llmfs/app/classifier_program.hpp"
#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"

using namespace llmfs;

// The length every message is padded (or cut) to, as --context_length names it.
static std::string padded_length() {
    // TODO(exercise 6.1): return the --context_length choice that pads to the model's whole context
    exercise_todo("6.1", "return the --context_length choice that pads to the model's whole context");
}

int main(int argc, char** argv) {
    ClassifierExerciseOptions options;
    return run_exercise(
        argc, argv, "Exercise 6.1: padding to the model's context length (additional_experiments.py)", 1,
        [&](CLI::App& app) { add_classifier_exercise_options(app, options); },
        [&](Notebook& nb, Generator&, int variant) {
            nb.section("Exercise 6.1: Increasing the context length");
            if (variant) nb.note(fmt::format("--variant {}: another small random GPT", variant));
            ClassExperimentOptions experiment = classifier_exercise_experiment(options, variant);
            experiment.context_length = padded_length();
            run_classifier_exercise(nb, experiment, "--context_length \"model_context_length\"");
        },
        /*training=*/true);
}
