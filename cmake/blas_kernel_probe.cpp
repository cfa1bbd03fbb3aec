// Configure-time probe (tests/CMakeLists.txt): prints "<kernel OpenBLAS picks>;<can force KERNEL>",
// e.g. "Cooperlake;1". Forcing a kernel (OPENBLAS_CORETYPE=KERNEL) needs an OpenBLAS built with
// DYNAMIC_ARCH (Debian's, Homebrew's) and a CPU with the instructions of that kernel: AVX2 and FMA
// for Haswell. Only Haswell is known here; for another golden kernel, extend can_run below.
#include <cblas.h>

#include <cstdio>
#include <cstring>

static bool can_run(const char* kernel) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (std::strcmp(kernel, "Haswell") != 0) return false;
    __builtin_cpu_init();
    const bool cpu = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    const char* config = openblas_get_config();
    return cpu && config != nullptr && std::strstr(config, "DYNAMIC_ARCH") != nullptr;
#else
    (void)kernel;
    return false;
#endif
}

int main(int argc, char** argv) {
    const char* name = openblas_get_corename();
    std::printf("%s;%d", name != nullptr ? name : "unknown", argc > 1 && can_run(argv[1]) ? 1 : 0);
    return 0;
}
