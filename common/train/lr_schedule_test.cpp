// The schedule against the notebook's own cells run by PyTorch (data/tests/appendix_d_cases.txt,
// tests/goldens/appendix_d_reference.py): D.1's warmup then a constant peak, D.2's warmup then
// cosine decay (min_lr = 0.1 * initial_lr as the cell sets it), every step's lr bit for bit.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "llmfs/train/lr_schedule.hpp"
#include "test_support.hpp"

using namespace llmfs;

TEST_CASE("lr_schedule: the notebook's warmup and cosine cells, every step's bits", "[train][appendix_d]") {
    const auto cases = llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/appendix_d_cases.txt", "schedule");
    REQUIRE(cases.size() >= 4);
    for (const auto& c : cases) {
        INFO(c.name);
        LrSchedule s;
        s.initial_lr = std::stod(c.at("initial_lr"));
        s.peak_lr = std::stod(c.at("peak_lr"));
        s.min_lr = 0.1 * s.initial_lr;  // min_lr = 0.1 * initial_lr
        s.warmup_steps = c.number("warmup_steps");
        s.total_steps = c.number("L") * c.number("n_epochs");
        s.decay = c.at("kind") == "cosine" ? LrDecay::cosine : LrDecay::constant;
        const auto lrs = c.words("lrs");
        REQUIRE(lrs.size() == s.total_steps);
        for (std::size_t step = 0; step < lrs.size(); ++step) {
            INFO("step " << step);
            CHECK(learning_rate(s, step) == std::strtod(lrs[step].c_str(), nullptr));
        }
    }
}

TEST_CASE("lr_schedule: the notebook's 20% warmup, and schedules that cannot run", "[train][appendix_d]") {
    CHECK(warmup_steps_of(9 * 15) == 27);  // the notebook prints 27
    CHECK(warmup_steps_of(4) == 0);
    LrSchedule s;
    s.warmup_steps = 0;
    s.total_steps = 10;
    CHECK_THROWS_AS(learning_rate(s, 0), std::invalid_argument);
    s.warmup_steps = 10;
    CHECK(lr_schedule_problem(s).find("shorter than the run") != std::string::npos);
    s.decay = LrDecay::constant;
    CHECK(lr_schedule_problem(s).empty());
    CHECK(learning_rate(s, 12) == s.peak_lr);
}
