// Chapter 6's exercises under --small (what llmfs-exercise check runs): each exercise's answer must
// print other lines than the chapter's setting and than every other choice of the same flag, or a
// student's unchanged (or wrong) choice would pass. The lines themselves are checked against PyTorch
// by the exercises' goldens (tests/CMakeLists.txt, make_ch06_experiments_goldens.py).
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "llmfs/app/classifier_program.hpp"

using namespace llmfs;

TEST_CASE("classifier exercises --small: each answer prints other lines than the chapter's setting and the other choices", "[long]") {
    for (const int variant : {0, 1}) {
        ClassifierExerciseOptions options;
        options.small = true;
        // choice -> its lines
        std::map<std::string, std::string> printed;
        const auto run = [&](const std::string& choice, ClassExperimentOptions e) {
            run_class_experiment(e, [&](const std::string& line) { printed[choice] += line + "\n"; }, [](const std::string&) {});
        };
        const ClassExperimentOptions chapter = classifier_exercise_experiment(options, variant);
        run("last_block (the chapter's)", chapter);
        for (const TrainableLayers layers : {TrainableLayers::last_layer, TrainableLayers::last_two_blocks, TrainableLayers::all}) {
            if (layers == TrainableLayers::last_two_blocks && chapter.random_config->n_layers < 2) continue;  // variant 1: one block
            ClassExperimentOptions e = chapter;
            e.trainable_layers = layers;
            run(trainable_layers_name(layers), e);
        }
        ClassExperimentOptions first = chapter;
        first.readout = Readout(0);
        run("token first", first);
        ClassExperimentOptions context = chapter;
        context.context_length = "model_context_length";
        run("model_context_length", context);
        for (const std::string answer : {"all", "token first", "model_context_length"}) {
            for (const auto& [choice, lines] : printed) {
                if (choice == answer) continue;
                INFO("variant " << variant << ": " << answer << " against " << choice << "\n" << lines);
                CHECK(lines != printed.at(answer));
            }
        }
    }
}
