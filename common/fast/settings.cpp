#include "llmfs/fast/settings.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace llmfs {

AutoOnOff auto_on_off_from_environment(const char* variable, const char* unset_means) {
    const char* env = std::getenv(variable);
    if (!env || !*env) return AutoOnOff::automatic;
    const std::string text = env;
    if (text == "auto") return AutoOnOff::automatic;
    if (text == "on") return AutoOnOff::on;
    if (text == "off") return AutoOnOff::off;
    throw std::invalid_argument(std::string(variable) + "=\"" + text + "\": expected auto, on or off (unset it for auto: " +
                                unset_means + ")");
}

}  // namespace llmfs
