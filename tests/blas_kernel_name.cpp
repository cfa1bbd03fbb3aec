// Prints the name of the OpenBLAS kernel this process runs (openblas_get_corename), after one small
// sgemm and sgemv, so that a kernel whose instructions this CPU lacks dies here (SIGILL) rather than
// in a test. tests/blas_kernels.sh runs it under each OPENBLAS_CORETYPE to learn which kernels the
// CPU can run: OpenBLAS replaces a kernel the CPU cannot run by another one, and names that one.
#include <cblas.h>

#include <cstdio>
#include <vector>

int main() {
    constexpr int n = 33;
    std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
    cblas_sgemv(CblasRowMajor, CblasNoTrans, n, n, 1.0f, a.data(), n, b.data(), 1, 0.0f, c.data(), 1);
    const char* name = openblas_get_corename();
    std::printf("%s\n", name != nullptr ? name : "unknown");
    return c[0] == 0.5f * 0.25f * n ? 0 : 1;
}
