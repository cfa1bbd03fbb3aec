#include "llmfs/app/notebook.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace llmfs {

std::string with_commas(std::size_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string to_text(const std::vector<std::int64_t>& list) { return fmt::format("[{}]", fmt::join(list, ", ")); }

}  // namespace llmfs
