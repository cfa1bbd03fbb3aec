// The memory estimators' arithmetic and Python number formats. Their whole reports are checked
// against the scripts' output for many argument sets by the "script: ch04_memory_estimator_*"
// tests (tests/CMakeLists.txt); these add what a CMake test cannot pass (" 1 : 5 ") and the pieces.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>

#include "llmfs/nn/memory_estimate.hpp"

using namespace llmfs;

namespace {
std::string golden(const std::string& name) {
    std::ifstream in(std::string(LLMFS_SOURCE_DIR) + "/data/golden/scripts/" + name, std::ios::binary);
    REQUIRE(in);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}
}  // namespace

TEST_CASE("Python's {:,} and {:,.2f}") {
    CHECK(python_grouped(0) == "0");
    CHECK(python_grouped(-3072) == "-3,072");
    CHECK(python_grouped(308281344) == "308,281,344");
    CHECK(python_grouped_2f(1234567.891) == "1,234,567.89");
    CHECK(python_grouped_2f(-0.001) == "-0.00");
    CHECK(python_grouped_2f(0.005) == "0.01");  // the double above 0.005
    CHECK(python_grouped_2f(std::numeric_limits<double>::infinity()) == "inf");
    CHECK(convert_bytes(17179869184) == "17.18 GB");
}

TEST_CASE("python_true_divide rounds the exact quotient once, as CPython's int / int") {
    // The expected values are Python 3.11's `a / b`, printed with float.hex(); the comments give
    // float(a) / float(b), which rounds twice.
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min(), kMax = std::numeric_limits<std::int64_t>::max();
    const struct {
        std::int64_t a, b;
        double expected;
    } cases[] = {
        {4689275783357816212LL, 792723338049442011LL, 0x1.7a95eaac220c9p+2},    // 0x1.7a95eaac220c8p+2
        {-1095448797194642412LL, 1000000000LL, -0x1.052ce374c7505p+30},         // -0x1.052ce374c7506p+30
        {558730966520721603LL, 6275582095063844135LL, 0x1.6cad60726ff91p-4},    // 0x1.6cad60726ff92p-4
        {-8616905548457604437LL, 1000000000LL, -0x1.00cdc5a63a92dp+33},         // -0x1.00cdc5a63a92cp+33
        {-8684958896684969735LL, 1000000000LL, -0x1.02d4fa5857ad1p+33},         // -0x1.02d4fa5857ad2p+33
        {-4879957040565692458LL, 1000000000LL, -0x1.22de3c3090d14p+32},         // -0x1.22de3c3090d13p+32
        {kMax, 1, 0x1p+63},
        {kMin, 1, -0x1p+63},
        {kMin, -1, 0x1p+63},
        {1, kMax, 0x1p-63},
        {9007199254740993LL, 2, 0x1p+52},  // 2^52 + 0.5: the tie goes to the even neighbour
        {7, 2, 3.5},
    };
    for (const auto& c : cases) {
        INFO(c.a << " / " << c.b);
        CHECK(python_true_divide(c.a, c.b) == c.expected);
    }
    CHECK(std::signbit(python_true_divide(0, -5)));  // 0 / -5 == -0.0
    CHECK(convert_bytes(3LL * 261188093 * 1479059584) == "1,158,938,256.53 GB");  // twice rounded: .54
    CHECK_THROWS_WITH(python_true_divide(1, 0), "ZeroDivisionError: division by zero");
}

TEST_CASE("calc_kv_bytes_total and calc_mla_bytes_total") {
    // 04_gqa/README: 32k tokens, 32 layers of 32 heads of 128, bf16
    CHECK(calc_kv_bytes_total(1, 32768, 4096, 32, 32, 32, 2) == 17179869184);
    CHECK(calc_kv_bytes_total(1, 32768, 4096, 32, 8, 32, 2) == 4294967296);
    CHECK(calc_kv_bytes_total(1, 10, 100, 3, 3, 1, 1) == 10 * 34 * 3 * 2);  // head_dim = ceil(100 / 3) = 34
    CHECK(calc_mla_bytes_total(1, 204, 12, 96, 4) == 940032);
    CHECK_THROWS_AS(calc_kv_bytes_total(1 << 30, 1 << 30, 1 << 30, 1, 1 << 30, 1, 4), std::overflow_error);
}

TEST_CASE("the SWA estimator's layer split: int() syntax, Python's floor division, its ValueError") {
    CHECK(swa_layer_split(32, "5:1") == std::pair<std::int64_t, std::int64_t>{27, 5});
    CHECK(swa_layer_split(7, " 1 : 5 ") == std::pair<std::int64_t, std::int64_t>{2, 5});
    CHECK(swa_layer_split(13, "+1_0:0_3") == std::pair<std::int64_t, std::int64_t>{10, 3});
    CHECK(swa_layer_split(-7, "5:1") == std::pair<std::int64_t, std::int64_t>{-5, -2});
    for (const char* bad : {"5", "0:0", "-1:2", "1:2:3", "a:b", "1.5:1", ":1", "1__0:1"}) {
        INFO(bad);
        CHECK_THROWS_WITH(swa_layer_split(12, bad),
                          "ValueError: --swa_ratio must be in the form 'a:b' with nonnegative integers and a+b>0");
    }
}

TEST_CASE("memory_estimate_swa prints the ratio as typed, spaces and all") {
    KVEstimateArgs a;
    a.emb_dim = 768, a.n_heads = 12, a.n_layers = 7, a.n_kv_groups = 3, a.sliding_window_size = 100, a.swa_ratio = " 1 : 5 ";
    CHECK(memory_estimate_swa(a) == golden("ch04_memory_estimator_swa__--emb_dim_768_--n_heads_12_--n_layers_7_--n_kv_groups_3_"
                                           "--sliding_window_size_100_--swa_ratio_%201%20:%205%20.txt"));
}

TEST_CASE("the scripts' exceptions") {
    KVEstimateArgs a;
    a.emb_dim = 768, a.n_heads = 12, a.n_layers = 12, a.n_kv_groups = 5;
    CHECK_THROWS_WITH(memory_estimate_gqa(a), "ValueError: n_kv_groups must divide n_heads exactly.");
    a.n_kv_groups = 0;
    CHECK_THROWS_WITH(memory_estimate_mla(a), "ZeroDivisionError: integer modulo by zero");
    a.n_kv_groups = 3, a.n_layers = 0;
    CHECK_THROWS_WITH(memory_estimate_gqa(a), "ZeroDivisionError: division by zero");
    MoEEstimateArgs m;
    m.emb_dim = 768, m.hidden_dim = 3072, m.num_experts = 0, m.match_dense = true;
    CHECK_THROWS_WITH(memory_estimate_moe(m), "ZeroDivisionError: float division by zero");
    m.emb_dim = 64, m.hidden_dim = 1, m.num_experts = 200;
    CHECK_THROWS_WITH(memory_estimate_moe(m), "ValueError: Dense layer too small for requested num_experts.");
}

TEST_CASE("match_dense rounds half to even, as Python's round() does") {
    MoEEstimateArgs m;
    m.emb_dim = 64, m.ffn_type = "gelu", m.num_experts = 2, m.match_dense = true;
    m.hidden_dim = 10;  // (2*64*10 - 128) / (2*2*64) = 4.5 -> 4
    CHECK(memory_estimate_moe(m).find("moe_hidden_dim         : 4\n") != std::string::npos);
    m.hidden_dim = 12;  // 5.5 -> 6
    CHECK(memory_estimate_moe(m).find("moe_hidden_dim         : 6\n") != std::string::npos);
}
