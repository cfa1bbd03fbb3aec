// TensorFlow checkpoints: CRC-32C against its check value, the bundle writer read back (one block
// and many), damage refused with a message naming the file and what is wrong, and a gpt2/<size>
// folder holding the tiny synthetic GPT-2 (nn/safetensors' test model) loading into exactly the
// model its safetensors file loads. That write_tf_bundle writes TensorFlow's own bytes is checked
// against real TensorFlow checkpoints by tests/goldens/check_tf_bundle_writer.sh (docs/gpt2-tf-checkpoint.md).
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "llmfs/nn/tf_checkpoint.hpp"
#include "test_support.hpp"

using namespace llmfs;
namespace fs = std::filesystem;
using llmfs::testing::TempDir;

namespace {

TfTensorBytes floats(const std::string& name, std::vector<std::uint64_t> shape, float first) {
    std::size_t n = 1;
    for (const auto d : shape) n *= static_cast<std::size_t>(d);
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = first + 0.5f * static_cast<float>(i);
    return {name, 1, std::move(shape), std::string(reinterpret_cast<const char*>(v.data()), n * sizeof(float))};
}

std::string read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no error)";
}

const char* kTinyHparams = R"({"n_vocab": 50257, "n_ctx": 32, "n_embd": 128, "n_head": 4, "n_layer": 2})";

}  // namespace

TEST_CASE("crc32c: the Castagnoli check value, and TensorFlow's mask undone") {
    const std::string check = "123456789";
    CHECK(crc32c(reinterpret_cast<const unsigned char*>(check.data()), check.size()) == 0xe3069283u);
    CHECK(crc32c(reinterpret_cast<const unsigned char*>(check.data()) + 4, 5,
                 crc32c(reinterpret_cast<const unsigned char*>(check.data()), 4)) == 0xe3069283u);  // extended in two parts
    for (const std::uint32_t v : {0u, 1u, 0xe3069283u, 0xffffffffu}) CHECK(crc32c_unmask(crc32c_mask(v)) == v);
}

TEST_CASE("a bundle is read back: names in order, shapes, bytes, a scalar, and a table of many blocks") {
    const std::vector<TfTensorBytes> tensors = {floats("model/wpe", {4, 3}, 1.0f), floats("beta1_power", {}, 0.9f),
                                                floats("model/h0/attn/c_attn/w", {1, 3, 9}, -2.0f)};
    const TfBundleBytes b = write_tf_bundle(tensors);
    const TfCheckpoint ck = TfCheckpoint::from_bytes(b.index, {b.data});
    REQUIRE(ck.tensors().size() == 3);
    CHECK(ck.tensors()[0].name == "beta1_power");  // key order, not the order written
    CHECK(ck.tensors()[0].shape.empty());
    for (const auto& t : tensors) {
        const TfTensorView* v = ck.find(t.name);
        REQUIRE(v != nullptr);
        CHECK(v->dtype == 1);
        CHECK(v->shape == t.shape);
        CHECK(std::string(reinterpret_cast<const char*>(v->data), v->size) == t.bytes);
    }
    CHECK(ck.find("model/wte") == nullptr);

    // 20,000 entries with long shared prefixes: an index of several 256 KiB blocks.
    std::vector<TfTensorBytes> many;
    for (int i = 0; i < 20000; ++i) many.push_back(floats(fmt::format("model/a_rather_long_scope_name/layer{:05d}/w", i), {2}, float(i)));
    const TfBundleBytes m = write_tf_bundle(many);
    CHECK(m.index.size() > 2 * 262144);
    const TfCheckpoint big = TfCheckpoint::from_bytes(m.index, {m.data});
    REQUIRE(big.tensors().size() == many.size());
    for (std::size_t i = 0; i < many.size(); i += 997) {
        const TfTensorView* v = big.find(many[i].name);
        REQUIRE(v != nullptr);
        CHECK(std::string(reinterpret_cast<const char*>(v->data), v->size) == many[i].bytes);
    }
}

TEST_CASE("damaged bundles are refused with a message naming the file and what is wrong") {
    const TfBundleBytes b = write_tf_bundle({floats("model/wpe", {4, 3}, 1.0f), floats("model/wte", {2, 3}, 5.0f)});
    const auto refused = [](std::string index, std::string data) { return error_of([&] { TfCheckpoint::from_bytes(index, {data}, "ck"); }); };
    CHECK_THAT(refused(b.index, b.data), Catch::Equals("(no error)"));
    std::string data = b.data;
    data[50] ^= 0x01;
    CHECK_THAT(refused(b.index, data), Catch::Contains("ck.data-00000-of-00001: tensor \"model/wte\" fails its checksum"));
    CHECK_THAT(refused(b.index, b.data.substr(0, 60)), Catch::Contains("runs past the end of the file (60 bytes)") &&
                                                         Catch::Contains("truncated"));
    std::string index = b.index;
    index[3] ^= 0x10;  // inside the data block
    CHECK_THAT(refused(index, b.data), Catch::Contains("ck.index: a data block fails its checksum"));
    CHECK_THAT(refused(b.index.substr(0, b.index.size() - 1), b.data), Catch::Contains("no table magic"));
    CHECK_THAT(refused("short", b.data), Catch::Contains("shorter than a table's 48-byte footer"));
    CHECK_THAT(refused(std::string(100, 'x'), b.data), Catch::Contains("not a TensorFlow checkpoint index"));

    TempDir tmp("llmfs_tf_missing");
    std::ofstream(tmp.path / "model.ckpt.index", std::ios::binary) << b.index;  // no data file beside it
    CHECK_THAT(error_of([&] { TfCheckpoint::open(tmp.path / "model.ckpt"); }),
               Catch::Contains("model.ckpt.data-00000-of-00001: cannot open") && Catch::Contains("download them too"));
    CHECK_THAT(error_of([&] { TfCheckpoint::open(tmp.path / "other.ckpt"); }), Catch::Contains("other.ckpt.index: cannot open"));
}

TEST_CASE("a gpt2/<size> folder loads into the model its safetensors loads, bit for bit, with n_head from hparams.json") {
    TempDir tmp("llmfs_tf_gpt2");
    write_synthetic_gpt2(tmp.path / "tiny.safetensors", SyntheticGpt2::tiny());
    const SafeTensors hf = SafeTensors::open(tmp.path / "tiny.safetensors");
    write_gpt2_tf_folder(tmp.path / "gpt2" / "tiny", hf, kTinyHparams);

    const SafeTensors tf = open_gpt2_weights(tmp.path / "gpt2" / "tiny" / "");
    std::string how;
    const GPTConfig cfg = infer_gpt_config(tf, std::nullopt, &how);
    CHECK(cfg.n_heads == 4);
    CHECK(how == "4 heads (hparams.json's n_head)");
    CHECK(cfg.emb_dim == 128);
    CHECK(cfg.n_layers == 2);
    CHECK(cfg.context_length == 32);
    Generator gen;
    GPTModel from_tf(gen, cfg, Init::zeros), from_hf(gen, cfg, Init::zeros);
    load_weights_into_gpt(from_tf, tf);
    load_weights_into_gpt(from_hf, open_gpt2_weights(tmp.path / "tiny.safetensors"));
    // Every parameter, compared through save_gpt_as_gpt2's bytes.
    save_gpt_as_gpt2(from_tf, tmp.path / "from_tf.safetensors");
    save_gpt_as_gpt2(from_hf, tmp.path / "from_hf.safetensors");
    CHECK(read_bytes(tmp.path / "from_tf.safetensors") == read_bytes(tmp.path / "from_hf.safetensors"));

    // read_gpt2_tf_folder: the same weights, hparams.json's text as written, the checkpoint's own names.
    const Gpt2TfFolder folder = read_gpt2_tf_folder(tmp.path / "gpt2" / "tiny");
    CHECK(folder.hparams_json == kTinyHparams);
    REQUIRE(folder.weights.tensors().size() == tf.tensors().size());
    for (std::size_t i = 0; i < tf.tensors().size(); ++i) CHECK(folder.weights.tensors()[i].name == tf.tensors()[i].name);
    REQUIRE(folder.checkpoint.find("model/h1/attn/c_attn/w") != nullptr);
    CHECK(folder.checkpoint.find("model/h1/attn/c_attn/w")->shape == std::vector<std::uint64_t>{1, 128, 384});
}

TEST_CASE("a TensorFlow name splits as Python's str.split(\"/\")") {
    CHECK(tf_name_parts("model/h3/attn/c_attn/w") == std::vector<std::string>{"model", "h3", "attn", "c_attn", "w"});
    CHECK(tf_name_parts("model/wte") == std::vector<std::string>{"model", "wte"});
    CHECK(tf_name_parts("global_step") == std::vector<std::string>{"global_step"});
    CHECK(tf_name_parts("") == std::vector<std::string>{""});
    CHECK(tf_name_parts("a//b/") == std::vector<std::string>{"a", "", "b", ""});
}

TEST_CASE("a folder named after a GPT-2 size is checked against GPT-2's one size table") {
    TempDir tmp("llmfs_tf_sizes");
    write_synthetic_gpt2(tmp.path / "tiny.safetensors", SyntheticGpt2::tiny());
    const SafeTensors hf = SafeTensors::open(tmp.path / "tiny.safetensors");
    for (const Gpt2Size& size : kGpt2Sizes) {
        write_gpt2_tf_folder(tmp.path / size.folder, hf, kTinyHparams);
        CHECK_THAT(error_of([&] { gpt2_tf_checkpoint(tmp.path / size.folder); }),
                   Catch::Contains(fmt::format("named {} (n_embd {}, n_layer {})", size.folder, size.emb_dim, size.n_layers)));
    }
}

TEST_CASE("a folder that is not GPT-2's download, or of another size, is refused with a message") {
    TempDir tmp("llmfs_tf_bad_folder");
    write_synthetic_gpt2(tmp.path / "tiny.safetensors", SyntheticGpt2::tiny());
    const SafeTensors hf = SafeTensors::open(tmp.path / "tiny.safetensors");
    const auto refused = [&](const fs::path& folder) { return error_of([&] { gpt2_tf_checkpoint(folder); }); };

    write_gpt2_tf_folder(tmp.path / "124M", hf, kTinyHparams);  // gpt_download.py's name for gpt2-small
    CHECK_THAT(refused(tmp.path / "124M"), Catch::Contains("the folder is named 124M (n_embd 768, n_layer 12) but holds n_embd 128, n_layer 2") &&
                                               Catch::Contains("another size"));
    write_gpt2_tf_folder(tmp.path / "layers", hf, R"({"n_vocab": 50257, "n_ctx": 32, "n_embd": 128, "n_head": 4, "n_layer": 3})");
    CHECK_THAT(refused(tmp.path / "layers"), Catch::Contains("the number of blocks model/hN is 2") && Catch::Contains("n_layer 3"));
    write_gpt2_tf_folder(tmp.path / "ctx", hf, R"({"n_vocab": 50257, "n_ctx": 1024, "n_embd": 128, "n_head": 4, "n_layer": 2})");
    CHECK_THAT(refused(tmp.path / "ctx"), Catch::Contains("model/wpe's rows is 32") && Catch::Contains("n_ctx 1024"));
    write_gpt2_tf_folder(tmp.path / "keys", hf, R"({"n_vocab": 50257, "n_ctx": 32})");
    CHECK_THAT(refused(tmp.path / "keys"), Catch::Contains("hparams.json: no non-negative integer \"n_embd\""));
    write_gpt2_tf_folder(tmp.path / "json", hf, "{\"n_vocab\": ");
    CHECK_THAT(refused(tmp.path / "json"), Catch::Contains("hparams.json: not JSON"));
    fs::create_directories(tmp.path / "empty");
    CHECK_THAT(refused(tmp.path / "empty"), Catch::Contains("no hparams.json in the folder"));
    std::ofstream(tmp.path / "empty" / "hparams.json") << kTinyHparams;
    CHECK_THAT(refused(tmp.path / "empty"), Catch::Contains("model.ckpt.index: cannot open"));
    std::ofstream(tmp.path / "empty" / "checkpoint") << "nothing here\n";
    CHECK_THAT(refused(tmp.path / "empty"), Catch::Contains("no model_checkpoint_path"));
}

TEST_CASE("fuzz: a mutated index loads or is refused with a message", "[fuzz]") {
    std::vector<TfTensorBytes> tensors;
    for (int i = 0; i < 40; ++i) tensors.push_back(floats(fmt::format("model/h{}/mlp/c_fc/w", i), {1, 2, 3}, float(i)));
    const TfBundleBytes b = write_tf_bundle(tensors);
    llmfs::testing::Mutator m(23);
    for (int i = 0; i < 400; ++i) {
        const std::string index = m.bytes(b.index);
        llmfs::testing::fuzz_case("tf-index-" + std::to_string(i), index, [&] {
            const TfCheckpoint ck = TfCheckpoint::from_bytes(index, {b.data}, "fuzz");
            for (const auto& t : ck.tensors()) CHECK(t.offset + t.size <= b.data.size());
        });
    }
}
