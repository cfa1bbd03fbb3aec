// Hugging Face's safetensors format, and GPT-2's real weights in it (the book's
// ch05/02_alternative_weight_loading/weight-loading-hf-safetensors.ipynb):
//   SafeTensors          the file, memory-mapped and checked as the reference reader
//                        (huggingface/safetensors, SafeTensors::deserialize) checks it; tensors are
//                        views into the mapping, nothing copied
//   infer_gpt_config     the GPTConfig a GPT-2 checkpoint's tensor shapes imply
//   load_weights_into_gpt  the book's function: every parameter of a GPTModel from the file, the
//                        one copy of each tensor (the data of an HF file is not 4-byte aligned)
//   write_synthetic_gpt2 test support: a checkpoint with HF gpt2's names, shapes and layout and
//                        values drawn from torch.manual_seed, byte for byte what
//                        tests/goldens/make_safetensors_goldens.py writes
//
// The format: 8 bytes, N as a little-endian u64; N bytes of UTF-8 JSON header
//   {"__metadata__": {str: str}, NAME: {"dtype": "F32", "shape": [d0, ...], "data_offsets": [BEGIN, END]}, ...}
// (maybe padded with spaces); then the data buffer, BEGIN and END relative to its start, the
// tensors back to back, little-endian, row-major.
//
// Errors are std::runtime_error naming the file, what is wrong, where (the tensor, the byte) and a
// hint. Only F32 tensors are loaded into a model: F16 / BF16 / other dtypes are refused with a
// message (every GPT-2 file on the Hub is F32), not converted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llmfs/nn/gpt.hpp"
#include "llmfs/nn/mapped_file.hpp"

namespace llmfs {

// One tensor of the file: a view of its bytes, no copy. `data` is not aligned for its dtype.
struct SafeTensorView {
    std::string name;
    std::string dtype;                // "F32", "F16", ... as in the header
    std::vector<std::uint64_t> shape;  // [] for a scalar
    std::uint64_t begin = 0, end = 0;  // data_offsets, relative to the data buffer
    const unsigned char* data = nullptr;  // the file's bytes [8 + N + begin, 8 + N + end)
    std::size_t nbytes() const { return static_cast<std::size_t>(end - begin); }
};

// A .safetensors file, validated as the reference reader (huggingface/safetensors' Rust
// read_metadata + Metadata::validate) validates it: file >= 8 bytes; N <= 100,000,000 and
// 8 + N <= file size; header UTF-8 JSON (no BOM), an object nested at most a few levels; no
// duplicate keys (stricter than the reference, which keeps the last, as the format's README asks); "__metadata__" maps
// strings to strings; every other entry has a known dtype, a shape of non-negative integers and
// data_offsets [BEGIN, END] (extra fields ignored); sorted by offsets the tensors tile the data
// buffer exactly (no gap, no overlap, END >= BEGIN); product(shape) * dtype size == END - BEGIN
// without overflow; the file ends exactly at the last END.
class SafeTensors {
public:
    // Maps the file (POSIX mmap; elsewhere one read into memory). Throws std::runtime_error.
    static SafeTensors open(const std::filesystem::path& path);
    // The same checks on bytes in memory (tests, fuzzing); `name` stands for the file in messages.
    static SafeTensors from_bytes(std::string bytes, const std::string& name = "<memory>");

    SafeTensors(SafeTensors&&) noexcept;
    SafeTensors& operator=(SafeTensors&&) noexcept;
    ~SafeTensors();

    const std::string& name() const { return name_; }       // the path, for messages
    std::uint64_t header_length() const { return header_length_; }  // N
    std::uint64_t file_size() const { return size_; }
    const std::map<std::string, std::string>& metadata() const { return metadata_; }
    const std::vector<SafeTensorView>& tensors() const { return tensors_; }  // in header order
    const SafeTensorView* find(const std::string& tensor) const;  // nullptr if absent
    // The tensor, or std::runtime_error "FILE: no tensor NAME ...".
    const SafeTensorView& at(const std::string& tensor) const;

private:
    SafeTensors(MappedFile file, std::string name);
    void parse();

    MappedFile file_;
    const unsigned char* bytes_ = nullptr;
    std::uint64_t size_ = 0;
    std::string name_;
    std::uint64_t header_length_ = 0;
    std::map<std::string, std::string> metadata_;
    std::vector<SafeTensorView> tensors_;
    std::map<std::string, std::size_t, std::less<>> index_;
};

// Bytes per element of a safetensors dtype name ("F32" -> 4), 0 for a sub-byte one (F4, F6_*),
// nullopt for an unknown name.
std::optional<std::size_t> safetensors_dtype_size(std::string_view dtype);

// The prefix GPT-2's tensor names carry in `file`: "" (Hugging Face's model.safetensors) or
// "transformer." (a GPT2LMHeadModel state dict saved as is); throws if wte.weight is in neither.
std::string gpt2_name_prefix(const SafeTensors& file);

// The GPTConfig of a GPT-2 checkpoint, from its shapes: vocab_size and emb_dim from wte.weight,
// context_length from wpe.weight, n_layers from the h.N. blocks (0..L-1, no gap); drop_rate 0.0,
// qkv_bias true, as the book's BASE_CONFIG. n_heads is not in the shapes: `n_heads` if given,
// else the file's __metadata__ "n_head" (what save_gpt_as_gpt2 writes), else GPT-2's table (768, 12) -> 12 heads, (1024, 24) -> 16, (1280, 36) -> 20, (1600, 48) -> 25,
// else emb_dim / 64 (every GPT-2 size has 64-wide heads). vocab_size must be GPT-2's 50257.
// `how` (if not null) gets a line saying where n_heads came from.
GPTConfig infer_gpt_config(const SafeTensors& file, std::optional<std::size_t> n_heads = std::nullopt,
                           std::string* how = nullptr);

// The number of heads of a GPT-2-shaped model: `n_heads` if given, else GPT-2's table, else
// emb_dim / 64 (as infer_gpt_config says); `how` (if not null) gets where it came from. Throws
// std::invalid_argument "FILE: emb_dim C cannot be split into N heads; ..." when it does not divide.
std::size_t gpt2_n_heads(const std::string& file, std::size_t emb_dim, std::size_t n_layers, std::optional<std::size_t> n_heads,
                         std::string* how = nullptr);

// The book's load_weights_into_gpt(gpt, params): every parameter of `model` from `file`, Conv1D
// weights [in, out] transposed into Linear's [out, in], c_attn split into W_query / W_key /
// W_value (weights and biases), out_head tied to wte (a second copy of its values), or, when the
// file has "lm_head.weight" [V, C] (a GPT2LMHeadModel state dict, where it equals wte, or a model
// saved by save_gpt_as_gpt2), out_head from it. Tensors the model does not need (h.N.attn.bias,
// attn.masked_bias, blocks beyond n_layers) are ignored. A missing tensor, a dtype other than F32
// or a shape other than the model's is a std::runtime_error naming the tensor and both shapes;
// `model` is then partly loaded.
void load_weights_into_gpt(GPTModel& model, const SafeTensors& file);

// The inverse of load_weights_into_gpt: `model`'s parameters in Hugging Face's GPT-2
// model.safetensors layout (names without a prefix, sorted; Conv1D weights [in, out]; W_query,
// W_key and W_value side by side in c_attn; zeros for c_attn.bias when the model has no qkv_bias,
// which computes the same), plus "lm_head.weight" [V, C]: the book's GPTModel does not tie
// out_head to tok_emb, so a trained out_head is kept (transformers' GPT2LMHeadModel would tie them
// again unless its config says tie_word_embeddings=False). __metadata__ {"format": "pt",
// "n_head": "<n_heads>"}. Written to a temporary file beside `path` and renamed over it, so that
// `path` is never half-written; std::runtime_error naming the path if it cannot be written.
void save_gpt_as_gpt2(const GPTModel& model, const std::filesystem::path& path);

// ---- test support: the synthetic checkpoints of make_safetensors_goldens.py --------------------

struct SyntheticGpt2 {
    std::size_t vocab_size = 50257, n_positions = 32, n_embd = 128, n_layer = 2;
    std::uint64_t seed = 20250101;  // torch.manual_seed before the values
    int scale_log2 = -2;            // values randn * 2^scale_log2; LayerNorm weights randn * 0.125 + 1.0

    static SyntheticGpt2 tiny() { return {}; }
    static SyntheticGpt2 gpt2_124m() { return {50257, 1024, 768, 12, 124, -3}; }
};
enum class SyntheticLayout {
    sorted,     // names sorted bytewise, data in that order, "__metadata__" first, no padding
    pad8,       // the same, header padded with spaces to N % 8 == 0 (safetensors >= 0.3.1)
    scrambled,  // data in reverse order, "__metadata__" last, header padded to N % 8 == 3
};
// Writes the checkpoint to `path` and returns the file's SHA-256 (lowercase hex).
std::string write_synthetic_gpt2(const std::filesystem::path& path, const SyntheticGpt2& spec,
                                 SyntheticLayout layout = SyntheticLayout::sorted);

}  // namespace llmfs
