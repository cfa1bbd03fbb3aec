// The safetensors reader, the GPT-2 loader and the synthetic checkpoints: the tiny checkpoint is
// byte for byte tests/goldens/make_safetensors_goldens.py's (its SHA-256 in
// data/tests/weights_cases.txt), every kind of damage of helpers' corruption table is refused with
// a message naming what and where, and a fuzz case mutates the header. The end-to-end runs of
// llmfs-generate --weights are tests/generate_weights_test.cpp.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "llmfs/nn/safetensors.hpp"
#include "llmfs/text/data_dir.hpp"
#include "test_support.hpp"

using namespace llmfs;
namespace fs = std::filesystem;
using llmfs::testing::TempDir;

namespace {

// "key value" lines of a case of weights_cases.txt (the first value of a repeated key).
std::map<std::string, std::string> case_fields(const std::string& name) {
    static const auto cases = llmfs::testing::load_cases(LLMFS_TEST_DATA_DIR "/weights_cases.txt");
    const auto it = cases.find(name);
    REQUIRE(it != cases.end());
    std::map<std::string, std::string> fields;
    std::istringstream in(it->second);
    for (std::string line; std::getline(in, line);) {
        const auto space = line.find(' ');
        if (space == std::string::npos) continue;
        fields.emplace(line.substr(0, space), line.substr(space + 1));
    }
    return fields;
}

std::string read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// A small checkpoint with GPT-2's names (emb_dim 8, 2 blocks, context 4, vocabulary 50): the
// corruption tests edit its header.
SyntheticGpt2 mini() { return {50, 4, 8, 2, 7, -2}; }

struct Parts {
    std::string header, data;
};
Parts split(const std::string& file) {
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(file[static_cast<std::size_t>(i)]);
    return {file.substr(8, n), file.substr(8 + n)};
}
std::string join(const std::string& header, const std::string& data) {
    std::string out(8, '\0');
    const std::uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
    return out + header + data;
}
std::string with_length(std::string file, std::uint64_t n) {
    for (int i = 0; i < 8; ++i) file[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
    return file;
}
std::string replaced(std::string s, const std::string& from, const std::string& to) {
    const auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
}

const std::string& mini_file() {
    static const std::string bytes = [] {
        TempDir tmp("llmfs_safetensors_mini");
        write_synthetic_gpt2(tmp.path / "mini.safetensors", mini());
        return read_bytes(tmp.path / "mini.safetensors");
    }();
    return bytes;
}

GPTConfig mini_config() {
    GPTConfig cfg;
    cfg.vocab_size = 50;
    cfg.context_length = 4;
    cfg.emb_dim = 8;
    cfg.n_layers = 2;
    cfg.n_heads = 2;
    cfg.drop_rate = 0.0;
    cfg.qkv_bias = true;
    return cfg;
}

// The entry of `name` in the mini header, e.g. "\"ln_f.bias\":{...}".
std::string entry_of(const std::string& header, const std::string& name) {
    const auto at = header.find("\"" + name + "\":{");
    REQUIRE(at != std::string::npos);
    return header.substr(at, header.find('}', at) + 1 - at);
}

float f32_at(const SafeTensorView& t, std::size_t i) {
    float f;
    std::memcpy(&f, t.data + 4 * i, 4);
    return f;
}
std::string bits_hex(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", u);
    return buf;
}

}  // namespace

TEST_CASE("the tiny synthetic checkpoint is make_safetensors_goldens.py's, byte for byte, in all three layouts") {
    const auto golden = case_fields("file.tiny");
    TempDir tmp("llmfs_safetensors_tiny");
    const fs::path path = tmp.path / "tiny.safetensors";
    CHECK(write_synthetic_gpt2(path, SyntheticGpt2::tiny()) == golden.at("sha256"));
    CHECK(std::to_string(fs::file_size(path)) == golden.at("file_size"));
    CHECK(write_synthetic_gpt2(tmp.path / "pad8.safetensors", SyntheticGpt2::tiny(), SyntheticLayout::pad8) == golden.at("pad8_sha256"));
    CHECK(write_synthetic_gpt2(tmp.path / "scrambled.safetensors", SyntheticGpt2::tiny(), SyntheticLayout::scrambled) ==
          golden.at("scrambled_sha256"));

    // All three read back to the same tensors; the samples are the script's float32 bit patterns.
    const auto tiny = SafeTensors::open(path);
    CHECK(std::to_string(tiny.header_length()) == golden.at("header_length"));
    CHECK(tiny.tensors().size() == 30);
    CHECK(tiny.metadata().at("format") == "pt");
    const auto w = tiny.at("wte.weight");
    CHECK((w.shape == std::vector<std::uint64_t>{50257, 128}));
    CHECK(golden.at("sample").rfind("h.0.attn.bias first 3f800000 00000000 00000000 00000000 last 3f800000", 0) == 0);
    std::ostringstream wte;
    wte << "wte.weight first " << bits_hex(f32_at(w, 0)) << " " << bits_hex(f32_at(w, 1)) << " " << bits_hex(f32_at(w, 2)) << " "
        << bits_hex(f32_at(w, 3)) << " last " << bits_hex(f32_at(w, 50257 * 128 - 1));
    const auto cases = llmfs::testing::load_cases(LLMFS_TEST_DATA_DIR "/weights_cases.txt");
    CHECK(cases.at("file.tiny").find("sample " + wte.str()) != std::string::npos);
    for (const char* variant : {"pad8.safetensors", "scrambled.safetensors"}) {
        const auto other = SafeTensors::open(tmp.path / variant);
        INFO(variant);
        REQUIRE(other.tensors().size() == 30);
        for (const auto& t : tiny.tensors()) {
            const auto& o = other.at(t.name);
            CHECK(o.shape == t.shape);
            CHECK(std::memcmp(o.data, t.data, t.nbytes()) == 0);
        }
    }
    CHECK(std::to_string(SafeTensors::open(tmp.path / "pad8.safetensors").header_length()) == golden.at("pad8_header_length"));
    CHECK(std::to_string(SafeTensors::open(tmp.path / "scrambled.safetensors").header_length()) ==
          golden.at("scrambled_header_length"));
}

TEST_CASE("the config comes from the shapes: tiny is 2 heads by GPT-2's 64-wide heads, or --heads") {
    TempDir tmp("llmfs_safetensors_cfg");
    const fs::path path = tmp.path / "tiny.safetensors";
    write_synthetic_gpt2(path, SyntheticGpt2::tiny());
    const auto file = SafeTensors::open(path);
    std::string how;
    const GPTConfig cfg = infer_gpt_config(file, std::nullopt, &how);
    CHECK(cfg.vocab_size == 50257);
    CHECK(cfg.context_length == 32);
    CHECK(cfg.emb_dim == 128);
    CHECK(cfg.n_layers == 2);
    CHECK(cfg.n_heads == 2);
    CHECK(cfg.drop_rate == 0.0);
    CHECK(cfg.qkv_bias);
    CHECK(how == "2 heads (emb_dim 128 / 64, GPT-2's head size; --heads N to choose)");
    CHECK(infer_gpt_config(file, 4).n_heads == 4);
    CHECK_THROWS_WITH(infer_gpt_config(file, 3), Catch::Contains("emb_dim 128 cannot be split into 3 heads"));
    // Every tensor the model needs is checked before a model is allocated for it.
    const auto [header, data] = split(read_bytes(path));
    const auto renamed = SafeTensors::from_bytes(join(replaced(header, "\"h.1.mlp.c_fc.bias\"", "\"h.1.mlp.c_fc.bias_gone\""), data), "tiny");
    CHECK_THROWS_WITH(infer_gpt_config(renamed), Catch::Contains("tiny: no tensor \"h.1.mlp.c_fc.bias\""));
    const auto reshaped = SafeTensors::from_bytes(join(replaced(header, R"("h.0.ln_2.bias":{"dtype":"F32","shape":[128])", R"("h.0.ln_2.bias":{"dtype":"F32","shape":[2,64])"), data), "tiny");
    CHECK_THROWS_WITH(infer_gpt_config(reshaped), Catch::Contains("tensor \"h.0.ln_2.bias\" has shape [2, 64], the model expects [128]"));

    // The model: every parameter from the file, Conv1D weights transposed, c_attn split in three.
    Generator gen;
    GPTModel model(gen, cfg, Init::zeros);
    load_weights_into_gpt(model, file);
    const auto& c_attn = file.at("h.1.attn.c_attn.weight");  // [128, 384]
    const auto& block = model.trf_blocks[1];
    CHECK(block.att.W_query.weight.data(5, 7) == f32_at(c_attn, 7 * 384 + 5));        // q_w.T
    CHECK(block.att.W_key.weight.data(5, 7) == f32_at(c_attn, 7 * 384 + 128 + 5));    // k_w.T
    CHECK(block.att.W_value.weight.data(127, 0) == f32_at(c_attn, 0 * 384 + 256 + 127));
    CHECK((*block.att.W_value.bias).data(3) == f32_at(file.at("h.1.attn.c_attn.bias"), 256 + 3));
    CHECK(block.ff.fc2.weight.data(10, 400) == f32_at(file.at("h.1.mlp.c_proj.weight"), 400 * 128 + 10));
    CHECK(model.out_head.weight.data(50256, 127) == f32_at(file.at("wte.weight"), 50257 * 128 - 1));
    CHECK(model.final_norm.scale.data(0) == f32_at(file.at("ln_f.weight"), 0));
}

TEST_CASE("a valid file with unusual but legal details loads") {
    const auto [header, data] = split(mini_file());
    const std::string entry = entry_of(header, "ln_f.bias");
    for (const auto& [what, file] : std::vector<std::pair<std::string, std::string>>{
             {"as written", mini_file()},
             {"an extra field in an entry", join(replaced(header, entry, entry.substr(0, entry.size() - 1) + R"(,"note":"x"})"), data)},
             {"no __metadata__", join(replaced(header, R"("__metadata__":{"format":"pt"},)", ""), data)},
             {"other metadata", join(replaced(header, R"("format":"pt")", R"("format":"tf","x":"")"), data)},
             {"leading spaces", join("    " + header, data)},
             {"trailing spaces", join(header + "       ", data)},
             {"an empty header, no data", join("{}", "")},
             {"a NaN value", [&, h = header, dd = data] {
                  std::string d = dd;
                  std::memset(&d[0], 0xFF, 4);
                  return join(h, d);
              }()}}) {
        INFO(what);
        CHECK_NOTHROW(SafeTensors::from_bytes(file, "mini.safetensors"));
    }
    const auto loaded = SafeTensors::from_bytes(mini_file(), "mini.safetensors");
    Generator gen;
    GPTModel model(gen, mini_config(), Init::zeros);
    CHECK_NOTHROW(load_weights_into_gpt(model, loaded));
}

TEST_CASE("damaged files are refused with a message naming the file, what is wrong and where") {
    const std::string file = mini_file();
    const auto [header, data] = split(file);
    const std::string ln_f_bias = entry_of(header, "ln_f.bias");     // [8], 32 bytes
    const std::string ln_f_weight = entry_of(header, "ln_f.weight");
    const std::string last = entry_of(header, "wte.weight");          // the last tensor in the data
    const auto offsets = [](const std::string& entry) { return entry.substr(entry.find("\"data_offsets\"")); };
    const std::string deep = std::string(100, '[') + std::string(100, ']');
    for (const auto& [what, bytes, message] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"empty", "", "0 bytes, too short for a safetensors file"},
             {"7 bytes", file.substr(0, 7), "7 bytes, too short"},
             {"header length over 100 MB", with_length(file, 100000001), "header length 100000001 (bytes 0-7) is over the format's limit"},
             {"header length 2^64-1", with_length(file, ~0ull), "is over the format's limit"},
             {"header length beyond the file", with_length(file, file.size()), "but the file has only " + std::to_string(file.size()) + " bytes"},
             {"cut inside the header", file.substr(0, 8 + header.size() / 2), "but the file has only"},
             {"one byte short", file.substr(0, file.size() - 1), "the file is truncated"},
             {"cut in the data", file.substr(0, 8 + header.size() + data.size() / 2), "the file is truncated"},
             {"a trailing byte", file + "x", "1 bytes after the last tensor"},
             {"not UTF-8", join(replaced(header, "ln_f.bias", "ln_f\xff.bias"), data), "the header is not UTF-8 (byte "},
             {"not JSON", join("x" + header.substr(1), data), "is not valid JSON"},
             {"JSON cut", join(header.substr(0, header.size() - 1) + " ", data), "is not valid JSON"},
             {"NUL padding", join(header + std::string(4, '\0'), data), "is not valid JSON"},
             {"a byte-order mark", join("\xEF\xBB\xBF" + header, data), "byte-order mark"},
             {"an array", join("[]" + std::string(header.size() - 2, ' '), data), "the header is JSON array, not an object"},
             {"dtype F33", join(replaced(header, R"("wte.weight":{"dtype":"F32")", R"("wte.weight":{"dtype":"F33")"), data),
              "tensor \"wte.weight\": unknown dtype \"F33\""},
             {"dtype f32", join(replaced(header, R"("wte.weight":{"dtype":"F32")", R"("wte.weight":{"dtype":"f32")"), data), "unknown dtype \"f32\""},
             {"shape and size disagree", join(replaced(header, ln_f_bias, replaced(ln_f_bias, "[8]", "[7]")), data),
              "tensor \"ln_f.bias\": shape [7] F32 needs 28 bytes, data_offsets"},
             {"last tensor shifted", join(replaced(header, last, replaced(last, offsets(last), [&] {
                                                    std::string o = offsets(last);
                                                    const auto a = o.find('[') + 1, comma = o.find(','), b = o.find(']');
                                                    return "\"data_offsets\":[" + std::to_string(std::stoull(o.substr(a, comma - a)) + 4) + "," +
                                                           std::to_string(std::stoull(o.substr(comma + 1, b - comma - 1)) + 4) + "]}";
                                                }())),
                                          data),
              "tensor \"wte.weight\": data_offsets"},
             {"two tensors over the same bytes", join(replaced(header, ln_f_weight, replaced(ln_f_weight, offsets(ln_f_weight), offsets(ln_f_bias))), data),
              "overlap another tensor"},
             {"an entry dropped", join(replaced(header, "," + ln_f_bias, ""), data), "leave a gap"},
             {"end before begin", join(replaced(header, ln_f_bias, replaced(ln_f_bias, offsets(ln_f_bias), [&] {
                                                    std::string o = offsets(ln_f_bias);
                                                    const auto a = o.find('[') + 1, comma = o.find(','), b = o.find(']');
                                                    return "\"data_offsets\":[" + o.substr(comma + 1, b - comma - 1) + "," + o.substr(a, comma - a) + "]}";
                                                }())),
                                       data),
              "end before they begin"},
             {"an entry past the end", join(header.substr(0, header.size() - 1) + R"(,"zz":{"dtype":"F32","shape":[1],"data_offsets":[)" +
                                                std::to_string(data.size()) + "," + std::to_string(data.size() + 4) + "]}}",
                                            data),
              "the file is truncated"},
             {"a negative offset", join(replaced(header, ln_f_bias, replaced(ln_f_bias, "\"data_offsets\":[", "\"data_offsets\":[-")), data),
              "tensor \"ln_f.bias\": data_offsets must be 2 non-negative integers"},
             {"a negative dim", join(replaced(header, ln_f_bias, replaced(ln_f_bias, "[8]", "[-8]")), data), "shape must be a list of non-negative integers"},
             {"a fractional dim", join(replaced(header, ln_f_bias, replaced(ln_f_bias, "[8]", "[8.0]")), data), "shape must be a list of non-negative integers"},
             {"three offsets", join(replaced(header, ln_f_bias, replaced(ln_f_bias, "]}", ",0]}")), data), "data_offsets must be 2"},
             {"a shape that overflows", join(replaced(header, ln_f_bias, replaced(ln_f_bias, "[8]", "[2,9223372036854775808]")), data),
              "shape [2, 9223372036854775808] is too large"},
             {"no shape", join(replaced(header, ln_f_bias, replaced(ln_f_bias, "\"shape\":[8],", "")), data), "tensor \"ln_f.bias\": no \"shape\""},
             {"a duplicate tensor", join(replaced(header, ln_f_bias, ln_f_bias + "," + ln_f_bias), data), "the key \"ln_f.bias\" twice"},
             {"__metadata__ twice", join(replaced(header, "{\"__metadata__\"", R"({"__metadata__":{},"__metadata__")"), data), "\"__metadata__\" twice"},
             {"metadata not a string", join(replaced(header, R"("format":"pt")", R"("format":1)"), data), "entry \"format\" is number, not a string"},
             {"nested 100 deep", join(replaced(header, R"("format":"pt")", R"("format":)" + deep), data), "nested more than 8 levels deep"},
         }) {
        INFO(what);
        try {
            SafeTensors::from_bytes(bytes, "mini.safetensors");
            FAIL_CHECK("accepted");
        } catch (const std::runtime_error& e) {
            const std::string got = e.what();
            CHECK_THAT(got, Catch::StartsWith("mini.safetensors: ") && Catch::Contains(message));
            CHECK(got.find("; ") != std::string::npos);  // the hint
        }
    }
}

TEST_CASE("a file the format accepts but that is not this model's GPT-2 is refused, naming the tensor and both shapes") {
    const auto [header, data] = split(mini_file());
    const std::string ln_1 = entry_of(header, "h.0.ln_1.weight");
    const std::string c_fc_bias = entry_of(header, "h.1.mlp.c_fc.bias");
    std::string f16 = replaced(header, R"("ln_f.bias":{"dtype":"F32","shape":[8])", R"("ln_f.bias":{"dtype":"F16","shape":[16])");
    for (const auto& [what, bytes, message] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"an F16 tensor", join(f16, data), "tensor \"ln_f.bias\" is F16; GPT-2 weights must be F32"},
             {"a missing tensor", join(replaced(header, c_fc_bias, R"("h.1.mlp.c_fc.bias_gone":)" + c_fc_bias.substr(c_fc_bias.find(":{") + 1)), data),
              "no tensor \"h.1.mlp.c_fc.bias\""},
             {"a wrong shape", join(replaced(header, ln_1, replaced(ln_1, "[8]", "[2,4]")), data),
              "tensor \"h.0.ln_1.weight\" has shape [2, 4], the model expects [8]"},
             {"no wte", join(replaced(header, "\"wte.weight\"", "\"wte.weights\""), data), "no tensor \"wte.weight\" (nor \"transformer.wte.weight\")"},
         }) {
        INFO(what);
        const auto file = SafeTensors::from_bytes(bytes, "mini.safetensors");
        Generator gen;
        GPTModel model(gen, mini_config(), Init::zeros);
        CHECK_THROWS_WITH(load_weights_into_gpt(model, file), Catch::StartsWith("mini.safetensors: ") && Catch::Contains(message));
    }
    // Extra tensors are ignored; a transformer. prefix is accepted; extra blocks make a deeper model.
    std::string prefixed = header;
    for (std::size_t at = 0; (at = prefixed.find("},\"", at)) != std::string::npos; at += 3) prefixed.insert(at + 3, "transformer.");
    const auto with_prefix = SafeTensors::from_bytes(join(prefixed, data), "mini.safetensors");
    Generator gen;
    GPTModel model(gen, mini_config(), Init::zeros);
    CHECK_NOTHROW(load_weights_into_gpt(model, with_prefix));
    CHECK(gpt2_name_prefix(with_prefix) == "transformer.");
    CHECK_THROWS_WITH(infer_gpt_config(with_prefix), Catch::Contains("tensor \"transformer.wte.weight\" has shape [50, 8], expected [50257, 8]") &&
                                                         Catch::Contains("GPT-2's tokenizer has 50257 tokens"));
}

TEST_CASE("text in place of a safetensors file (a web page, a Git LFS pointer) is said to be text, not a header length") {
    CHECK_THROWS_WITH(SafeTensors::from_bytes("\n  <!DOCTYPE html>\n<html><body>Not Found</body></html>\n", "model.safetensors"),
                      Catch::Contains("model.safetensors: this is an HTML page (text), not a safetensors file") &&
                          !Catch::Contains("header length"));
    CHECK_THROWS_WITH(SafeTensors::from_bytes("version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 548105171\n", "m"),
                      Catch::Contains("m: this is a Git LFS pointer") && Catch::Contains("git lfs pull"));
    CHECK_THROWS_WITH(SafeTensors::from_bytes("{\"wte.weight\": 1}\tmore", "m"),
                      Catch::Contains("m: this is text, not a safetensors file (it starts with \"{\"wte.weight\": 1}?more\")"));
    // A real header length's bytes 4-7 are zero: a file is never taken for text.
    CHECK_NOTHROW(SafeTensors::from_bytes(mini_file(), "mini.safetensors"));
}

TEST_CASE("open: a missing file, a directory") {
    TempDir tmp("llmfs_safetensors_open");
    CHECK_THROWS_WITH(SafeTensors::open(tmp.path / "nope.safetensors"), Catch::Contains("nope.safetensors: cannot open: no such file"));
    CHECK_THROWS_WITH(SafeTensors::open(tmp.path), Catch::Contains("cannot open: it is a directory"));
    CHECK_THROWS_WITH(SafeTensors::open("/dev/null"), Catch::Contains("/dev/null: cannot open: not a regular file"));
    std::ofstream(tmp.path / "short.safetensors") << "abc";
    CHECK_THROWS_WITH(SafeTensors::open(tmp.path / "short.safetensors"), Catch::Contains("3 bytes, too short"));
}

TEST_CASE("fuzz: a mutated header loads or is refused with a message", "[fuzz]") {
    const auto [header, data] = split(mini_file());
    llmfs::testing::Mutator m(19);
    constexpr int kCases = 400;
    for (int i = 0; i < kCases; ++i) {
        const std::string new_header = m.bytes(header);
        // Mostly a consistent length; sometimes the old one, or a mutated whole file.
        const std::string bytes = i % 5 == 4 ? m.bytes(mini_file().substr(0, 8 + header.size() + 64))
                                 : i % 5 == 3 ? with_length(join(new_header, data), header.size())
                                              : join(new_header, data);
        llmfs::testing::fuzz_case("safetensors-" + std::to_string(i), bytes, [&] {
            const auto file = SafeTensors::from_bytes(bytes, "fuzz.safetensors");
            Generator gen;
            GPTModel model(gen, mini_config(), Init::zeros);
            load_weights_into_gpt(model, file);
        });
    }
}

TEST_CASE("save_gpt_as_gpt2: a model of any size, without qkv_bias, read back into the same logits and parameters") {
    TempDir tmp("llmfs_safetensors_save");
    GPTConfig cfg;  // not a GPT-2 size: the heads come from the file's n_head
    cfg.context_length = 8;
    cfg.emb_dim = 12;
    cfg.n_heads = 3;
    cfg.n_layers = 2;
    cfg.qkv_bias = false;
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(123);
    GPTModel model(gen, cfg);
    model.out_head.weight.data *= 0.5f;  // not tok_emb's: the untied out_head must come back
    model.train(false);
    const fs::path path = tmp.path / "trained.safetensors";
    save_gpt_as_gpt2(model, path);
    CHECK_FALSE(fs::exists(path.string() + ".partial"));

    const SafeTensors file = SafeTensors::open(path);
    CHECK(file.metadata().at("n_head") == "3");
    CHECK(file.at("h.0.attn.c_attn.weight").shape == std::vector<std::uint64_t>{12, 36});  // Conv1D [in, out]
    CHECK(file.at("lm_head.weight").shape == std::vector<std::uint64_t>{50257, 12});
    std::string how;
    const GPTConfig read = infer_gpt_config(file, std::nullopt, &how);
    CHECK(read.n_heads == 3);
    CHECK(how == "3 heads (the file's n_head)");
    CHECK(read.n_layers == 2);
    CHECK(read.context_length == 8);
    GPTModel loaded(gen, read, Init::zeros);
    load_weights_into_gpt(loaded, file);
    loaded.train(false);
    const auto same = [](const auto& a, const auto& b) { return bool(a == b); };  // every value (xtensor's ==)
    CHECK(same(loaded.out_head.weight.data, model.out_head.weight.data));
    CHECK(same(loaded.trf_blocks[1].att.W_value.weight.data, model.trf_blocks[1].att.W_value.weight.data));
    CHECK(same(loaded.trf_blocks[1].ff.fc2.weight.data, model.trf_blocks[1].ff.fc2.weight.data));
    const bool zero_bias = xt::all(xt::equal(loaded.trf_blocks[0].att.W_query.bias->data, 0.0f));  // no qkv_bias: zeros
    CHECK(zero_bias);
    const IdArray<2> idx = {{6109, 3626, 6100, 345, 11, 40}};
    CHECK(same(loaded.forward(idx).data, model.forward(idx).data));  // a zero bias adds nothing: the same bits

    SECTION("an unwritable path: a message naming it, nothing left behind") {
        CHECK_THROWS_WITH(save_gpt_as_gpt2(model, tmp.path / "no/such/dir/x.safetensors"),
                          Catch::Contains("cannot write the weights to") && Catch::Contains("no/such/dir/x.safetensors"));
        CHECK_FALSE(fs::exists(tmp.path / "no"));
    }
}
