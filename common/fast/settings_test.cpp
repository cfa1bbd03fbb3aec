#include "llmfs/fast/settings.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include <catch2/catch.hpp>

#include "test_support.hpp"

using llmfs::AutoOnOff;
using llmfs::auto_on_off_from_environment;
using llmfs::testing::EnvGuard;

TEST_CASE("an auto|on|off switch: unset or empty is auto, then auto, on or off, and anything else is refused") {
    {
        const EnvGuard env("LLMFS_TEST_SWITCH", nullptr);
        CHECK(auto_on_off_from_environment("LLMFS_TEST_SWITCH", "the faster way") == AutoOnOff::automatic);
    }
    for (const auto& [text, mode] : {std::pair<const char*, AutoOnOff>{"", AutoOnOff::automatic},
                                     {"auto", AutoOnOff::automatic}, {"on", AutoOnOff::on}, {"off", AutoOnOff::off}}) {
        const EnvGuard env("LLMFS_TEST_SWITCH", text);
        INFO("LLMFS_TEST_SWITCH=\"" << text << "\"");
        CHECK(auto_on_off_from_environment("LLMFS_TEST_SWITCH", "the faster way") == mode);
    }
    for (const char* bad : {"1", "0", "ON", "yes", " on", "off ", "always"}) {
        const EnvGuard env("LLMFS_TEST_SWITCH", bad);
        INFO("LLMFS_TEST_SWITCH=\"" << bad << "\"");
        CHECK_THROWS_AS(auto_on_off_from_environment("LLMFS_TEST_SWITCH", "the faster way"), std::invalid_argument);
        CHECK_THROWS_WITH(auto_on_off_from_environment("LLMFS_TEST_SWITCH", "the faster way"),
                          Catch::Contains(std::string("LLMFS_TEST_SWITCH=\"") + bad + "\"") &&
                              Catch::Contains("expected auto, on or off") &&
                              Catch::Contains("unset it for auto: the faster way"));
    }
}
