# The compiler settings and the libraries libllmfs is built with. The project's CMakeLists.txt
# includes it, and so does every build `llmfs-exercise grade` makes of a student's exercises (against
# the instructor's libllmfs, exported as <build>/llmfs-targets.cmake), so both compile alike.

# xtensor 0.24 has known C++20 problems: stay on C++17.
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
option(LLMFS_SANITIZE "Build with -fsanitize=address,undefined" OFF)
if(LLMFS_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
add_compile_options(-Wall -Wextra)
# No implicit fused multiply-adds. GCC fuses a * b + c wherever the target has FMA (every aarch64
# CPU; on x86-64 only inside AVX2 functions) and clang does within one expression; either changes
# last bits. The printed numbers are PyTorch's x86 build's, rounding by rounding: every FMA that
# build performs is written out here (std::fma, _mm256_fmadd_ps), every other product is rounded.
add_compile_options(-ffp-contract=off)

find_package(xtl REQUIRED)
find_package(xtensor REQUIRED)
find_package(xtensor-blas REQUIRED)
find_package(OpenBLAS CONFIG REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(ZLIB REQUIRED)  # crc32 of the torch.save zip records (nn/torch_save)
find_package(PkgConfig REQUIRED)
pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8)
pkg_check_modules(SLEEF REQUIRED IMPORTED_TARGET sleef)
pkg_check_modules(CAIRO REQUIRED IMPORTED_TARGET cairo)
# With libc++ (clang -stdlib=libc++, as on macOS), a libfmt compiled against libstdc++ (Debian's)
# cannot be linked: its std::string is another type. fmt's header-only target works with either.
include(CheckCXXSourceCompiles)
check_cxx_source_compiles("#include <ciso646>\n#ifndef _LIBCPP_VERSION\n#error not libc++\n#endif\nint main() {}"
                          LLMFS_LIBCXX)
if(LLMFS_LIBCXX AND TARGET fmt::fmt-header-only)
  set(LLMFS_FMT fmt::fmt-header-only)
else()
  set(LLMFS_FMT fmt::fmt)
endif()

