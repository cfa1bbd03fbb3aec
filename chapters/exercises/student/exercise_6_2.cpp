// Exercise 6.2: Fine-tuning the whole model
//
// The problem: chapter 6 freezes the pretrained GPT but for its last transformer block, final_norm
// and the new two-class head. Fine-tune the entire model instead (the embeddings and every block
// too) and compare the accuracies with the chapter's.
//
// The chapter's code (ch06.ipynb, section 6.5):
//   for param in model.parameters():
//       param.requires_grad = False
//   torch.manual_seed(123)
//   model.out_head = torch.nn.Linear(in_features=BASE_CONFIG["emb_dim"], out_features=num_classes)
//   for param in model.trf_blocks[-1].parameters():
//       param.requires_grad = True
//   for param in model.final_norm.parameters():
//       param.requires_grad = True
//
// The program runs the bonus script additional_experiments.py (common/train/class_experiments.hpp)
// with the trainable layers below (train/classifier.hpp's TrainableLayers: last_layer, last_block,
// last_two_blocks, all): OpenAI's weights (--weights, default the gpt2/124M folder) on the SMS Spam
// Collection (--data), or, with --small, a small random GPT on the tests' small collection in
// seconds (what llmfs-exercise check runs).
#include <string>

#include <fmt/format.h>

#include "llmfs/app/classifier_program.hpp"
#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"

using namespace llmfs;

// Which parameters get gradients and AdamW's updates (the chapter's: TrainableLayers::last_block).
static TrainableLayers trained_layers() {
    // TODO(exercise 6.2): return the choice that trains every parameter of the model
    exercise_todo("6.2", "return the choice that trains every parameter of the model");
}

int main(int argc, char** argv) {
    ClassifierExerciseOptions options;
    return run_exercise(
        argc, argv, "Exercise 6.2: fine-tuning the whole model (additional_experiments.py)", 1,
        [&](CLI::App& app) { add_classifier_exercise_options(app, options); },
        [&](Notebook& nb, Generator&, int variant) {
            nb.section("Exercise 6.2: Finetuning the whole model");
            if (variant) nb.note(fmt::format("--variant {}: another small random GPT", variant));
            ClassExperimentOptions experiment = classifier_exercise_experiment(options, variant);
            experiment.trainable_layers = trained_layers();
            run_classifier_exercise(nb, experiment, "--trainable_layers all");
        },
        /*training=*/true);
}
