// Chapter 3's attention classes: where --annotate says each is implemented.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "llmfs/nn/attention.hpp"

using namespace llmfs;

namespace {

// Line `source.line` of `source.file`.
std::string line_at(const SourceLine& source) {
    std::ifstream in(source.file);
    std::string line;
    for (int i = 0; i < source.line && std::getline(in, line); ++i) {
    }
    return line;
}

}  // namespace

TEST_CASE("forward_source names the line where each chapter-3 class's forward is defined") {
    const SourceLine sources[] = {forward_source<SelfAttention_v1>(), forward_source<SelfAttention_v2>(),
                                  forward_source<CausalAttention>(), forward_source<MultiHeadAttentionWrapper>(),
                                  forward_source<MultiHeadAttention>()};
    for (const SourceLine& source : sources) {
        INFO(source.function << " at " << source.file << ":" << source.line);
        CHECK(std::string(source.file).find("common/nn/attention.cpp") != std::string::npos);
        CHECK(line_at(source).find(std::string(source.function) + "(") != std::string::npos);
    }
}
