// The memory estimators of the book's chapter-4 bonus folders (ch04/04_gqa, 05_mla, 06_swa,
// 07_moe: memory_estimator_{gqa,mla,swa,moe}.py): how many bytes a KV cache (or an FFN's weights)
// takes, by closed formulas, and the report each script prints, character for character.
//
// Python's integers do not overflow; these compute in 128 bits and refuse (std::overflow_error)
// what would not fit in 64. Where the script raises (ValueError, ZeroDivisionError), these throw
// PythonError carrying the exception's last traceback line.
//
// Note the two meanings of "n_kv_groups": the estimators (and the plot scripts) take it as the
// number of query heads per K/V head (kv_heads = n_heads // n_kv_groups), gpt_with_kv_gqa.py as
// the number of K/V heads.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace llmfs {

// An exception the script raises, what() = its last traceback line: "ValueError: ...".
struct PythonError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1}, in that order
const std::vector<std::pair<std::string, int>>& dtype_bytes();
std::vector<std::string> dtype_names();
int bytes_per_elem(const std::string& dtype);

// Python's format specs for numbers: f"{x:,}" and f"{x:,.2f}"
std::string python_grouped(std::int64_t x);
std::string python_grouped_2f(double x);
// a / b for Python ints: the exact quotient rounded once to the nearest double, ties to even (CPython's
// long_true_divide). Throws PythonError("ZeroDivisionError: division by zero") for b == 0.
double python_true_divide(std::int64_t a, std::int64_t b);
// convert_bytes(n): f"{n / 1000**3:,.2f} GB"
std::string convert_bytes(std::int64_t n);

// calc_kv_bytes_total(batch, context_length, emb_dim, n_heads, n_kv_heads, n_layers, bytes):
//   batch * context_length * ceil(emb_dim / n_heads) * n_kv_heads * 2 (K and V) * bytes * n_layers
std::int64_t calc_kv_bytes_total(std::int64_t batch, std::int64_t context_length, std::int64_t emb_dim, std::int64_t n_heads,
                                 std::int64_t n_kv_heads, std::int64_t n_layers, std::int64_t bytes_per_elem);
// calc_mla_bytes_total: batch * context_length * n_layers * latent_dim * bytes (one latent per token and layer)
std::int64_t calc_mla_bytes_total(std::int64_t batch, std::int64_t context_length, std::int64_t n_layers,
                                  std::int64_t latent_dim, std::int64_t bytes_per_elem);

struct KVEstimateArgs {
    std::int64_t context_length = 1024, emb_dim = 0, n_heads = 0, n_layers = 0, n_kv_groups = 0, batch_size = 1;
    std::string dtype = "fp16";
    std::int64_t latent_dim = 0;              // MLA only
    std::int64_t sliding_window_size = 0;     // SWA only
    std::string swa_ratio = "1:0";            // SWA only, as typed
};
// What each script prints (stdout), for its arguments.
std::string memory_estimate_gqa(const KVEstimateArgs& args);
std::string memory_estimate_mla(const KVEstimateArgs& args);
std::string memory_estimate_swa(const KVEstimateArgs& args);

// memory_estimator_swa.py's parse_ratio("a:b") -> (a, b): int() of each side, a >= 0, b >= 0,
// a + b > 0, else its ValueError (the SWA plot script parses the same way).
std::pair<std::int64_t, std::int64_t> parse_swa_ratio(const std::string& swa_ratio);
// Its layer split: distribute_layers(n_layers, *parse_ratio(swa_ratio)) -> (SWA layers, full
// layers), with Python's floor division.
std::pair<std::int64_t, std::int64_t> swa_layer_split(std::int64_t n_layers, const std::string& swa_ratio);

struct MoEEstimateArgs {
    std::int64_t emb_dim = 0, hidden_dim = 0;
    std::string ffn_type = "swiglu";  // "gelu": 2 matrices, "swiglu": 3
    std::int64_t num_experts = 8, top_k = 2;
    std::string dtype = "bf16";
    bool match_dense = false;
};
std::string memory_estimate_moe(const MoEEstimateArgs& args);

// estimate_params_and_hidden(emb_dim, hidden_dim, ffn_type, num_experts, match_dense)
struct MoEParams {
    std::int64_t dense_params, router, moe_hidden_dim, per_expert_params, moe_total;
};
MoEParams estimate_params_and_hidden(std::int64_t emb_dim, std::int64_t hidden_dim, const std::string& ffn_type,
                                     std::int64_t num_experts, bool match_dense);

}  // namespace llmfs
