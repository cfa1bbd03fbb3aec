# CMake toolchain for an aarch64 (arm64) cross-build on Debian: the cross compiler from
# g++-aarch64-linux-gnu, the arm64 libraries installed through multiarch (libfoo-dev:arm64), and
# qemu-aarch64 to run what was built (ctest, and Catch2's test discovery at build time).
# tests/cross/aarch64.sh installs all of it and uses this file.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)  # libraries from /usr/lib/aarch64-linux-gnu
# No -L /usr/aarch64-linux-gnu: that directory's dynamic loader (libc6-arm64-cross) would be paired
# with the multiarch libc (libc6:arm64, which the arm64 -dev packages install), and threads then
# hang. Without it qemu uses the multiarch loader from /lib, matching its libc.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)

# pkg-config: the arm64 .pc files (and the architecture-independent ones), never the host's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)

# The header-only libraries (xtl, xtensor, xtensor-blas, Catch2, CLI11, nlohmann-json) are the
# host's packages: the same headers, and the arm64 builds of xtensor are not co-installable. Most
# install their CMake files under /usr/share or /usr/lib/cmake, found as they are; xtensor's and
# xtensor-blas's sit in the host's multiarch directory, added here. Compiled libraries are found
# in /usr/lib/aarch64-linux-gnu only (CMAKE_LIBRARY_ARCHITECTURE above).
execute_process(COMMAND dpkg-architecture -qDEB_BUILD_MULTIARCH OUTPUT_VARIABLE _host_multiarch
                OUTPUT_STRIP_TRAILING_WHITESPACE)
list(APPEND CMAKE_PREFIX_PATH /usr/lib/${_host_multiarch}/cmake/xtensor /usr/lib/${_host_multiarch}/cmake/xtensor-blas)
