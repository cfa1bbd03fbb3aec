// The torch.save reader and writer: PyTorch's own files (data/tests/pth/, written by
// tests/goldens/make_pth_goldens.py) read, the pickle written back byte for byte as PyTorch's
// pickler writes it, our files read back, and hostile files refused with a message naming the
// file, what and where: hand-made pickles calling other globals, deep nesting, huge and negative
// sizes, overlapping and damaged records, and a fuzz test mutating both the zip and the pickle.
// PyTorch loading our files with weights_only=True is tests/torch_save_roundtrip.py (a CTest).
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "llmfs/nn/torch_save.hpp"
#include "test_support.hpp"

using namespace llmfs;
namespace fs = std::filesystem;
using llmfs::testing::TempDir;

namespace {

std::string read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string pth(const std::string& name) { return read_bytes(fs::path(LLMFS_TEST_DATA_DIR) / "pth" / name); }

std::string record_bytes(const TorchSaveFile& f, const std::string& name, const std::string& file_bytes) {
    for (const auto& r : f.records())
        if (r.name == name) return file_bytes.substr(static_cast<std::size_t>(r.offset), static_cast<std::size_t>(r.size));
    FAIL("no record " << name);
    return {};
}

// A one-record archive whose data.pkl is `pickle` (plus the storage records given).
std::string with_pickle(const std::string& pickle, std::vector<std::pair<std::string, std::string>> more = {}) {
    more.insert(more.begin(), {"data.pkl", pickle});
    return torch_zip("model", more);
}

// Pickle pieces, protocol 2.
std::string binunicode(const std::string& s) {
    std::string out = "X";
    for (int i = 0; i < 4; ++i) out += static_cast<char>((s.size() >> (8 * i)) & 0xFF);
    return out + s;
}
const std::string kProto = "\x80\x02";
// OrderedDict([("w", tensor)]) whose tensor is _rebuild_tensor_v2(storage, OFFSET, SIZE, STRIDE, False, OrderedDict())
std::string state_dict_pickle(const std::string& storage_type, const std::string& numel, const std::string& offset, const std::string& size,
                              const std::string& stride) {
    return kProto + "ccollections\nOrderedDict\nqA)RqB" + binunicode("w") + "ctorch._utils\n_rebuild_tensor_v2\nqC((" +
           binunicode("storage") + "ctorch\n" + storage_type + "\nqD" + binunicode("0") + binunicode("cpu") + numel + "tQ" + offset + size +
           stride + "\x89hA)RtqERs.";
}
std::string k(int v) { return std::string("K") + static_cast<char>(v); }

void refused(const std::string& bytes, const std::string& message) {
    INFO(llmfs::testing::printable(bytes.substr(0, 120)));
    try {
        TorchSaveFile::from_bytes(bytes, "bad.pth");
        FAIL_CHECK("accepted");
    } catch (const std::runtime_error& e) {
        const std::string got = e.what();
        CHECK_THAT(got, Catch::StartsWith("bad.pth: ") && Catch::Contains(message));
        CHECK(got.find("; ") != std::string::npos);  // the hint
    }
}

}  // namespace

TEST_CASE("PyTorch 1.13's model.pth of the book's GPTModel reads: names, shapes, dtypes, 64-byte aligned views") {
    const std::string bytes = pth("tiny_qkv.pth");
    const auto f = TorchSaveFile::from_bytes(bytes, "tiny_qkv.pth");
    CHECK(f.archive_name() == "tiny_qkv");
    const PyValue& sd = f.root();
    REQUIRE(sd.type == PyValue::Type::ordered_dict);
    CHECK(sd.entries.size() == 2 + 2 * 17 + 3);  // mask, 3 x (weight, bias), out_proj, ff, 2 norms per block
    CHECK(sd.entries[0].first->string == "tok_emb.weight");
    CHECK(sd.entries[2].first->string == "trf_blocks.0.att.mask");
    CHECK(sd.entries.back().first->string == "out_head.weight");
    const TorchTensor& tok = sd.get("tok_emb.weight")->tensor;
    CHECK(tok.dtype == "float32");
    CHECK((tok.shape == std::vector<std::uint64_t>{50, 8}));
    CHECK(tok.location == "cpu");
    // Zero-copy: the tensor views the file's bytes, at a 64-byte aligned offset.
    CHECK(tok.aligned());
    for (const auto& r : f.records())
        if (r.name.rfind("data/", 0) == 0) CHECK(r.offset % 64 == 0);
    const TorchTensor& mask = sd.get("trf_blocks.1.att.mask")->tensor;
    float m[16];
    std::memcpy(m, mask.data, sizeof m);
    CHECK(m[1] == 1.0f);
    CHECK(m[4] == 0.0f);
    // The _metadata the BUILD opcode set.
    REQUIRE(sd.state);
    CHECK(sd.state->get("_metadata")->get("trf_blocks.0.ff.layers.1")->get("version")->integer == 1);
}

TEST_CASE("our pickle of PyTorch's value is PyTorch's data.pkl, byte for byte, and the file reads back the same") {
    for (const char* name : {"tiny.pth", "tiny_qkv.pth", "tiny_and_optimizer.pth", "tiny_qkv_and_optimizer.pth"}) {
        INFO(name);
        const std::string bytes = pth(name);
        const auto f = TorchSaveFile::from_bytes(bytes, name);
        CHECK(torch_pickle(f.root()) == record_bytes(f, "data.pkl", bytes));
        // Written again: the same pickle, the same storages, 2.x's records around them.
        std::ostringstream out;
        write_torch_save(out, f.root(), f.archive_name());
        const std::string ours = out.str();
        const auto g = TorchSaveFile::from_bytes(ours, "ours");
        CHECK(record_bytes(g, "data.pkl", ours) == record_bytes(f, "data.pkl", bytes));
        std::vector<std::string> names;
        for (const auto& r : g.records()) names.push_back(r.name);
        CHECK(names[0] == "data.pkl");
        CHECK(names[1] == ".format_version");
        CHECK(names[3] == "byteorder");
        CHECK(names[names.size() - 2] == "version");
        CHECK(names.back() == ".data/serialization_id");
        CHECK(record_bytes(g, "byteorder", ours) == "little");
        CHECK(record_bytes(g, ".data/serialization_id", ours).size() == 40);
        for (const auto& r : f.records())
            if (r.name.rfind("data/", 0) == 0) CHECK(record_bytes(g, r.name, ours) == record_bytes(f, r.name, bytes));
    }
}

TEST_CASE("the writer's ZIP64 fields read back (forced on for every record)") {
    const std::string bytes = pth("tiny.pth");
    const auto f = TorchSaveFile::from_bytes(bytes, "tiny.pth");
    std::ostringstream out;
    write_torch_save(out, f.root(), "tiny", 0);
    const auto g = TorchSaveFile::from_bytes(out.str(), "zip64");
    CHECK(torch_pickle(g.root()) == torch_pickle(f.root()));
    for (const auto& r : g.records())
        if (r.name.rfind("data/", 0) == 0) CHECK(r.offset % 64 == 0);
}

TEST_CASE("write_torch_save to a path: atomic, named after the file, errors name the path") {
    TempDir tmp("llmfs_torch_save");
    const float values[3] = {1.0f, -2.5f, 3.25f};
    const PyRef root = PyValue::make_dict({{PyValue::make_str("w"), PyValue::make_tensor(values, {3})}}, true);
    write_torch_save(tmp.path / "my model.pth", *root);
    const auto f = TorchSaveFile::open(tmp.path / "my model.pth");
    CHECK(f.archive_name() == "my model");
    float back[3];
    std::memcpy(back, f.root().get("w")->tensor.data, sizeof back);
    CHECK(back[2] == 3.25f);
    CHECK(std::distance(fs::directory_iterator(tmp.path), fs::directory_iterator()) == 1);  // no temporary left
    CHECK_THROWS_WITH(write_torch_save(tmp.path / "no" / "dir.pth", *root), Catch::Contains("dir.pth: cannot save"));
    CHECK_FALSE(fs::exists(tmp.path / "no"));
    CHECK_THROWS_WITH(TorchSaveFile::open(tmp.path / "missing.pth"), Catch::Contains("missing.pth: cannot open: no such file"));
}

TEST_CASE("hostile and damaged files are refused with the file, what and where") {
    const std::string good_data(16, '\0');  // 4 float32
    const auto f32 = [&](const std::string& pickle) { return with_pickle(pickle, {{"data/0", good_data}}); };
    // The well-formed one loads.
    CHECK_NOTHROW(TorchSaveFile::from_bytes(f32(state_dict_pickle("FloatStorage", k(4), k(0), k(4) + "\x85", k(1) + "\x85")), "ok.pth"));

    refused(with_pickle(kProto + "cos\nsystem\n" + binunicode("echo hi") + "\x85R."), "data.pkl byte 2: the global os.system is not allowed");
    refused(with_pickle(kProto + "cbuiltins\neval\n" + binunicode("1") + "\x85R."), "the global builtins.eval is not allowed");
    refused(with_pickle(kProto + "c__main__\nGPTModel\n)R."), "re-save it with torch.save(model.state_dict(), PATH)");
    refused(with_pickle(kProto + "\x93."), "too few items on the stack");  // STACK_GLOBAL with nothing on the stack
    refused(with_pickle(kProto + "i__main__\nX\n."), "opcode 0x69 (INST) is not allowed");
    refused(with_pickle(kProto + "Vabc\n."), "opcode 0x56 (UNICODE) is not allowed");
    refused(with_pickle(kProto + std::string(200, ']') + std::string(199, 'a') + "."), "nested more than 64 deep");
    refused(with_pickle(kProto + "]qAhAa."), "a value inside itself");
    refused(with_pickle(kProto + "}" + binunicode("a") + "N" + binunicode("a") + "N(u" + "."), "");  // malformed SETITEMS
    refused(with_pickle(kProto + "}(" + binunicode("a") + "N" + binunicode("a") + "Nu."), "the key a twice");
    refused(with_pickle(kProto + "h\x05."), "GET of memo entry 5, never PUT");
    refused(with_pickle(kProto + "X\xff\xff\xff\x7f"), "the pickle ends inside an opcode");
    refused(with_pickle(kProto + "N"), "ends inside an opcode");
    // Storages and tensors.
    refused(f32(state_dict_pickle("FloatStorage", std::string("J\x00\x00\x00\x40", 5), k(0), k(4) + "\x85", k(1) + "\x85")), "does not fill its record of 16 bytes");
    refused(f32(state_dict_pickle("FloatStorage", "\x8a\x01\xff", k(0), k(4) + "\x85", k(1) + "\x85")), "negative size -1");
    refused(f32(state_dict_pickle("FloatStorage", k(4), k(1), k(4) + "\x85", k(1) + "\x85")), "4 elements from offset 1 run past its 4 elements");
    refused(f32(state_dict_pickle("FloatStorage", k(4), k(0), "\x8a\x01\xfe\x85", k(1) + "\x85")), "a tensor's size has an entry that is not a non-negative int");
    refused(f32(state_dict_pickle("FloatStorage", k(4), k(0), std::string("\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x40", 10) + k(8) + "\x86", k(8) + k(1) + "\x86")),
            "size [4611686018427387904, 8] is too large");
    refused(f32(state_dict_pickle("FloatStorage", k(4), k(0), k(2) + k(2) + "\x86", k(1) + k(2) + "\x86")), "is not contiguous");
    refused(with_pickle(state_dict_pickle("FloatStorage", k(4), k(0), k(4) + "\x85", k(1) + "\x85")), "storage \"0\" has no record model/data/0");
    refused(f32(state_dict_pickle("os", k(4), k(0), k(4) + "\x85", k(1) + "\x85")), "the global torch.os is not allowed");
    // Non-float dtypes read (the GPT loader refuses them by name: gpt_checkpoint_test).
    const auto f64 = TorchSaveFile::from_bytes(with_pickle(state_dict_pickle("DoubleStorage", k(2), k(0), k(2) + "\x85", k(1) + "\x85"), {{"data/0", good_data}}), "f64.pth");
    CHECK(f64.root().get("w")->tensor.dtype == "float64");

    // The zip.
    const std::string file = f32(state_dict_pickle("FloatStorage", k(4), k(0), k(4) + "\x85", k(1) + "\x85"));
    refused("", "0 bytes, too short for a zip archive");
    refused(std::string("\x80\x02}q\x00.") + std::string(30, ' '), "PyTorch's legacy format");
    refused(file.substr(0, file.size() - 1), "no end of central directory record");
    refused(file.substr(0, file.size() / 2), "no end of central directory record");
    refused("PK\x03\x04" + std::string(40, '\0'), "no end of central directory record");
    std::string flipped = file;
    flipped[200] ^= 1;  // inside data.pkl
    refused(flipped, "fails its CRC-32 check");
    // data.pkl's central entry made longer: it runs into the next record.
    std::string overlap = file;
    const auto cd = overlap.find("PK\x01\x02");
    for (const std::size_t at : {cd + 20, cd + 24}) overlap[at] = static_cast<char>(static_cast<unsigned char>(overlap[at]) + 100);
    refused(overlap, "records \"model/data.pkl\" and \"model/data/0\" overlap");
    std::string elsewhere = file;
    const auto cd2 = elsewhere.find("PK\x01\x02", cd + 4);
    std::memcpy(&elsewhere[cd2 + 42], &elsewhere[cd + 42], 4);  // a second entry pointing at the first's header
    refused(elsewhere, "the local header at byte 0 does not match");
    std::string compressed = file;
    compressed[cd + 10] = 8;
    refused(compressed, "is compressed (method 8)");
    refused(torch_zip("model", {{"x.txt", "1"}}), "no record model/data.pkl");
    refused(with_pickle(kProto + "N.", {{"constants.pkl", ""}}), "a TorchScript archive");
}

TEST_CASE("fuzz: mutated zips and mutated pickles load or are refused with a message", "[fuzz]") {
    const std::string file = pth("tiny_and_optimizer.pth");
    const auto f = TorchSaveFile::from_bytes(file, "tiny");
    const std::string pickle = record_bytes(f, "data.pkl", file);
    std::vector<std::pair<std::string, std::string>> storages;
    for (const auto& r : f.records())
        if (r.name.rfind("data/", 0) == 0) storages.emplace_back(r.name, record_bytes(f, r.name, file));
    llmfs::testing::Mutator m(50);
    constexpr int kZipCases = 300, kPickleCases = 700;
    for (int i = 0; i < kZipCases + kPickleCases; ++i) {
        std::string bytes;
        if (i < kZipCases) {
            bytes = m.bytes(file);  // the zip's structure and records, CRCs mostly broken
        } else {
            auto records = storages;
            records.insert(records.begin(), {"data.pkl", m.bytes(pickle)});  // a valid zip around a mutated pickle
            bytes = torch_zip("tiny", records);
        }
        llmfs::testing::fuzz_case("torch_save-" + std::to_string(i), bytes, [&] {
            const auto g = TorchSaveFile::from_bytes(bytes, "fuzz.pth");
            (void)torch_pickle(g.root());
        });
    }
}
