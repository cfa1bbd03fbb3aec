#include "llmfs/nn/tf_checkpoint.hpp"

#include <algorithm>
#include <cctype>
#include <array>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace llmfs {

// ---- CRC-32C ----------------------------------------------------------------------------------

namespace {

// Slice-by-8 tables of the reflected Castagnoli polynomial 0x82f63b78.
const std::array<std::array<std::uint32_t, 256>, 8>& crc32c_tables() {
    static const auto tables = [] {
        std::array<std::array<std::uint32_t, 256>, 8> t{};
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1u) ? 0x82f63b78u : 0u);
            t[0][i] = c;
        }
        for (std::uint32_t i = 0; i < 256; ++i)
            for (std::size_t s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xffu];
        return t;
    }();
    return tables;
}

constexpr std::uint32_t kMaskDelta = 0xa282ead8u;

}  // namespace

std::uint32_t crc32c(const unsigned char* data, std::size_t n, std::uint32_t crc) {
    const auto& t = crc32c_tables();
    std::uint32_t c = ~crc;
    for (; n >= 8; n -= 8, data += 8) {
        const std::uint32_t lo = c ^ (std::uint32_t(data[0]) | std::uint32_t(data[1]) << 8 | std::uint32_t(data[2]) << 16 |
                                      std::uint32_t(data[3]) << 24);
        c = t[7][lo & 0xffu] ^ t[6][(lo >> 8) & 0xffu] ^ t[5][(lo >> 16) & 0xffu] ^ t[4][lo >> 24] ^ t[3][data[4]] ^ t[2][data[5]] ^
            t[1][data[6]] ^ t[0][data[7]];
    }
    for (; n > 0; --n, ++data) c = (c >> 8) ^ t[0][(c ^ *data) & 0xffu];
    return ~c;
}

std::uint32_t crc32c_mask(std::uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }

std::uint32_t crc32c_unmask(std::uint32_t masked) {
    const std::uint32_t rot = masked - kMaskDelta;
    return (rot >> 17) | (rot << 15);
}

std::string tf_dtype_name(int dtype) {
    static const std::map<int, const char*> kNames = {{1, "DT_FLOAT"},  {2, "DT_DOUBLE"},   {3, "DT_INT32"},  {4, "DT_UINT8"},
                                                      {5, "DT_INT16"},  {6, "DT_INT8"},     {7, "DT_STRING"}, {8, "DT_COMPLEX64"},
                                                      {9, "DT_INT64"},  {10, "DT_BOOL"},    {14, "DT_BFLOAT16"}, {17, "DT_UINT16"},
                                                      {19, "DT_HALF"},  {20, "DT_RESOURCE"}, {22, "DT_UINT32"}, {23, "DT_UINT64"}};
    const auto it = kNames.find(dtype);
    return it == kNames.end() ? fmt::format("DataType {}", dtype) : it->second;
}

// ---- reading ----------------------------------------------------------------------------------

namespace {

constexpr std::uint64_t kTableMagic = 0xdb4775248b80fb57ull;
constexpr std::size_t kFooterSize = 48;  // two block handles padded to 40 bytes, the magic
constexpr std::size_t kBlockTrailerSize = 5;  // type byte, masked CRC-32C
constexpr const char* kHint = "is it a complete TensorFlow checkpoint (e.g. the gpt2/124M folder gpt_download.py writes)?";

[[noreturn]] void fail(const std::string& file, const std::string& what, const std::string& hint = kHint) {
    throw std::runtime_error(fmt::format("{}: {}; {}", file, what, hint));
}

std::uint32_t fixed32(const unsigned char* p) {
    return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}

// Bytes [pos, end) read front to back; every read checked.
struct Cursor {
    const unsigned char* pos;
    const unsigned char* end;
    const std::string* file;
    const char* what;  // "the index block", "tensor X's entry", ...

    bool done() const { return pos == end; }
    [[noreturn]] void bad(const std::string& why) const { fail(*file, fmt::format("{}: {}", what, why), "the file is damaged"); }
    std::uint64_t varint() {
        std::uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos == end) bad("a number runs past its end");
            const unsigned char b = *pos++;
            v |= std::uint64_t(b & 0x7fu) << shift;
            if (!(b & 0x80u)) return v;
        }
        bad("a number longer than 10 bytes");
    }
    std::uint32_t u32() {
        if (end - pos < 4) bad("a 4-byte field runs past its end");
        const std::uint32_t v = fixed32(pos);
        pos += 4;
        return v;
    }
    std::string_view bytes(std::uint64_t n) {
        if (std::uint64_t(end - pos) < n) bad(fmt::format("{} bytes wanted, {} left", n, end - pos));
        const std::string_view s(reinterpret_cast<const char*>(pos), static_cast<std::size_t>(n));
        pos += n;
        return s;
    }
    void skip(std::uint32_t wire) {  // an unknown protobuf field
        switch (wire) {
            case 0: varint(); break;
            case 1: bytes(8); break;
            case 2: bytes(varint()); break;
            case 5: bytes(4); break;
            default: bad(fmt::format("protobuf wire type {}", wire));
        }
    }
};

// A cursor over the bytes of `v` (a protobuf message, a block handle).
Cursor cursor_over(std::string_view v, const std::string* file, const char* what) {
    const auto* p = reinterpret_cast<const unsigned char*>(v.data());
    return Cursor{p, p + v.size(), file, what};
}

struct BlockHandle {
    std::uint64_t offset = 0, size = 0;
};

// A table block's contents, after checking its trailer (uncompressed, its CRC-32C).
std::string_view read_block(const unsigned char* file, std::uint64_t file_size, BlockHandle h, const std::string& name, const char* what) {
    if (h.offset > file_size || h.size > file_size - h.offset || file_size - h.offset - h.size < kBlockTrailerSize)
        fail(name, fmt::format("{} at {} of {} bytes runs past the end of the file ({} bytes)", what, h.offset, h.size, file_size),
             "the file is truncated or damaged");
    const unsigned char* p = file + h.offset;
    const unsigned char type = p[h.size];
    if (type == 1)
        fail(name, fmt::format("{} is Snappy-compressed", what), "TensorFlow writes checkpoints uncompressed; this reader does not decompress");
    if (type != 0) fail(name, fmt::format("{} has compression type {}", what, type), "the file is damaged");
    const std::uint32_t stored = crc32c_unmask(fixed32(p + h.size + 1));
    const std::uint32_t actual = crc32c(p, h.size + 1);  // the contents and the type byte
    if (stored != actual)
        fail(name, fmt::format("{} fails its checksum (CRC-32C {:08x}, stored {:08x})", what, actual, stored), "the file is damaged");
    return {reinterpret_cast<const char*>(p), static_cast<std::size_t>(h.size)};
}

// The key/value entries of a block (prefix-compressed keys, then restart offsets and their count).
std::vector<std::pair<std::string, std::string_view>> block_entries(std::string_view block, const std::string& name, const char* what) {
    const auto* b = reinterpret_cast<const unsigned char*>(block.data());
    if (block.size() < 4) fail(name, fmt::format("{} is {} bytes, too short for a block", what, block.size()), "the file is damaged");
    const std::uint64_t restarts = fixed32(b + block.size() - 4);
    if (restarts == 0 || restarts > (block.size() - 4) / 4)
        fail(name, fmt::format("{} has {} restart points in {} bytes", what, restarts, block.size()), "the file is damaged");
    Cursor c{b, b + block.size() - 4 * (restarts + 1), &name, what};
    std::vector<std::pair<std::string, std::string_view>> out;
    std::string key;
    while (!c.done()) {
        const std::uint64_t shared = c.varint(), non_shared = c.varint(), value_size = c.varint();
        if (shared > key.size()) c.bad(fmt::format("an entry shares {} bytes with a {}-byte key", shared, key.size()));
        key.resize(static_cast<std::size_t>(shared));
        key += c.bytes(non_shared);
        out.emplace_back(key, c.bytes(value_size));
    }
    return out;
}

BlockHandle block_handle(Cursor& c) {
    BlockHandle h;
    h.offset = c.varint();
    h.size = c.varint();
    return h;
}

// Number of elements of `shape` times the dtype's size, or nullopt (unknown size or overflow).
std::optional<std::uint64_t> tensor_bytes(int dtype, const std::vector<std::uint64_t>& shape) {
    static const std::map<int, std::uint64_t> kSize = {{1, 4}, {2, 8}, {3, 4}, {4, 1}, {5, 2}, {6, 1}, {8, 8}, {9, 8},
                                                       {10, 1}, {14, 2}, {17, 2}, {19, 2}, {22, 4}, {23, 8}};
    const auto it = kSize.find(dtype);
    if (it == kSize.end()) return std::nullopt;
    std::uint64_t n = it->second;
    for (const std::uint64_t d : shape) {
        if (d != 0 && n > UINT64_MAX / d) return std::nullopt;
        n *= d;
    }
    return n;
}

std::string shape_text(const std::vector<std::uint64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

std::string shard_suffix(std::uint64_t shard, std::uint64_t shards) { return fmt::format(".data-{:05d}-of-{:05d}", shard, shards); }

}  // namespace

void TfCheckpoint::parse(const unsigned char* index, std::uint64_t size) {
    const std::string file = name_ + ".index";
    if (size < kFooterSize) fail(file, fmt::format("{} bytes, shorter than a table's {}-byte footer", size, kFooterSize));
    const unsigned char* footer = index + size - kFooterSize;
    const std::uint64_t magic = std::uint64_t(fixed32(footer + 40)) | std::uint64_t(fixed32(footer + 44)) << 32;
    if (magic != kTableMagic)
        fail(file, fmt::format("no table magic at its end ({:016x}, not {:016x}): not a TensorFlow checkpoint index", magic, kTableMagic));
    Cursor fc{footer, footer + 40, &file, "the footer"};
    block_handle(fc);  // the metaindex block: TensorFlow writes no meta blocks
    const BlockHandle index_handle = block_handle(fc);

    // key -> BundleEntryProto bytes, every data block in the index block's order
    std::vector<std::pair<std::string, std::string_view>> entries;
    for (const auto& [last_key, handle_bytes] : block_entries(read_block(index, size, index_handle, file, "the index block"), file, "the index block")) {
        Cursor hc = cursor_over(handle_bytes, &file, "the index block");
        const BlockHandle h = block_handle(hc);
        for (auto& e : block_entries(read_block(index, size, h, file, "a data block"), file, "a data block")) entries.push_back(std::move(e));
    }
    for (std::size_t i = 1; i < entries.size(); ++i)
        if (!(entries[i - 1].first < entries[i].first))
            fail(file, fmt::format("keys out of order (\"{}\" after \"{}\")", entries[i].first, entries[i - 1].first), "the file is damaged");
    if (entries.empty() || !entries.front().first.empty())
        fail(file, "no header entry (the empty key)", "is it a TensorFlow V2 checkpoint (model.ckpt.index), not a V1 one?");

    // BundleHeaderProto {int32 num_shards = 1; Endianness endianness = 2; VersionDef version = 3}
    std::uint64_t num_shards = 0, endianness = 0;
    {
        const std::string_view v = entries.front().second;
        Cursor c = cursor_over(v, &file, "the header entry");
        while (!c.done()) {
            const std::uint64_t tag = c.varint();
            if (tag == (1 << 3 | 0)) num_shards = c.varint();
            else if (tag == (2 << 3 | 0)) endianness = c.varint();
            else c.skip(static_cast<std::uint32_t>(tag & 7));
        }
    }
    if (endianness != 0) fail(file, "a big-endian checkpoint", "this reader reads little-endian checkpoints (every GPT-2 download is one)");
    if (num_shards == 0 || num_shards > 10000) fail(file, fmt::format("the header says {} data shards", num_shards), "the file is damaged");

    // The data shards, mapped.
    for (std::uint64_t s = 0; s < num_shards; ++s) {
        if (shards_.size() <= s)
            shards_.push_back(MappedFile::open(name_ + shard_suffix(s, num_shards),
                                               "a checkpoint's .index needs its .data-* files beside it (download them too)"));
    }
    if (shards_.size() != num_shards)
        fail(file, fmt::format("the header says {} data shards, {} were given", num_shards, shards_.size()), "the file is damaged");

    // BundleEntryProto {DataType dtype = 1; TensorShapeProto shape = 2; int32 shard_id = 3;
    //                   int64 offset = 4; int64 size = 5; fixed32 crc32c = 6; repeated TensorSliceProto slices = 7}
    for (std::size_t i = 1; i < entries.size(); ++i) {
        TfTensorView t;
        t.name = entries[i].first;
        const std::string what = fmt::format("tensor \"{}\"", t.name);
        const std::string_view v = entries[i].second;
        Cursor c = cursor_over(v, &file, what.c_str());
        std::uint32_t crc = 0;
        bool sliced = false;
        while (!c.done()) {
            const std::uint64_t tag = c.varint();
            switch (tag) {
                case 1 << 3 | 0: t.dtype = static_cast<int>(c.varint()); break;
                case 2 << 3 | 2: {  // TensorShapeProto {repeated Dim dim = 2; bool unknown_rank = 3}, Dim {int64 size = 1}
                    const std::string_view shape = c.bytes(c.varint());
                    Cursor sc = cursor_over(shape, &file, what.c_str());
                    while (!sc.done()) {
                        const std::uint64_t stag = sc.varint();
                        if (stag == (2 << 3 | 2)) {
                            const std::string_view dim = sc.bytes(sc.varint());
                            Cursor dc = cursor_over(dim, &file, what.c_str());
                            std::uint64_t d = 0;
                            while (!dc.done()) {
                                const std::uint64_t dtag = dc.varint();
                                if (dtag == (1 << 3 | 0)) d = dc.varint();
                                else dc.skip(static_cast<std::uint32_t>(dtag & 7));
                            }
                            if (d > (std::uint64_t(1) << 62)) sc.bad(fmt::format("a dimension of {} (unknown or negative)", static_cast<std::int64_t>(d)));
                            t.shape.push_back(d);
                        } else if (stag == (3 << 3 | 0)) {
                            if (sc.varint() != 0) sc.bad("a shape of unknown rank");
                        } else {
                            sc.skip(static_cast<std::uint32_t>(stag & 7));
                        }
                    }
                    break;
                }
                case 3 << 3 | 0: t.shard = static_cast<std::uint32_t>(c.varint()); break;
                case 4 << 3 | 0: t.offset = c.varint(); break;
                case 5 << 3 | 0: t.size = c.varint(); break;
                case 6 << 3 | 5: crc = c.u32(); break;
                case 7 << 3 | 2: sliced = true; c.bytes(c.varint()); break;
                default: c.skip(static_cast<std::uint32_t>(tag & 7));
            }
        }
        if (sliced) fail(file, what + " is saved in slices (a partitioned variable)", "this reader reads whole tensors, as GPT-2's checkpoints hold them");
        const auto want = tensor_bytes(t.dtype, t.shape);
        if (!want) fail(file, fmt::format("{} is {} of shape {}: not a numeric tensor this reader sizes", what, tf_dtype_name(t.dtype), shape_text(t.shape)));
        if (*want != t.size)
            fail(file, fmt::format("{}: {} of shape {} needs {} bytes, the entry says {}", what, tf_dtype_name(t.dtype), shape_text(t.shape), *want, t.size),
                 "the file is damaged");
        if (t.shard >= shards_.size()) fail(file, fmt::format("{} is in shard {} of {}", what, t.shard, shards_.size()), "the file is damaged");
        const MappedFile& shard = shards_[t.shard];
        const std::string data_file = name_ + shard_suffix(t.shard, shards_.size());
        if (t.offset > shard.size() || t.size > shard.size() - t.offset)
            fail(data_file, fmt::format("{} at {} of {} bytes runs past the end of the file ({} bytes)", what, t.offset, t.size, shard.size()),
                 "the data file is truncated: download it again");
        t.data = shard.data() + t.offset;
        const std::uint32_t actual = crc32c(t.data, static_cast<std::size_t>(t.size));
        if (actual != crc32c_unmask(crc))
            fail(data_file, fmt::format("{} fails its checksum (CRC-32C {:08x}, the index says {:08x})", what, actual, crc32c_unmask(crc)),
                 "the data file is damaged or belongs to another checkpoint: download it again");
        tensors_.push_back(std::move(t));
    }
    for (std::size_t i = 0; i < tensors_.size(); ++i) index_.emplace(tensors_[i].name, i);
}

TfCheckpoint TfCheckpoint::open(const std::filesystem::path& prefix) {
    TfCheckpoint ck;
    ck.name_ = prefix.string();
    const MappedFile index = MappedFile::open(ck.name_ + ".index", kHint);
    ck.parse(index.data(), index.size());
    return ck;
}

TfCheckpoint TfCheckpoint::from_bytes(std::string index, std::vector<std::string> shards, const std::string& name) {
    TfCheckpoint ck;
    ck.name_ = name;
    for (auto& s : shards) ck.shards_.push_back(MappedFile::from_bytes(std::move(s)));
    const MappedFile file = MappedFile::from_bytes(std::move(index));
    ck.parse(file.data(), file.size());
    return ck;
}

const TfTensorView* TfCheckpoint::find(std::string_view tensor) const {
    const auto it = index_.find(tensor);
    return it == index_.end() ? nullptr : &tensors_[it->second];
}

// ---- GPT-2's folder ---------------------------------------------------------------------------

namespace {

using json = nlohmann::json;

std::string read_text(const std::filesystem::path& path, const std::string& folder_hint) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(path.string(), "cannot open it", folder_hint);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

std::filesystem::path gpt2_checkpoint_prefix(const std::filesystem::path& folder) {
    const std::filesystem::path state = folder / "checkpoint";
    if (!std::filesystem::exists(state)) return folder / "model.ckpt";
    const std::string text = read_text(state, kHint);
    const std::string key = "model_checkpoint_path:";
    const std::size_t at = text.find(key);
    const std::size_t q0 = at == std::string::npos ? at : text.find('"', at + key.size());
    const std::size_t q1 = q0 == std::string::npos ? q0 : text.find('"', q0 + 1);
    if (q1 == std::string::npos) fail(state.string(), "no model_checkpoint_path: \"...\" line", "the file is damaged (gpt_download.py writes model.ckpt)");
    const std::filesystem::path named = text.substr(q0 + 1, q1 - q0 - 1);
    return named.is_absolute() ? named : folder / named;
}

namespace {

// load_gpt2_params_from_tf_ckpt's name -> Hugging Face's: model/h3/attn/c_attn/w -> h.3.attn.c_attn.weight,
// model/wte -> wte.weight; "" for a name outside model/.
std::string hf_name(const std::string& tf) {
    std::vector<std::string> parts = tf_name_parts(tf);
    if (parts.size() < 2 || parts[0] != "model") return "";
    parts.erase(parts.begin());
    if (parts.size() == 1) return parts[0] + ".weight";  // wte, wpe
    if (parts[0].size() > 1 && parts[0][0] == 'h' && parts[0].find_first_not_of("0123456789", 1) == std::string::npos)
        parts[0] = "h." + parts[0].substr(1);
    std::string& last = parts.back();
    last = (last == "w" || last == "g") ? "weight" : last == "b" ? "bias" : last;
    return fmt::format("{}", fmt::join(parts, "."));
}

std::uint64_t hparam(const json& h, const char* key, const std::string& file) {
    const auto it = h.find(key);
    if (it == h.end() || !it->is_number_unsigned())
        fail(file, fmt::format("no non-negative integer \"{}\"", key), "gpt_download.py's hparams.json has n_vocab, n_ctx, n_embd, n_head, n_layer");
    return it->get<std::uint64_t>();
}

}  // namespace

std::vector<std::string> tf_name_parts(std::string_view name) {
    std::vector<std::string> parts;
    for (std::size_t at = 0;;) {
        const std::size_t slash = name.find('/', at);
        parts.emplace_back(name.substr(at, slash == std::string_view::npos ? std::string_view::npos : slash - at));
        if (slash == std::string_view::npos) return parts;
        at = slash + 1;
    }
}

SafeTensors gpt2_tf_checkpoint(const std::filesystem::path& folder) { return read_gpt2_tf_folder(folder).weights; }

Gpt2Hparams read_gpt2_hparams(const std::filesystem::path& folder) {
    const std::string hparams_file = (folder / "hparams.json").string();
    if (!std::filesystem::exists(folder / "hparams.json"))
        fail(folder.string(), "no hparams.json in the folder", "is it the folder gpt_download.py writes (gpt2/124M)?");
    std::string hparams_text = read_text(folder / "hparams.json", kHint);
    json h;
    try {
        h = json::parse(hparams_text);
    } catch (const json::exception& e) {
        fail(hparams_file, fmt::format("not JSON ({})", e.what()), "the file is damaged");
    }
    if (!h.is_object()) fail(hparams_file, "not a JSON object", "the file is damaged");
    const std::uint64_t n_vocab = hparam(h, "n_vocab", hparams_file), n_ctx = hparam(h, "n_ctx", hparams_file),
                        n_embd = hparam(h, "n_embd", hparams_file), n_head = hparam(h, "n_head", hparams_file),
                        n_layer = hparam(h, "n_layer", hparams_file);
    // A folder named after a size must hold it (gpt_download.py's names: n_embd, n_layer).
    std::filesystem::path normal = folder.lexically_normal();
    if (normal.filename().empty()) normal = normal.parent_path();  // "gpt2/124M/"
    const std::string size_name = normal.filename().string();
    const auto size = std::find_if(kGpt2Sizes.begin(), kGpt2Sizes.end(), [&](const Gpt2Size& s) { return size_name == s.folder; });
    if (size != kGpt2Sizes.end() && (size->emb_dim != n_embd || size->n_layers != n_layer))
        fail(hparams_file, fmt::format("the folder is named {} (n_embd {}, n_layer {}) but holds n_embd {}, n_layer {}", size_name, size->emb_dim,
                                       size->n_layers, n_embd, n_layer),
             "a checkpoint folder of another size: download the size you name (gpt_download.py's model_size)");
    return {std::move(hparams_text), n_vocab, n_ctx, n_embd, n_head, n_layer};
}

Gpt2TfFolder read_gpt2_tf_folder(const std::filesystem::path& folder) {
    const std::string hparams_file = (folder / "hparams.json").string();
    Gpt2Hparams hp = read_gpt2_hparams(folder);
    const std::filesystem::path prefix = gpt2_checkpoint_prefix(folder);
    TfCheckpoint ck = TfCheckpoint::open(prefix);
    const std::string ck_name = ck.name();
    // The tensors under model/, renamed and squeezed; their shapes checked against hparams.json.
    std::map<std::string, const TfTensorView*> named;
    std::set<std::string> blocks;
    for (const TfTensorView& t : ck.tensors()) {
        const std::string name = hf_name(t.name);
        if (name.empty()) continue;
        if (t.dtype != 1)
            fail(ck_name, fmt::format("tensor \"{}\" is {}; GPT-2's weights are DT_FLOAT", t.name, tf_dtype_name(t.dtype)),
                 "this loader does not convert other dtypes");
        named.emplace(name, &t);
        if (t.name.size() > 7 && t.name.compare(0, 7, "model/h") == 0 && std::isdigit(static_cast<unsigned char>(t.name[7])))
            blocks.insert(t.name.substr(7, t.name.find('/', 7) - 7));  // "model/h11/..." -> "11"
    }
    const auto shape_of = [&](const std::string& tf_name) {  // "wte": model/wte, wte.weight
        const auto it = named.find(tf_name + ".weight");
        if (it == named.end()) fail(ck_name, fmt::format("no tensor \"model/{}\"", tf_name), kHint);
        return it->second->shape;
    };
    const auto expect = [&](const char* what, std::uint64_t found, std::uint64_t said, const char* key) {
        if (found != said)
            fail(hparams_file, fmt::format("{} is {} in {}, but hparams.json says {} {}", what, found, ck_name, key, said),
                 "hparams.json belongs to another checkpoint: a checkpoint folder of another size?");
    };
    const auto wte = shape_of("wte"), wpe = shape_of("wpe");
    if (wte.size() != 2 || wpe.size() != 2) fail(ck_name, "model/wte and model/wpe must be matrices", kHint);
    expect("model/wte's rows", wte[0], hp.n_vocab, "n_vocab");
    expect("model/wte's columns", wte[1], hp.n_embd, "n_embd");
    expect("model/wpe's rows", wpe[0], hp.n_ctx, "n_ctx");
    expect("the number of blocks model/hN", blocks.size(), hp.n_layer, "n_layer");

    // The SafeTensors bytes: header {"__metadata__": {...}, NAME: {dtype, shape, data_offsets}}, the data.
    json header = json::object();
    header["__metadata__"] = {{"format", "tf"}, {"n_head", std::to_string(hp.n_head)}, {"source", ck_name}};
    std::uint64_t at = 0;
    for (const auto& [name, t] : named) {
        std::vector<std::uint64_t> squeezed;  // np.squeeze
        for (const std::uint64_t d : t->shape)
            if (d != 1) squeezed.push_back(d);
        header[name] = {{"dtype", "F32"}, {"shape", squeezed}, {"data_offsets", {at, at + t->size}}};
        at += t->size;
    }
    const std::string text = header.dump();
    std::string bytes(8 + text.size() + at, '\0');
    const std::uint64_t n = text.size();
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((n >> (8 * i)) & 0xffu);
    std::memcpy(bytes.data() + 8, text.data(), text.size());
    char* out = bytes.data() + 8 + text.size();
    for (const auto& [name, t] : named) {
        std::memcpy(out, t->data, static_cast<std::size_t>(t->size));
        out += t->size;
    }
    SafeTensors weights = SafeTensors::from_bytes(std::move(bytes), ck_name);
    return {std::move(hp.text), std::move(ck), std::move(weights)};
}

SafeTensors open_gpt2_weights(const std::filesystem::path& path) {
    if (std::filesystem::is_directory(path)) return gpt2_tf_checkpoint(path);
    return SafeTensors::open(path);
}

// ---- writing (test support) -------------------------------------------------------------------

namespace {

void put_varint(std::string& s, std::uint64_t v) {
    while (v >= 0x80) {
        s += static_cast<char>((v & 0x7fu) | 0x80u);
        v >>= 7;
    }
    s += static_cast<char>(v);
}

void put_fixed32(std::string& s, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) s += static_cast<char>((v >> (8 * i)) & 0xffu);
}

// LevelDB's BlockBuilder: prefix-compressed keys, a restart point every `interval` keys.
struct BlockBuilder {
    explicit BlockBuilder(std::size_t restart_interval) : interval(restart_interval) {}
    std::size_t interval;
    std::string buffer;
    std::vector<std::uint32_t> restarts{0};
    std::size_t counter = 0;
    std::string last_key;

    void add(const std::string& key, std::string_view value) {
        std::size_t shared = 0;
        if (counter < interval) {
            while (shared < std::min(last_key.size(), key.size()) && last_key[shared] == key[shared]) ++shared;
        } else {
            restarts.push_back(static_cast<std::uint32_t>(buffer.size()));
            counter = 0;
        }
        put_varint(buffer, shared);
        put_varint(buffer, key.size() - shared);
        put_varint(buffer, value.size());
        buffer.append(key, shared, std::string::npos);
        buffer.append(value);
        last_key = key;
        ++counter;
    }
    std::size_t size_estimate() const { return buffer.size() + restarts.size() * 4 + 4; }
    bool empty() const { return buffer.empty(); }
    std::string finish() {
        std::string out = buffer;
        for (const std::uint32_t r : restarts) put_fixed32(out, r);
        put_fixed32(out, static_cast<std::uint32_t>(restarts.size()));
        *this = BlockBuilder(interval);
        return out;
    }
};

// The block, its type byte and masked CRC-32C appended to `file`; its handle.
std::string write_block(std::string& file, const std::string& contents) {
    std::string handle;
    put_varint(handle, file.size());
    put_varint(handle, contents.size());
    file += contents;
    std::string trailer(1, '\0');
    const std::uint32_t crc = crc32c(reinterpret_cast<const unsigned char*>(trailer.data()), 1,
                                     crc32c(reinterpret_cast<const unsigned char*>(contents.data()), contents.size()));
    put_fixed32(trailer, crc32c_mask(crc));
    file += trailer;
    return handle;
}

// BytewiseComparator's FindShortestSeparator(start, limit) and FindShortSuccessor(key).
std::string shortest_separator(std::string start, const std::string& limit) {
    std::size_t i = 0;
    const std::size_t n = std::min(start.size(), limit.size());
    while (i < n && start[i] == limit[i]) ++i;
    if (i < n) {
        const auto byte = static_cast<unsigned char>(start[i]);
        if (byte < 0xff && byte + 1 < static_cast<unsigned char>(limit[i])) {
            start[i] = static_cast<char>(byte + 1);
            start.resize(i + 1);
        }
    }
    return start;
}

std::string short_successor(std::string key) {
    for (std::size_t i = 0; i < key.size(); ++i) {
        if (static_cast<unsigned char>(key[i]) != 0xff) {
            key[i] = static_cast<char>(static_cast<unsigned char>(key[i]) + 1);
            key.resize(i + 1);
            return key;
        }
    }
    return key;
}

}  // namespace

TfBundleBytes write_tf_bundle(const std::vector<TfTensorBytes>& tensors) {
    TfBundleBytes out;
    std::map<std::string, std::string> entries;  // name -> BundleEntryProto, as BundleWriter's map
    for (const TfTensorBytes& t : tensors) {
        const auto want = tensor_bytes(t.dtype, t.shape);
        if (!want || *want != t.bytes.size())
            throw std::invalid_argument(fmt::format("write_tf_bundle: tensor \"{}\" has {} bytes for shape {}", t.name, t.bytes.size(), shape_text(t.shape)));
        if (t.name.empty() || entries.count(t.name)) throw std::invalid_argument(fmt::format("write_tf_bundle: tensor name \"{}\" empty or repeated", t.name));
        std::string e, shape;
        put_varint(e, 1 << 3 | 0);
        put_varint(e, static_cast<std::uint64_t>(t.dtype));
        for (const std::uint64_t d : t.shape) {
            std::string dim;
            if (d != 0) {
                put_varint(dim, 1 << 3 | 0);
                put_varint(dim, d);
            }
            put_varint(shape, 2 << 3 | 2);
            put_varint(shape, dim.size());
            shape += dim;
        }
        put_varint(e, 2 << 3 | 2);
        put_varint(e, shape.size());
        e += shape;
        if (!out.data.empty()) {
            put_varint(e, 4 << 3 | 0);
            put_varint(e, out.data.size());
        }
        if (!t.bytes.empty()) {
            put_varint(e, 5 << 3 | 0);
            put_varint(e, t.bytes.size());
        }
        put_varint(e, 6 << 3 | 5);
        put_fixed32(e, crc32c_mask(crc32c(reinterpret_cast<const unsigned char*>(t.bytes.data()), t.bytes.size())));
        out.data += t.bytes;
        entries.emplace(t.name, std::move(e));
    }
    std::string header;  // num_shards 1, version {producer 1}
    put_varint(header, 1 << 3 | 0);
    put_varint(header, 1);
    header += std::string("\x1a\x02\x08\x01", 4);

    constexpr std::size_t kBlockSize = 262144;
    BlockBuilder data(16), index(1);
    std::string& file = out.index;
    std::string pending_handle, last_key;
    bool pending = false;
    const auto add = [&](const std::string& key, const std::string& value) {
        if (pending) {
            index.add(shortest_separator(last_key, key), pending_handle);
            pending = false;
        }
        data.add(key, value);
        last_key = key;
        if (data.size_estimate() >= kBlockSize) {
            pending_handle = write_block(file, data.finish());
            pending = true;
        }
    };
    add("", header);
    for (const auto& [name, e] : entries) add(name, e);
    if (!data.empty()) {
        pending_handle = write_block(file, data.finish());
        pending = true;
    }
    const std::string meta_handle = write_block(file, BlockBuilder(16).finish());
    if (pending) index.add(short_successor(last_key), pending_handle);
    std::string footer = meta_handle + write_block(file, index.finish());
    footer.resize(40, '\0');
    put_fixed32(footer, static_cast<std::uint32_t>(kTableMagic & 0xffffffffu));
    put_fixed32(footer, static_cast<std::uint32_t>(kTableMagic >> 32));
    file += footer;
    return out;
}

void write_tf_bundle(const std::filesystem::path& prefix, const std::vector<TfTensorBytes>& tensors) {
    const TfBundleBytes b = write_tf_bundle(tensors);
    for (const auto& [suffix, bytes] : {std::pair{std::string(".index"), &b.index}, std::pair{shard_suffix(0, 1), &b.data}}) {
        const std::string path = prefix.string() + suffix;
        std::ofstream f(path, std::ios::binary);
        f.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
        if (!f) throw std::runtime_error("cannot write " + path);
    }
}

void write_gpt2_tf_folder(const std::filesystem::path& folder, const SafeTensors& hf, const std::string& hparams) {
    std::filesystem::create_directories(folder);
    std::vector<TfTensorBytes> tensors;
    for (const auto& t : hf.tensors()) {
        std::string name = t.name;
        const auto ends = [&](const std::string& tail) {
            return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
        };
        if (ends(".attn.bias") || ends(".attn.masked_bias")) continue;  // Hugging Face's buffers, not weights
        std::vector<std::uint64_t> shape = t.shape;
        const bool conv = name.find("c_attn.weight") != std::string::npos || name.find("c_proj.weight") != std::string::npos ||
                          name.find("c_fc.weight") != std::string::npos;
        if (conv) shape.insert(shape.begin(), 1);  // Conv1D [in, out] as OpenAI's [1, in, out]
        const bool ln = name.find("ln_") != std::string::npos;
        const auto suffix = [&](const std::string& from, const std::string& to) {
            if (ends(from)) name = name.substr(0, name.size() - from.size()) + to;
        };
        if (name == "wte.weight" || name == "wpe.weight") {
            name = name.substr(0, 3);
        } else {
            suffix(".weight", ln ? "/g" : "/w");
            suffix(".bias", "/b");
        }
        if (name.rfind("h.", 0) == 0) name = "h" + name.substr(2);
        for (char& c : name) c = c == '.' ? '/' : c;
        tensors.push_back({"model/" + name, 1, shape, std::string(reinterpret_cast<const char*>(t.data), t.nbytes())});
    }
    write_tf_bundle(folder / "model.ckpt", tensors);
    std::ofstream(folder / "hparams.json") << hparams;
    std::ofstream(folder / "checkpoint") << "model_checkpoint_path: \"model.ckpt\"\nall_model_checkpoint_paths: \"model.ckpt\"\n";
}

}  // namespace llmfs
