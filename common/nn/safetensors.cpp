#include "llmfs/nn/safetensors.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "llmfs/fast/thread_pool.hpp"
#include "llmfs/text/data_dir.hpp"
#include "llmfs/text/validate.hpp"

namespace llmfs {

namespace {

using json = nlohmann::json;

constexpr std::uint64_t kMaxHeaderLength = 100'000'000;  // the reference reader's limit
constexpr int kMaxJsonDepth = 8;                          // the format needs 3 levels

constexpr const char* kHint =
    "is it a complete download of a .safetensors file? (e.g. "
    "https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors)";

[[noreturn]] void fail(const std::string& file, const std::string& what, const std::string& hint = kHint) {
    throw std::runtime_error(fmt::format("{}: {}; {}", file, what, hint));
}

// A safetensors file starts with its header length, a little-endian u64 of at most 10^8: its bytes
// 4-7 are zero, never text. A file whose first 8 bytes are text is something else downloaded in
// its place (a Git LFS pointer, a web page): say which, not "header length 5789751444030890300".
void refuse_text(const std::string& file, std::string_view start) {
    if (start.size() < 8) return;  // too short: said as such
    for (std::size_t i = 0; i < 8; ++i) {
        const auto c = static_cast<unsigned char>(start[i]);
        if (!((c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n' || c == '\r')) return;
    }
    std::string lower(start);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const std::size_t first = lower.find_first_not_of(" \t\r\n");
    const std::string_view text = std::string_view(lower).substr(first == std::string::npos ? lower.size() : first);
    if (text.rfind("version https://git-lfs", 0) == 0)
        fail(file, "this is a Git LFS pointer (a small text file naming the real one), not a safetensors file",
             "fetch the real file (git lfs pull in its repository), or download it directly, e.g. "
             "https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors");
    if (text.rfind("<!doctype html", 0) == 0 || text.rfind("<html", 0) == 0 || text.find("<html") != std::string_view::npos)
        fail(file, "this is an HTML page (text), not a safetensors file",
             "a download link that led to a web page? Download the file itself, e.g. "
             "https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors (\"resolve\", not \"blob\")");
    std::string line(start.substr(0, std::min<std::size_t>(start.find('\n'), 40)));
    for (char& c : line) c = static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f ? c : '?';
    fail(file, fmt::format("this is text, not a safetensors file (it starts with \"{}\")", line));
}

std::string shape_string(const std::vector<std::uint64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

// A JSON array of non-negative integers (each fits a u64), or nullopt.
std::optional<std::vector<std::uint64_t>> unsigned_list(const json& j) {
    if (!j.is_array()) return std::nullopt;
    std::vector<std::uint64_t> out;
    out.reserve(j.size());
    for (const auto& v : j) {
        if (!v.is_number_unsigned()) return std::nullopt;  // -1, 128.0, 1e30, "3", null: all refused
        out.push_back(v.get<std::uint64_t>());
    }
    return out;
}

}  // namespace

// ---- the dtypes ---------------------------------------------------------------------------------

std::optional<std::size_t> safetensors_dtype_size(std::string_view dtype) {
    static const std::map<std::string_view, std::size_t> kSizes = {
        {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"F8_E8M0", 1}, {"F8_E4M3FNUZ", 1},
        {"F8_E5M2FNUZ", 1}, {"I16", 2}, {"U16", 2}, {"F16", 2}, {"BF16", 2}, {"I32", 4}, {"U32", 4}, {"F32", 4},
        {"F64", 8}, {"I64", 8}, {"U64", 8}, {"C64", 8}, {"F4", 0}, {"F6_E2M3", 0}, {"F6_E3M2", 0}};
    const auto it = kSizes.find(dtype);
    if (it == kSizes.end()) return std::nullopt;
    return it->second;
}

namespace {
std::size_t dtype_bits(std::string_view dtype) {
    if (dtype == "F4") return 4;
    if (dtype == "F6_E2M3" || dtype == "F6_E3M2") return 6;
    return 8 * *safetensors_dtype_size(dtype);
}
}  // namespace

// ---- the file's bytes: a mapping, or memory -----------------------------------------------------

SafeTensors::SafeTensors(MappedFile file, std::string name)
    : file_(std::move(file)), bytes_(file_.data()), size_(file_.size()), name_(std::move(name)) {
    parse();
}
SafeTensors::SafeTensors(SafeTensors&&) noexcept = default;
SafeTensors& SafeTensors::operator=(SafeTensors&&) noexcept = default;
SafeTensors::~SafeTensors() = default;

SafeTensors SafeTensors::from_bytes(std::string bytes, const std::string& name) {
    return SafeTensors(MappedFile::from_bytes(std::move(bytes)), name);
}

SafeTensors SafeTensors::open(const std::filesystem::path& path) {
    return SafeTensors(MappedFile::open(path, "check the path (download: "
                                              "https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors)"),
                       path.string());
}

// ---- the checks ---------------------------------------------------------------------------------

void SafeTensors::parse() {
    const std::string& file = name_;
    if (size_ < 8) fail(file, fmt::format("{} bytes, too short for a safetensors file (it starts with an 8-byte header length)", size_));
    refuse_text(file, std::string_view(reinterpret_cast<const char*>(bytes_), std::min<std::size_t>(size_, 512)));
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | bytes_[i];  // little-endian u64
    header_length_ = n;
    if (n > kMaxHeaderLength)
        fail(file, fmt::format("header length {} (bytes 0-7) is over the format's limit of {} bytes", n, kMaxHeaderLength),
             "this is not a safetensors file, or its first bytes are damaged");
    if (8 + n > size_) fail(file, fmt::format("header length {} (bytes 0-7) but the file has only {} bytes", n, size_));
    const std::string_view header(reinterpret_cast<const char*>(bytes_ + 8), static_cast<std::size_t>(n));

    if (const auto at = invalid_utf8_at(header); at != std::string_view::npos)
        fail(file, fmt::format("the header is not UTF-8 (byte {} of the file)", 8 + at));
    // nlohmann's lexer takes a NUL for the end of input: refuse NULs first (JSON allows none, and
    // the format pads with spaces).
    if (const auto nul = header.find('\0'); nul != std::string_view::npos)
        fail(file, fmt::format("the header is not valid JSON: a NUL byte at byte {} of the file (padding must be spaces)", 8 + nul));
    if (header.substr(0, 3) == "\xEF\xBB\xBF") fail(file, "the header starts with a byte-order mark; it must start with '{' (or spaces)");
    const JsonCheck check = check_json(header, kMaxJsonDepth, /*find_duplicate_keys=*/true);
    if (check.too_deep) fail(file, fmt::format("the header's JSON is nested more than {} levels deep", kMaxJsonDepth));
    if (!check.duplicate_key.empty()) fail(file, fmt::format("the header has the key \"{}\" twice", check.duplicate_key));
    json root;
    try {
        root = json::parse(header);
    } catch (const json::exception& e) {
        fail(file, fmt::format("the header (bytes 8-{}) is not valid JSON: {}", 8 + n, e.what()));
    }
    if (!root.is_object()) fail(file, fmt::format("the header is JSON {}, not an object", root.type_name()));

    for (const auto& [key, entry] : root.items()) {
        if (key == "__metadata__") {
            if (!entry.is_object()) fail(file, "\"__metadata__\" must be an object of strings");
            for (const auto& [k, v] : entry.items()) {
                if (!v.is_string()) fail(file, fmt::format("\"__metadata__\" entry \"{}\" is {}, not a string", k, v.type_name()));
                metadata_[k] = v.get<std::string>();
            }
            continue;
        }
        const std::string where = fmt::format("tensor \"{}\"", key);
        if (!entry.is_object()) fail(file, fmt::format("{}: its entry is {}, not an object", where, entry.type_name()));
        for (const char* field : {"dtype", "shape", "data_offsets"})
            if (!entry.contains(field)) fail(file, fmt::format("{}: no \"{}\" (an entry needs dtype, shape and data_offsets)", where, field));
        SafeTensorView view;
        view.name = key;
        if (!entry["dtype"].is_string()) fail(file, fmt::format("{}: dtype is {}, not a string", where, entry["dtype"].type_name()));
        view.dtype = entry["dtype"].get<std::string>();
        if (!safetensors_dtype_size(view.dtype))
            fail(file, fmt::format("{}: unknown dtype \"{}\" (known: BOOL, U8, I8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, ...)", where, view.dtype));
        const auto shape = unsigned_list(entry["shape"]);
        if (!shape) fail(file, fmt::format("{}: shape must be a list of non-negative integers, not {}", where, entry["shape"].dump()));
        view.shape = *shape;
        const auto offsets = unsigned_list(entry["data_offsets"]);
        if (!offsets || offsets->size() != 2)
            fail(file, fmt::format("{}: data_offsets must be 2 non-negative integers [BEGIN, END], not {}", where, entry["data_offsets"].dump()));
        view.begin = (*offsets)[0];
        view.end = (*offsets)[1];
        tensors_.push_back(std::move(view));
    }

    // Sorted by offsets, the tensors must tile the data buffer: each starts where the previous ended.
    std::vector<std::size_t> order(tensors_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return std::tie(tensors_[a].begin, tensors_[a].end) < std::tie(tensors_[b].begin, tensors_[b].end);
    });
    std::uint64_t expected = 0;
    const SafeTensorView* previous = nullptr;
    for (const std::size_t i : order) {
        const SafeTensorView& t = tensors_[i];
        const std::string range = fmt::format("data_offsets [{}, {}]", t.begin, t.end);
        if (t.end < t.begin) fail(file, fmt::format("tensor \"{}\": {} end before they begin", t.name, range), "the header is damaged");
        if (t.begin != expected) {
            const std::string after = previous ? fmt::format("\"{}\" ends at {}", previous->name, expected) : "the data starts at 0";
            fail(file, fmt::format("tensor \"{}\": {} {} ({})", t.name, range, t.begin < expected ? "overlap another tensor" : "leave a gap", after),
                 "the header is damaged");
        }
        std::uint64_t count = 1;
        bool overflow = false;
        for (const std::uint64_t d : t.shape) {
            if (d != 0 && count > std::numeric_limits<std::uint64_t>::max() / d) overflow = true;
            count *= d;
        }
        const std::uint64_t bits = dtype_bits(t.dtype);
        if (overflow || (count != 0 && bits > std::numeric_limits<std::uint64_t>::max() / count))
            fail(file, fmt::format("tensor \"{}\": shape {} is too large (its size overflows 64 bits)", t.name, shape_string(t.shape)), "the header is damaged");
        const std::uint64_t total_bits = count * bits;
        if (total_bits % 8 != 0 || total_bits / 8 != t.end - t.begin)
            fail(file, fmt::format("tensor \"{}\": shape {} {} needs {} bytes, {} give {}", t.name, shape_string(t.shape), t.dtype,
                                   total_bits % 8 == 0 ? std::to_string(total_bits / 8) : fmt::format("{} bits", total_bits), range, t.end - t.begin),
                 "the header is damaged");
        expected = t.end;
        previous = &t;
    }
    const std::uint64_t data_start = 8 + n;
    if (size_ - data_start != expected) {
        const std::uint64_t want = data_start + expected;
        if (size_ < want)
            fail(file, fmt::format("{} bytes, but the header describes 8 + {} + {} = {}: the file is truncated", size_, n, expected, want),
                 "download it again (an interrupted download leaves a partial file)");
        fail(file, fmt::format("{} bytes, but the header describes 8 + {} + {} = {}: {} bytes after the last tensor", size_, n, expected,
                               want, size_ - want),
             "a safetensors file must end with its last tensor");
    }
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        tensors_[i].data = bytes_ + data_start + tensors_[i].begin;
        index_.emplace(tensors_[i].name, i);
    }
}

const SafeTensorView* SafeTensors::find(const std::string& tensor) const {
    const auto it = index_.find(tensor);
    return it == index_.end() ? nullptr : &tensors_[it->second];
}

const SafeTensorView& SafeTensors::at(const std::string& tensor) const {
    if (const auto* t = find(tensor)) return *t;
    fail(name_, fmt::format("no tensor \"{}\" ({} tensors in the file)", tensor, tensors_.size()),
         "is it a GPT-2 checkpoint (openai-community/gpt2, -medium, -large, -xl)?");
}

// ---- GPT-2 ----------------------------------------------------------------------------------------

std::string gpt2_name_prefix(const SafeTensors& file) {
    if (file.find("wte.weight")) return "";
    if (file.find("transformer.wte.weight")) return "transformer.";
    fail(file.name(), fmt::format("no tensor \"wte.weight\" (nor \"transformer.wte.weight\"); {} tensors in the file", file.tensors().size()),
         "is it a GPT-2 checkpoint (openai-community/gpt2, -medium, -large, -xl)?");
}

namespace {
const SafeTensorView& tensor_f32(const SafeTensors& file, const std::string& name, const std::vector<std::uint64_t>& expected);

// Every tensor the book's load_weights_into_gpt reads, with the shape it must have for `cfg`.
std::vector<std::pair<std::string, std::vector<std::uint64_t>>> gpt2_tensors(const GPTConfig& cfg, const std::string& p) {
    const std::uint64_t C = cfg.emb_dim;
    std::vector<std::pair<std::string, std::vector<std::uint64_t>>> out = {
        {p + "wte.weight", {cfg.vocab_size, C}}, {p + "wpe.weight", {cfg.context_length, C}}, {p + "ln_f.weight", {C}}, {p + "ln_f.bias", {C}}};
    for (std::size_t b = 0; b < cfg.n_layers; ++b) {
        const std::string h = fmt::format("{}h.{}.", p, b);
        for (auto&& [name, shape] : std::vector<std::pair<const char*, std::vector<std::uint64_t>>>{
                 {"attn.c_attn.weight", {C, 3 * C}}, {"attn.c_attn.bias", {3 * C}}, {"attn.c_proj.weight", {C, C}}, {"attn.c_proj.bias", {C}},
                 {"mlp.c_fc.weight", {C, 4 * C}}, {"mlp.c_fc.bias", {4 * C}}, {"mlp.c_proj.weight", {4 * C, C}}, {"mlp.c_proj.bias", {C}},
                 {"ln_1.weight", {C}}, {"ln_1.bias", {C}}, {"ln_2.weight", {C}}, {"ln_2.bias", {C}}})
            out.emplace_back(h + name, shape);
    }
    return out;
}
}  // namespace

std::size_t gpt2_n_heads(const std::string& file, std::size_t emb_dim, std::size_t n_layers, std::optional<std::size_t> n_heads,
                         std::string* how) {
    GPTConfig cfg;
    cfg.emb_dim = emb_dim;
    cfg.n_layers = n_layers;
    if (n_heads) {
        cfg.n_heads = *n_heads;
        if (how) *how = fmt::format("{} heads (--heads)", cfg.n_heads);
    } else {
        const auto it = std::find_if(kGpt2Sizes.begin(), kGpt2Sizes.end(),
                                     [&](const Gpt2Size& s) { return s.emb_dim == cfg.emb_dim && s.n_layers == cfg.n_layers; });
        if (it != kGpt2Sizes.end()) {
            cfg.n_heads = it->n_heads;
            if (how) *how = fmt::format("{} heads ({}'s shapes)", cfg.n_heads, it->name);
        } else {
            if (cfg.emb_dim < 64)
                throw std::invalid_argument(fmt::format("{}: emb_dim {} is narrower than one of GPT-2's 64-wide heads, so the number "
                                                        "of heads cannot be inferred; give --heads N with N dividing {}",
                                                        file, cfg.emb_dim, cfg.emb_dim));
            cfg.n_heads = cfg.emb_dim / 64;
            if (how) *how = fmt::format("{} heads (emb_dim {} / 64, GPT-2's head size; --heads N to choose)", cfg.n_heads, cfg.emb_dim);
        }
    }
    if (cfg.n_heads == 0 || cfg.emb_dim % cfg.n_heads != 0)
        throw std::invalid_argument(fmt::format("{}: emb_dim {} cannot be split into {} heads; give --heads N with N dividing {}", file,
                                                cfg.emb_dim, cfg.n_heads, cfg.emb_dim));
    return cfg.n_heads;
}

GPTConfig infer_gpt_config(const SafeTensors& file, std::optional<std::size_t> n_heads, std::string* how) {
    const std::string p = gpt2_name_prefix(file);
    const auto matrix_shape = [&](const std::string& name) {
        const SafeTensorView& t = file.at(p + name);
        if (t.shape.size() != 2 || t.shape[0] == 0 || t.shape[1] == 0)
            fail(file.name(), fmt::format("tensor \"{}{}\" has shape {}, expected a non-empty matrix", p, name, shape_string(t.shape)),
                 "is it a GPT-2 checkpoint?");
        return t.shape;
    };
    const auto wte = matrix_shape("wte.weight");  // [V, C]
    const auto wpe = matrix_shape("wpe.weight");  // [context_length, C]
    GPTConfig cfg;
    cfg.vocab_size = static_cast<std::size_t>(wte[0]);
    cfg.emb_dim = static_cast<std::size_t>(wte[1]);
    cfg.context_length = static_cast<std::size_t>(wpe[0]);
    cfg.drop_rate = 0.0;   // BASE_CONFIG["drop_rate"]
    cfg.qkv_bias = true;   // BASE_CONFIG["qkv_bias"]
    if (cfg.vocab_size != 50257)
        fail(file.name(), fmt::format("tensor \"{}wte.weight\" has shape {}, expected [50257, {}]", p, shape_string(wte), cfg.emb_dim),
             "GPT-2's tokenizer has 50257 tokens");
    if (wpe[1] != wte[1])
        fail(file.name(), fmt::format("tensor \"{}wpe.weight\" has shape {}, expected [{}, {}] (emb_dim {} from wte.weight)", p,
                                      shape_string(wpe), wpe[0], cfg.emb_dim, cfg.emb_dim),
             "the file is not a consistent GPT-2 checkpoint");
    // Blocks h.0. .. h.{L-1}.: every index that appears, without a gap.
    std::set<std::size_t> blocks;
    const std::string h = p + "h.";
    for (const auto& t : file.tensors()) {
        if (t.name.compare(0, h.size(), h) != 0) continue;
        const std::size_t dot = t.name.find('.', h.size());
        const std::string digits = t.name.substr(h.size(), dot == std::string::npos ? std::string::npos : dot - h.size());
        if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
        blocks.insert(static_cast<std::size_t>(std::stoul(digits)));
    }
    if (blocks.empty()) fail(file.name(), fmt::format("no transformer blocks (tensors \"{}h.0.*\")", p), "is it a GPT-2 checkpoint?");
    if (*blocks.rbegin() + 1 != blocks.size()) {
        std::size_t gap = 0;
        while (blocks.count(gap)) ++gap;
        fail(file.name(), fmt::format("blocks up to h.{} but no h.{}", *blocks.rbegin(), gap), "the file is not a complete GPT-2 checkpoint");
    }
    cfg.n_layers = blocks.size();
    // Every tensor the model needs, F32 and of its shape, before anything is allocated for it.
    for (const auto& [name, shape] : gpt2_tensors(cfg, p)) tensor_f32(file, name, shape);
    std::optional<std::size_t> heads = n_heads;
    const auto n_head = file.metadata().find("n_head");  // written by llmfs-train --save
    const bool heads_from_file = !heads && n_head != file.metadata().end();
    if (heads_from_file) {
        const std::string& text = n_head->second;
        if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
            fail(file.name(), fmt::format("__metadata__ \"n_head\" is \"{}\", not a number of heads", text), "give --heads N");
        heads = static_cast<std::size_t>(std::stoul(text));
    }
    cfg.n_heads = gpt2_n_heads(file.name(), cfg.emb_dim, cfg.n_layers, heads, how);
    if (heads_from_file && how) {
        const auto format = file.metadata().find("format");  // "tf": nn/tf_checkpoint's gpt2/<size> folder
        const bool tf = format != file.metadata().end() && format->second == "tf";
        *how = fmt::format("{} heads ({})", cfg.n_heads, tf ? "hparams.json's n_head" : "the file's n_head");
    }
    return cfg;
}

namespace {

// The F32 tensor `name`, checked against the shape the model expects.
const SafeTensorView& tensor_f32(const SafeTensors& file, const std::string& name, const std::vector<std::uint64_t>& expected) {
    const SafeTensorView& t = file.at(name);
    if (t.dtype != "F32")
        fail(file.name(), fmt::format("tensor \"{}\" is {}; GPT-2 weights must be F32", name, t.dtype),
             "use the F32 model.safetensors of openai-community/gpt2 (this loader does not convert F16/BF16)");
    if (t.shape != expected)
        fail(file.name(), fmt::format("tensor \"{}\" has shape {}, the model expects {}", name, shape_string(t.shape), shape_string(expected)),
             "the file does not fit the model's config (emb_dim, context_length, --model / --heads)");
    return t;
}

// left = torch.nn.Parameter(right): the F32 bytes of `t` into dst (the one copy; memcpy because
// the file's data is not 4-byte aligned).
void copy_into(float* dst, const SafeTensorView& t) { std::memcpy(dst, t.data, t.nbytes()); }

// dst [out, in] = src[:, col0 : col0 + out].T, src an unaligned row-major [in, src_cols] F32 matrix.
void copy_transposed(float* dst, const SafeTensorView& src, std::size_t in, std::size_t src_cols, std::size_t col0, std::size_t out) {
    constexpr std::size_t kTile = 32;
    for (std::size_t i0 = 0; i0 < in; i0 += kTile) {
        const std::size_t i1 = std::min(in, i0 + kTile);
        for (std::size_t o0 = 0; o0 < out; o0 += kTile) {
            const std::size_t o1 = std::min(out, o0 + kTile);
            for (std::size_t i = i0; i < i1; ++i) {
                const unsigned char* row = src.data + (i * src_cols + col0) * sizeof(float);
                for (std::size_t o = o0; o < o1; ++o) std::memcpy(dst + o * in + i, row + o * sizeof(float), sizeof(float));
            }
        }
    }
}

std::vector<std::uint64_t> dims(std::initializer_list<std::size_t> d) { return std::vector<std::uint64_t>(d.begin(), d.end()); }

}  // namespace

void load_weights_into_gpt(GPTModel& model, const SafeTensors& file) {
    const GPTConfig& cfg = model.cfg;
    const std::size_t C = cfg.emb_dim, V = cfg.vocab_size;
    const std::string p = gpt2_name_prefix(file);
    // Every tensor is looked up and checked first, in the book's order (so the first problem is the
    // one reported); the copies, half a gigabyte for 124M, then run on the thread pool.
    std::vector<std::function<void()>> copies;
    const auto plain = [&copies](float* dst, const SafeTensorView& t) { copies.emplace_back([dst, &t] { copy_into(dst, t); }); };
    const auto transposed = [&copies](float* dst, const SafeTensorView& t, std::size_t in, std::size_t src_cols, std::size_t col0,
                                      std::size_t out) {
        copies.emplace_back([=, &t] { copy_transposed(dst, t, in, src_cols, col0, out); });
    };
    // gpt.pos_emb.weight = assign(gpt.pos_emb.weight, params["wpe.weight"])
    plain(model.pos_emb.weight.data.data(), tensor_f32(file, p + "wpe.weight", dims({cfg.context_length, C})));
    // gpt.tok_emb.weight = assign(gpt.tok_emb.weight, params["wte.weight"])
    const SafeTensorView& wte = tensor_f32(file, p + "wte.weight", dims({V, C}));
    plain(model.tok_emb.weight.data.data(), wte);
    // gpt.out_head.weight = assign(gpt.out_head.weight, params["wte.weight"]): tied, a second copy
    // (listed here, with the other 154 MB copy, so that the pool starts on the two largest); or
    // lm_head.weight where the file has it
    plain(model.out_head.weight.data.data(), file.find("lm_head.weight") ? tensor_f32(file, "lm_head.weight", dims({V, C})) : wte);

    for (std::size_t b = 0; b < model.trf_blocks.size(); ++b) {
        TransformerBlock& block = model.trf_blocks[b];
        const std::string h = fmt::format("{}h.{}.", p, b);
        // q_w, k_w, v_w = torch.chunk(params[f"h.{b}.attn.c_attn.weight"], 3, axis=-1)
        // W_query.weight = assign(..., q_w.T), and so for key and value
        const SafeTensorView& c_attn_w = tensor_f32(file, h + "attn.c_attn.weight", dims({C, 3 * C}));  // [C, 3C]
        const SafeTensorView& c_attn_b = tensor_f32(file, h + "attn.c_attn.bias", dims({3 * C}));        // [3C]
        Linear* qkv[3] = {&block.att.W_query, &block.att.W_key, &block.att.W_value};
        for (std::size_t k = 0; k < 3; ++k) {
            if (!qkv[k]->bias) throw std::invalid_argument("load_weights_into_gpt: the model needs qkv_bias=True, as GPT-2's");
            transposed(qkv[k]->weight.data.data(), c_attn_w, C, 3 * C, k * C, C);  // [C, C]
            // q_b, k_b, v_b = torch.chunk(params[f"h.{b}.attn.c_attn.bias"], 3, axis=-1)
            std::memcpy(qkv[k]->bias->data.data(), c_attn_b.data + k * C * sizeof(float), C * sizeof(float));
        }
        // out_proj.weight = assign(..., params[f"h.{b}.attn.c_proj.weight"].T); out_proj.bias = ...
        transposed(block.att.out_proj.weight.data.data(), tensor_f32(file, h + "attn.c_proj.weight", dims({C, C})), C, C, 0, C);
        plain(block.att.out_proj.bias->data.data(), tensor_f32(file, h + "attn.c_proj.bias", dims({C})));
        // ff.layers[0] = mlp.c_fc (Conv1D [C, 4C] -> Linear [4C, C]); ff.layers[2] = mlp.c_proj
        transposed(block.ff.fc1.weight.data.data(), tensor_f32(file, h + "mlp.c_fc.weight", dims({C, 4 * C})), C, 4 * C, 0, 4 * C);
        plain(block.ff.fc1.bias->data.data(), tensor_f32(file, h + "mlp.c_fc.bias", dims({4 * C})));
        transposed(block.ff.fc2.weight.data.data(), tensor_f32(file, h + "mlp.c_proj.weight", dims({4 * C, C})), 4 * C, C, 0, C);
        plain(block.ff.fc2.bias->data.data(), tensor_f32(file, h + "mlp.c_proj.bias", dims({C})));
        // norm1.scale / shift = ln_1.weight / bias; norm2 = ln_2
        plain(block.norm1.scale.data.data(), tensor_f32(file, h + "ln_1.weight", dims({C})));
        plain(block.norm1.shift.data.data(), tensor_f32(file, h + "ln_1.bias", dims({C})));
        plain(block.norm2.scale.data.data(), tensor_f32(file, h + "ln_2.weight", dims({C})));
        plain(block.norm2.shift.data.data(), tensor_f32(file, h + "ln_2.bias", dims({C})));
    }
    // gpt.final_norm.scale / shift = ln_f.weight / bias
    plain(model.final_norm.scale.data.data(), tensor_f32(file, p + "ln_f.weight", dims({C})));
    plain(model.final_norm.shift.data.data(), tensor_f32(file, p + "ln_f.bias", dims({C})));

    compute_pool().run(copies.size(), [&copies](std::size_t i) { copies[i](); });
}

void save_gpt_as_gpt2(const GPTModel& model, const std::filesystem::path& path) {
    {
        const std::uint32_t one = 1;
        unsigned char first = 0;
        std::memcpy(&first, &one, 1);
        if (first != 1) throw std::runtime_error("save_gpt_as_gpt2: needs a little-endian machine");
    }
    const GPTConfig& cfg = model.cfg;
    const std::size_t C = cfg.emb_dim;
    // name -> (shape, the values written in row-major order)
    struct Entry {
        std::vector<std::size_t> shape;
        std::function<void(std::vector<float>&)> values;
    };
    std::map<std::string, Entry> tensors;  // sorted by name, bytewise, as safetensors' writer sorts
    const auto plain = [&tensors](const std::string& name, const auto& t) {
        std::vector<std::size_t> shape(t.shape().begin(), t.shape().end());
        tensors[name] = {shape, [&t](std::vector<float>& out) { out.assign(t.begin(), t.end()); }};
    };
    // Conv1D's [in, out] = Linear's weight [out, in].T, `parts` side by side along out
    const auto conv1d = [&tensors](const std::string& name, std::vector<const Linear*> parts) {
        const std::size_t in = parts[0]->in_features(), out = parts[0]->out_features();
        tensors[name] = {{in, out * parts.size()}, [parts, in, out](std::vector<float>& v) {
                             v.resize(in * out * parts.size());
                             for (std::size_t k = 0; k < parts.size(); ++k)
                                 for (std::size_t o = 0; o < out; ++o)
                                     for (std::size_t i = 0; i < in; ++i) v[i * out * parts.size() + k * out + o] = parts[k]->weight.data(o, i);
                         }};
    };
    plain("wte.weight", model.tok_emb.weight.data);
    plain("wpe.weight", model.pos_emb.weight.data);
    plain("lm_head.weight", model.out_head.weight.data);
    plain("ln_f.weight", model.final_norm.scale.data);
    plain("ln_f.bias", model.final_norm.shift.data);
    for (std::size_t b = 0; b < model.trf_blocks.size(); ++b) {
        const TransformerBlock& block = model.trf_blocks[b];
        const std::string h = fmt::format("h.{}.", b);
        const MultiHeadAttention& att = block.att;
        conv1d(h + "attn.c_attn.weight", {&att.W_query, &att.W_key, &att.W_value});
        tensors[h + "attn.c_attn.bias"] = {{3 * C}, [&att, C](std::vector<float>& v) {
                                               v.assign(3 * C, 0.0f);  // no qkv_bias: zeros
                                               const Linear* qkv[3] = {&att.W_query, &att.W_key, &att.W_value};
                                               for (std::size_t k = 0; k < 3; ++k)
                                                   if (qkv[k]->bias) std::copy(qkv[k]->bias->data.begin(), qkv[k]->bias->data.end(), v.begin() + k * C);
                                           }};
        conv1d(h + "attn.c_proj.weight", {&att.out_proj});
        plain(h + "attn.c_proj.bias", att.out_proj.bias->data);
        conv1d(h + "mlp.c_fc.weight", {&block.ff.fc1});
        plain(h + "mlp.c_fc.bias", block.ff.fc1.bias->data);
        conv1d(h + "mlp.c_proj.weight", {&block.ff.fc2});
        plain(h + "mlp.c_proj.bias", block.ff.fc2.bias->data);
        plain(h + "ln_1.weight", block.norm1.scale.data);
        plain(h + "ln_1.bias", block.norm1.shift.data);
        plain(h + "ln_2.weight", block.norm2.scale.data);
        plain(h + "ln_2.bias", block.norm2.shift.data);
    }
    std::string header = fmt::format(R"({{"__metadata__":{{"format":"pt","n_head":"{}"}})", cfg.n_heads);
    std::uint64_t offset = 0;
    for (const auto& [name, e] : tensors) {
        std::uint64_t bytes = 4;
        for (const auto d : e.shape) bytes *= d;
        header += fmt::format(R"(,"{}":{{"dtype":"F32","shape":[{}],"data_offsets":[{},{}]}})", name, fmt::join(e.shape, ","), offset,
                              offset + bytes);
        offset += bytes;
    }
    header += "}";
    header.append((8 - header.size() % 8) % 8, ' ');  // the data 8-byte aligned, as safetensors >= 0.3.1 pads

    const std::filesystem::path partial = path.string() + ".partial";
    const auto failed = [&](const std::string& why) {
        std::error_code ec;
        std::filesystem::remove(partial, ec);
        return std::runtime_error(fmt::format("cannot write the weights to {}: {} (choose a writable path)", path.string(), why));
    };
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out) throw failed(std::strerror(errno));
    char length[8];
    for (int i = 0; i < 8; ++i) length[i] = static_cast<char>((static_cast<std::uint64_t>(header.size()) >> (8 * i)) & 0xFF);
    out.write(length, 8);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    std::vector<float> values;
    for (const auto& [name, e] : tensors) {
        e.values(values);
        out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(float)));
    }
    out.close();
    if (!out) throw failed("writing failed (is the disk full?)");
    std::error_code ec;
    std::filesystem::rename(partial, path, ec);
    if (ec) throw failed(ec.message());
}

// ---- the synthetic checkpoints ------------------------------------------------------------------

std::string write_synthetic_gpt2(const std::filesystem::path& path, const SyntheticGpt2& spec, SyntheticLayout layout) {
    {
        const std::uint32_t one = 1;
        unsigned char first = 0;
        std::memcpy(&first, &one, 1);
        if (first != 1) throw std::runtime_error("write_synthetic_gpt2: needs a little-endian machine");
    }
    const std::size_t d = spec.n_embd, ctx = spec.n_positions, v = spec.vocab_size;
    std::vector<std::pair<std::string, std::vector<std::size_t>>> tensors = {
        {"wte.weight", {v, d}}, {"wpe.weight", {ctx, d}}, {"ln_f.weight", {d}}, {"ln_f.bias", {d}}};
    for (std::size_t i = 0; i < spec.n_layer; ++i) {
        const std::string p = fmt::format("h.{}.", i);
        for (auto&& [name, shape] : std::vector<std::pair<const char*, std::vector<std::size_t>>>{
                 {"ln_1.weight", {d}}, {"ln_1.bias", {d}}, {"attn.bias", {1, 1, ctx, ctx}}, {"attn.c_attn.weight", {d, 3 * d}},
                 {"attn.c_attn.bias", {3 * d}}, {"attn.c_proj.weight", {d, d}}, {"attn.c_proj.bias", {d}}, {"ln_2.weight", {d}},
                 {"ln_2.bias", {d}}, {"mlp.c_fc.weight", {d, 4 * d}}, {"mlp.c_fc.bias", {4 * d}}, {"mlp.c_proj.weight", {4 * d, d}},
                 {"mlp.c_proj.bias", {d}}})
            tensors.emplace_back(p + name, shape);
    }
    std::sort(tensors.begin(), tensors.end());  // by name, bytewise: h.1. < h.10. < h.2.
    const auto numel = [](const std::vector<std::size_t>& shape) {
        std::size_t n = 1;
        for (const auto s : shape) n *= s;
        return n;
    };
    // Offsets in data order: sorted, or reversed for `scrambled`.
    std::vector<std::size_t> begin(tensors.size());
    std::size_t data_length = 0;
    for (std::size_t k = 0; k < tensors.size(); ++k) {
        const std::size_t i = layout == SyntheticLayout::scrambled ? tensors.size() - 1 - k : k;
        begin[i] = data_length;
        data_length += 4 * numel(tensors[i].second);
    }
    // The header: compact JSON, entries in name order.
    const std::string metadata = R"("__metadata__":{"format":"pt"})";
    std::string header = "{";
    if (layout != SyntheticLayout::scrambled) header += metadata;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if (header.size() > 1) header += ",";
        header += fmt::format(R"("{}":{{"dtype":"F32","shape":[{}],"data_offsets":[{},{}]}})", tensors[i].first,
                              fmt::join(tensors[i].second, ","), begin[i], begin[i] + 4 * numel(tensors[i].second));
    }
    if (layout == SyntheticLayout::scrambled) header += "," + metadata;
    header += "}";
    if (layout == SyntheticLayout::pad8) header.append((8 - header.size() % 8) % 8, ' ');
    if (layout == SyntheticLayout::scrambled) header.append((8 + 3 - header.size() % 8) % 8, ' ');

    std::string bytes(8 + header.size() + data_length, '\0');
    std::uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
    std::memcpy(&bytes[8], header.data(), header.size());
    char* data = &bytes[8 + header.size()];

    // The values, drawn in name order whatever the layout: torch.manual_seed(seed), then per tensor
    //   attn.bias: torch.tril(torch.ones(ctx, ctx)).view(1, 1, ctx, ctx)   (no draw)
    //   ln_*.weight: torch.randn(shape) * 0.125 + 1.0
    //   else: torch.randn(shape) * 2**scale_log2
    Generator gen;
    gen.manual_seed(spec.seed);
    const float scale = std::ldexp(1.0f, spec.scale_log2);
    std::vector<float> values;
    const auto ends_with = [](const std::string& s, const std::string& tail) {
        return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
    };
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const std::string& name = tensors[i].first;
        values.resize(numel(tensors[i].second));
        if (ends_with(name, ".attn.bias")) {
            for (std::size_t r = 0; r < ctx; ++r)
                for (std::size_t c = 0; c < ctx; ++c) values[r * ctx + c] = c <= r ? 1.0f : 0.0f;
        } else {
            gen.normal_(values.data(), values.size(), 0.0, 1.0);  // torch.randn(shape)
            if (ends_with(name, "ln_1.weight") || ends_with(name, "ln_2.weight") || ends_with(name, "ln_f.weight")) {
                for (float& x : values) x = x * 0.125f + 1.0f;  // exact product, one rounding: as PyTorch's two ops
            } else {
                for (float& x : values) x *= scale;  // a power of two: exact
            }
        }
        std::memcpy(data + begin[i], values.data(), values.size() * sizeof(float));
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) throw std::runtime_error("write_synthetic_gpt2: cannot write " + path.string());
    return sha256_hex(bytes);
}

}  // namespace llmfs
