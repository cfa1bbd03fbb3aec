// Exercise 6.3: Fine-tuning the first versus last token
//
// The problem: chapter 6 trains and judges the classifier on the last output token's logits,
// model(input_batch)[:, -1, :], the only position whose causal attention has seen the whole text.
// Fine-tune on the first output token instead and compare the accuracies with the chapter's.
//
// The chapter's code (ch06.ipynb, calc_loss_batch and calc_accuracy_loader):
//   logits = model(input_batch)[:, -1, :]  # Logits of last output token
//
// The program runs the bonus script additional_experiments.py (common/train/class_experiments.hpp)
// with the token position below: OpenAI's weights (--weights, default the gpt2/124M folder) on the
// SMS Spam Collection (--data), or, with --small, a small random GPT on the tests' small collection
// in seconds (what llmfs-exercise check runs).
#include <string>

#include <fmt/format.h>

#include "llmfs/app/classifier_program.hpp"
#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"

using namespace llmfs;

// The position whose logits the loss, the accuracies and the training read: a Python index into
// the T tokens (-1: the last, the chapter's).
static int trained_token_position() {
    // TODO(exercise 6.3): return the index of the first output token
    exercise_todo("6.3", "return the index of the first output token");
}

int main(int argc, char** argv) {
    ClassifierExerciseOptions options;
    return run_exercise(
        argc, argv, "Exercise 6.3: fine-tuning the first versus the last output token (additional_experiments.py)", 1,
        [&](CLI::App& app) { add_classifier_exercise_options(app, options); },
        [&](Notebook& nb, Generator&, int variant) {
            nb.section("Exercise 6.3: Fine-tuning the first versus last token");
            if (variant) nb.note(fmt::format("--variant {}: another small random GPT", variant));
            ClassExperimentOptions experiment = classifier_exercise_experiment(options, variant);
            experiment.readout = Readout(trained_token_position());  // model(input_batch)[:, position, :]
            run_classifier_exercise(nb, experiment, "--trainable_token_pos first");
        },
        /*training=*/true);
}
