#include "llmfs/nn/memory_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "llmfs/text/validate.hpp"

namespace llmfs {

namespace {

using i128 = __int128;

// Python's int arithmetic, refused past 64 bits (Python would go on; llmfs prints 64-bit numbers).
std::int64_t checked(i128 v, const char* what) {
    if (v > std::numeric_limits<std::int64_t>::max() || v < std::numeric_limits<std::int64_t>::min())
        throw std::overflow_error(std::string(what) + " does not fit in 64 bits: the arguments are too large for llmfs");
    return static_cast<std::int64_t>(v);
}

std::int64_t mul(std::initializer_list<std::int64_t> factors, const char* what) {
    i128 v = 1;
    for (std::int64_t f : factors)
        if (__builtin_mul_overflow(v, static_cast<i128>(f), &v)) return checked(std::numeric_limits<std::int64_t>::max() + i128{1}, what);
    return checked(v, what);
}

// Python's // and % (floor): the remainder takes the divisor's sign.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    if (b == 0) throw PythonError("ZeroDivisionError: integer division or modulo by zero");
    std::int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}
std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
    if (b == 0) throw PythonError("ZeroDivisionError: integer modulo by zero");
    return a - floor_div(a, b) * b;
}

// math.ceil(emb_dim / n_heads)
std::int64_t head_dim_of(std::int64_t emb_dim, std::int64_t n_heads) {
    const double q = std::ceil(python_true_divide(emb_dim, n_heads));  // |q| <= 2^63: int64's range, or its end
    if (q >= 9223372036854775808.0) checked(i128{1} << 63, "head_dim");
    return static_cast<std::int64_t>(q);
}

int bit_length(unsigned __int128 x) {
    int n = 0;
    for (; x != 0; x >>= 1) ++n;
    return n;
}

// f"{k:17}: {v}"
std::string padded(const std::string& key, std::size_t width) {
    return key.size() >= width ? key : key + std::string(width - key.size(), ' ');
}

void check_divides(std::int64_t n_heads, std::int64_t n_kv_groups) {
    if (floor_mod(n_heads, n_kv_groups) != 0) throw PythonError("ValueError: n_kv_groups must divide n_heads exactly.");
}

}  // namespace

// Operands of at most 2^53 are exact doubles, so one division rounds once. Above, float(a) / float(b)
// rounds twice, and `convert_bytes` printed 1,158,938,256.54 GB where Python prints .53 (3 * 261188093
// * 1479059584 bytes). So the quotient is taken in integers, 55 or 56 bits of it and whether anything
// was left over, and rounded to 53 bits here.
double python_true_divide(std::int64_t a, std::int64_t b) {
    if (b == 0) throw PythonError("ZeroDivisionError: division by zero");
    using u128 = unsigned __int128;
    const bool negative = (a < 0) != (b < 0);
    const u128 A = a < 0 ? static_cast<u128>(-static_cast<i128>(a)) : static_cast<u128>(a);
    const u128 B = b < 0 ? static_cast<u128>(-static_cast<i128>(b)) : static_cast<u128>(b);
    constexpr u128 kExact = u128{1} << 53;
    double q;
    if (A <= kExact && B <= kExact) {
        q = static_cast<double>(A) / static_cast<double>(B);
    } else {
        // A / B = (A << shift) / B * 2^-shift, the integer quotient of 55 or 56 bits (at most 119 bits shifted)
        const int shift = 55 + bit_length(B) - bit_length(A);
        const u128 num = shift >= 0 ? A << shift : A, den = shift >= 0 ? B : B << -shift;
        u128 quotient = num / den;
        const bool sticky = num % den != 0;
        const int extra = bit_length(quotient) - 53;  // 2 or 3 bits below the 53 kept
        const u128 low = quotient & ((u128{1} << extra) - 1), half = u128{1} << (extra - 1);
        quotient >>= extra;
        if (low > half || (low == half && (sticky || (quotient & 1) != 0))) ++quotient;  // nearest, ties to even
        q = std::ldexp(static_cast<double>(quotient), extra - shift);
    }
    return negative ? -q : q;
}

const std::vector<std::pair<std::string, int>>& dtype_bytes() {
    static const std::vector<std::pair<std::string, int>> table{{"fp32", 4}, {"bf16", 2}, {"fp16", 2}, {"fp8", 1}, {"int8", 1}};
    return table;
}

std::vector<std::string> dtype_names() {
    std::vector<std::string> names;
    for (const auto& [name, bytes] : dtype_bytes()) names.push_back(name);
    return names;
}

int bytes_per_elem(const std::string& dtype) {
    for (const auto& [name, bytes] : dtype_bytes())
        if (name == dtype) return bytes;
    throw std::invalid_argument("unknown dtype \"" + dtype + "\" (choose from fp32, bf16, fp16, fp8, int8)");
}

namespace {
std::string group_digits(const std::string& number) {  // "-1234567.89" -> "-1,234,567.89"
    const std::size_t start = (!number.empty() && number[0] == '-') ? 1 : 0;
    std::size_t end = number.find('.');
    if (end == std::string::npos) end = number.size();
    std::string out = number.substr(0, start);
    for (std::size_t i = start; i < end; ++i) {
        out += number[i];
        const std::size_t left = end - i - 1;
        if (left > 0 && left % 3 == 0) out += ',';
    }
    return out + number.substr(end);
}
}  // namespace

std::string python_grouped(std::int64_t x) { return group_digits(std::to_string(x)); }

std::string python_grouped_2f(double x) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
    char buf[400];
    std::snprintf(buf, sizeof buf, "%.2f", x);
    return group_digits(buf);
}

std::string convert_bytes(std::int64_t n) { return python_grouped_2f(python_true_divide(n, 1000000000)) + " GB"; }

std::int64_t calc_kv_bytes_total(std::int64_t batch, std::int64_t context_length, std::int64_t emb_dim, std::int64_t n_heads,
                                 std::int64_t n_kv_heads, std::int64_t n_layers, std::int64_t bytes_per_elem) {
    const std::int64_t head_dim = head_dim_of(emb_dim, n_heads);
    const std::int64_t per_layer = mul({batch, context_length, head_dim, n_kv_heads, 2, bytes_per_elem}, "the KV bytes per layer");
    return mul({per_layer, n_layers}, "the KV bytes");
}

std::int64_t calc_mla_bytes_total(std::int64_t batch, std::int64_t context_length, std::int64_t n_layers,
                                  std::int64_t latent_dim, std::int64_t bytes_per_elem) {
    return mul({batch, context_length, n_layers, latent_dim, bytes_per_elem}, "the MLA bytes");
}

namespace {

// The shared start of the GQA and MLA reports: the config block.
std::string kv_config(const KVEstimateArgs& a, bool with_latent, std::int64_t head_dim, std::int64_t n_kv_heads_gqa) {
    std::ostringstream out;
    out << "==== Config ====\n";
    const std::vector<std::pair<std::string, std::int64_t>> cfg{
        {"context_length", a.context_length}, {"emb_dim", a.emb_dim},         {"n_heads", a.n_heads},
        {"n_layers", a.n_layers},             {"n_kv_groups", a.n_kv_groups}};
    for (const auto& [k, v] : cfg) out << padded(k, 17) << ": " << v << "\n";
    if (with_latent) out << padded("latent_dim", 17) << ": " << a.latent_dim << "\n";
    out << "batch_size       : " << a.batch_size << "\n";
    out << "dtype            : " << a.dtype << " (" << bytes_per_elem(a.dtype) << " Bytes/elem)\n";
    out << "head_dim         : " << head_dim << "\n";
    out << "GQA n_kv_heads   : " << n_kv_heads_gqa << "\n\n";
    return out.str();
}

// What memory_estimator_gqa.py and _mla.py both compute first, in their order (the divisibility
// check, then head_dim): the MHA and the GQA cache.
struct MhaGqaTotals {
    std::int64_t head_dim, n_kv_heads_gqa, total_mha, total_gqa;
};
MhaGqaTotals mha_gqa_totals(const KVEstimateArgs& a) {
    check_divides(a.n_heads, a.n_kv_groups);
    const int bytes = bytes_per_elem(a.dtype);
    const std::int64_t head_dim = head_dim_of(a.emb_dim, a.n_heads);
    const std::int64_t n_kv_heads_gqa = floor_div(a.n_heads, a.n_kv_groups);
    return {head_dim, n_kv_heads_gqa,
            calc_kv_bytes_total(a.batch_size, a.context_length, a.emb_dim, a.n_heads, a.n_heads, a.n_layers, bytes),
            calc_kv_bytes_total(a.batch_size, a.context_length, a.emb_dim, a.n_heads, n_kv_heads_gqa, a.n_layers, bytes)};
}

}  // namespace

std::string memory_estimate_gqa(const KVEstimateArgs& a) {
    const auto [head_dim, n_kv_heads_gqa, total_mha, total_gqa] = mha_gqa_totals(a);
    const double ratio = python_true_divide(total_mha, total_gqa);
    const double savings = 1 - python_true_divide(total_gqa, total_mha);

    std::ostringstream out;
    out << kv_config(a, false, head_dim, n_kv_heads_gqa);
    out << "==== KV-cache totals across all layers ====\n";
    out << "MHA total KV cache  : " << convert_bytes(total_mha) << "\n";
    out << "GQA total KV cache  : " << convert_bytes(total_gqa) << "\n";
    out << "Ratio (MHA / GQA)   : " << python_grouped_2f(ratio) << "x\n";
    out << "Savings (GQA vs MHA): " << python_grouped_2f(savings * 100) << "%\n";
    return out.str();
}

std::string memory_estimate_mla(const KVEstimateArgs& a) {
    const auto [head_dim, n_kv_heads_gqa, total_mha, total_gqa] = mha_gqa_totals(a);
    const int bytes = bytes_per_elem(a.dtype);
    const std::int64_t total_mla = calc_mla_bytes_total(a.batch_size, a.context_length, a.n_layers, a.latent_dim, bytes);
    // ratio = total_mha / total_gqa if total_gqa != 0 else float("inf"), and so on
    const double inf = std::numeric_limits<double>::infinity();
    const double ratio = total_gqa != 0 ? python_true_divide(total_mha, total_gqa) : inf;
    const double savings = total_mha != 0 ? 1 - python_true_divide(total_gqa, total_mha) : 0.0;
    const double ratio_mha_mla = total_mla != 0 ? python_true_divide(total_mha, total_mla) : inf;
    const double savings_mla = total_mha != 0 ? 1 - python_true_divide(total_mla, total_mha) : 0.0;

    std::ostringstream out;
    out << kv_config(a, true, head_dim, n_kv_heads_gqa);
    out << "==== KV-cache totals across all layers ====\n";
    out << "MHA total KV cache  : " << convert_bytes(total_mha) << "\n";
    out << "GQA total KV cache  : " << convert_bytes(total_gqa) << "\n";
    out << "MLA total KV cache  : " << convert_bytes(total_mla) << "\n";
    out << "Ratio (MHA / GQA)   : " << python_grouped_2f(ratio) << "x\n";
    out << "Savings (GQA vs MHA): " << python_grouped_2f(savings * 100) << "%\n";
    out << "Ratio (MHA / MLA)   : " << python_grouped_2f(ratio_mha_mla) << "x\n";
    out << "Savings (MLA vs MHA): " << python_grouped_2f(savings_mla * 100) << "%\n";
    return out.str();
}

std::pair<std::int64_t, std::int64_t> parse_swa_ratio(const std::string& swa_ratio) {
    // a_str, b_str = ratio_str.split(":"); a, b = int(a_str), int(b_str); assert a >= 0 and b >= 0 and (a + b) > 0
    const PythonError bad("ValueError: --swa_ratio must be in the form 'a:b' with nonnegative integers and a+b>0");
    const auto colon = swa_ratio.find(':');
    if (colon == std::string::npos || swa_ratio.find(':', colon + 1) != std::string::npos) throw bad;
    auto side = [&](const std::string& text) {  // int(a_str), left to right
        bool too_large = false;
        const auto v = python_int(text, &too_large);
        if (too_large) throw std::overflow_error("--swa_ratio: a number does not fit in 64 bits");
        if (!v) throw bad;
        return *v;
    };
    const std::int64_t a = side(swa_ratio.substr(0, colon)), b = side(swa_ratio.substr(colon + 1));
    if (a < 0 || b < 0 || a + b <= 0) throw bad;
    return {a, b};
}

std::pair<std::int64_t, std::int64_t> swa_layer_split(std::int64_t n_layers, const std::string& swa_ratio) {
    const auto [a, b] = parse_swa_ratio(swa_ratio);
    // distribute_layers(n_layers, a, b)
    const std::int64_t block = a + b, blocks = floor_div(n_layers, block), rem = floor_mod(n_layers, block);
    const std::int64_t swa = checked(static_cast<i128>(blocks) * a + std::min(a, rem), "the SWA layer count");
    const std::int64_t full = checked(static_cast<i128>(blocks) * b + std::max<std::int64_t>(0, rem - a), "the full layer count");
    return {swa, full};
}

std::string memory_estimate_swa(const KVEstimateArgs& a) {
    check_divides(a.n_heads, a.n_kv_groups);
    const int bytes = bytes_per_elem(a.dtype);
    const std::int64_t head_dim = head_dim_of(a.emb_dim, a.n_heads);
    const std::int64_t n_kv_heads_mha = a.n_heads, n_kv_heads_gqa = floor_div(a.n_heads, a.n_kv_groups);
    const std::pair<std::int64_t, std::int64_t> split = swa_layer_split(a.n_layers, a.swa_ratio);
    const std::int64_t n_swa_layers = split.first, n_full_layers = split.second;  // (no lambda captures a structured binding)
    const std::int64_t eff_W = std::min(a.context_length, a.sliding_window_size), L = a.context_length;
    // calc_kv_bytes_per_layer: batch * tokens * head_dim * n_kv_heads * 2 (K, V) * bytes
    auto per_layer = [&](std::int64_t tokens, std::int64_t kv_heads) {
        return mul({a.batch_size, tokens, head_dim, kv_heads, 2, bytes}, "the KV bytes per layer");
    };
    const std::int64_t per_mha_full = per_layer(L, n_kv_heads_mha), per_gqa_full = per_layer(L, n_kv_heads_gqa);
    const std::int64_t per_mha_swa = per_layer(eff_W, n_kv_heads_mha), per_gqa_swa = per_layer(eff_W, n_kv_heads_gqa);
    auto mixed = [&](std::int64_t swa_bytes, std::int64_t full_bytes) {
        return checked(static_cast<i128>(n_swa_layers) * swa_bytes + static_cast<i128>(n_full_layers) * full_bytes, "the KV bytes");
    };
    const std::int64_t total_mha_allfull = mul({per_mha_full, a.n_layers}, "the KV bytes");
    const std::int64_t total_gqa_allfull = mul({per_gqa_full, a.n_layers}, "the KV bytes");
    const std::int64_t total_mixed_mha = mixed(per_mha_swa, per_mha_full), total_mixed_gqa = mixed(per_gqa_swa, per_gqa_full);

    std::ostringstream out;
    out << "==== Config ====\n";
    const std::vector<std::pair<std::string, std::int64_t>> cfg{
        {"context_length", a.context_length}, {"sliding_window_size", a.sliding_window_size}, {"emb_dim", a.emb_dim},
        {"n_heads", a.n_heads},               {"n_layers", a.n_layers},                       {"n_kv_groups", a.n_kv_groups}};
    for (const auto& [k, v] : cfg) out << padded(k, 23) << ": " << v << "\n";
    out << "batch_size             : " << a.batch_size << "\n";
    out << "dtype                  : " << a.dtype << " (" << bytes << " Bytes/elem)\n";
    out << "head_dim               : " << head_dim << "\n";
    out << "GQA n_kv_heads         : " << n_kv_heads_gqa << "\n";
    out << "Effective SWA window W : " << eff_W << "\n";
    out << "Layer ratio (SWA:Full) : " << a.swa_ratio << " -> " << n_swa_layers << " SWA, " << n_full_layers << " Full\n\n";
    out << "==== KV-cache totals across all layers ====\n";
    out << "MHA KV total           : " << convert_bytes(total_mha_allfull) << "\n";
    out << "GQA KV total           : " << convert_bytes(total_gqa_allfull) << "\n";
    out << "MHA + SWA (ratio " << a.swa_ratio << ")  : " << convert_bytes(total_mixed_mha) << "\n";
    out << "GQA + SWA (ratio " << a.swa_ratio << ")  : " << convert_bytes(total_mixed_gqa) << "\n\n";
    return out.str();
}

MoEParams estimate_params_and_hidden(std::int64_t emb_dim, std::int64_t hidden_dim, const std::string& ffn_type,
                                     std::int64_t num_experts, bool match_dense) {
    if (ffn_type != "gelu" && ffn_type != "swiglu") throw PythonError("ValueError: --ffn_type must be 'gelu' or 'swiglu'");
    const std::int64_t m = ffn_type == "gelu" ? 2 : 3;  // get_num_param_matrices
    MoEParams r{};
    r.dense_params = mul({m, emb_dim, hidden_dim}, "the dense FFN parameters");  // calc_ffn_params
    r.router = mul({emb_dim, num_experts}, "the router parameters");            // calc_router_params
    r.moe_hidden_dim = hidden_dim;
    if (match_dense) {
        const std::int64_t num = checked(static_cast<i128>(r.dense_params) - r.router, "num");
        const std::int64_t den = mul({num_experts, m, emb_dim}, "den");
        if (num <= 0) throw PythonError("ValueError: Dense layer too small for requested num_experts.");
        if (den == 0) throw PythonError("ZeroDivisionError: float division by zero");
        // int(round(num / float(den))): round half to even, as nearbyint in the default rounding mode
        r.moe_hidden_dim = static_cast<std::int64_t>(std::nearbyint(static_cast<double>(num) / static_cast<double>(den)));
    }
    r.per_expert_params = mul({m, emb_dim, r.moe_hidden_dim}, "the per-expert parameters");
    r.moe_total = checked(static_cast<i128>(num_experts) * r.per_expert_params + r.router, "the MoE parameters");
    return r;
}

std::string memory_estimate_moe(const MoEEstimateArgs& a) {
    const int bytes = bytes_per_elem(a.dtype);
    const MoEParams r = estimate_params_and_hidden(a.emb_dim, a.hidden_dim, a.ffn_type, a.num_experts, a.match_dense);
    const std::int64_t dense = r.dense_params, router = r.router, moe_hidden_dim = r.moe_hidden_dim,
                       per_expert = r.per_expert_params, moe_total = r.moe_total;
    const std::int64_t active = checked(static_cast<i128>(a.top_k) * per_expert + router, "the active parameters");

    std::ostringstream out;
    auto line = [&](const std::string& label, const std::string& value) { out << padded(label, 23) << ": " << value << "\n"; };
    auto params = [&](std::int64_t n) { return python_grouped(n) + " (" + convert_bytes(mul({n, bytes}, "the bytes")) + ")"; };
    out << "==== Config ====\n";
    line("emb_dim", std::to_string(a.emb_dim));
    line("hidden_dim", std::to_string(a.hidden_dim));
    line("ffn_type", a.ffn_type);
    line("num_experts", std::to_string(a.num_experts));
    line("top_k", std::to_string(a.top_k));
    line("dtype", a.dtype + " (" + std::to_string(bytes) + " Bytes/elem)");
    line("match_dense", a.match_dense ? "True" : "False");
    out << "\n==== Model weights (parameters) ====\n";
    line("Dense FFN params", params(dense));
    line("Per-expert params", params(per_expert));
    line("Router params", params(router));
    line("MoE TOTAL params", params(moe_total));
    line("MoE ACTIVE/Token", params(active));
    line("moe_hidden_dim", std::to_string(moe_hidden_dim));
    out << "\n";
    return out.str();
}

}  // namespace llmfs
