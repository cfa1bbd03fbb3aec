// Catch2 v3 (Homebrew's) under the Catch2 v2 header the tests include: v3 has no single header,
// keeps Approx in namespace Catch and renamed the string matchers. Used only when CMake finds v3
// (see the top-level CMakeLists.txt); with Debian's 2.13 the real catch2/catch.hpp is used.
// Not checked on this project's CI, which has only 2.13.
#pragma once

#include <string>

#include <catch2/catch_all.hpp>

using Catch::Approx;

namespace Catch {
inline Matchers::StringContainsMatcher Contains(const std::string& text,
                                                CaseSensitive cs = CaseSensitive::Yes) {
    return Matchers::ContainsSubstring(text, cs);
}
using Matchers::EndsWith;
}  // namespace Catch
