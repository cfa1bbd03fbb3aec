#include "llmfs/nn/torch_save.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>
#include <zlib.h>

#include "llmfs/text/validate.hpp"

namespace llmfs {

namespace {

constexpr const char* kResaveHint = "is it a file written by torch.save(model.state_dict(), PATH)?";

[[noreturn]] void fail(const std::string& file, const std::string& what, const std::string& hint = kResaveHint) {
    throw std::runtime_error(fmt::format("{}: {}; {}", file, what, hint));
}

std::uint64_t le(const unsigned char* p, int n) {
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

std::uint32_t crc32_of(const unsigned char* data, std::uint64_t n) {
    uLong crc = ::crc32_z(0L, Z_NULL, 0);
    return static_cast<std::uint32_t>(::crc32_z(crc, data, static_cast<z_size_t>(n)));
}

bool little_endian_host() {
    const std::uint32_t one = 1;
    unsigned char first = 0;
    std::memcpy(&first, &one, 1);
    return first == 1;
}

// The dtypes of torch's legacy storage classes (the GLOBAL of a persistent id).
struct StorageType {
    const char* global;  // "FloatStorage"
    const char* dtype;   // "float32"
    std::size_t size;
};
constexpr std::array<StorageType, 13> kStorageTypes = {{{"FloatStorage", "float32", 4},
                                                        {"DoubleStorage", "float64", 8},
                                                        {"HalfStorage", "float16", 2},
                                                        {"BFloat16Storage", "bfloat16", 2},
                                                        {"LongStorage", "int64", 8},
                                                        {"IntStorage", "int32", 4},
                                                        {"ShortStorage", "int16", 2},
                                                        {"CharStorage", "int8", 1},
                                                        {"ByteStorage", "uint8", 1},
                                                        {"BoolStorage", "bool", 1},
                                                        {"ComplexFloatStorage", "complex64", 8},
                                                        {"ComplexDoubleStorage", "complex128", 16},
                                                        {"UntypedStorage", "uint8", 1}}};

}  // namespace

// ---- values -------------------------------------------------------------------------------------

std::uint64_t TorchTensor::numel() const {
    std::uint64_t n = 1;
    for (const auto d : shape) n *= d;  // checked against the record when read
    return n;
}

bool TorchTensor::aligned() const { return reinterpret_cast<std::uintptr_t>(data) % element_size == 0; }

std::string PyValue::type_name() const {
    switch (type) {
        case Type::none: return "NoneType";
        case Type::boolean: return "bool";
        case Type::integer: return "int";
        case Type::floating: return "float";
        case Type::string: return "str";
        case Type::tuple: return "tuple";
        case Type::list: return "list";
        case Type::dict: return "dict";
        case Type::ordered_dict: return "OrderedDict";
        case Type::tensor: return "Tensor";
    }
    return "?";
}

const PyValue* PyValue::get(std::string_view key) const {
    for (const auto& [k, v] : entries)
        if (k->type == Type::string && k->string == key) return v.get();
    return nullptr;
}

const PyValue* PyValue::get(std::int64_t key) const {
    for (const auto& [k, v] : entries)
        if (k->type == Type::integer && k->integer == key) return v.get();
    return nullptr;
}

namespace {
std::shared_ptr<PyValue> node(PyValue::Type type) {
    auto v = std::make_shared<PyValue>();
    v->type = type;
    return v;
}
std::uint32_t depth_of(const std::vector<PyRef>& items) {
    std::uint32_t d = 0;
    for (const auto& i : items) d = std::max(d, i->depth);
    return d + 1;
}
}  // namespace

PyRef PyValue::make_none() { return node(Type::none); }
PyRef PyValue::make_bool(bool b) {
    auto v = node(Type::boolean);
    v->boolean = b;
    return v;
}
PyRef PyValue::make_int(std::int64_t i) {
    auto v = node(Type::integer);
    v->integer = i;
    return v;
}
PyRef PyValue::make_float(double f) {
    auto v = node(Type::floating);
    v->floating = f;
    return v;
}
PyRef PyValue::make_str(std::string s) {
    auto v = node(Type::string);
    v->string = std::move(s);
    return v;
}
namespace {
PyRef sequence(PyValue::Type type, std::vector<PyRef> items) {
    auto v = node(type);
    v->depth = depth_of(items);
    v->items = std::move(items);
    return v;
}
}  // namespace
PyRef PyValue::make_tuple(std::vector<PyRef> items) { return sequence(Type::tuple, std::move(items)); }
PyRef PyValue::make_list(std::vector<PyRef> items) { return sequence(Type::list, std::move(items)); }
PyRef PyValue::make_dict(std::vector<std::pair<PyRef, PyRef>> entries, bool ordered, PyRef state) {
    auto v = node(ordered ? Type::ordered_dict : Type::dict);
    std::uint32_t d = state ? state->depth : 0;
    for (const auto& [k, x] : entries) d = std::max({d, k->depth, x->depth});
    v->depth = d + 1;
    v->entries = std::move(entries);
    v->state = std::move(state);
    return v;
}
PyRef PyValue::make_tensor(const float* data, std::vector<std::uint64_t> shape) {
    auto v = node(Type::tensor);
    v->tensor.shape = std::move(shape);
    v->tensor.data = reinterpret_cast<const unsigned char*>(data);
    return v;
}

bool looks_like_zip(const unsigned char* bytes, std::size_t size) {
    return size >= 4 && bytes[0] == 'P' && bytes[1] == 'K' && bytes[2] == 3 && bytes[3] == 4;
}

// ---- reading: the zip archive -------------------------------------------------------------------

namespace {

constexpr std::uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50, kEndOfCentralDirectory = 0x06054b50,
                        kZip64End = 0x06064b50, kZip64Locator = 0x07064b50, kDataDescriptor = 0x08074b50;
constexpr std::uint64_t kMaxRecords = 1'000'000;
constexpr std::uint64_t kMaxPickle = 64ull << 20;  // a GPT-2 XL optimizer's data.pkl is about 200 KB

struct ZipEntry {
    std::string name;
    std::uint64_t local_offset = 0, data_offset = 0, size = 0;
    std::uint32_t crc = 0;
};

// The archive's entries, every one checked: stored, inside the file before the central directory,
// not overlapping another, its local header agreeing with the central one, its CRC-32 right.
std::vector<ZipEntry> read_zip(const std::string& file, const unsigned char* b, std::uint64_t size) {
    const std::string not_zip = "re-save it with torch.save(model.state_dict(), PATH) (PyTorch 1.6 or later)";
    if (size >= 8 && std::memcmp(b, "PYTORCH1", 8) == 0) fail(file, "a file of PyTorch's preview release format", not_zip);
    if (size < 22) fail(file, fmt::format("{} bytes, too short for a zip archive", size), not_zip);
    if (!looks_like_zip(b, static_cast<std::size_t>(std::min<std::uint64_t>(size, 4)))) {
        if (b[0] == 0x80) fail(file, "a pickle without a zip archive: PyTorch's legacy format (before 1.6, or _use_new_zipfile_serialization=False)", not_zip);
        fail(file, "not a zip archive (it does not start with PK\\3\\4)", not_zip);
    }
    // The end of central directory record: 22 bytes and a comment of up to 65535, ending the file.
    std::uint64_t eocd = size;
    for (std::uint64_t p = size - 22;; --p) {
        if (le(b + p, 4) == kEndOfCentralDirectory && p + 22 + le(b + p + 20, 2) == size) {
            eocd = p;
            break;
        }
        if (p == 0 || size - p > 22 + 65535) break;
    }
    if (eocd == size) fail(file, "no end of central directory record: the file is truncated or not a zip archive", "download or copy it again");
    std::uint64_t disk = le(b + eocd + 4, 2), cd_disk = le(b + eocd + 6, 2), count = le(b + eocd + 10, 2), cd_size = le(b + eocd + 12, 4),
                  cd_offset = le(b + eocd + 16, 4);
    std::uint64_t cd_end_limit = eocd;  // the central directory ends before the ZIP64 records, if any
    if (eocd >= 20 && le(b + eocd - 20, 4) == kZip64Locator) {
        const std::uint64_t z64 = le(b + eocd - 20 + 8, 8);
        if (z64 > eocd - 20 || eocd - 20 - z64 < 56 || le(b + z64, 4) != kZip64End)
            fail(file, fmt::format("the ZIP64 end of central directory locator points at byte {}, where no ZIP64 record is", z64), "the file is damaged");
        disk = le(b + z64 + 16, 4);
        cd_disk = le(b + z64 + 20, 4);
        count = le(b + z64 + 32, 8);
        cd_size = le(b + z64 + 40, 8);
        cd_offset = le(b + z64 + 48, 8);
        cd_end_limit = z64;
    }
    if (disk != 0 || cd_disk != 0) fail(file, "a multi-part zip archive", "give a single-file archive");
    if (cd_offset > cd_end_limit || cd_size > cd_end_limit - cd_offset)
        fail(file, fmt::format("the central directory (bytes {} + {}) is not inside the file's {} bytes", cd_offset, cd_size, size), "the file is truncated or damaged");
    if (count > kMaxRecords || count > cd_size / 46)
        fail(file, fmt::format("{} records in a central directory of {} bytes", count, cd_size), "the file is damaged");

    std::vector<ZipEntry> entries;
    entries.reserve(static_cast<std::size_t>(count));
    std::set<std::string> names;
    std::uint64_t p = cd_offset;
    const std::uint64_t cd_end = cd_offset + cd_size;
    for (std::uint64_t i = 0; i < count; ++i) {
        const auto where = fmt::format("central directory entry {} (byte {})", i, p);
        if (cd_end - p < 46 || le(b + p, 4) != kCentralHeader) fail(file, where + ": not a central directory header", "the file is damaged");
        const std::uint64_t flags = le(b + p + 8, 2), method = le(b + p + 10, 2), name_len = le(b + p + 28, 2), extra_len = le(b + p + 30, 2),
                            comment_len = le(b + p + 32, 2);
        if (46 + name_len + extra_len + comment_len > cd_end - p) fail(file, where + ": runs past the central directory", "the file is damaged");
        ZipEntry e;
        e.name.assign(reinterpret_cast<const char*>(b + p + 46), static_cast<std::size_t>(name_len));
        e.crc = static_cast<std::uint32_t>(le(b + p + 16, 4));
        std::uint64_t csize = le(b + p + 20, 4), usize = le(b + p + 24, 4);
        e.local_offset = le(b + p + 42, 4);
        // ZIP64: the fields that are 0xFFFFFFFF are in the extra field 0x0001, in this order.
        for (std::uint64_t x = p + 46 + name_len, x_end = x + extra_len; x + 4 <= x_end;) {
            const std::uint64_t id = le(b + x, 2), len = le(b + x + 2, 2);
            if (x + 4 + len > x_end) fail(file, where + ": an extra field runs past its entry", "the file is damaged");
            if (id == 1) {
                std::uint64_t q = x + 4;
                const auto next = [&](std::uint64_t& field) {
                    if (field != 0xFFFFFFFFu) return;
                    if (q + 8 > x + 4 + len) fail(file, where + ": a ZIP64 extra field too short for its sizes", "the file is damaged");
                    field = le(b + q, 8);
                    q += 8;
                };
                next(usize);
                next(csize);
                next(e.local_offset);
            }
            x += 4 + len;
        }
        p += 46 + name_len + extra_len + comment_len;
        const std::string rec = fmt::format("record \"{}\"", e.name);
        if (e.name.empty() || e.name.find('\0') != std::string::npos) fail(file, where + ": an empty or NUL-containing name", "the file is damaged");
        if (!names.insert(e.name).second) fail(file, fmt::format("the {} twice in the archive", rec), "the file is damaged");
        if (flags & 1) fail(file, rec + " is encrypted", "torch.save never encrypts: re-save the file");
        if (method != 0 || csize != usize)
            fail(file, fmt::format("{} is compressed (method {}); torch.save stores every record uncompressed", rec, method),
                 "was the file re-packed by a zip tool? re-save it with torch.save");
        e.size = usize;
        // The local header: the same name, the data right after it.
        const std::uint64_t lo = e.local_offset;
        if (lo > cd_offset || cd_offset - lo < 30 || le(b + lo, 4) != kLocalHeader)
            fail(file, fmt::format("{}: no local header at byte {}", rec, lo), "the file is damaged");
        const std::uint64_t lname = le(b + lo + 26, 2), lextra = le(b + lo + 28, 2);
        if (le(b + lo + 8, 2) != method || lname != name_len || 30 + lname + lextra > cd_offset - lo ||
            std::memcmp(b + lo + 30, e.name.data(), e.name.size()) != 0)
            fail(file, fmt::format("{}: the local header at byte {} does not match the central directory", rec, lo), "the file is damaged");
        e.data_offset = lo + 30 + lname + lextra;
        if (e.size > cd_offset - e.data_offset)
            fail(file, fmt::format("{}: {} bytes from byte {} run past the central directory at byte {}", rec, e.size, e.data_offset, cd_offset),
                 "the file is truncated or damaged");
        entries.push_back(std::move(e));
    }
    // No two records share bytes (a zip "bomb" or a forged directory pointing twice at one record).
    std::vector<const ZipEntry*> by_offset;
    for (const auto& e : entries) by_offset.push_back(&e);
    std::sort(by_offset.begin(), by_offset.end(), [](const ZipEntry* x, const ZipEntry* y) { return x->local_offset < y->local_offset; });
    for (std::size_t i = 1; i < by_offset.size(); ++i)
        if (by_offset[i]->local_offset < by_offset[i - 1]->data_offset + by_offset[i - 1]->size)
            fail(file, fmt::format("records \"{}\" and \"{}\" overlap (bytes {} and {})", by_offset[i - 1]->name, by_offset[i]->name,
                                   by_offset[i - 1]->local_offset, by_offset[i]->local_offset),
                 "the file is damaged or forged");
    for (const auto& e : entries)
        if (crc32_of(b + e.data_offset, e.size) != e.crc)
            fail(file, fmt::format("record \"{}\" fails its CRC-32 check", e.name), "the file is damaged: download or copy it again");
    return entries;
}

// ---- reading: the restricted unpickler ----------------------------------------------------------

constexpr std::uint32_t kMaxDepth = 64;          // a state dict needs 6
constexpr std::uint64_t kMaxValues = 4'000'000;  // values a pickle may create

// What may stand on the unpickler's stack besides values: the allowed globals, storages (a
// persistent id's result), and tuples holding those (REDUCE's arguments, a persistent id).
enum class Global { ordered_dict, rebuild_tensor_v2, rebuild_parameter, storage_type };
struct Storage {
    std::string key;
    std::size_t type = 0;  // kStorageTypes index
    std::string location;
    std::uint64_t numel = 0;
    const TorchRecord* record = nullptr;
};
struct Item {
    enum class Kind { value, global, storage, raw_tuple } kind = Kind::value;
    std::shared_ptr<PyValue> value;
    Global global = Global::ordered_dict;
    std::size_t storage_type = 0;  // Global::storage_type: kStorageTypes index
    std::shared_ptr<const Storage> storage;
    std::shared_ptr<const std::vector<Item>> raw;  // raw_tuple: never holds another raw tuple
};

std::string opcode_name(unsigned char op) {
    static const std::map<unsigned char, const char*> kNames = {
        {'0', "POP"}, {'1', "POP_MARK"}, {'2', "DUP"}, {'F', "FLOAT"}, {'I', "INT"}, {'L', "LONG"}, {'P', "PERSID"}, {'S', "STRING"},
        {'T', "BINSTRING"}, {'U', "SHORT_BINSTRING"}, {'V', "UNICODE"}, {'d', "DICT"}, {'g', "GET"}, {'i', "INST"}, {'l', "LIST"},
        {'o', "OBJ"}, {'p', "PUT"}, {0x81, "NEWOBJ"}, {0x82, "EXT1"}, {0x83, "EXT2"}, {0x84, "EXT4"}, {0x8b, "LONG4"}, {'B', "BINBYTES"},
        {'C', "SHORT_BINBYTES"}, {0x8e, "BINBYTES8"}, {0x8f, "EMPTY_SET"}, {0x90, "ADDITEMS"}, {0x91, "FROZENSET"}, {0x92, "NEWOBJ_EX"},
        {0x96, "BYTEARRAY8"}, {0x97, "NEXT_BUFFER"}, {0x98, "READONLY_BUFFER"}};
    const auto it = kNames.find(op);
    return it == kNames.end() ? fmt::format("0x{:02x}, not a pickle opcode", op) : fmt::format("0x{:02x} ({})", op, it->second);
}

class Unpickler {
public:
    Unpickler(const std::string& file, const std::string& archive, const unsigned char* base, const std::vector<TorchRecord>& records,
              const TorchRecord& pickle)
        : file_(file), archive_(archive), base_(base), records_(records), p_(base + pickle.offset), size_(pickle.size) {}

    PyRef load();

private:
    [[noreturn]] void bad(const std::string& what, const std::string& hint = kResaveHint) const {
        fail(file_, fmt::format("{}/data.pkl byte {}: {}", archive_, op_at_, what), hint);
    }
    [[noreturn]] void damaged(const std::string& what) const { bad(what, "the file is damaged: download or copy it again"); }
    const unsigned char* take(std::uint64_t n) {
        if (n > size_ - pos_) damaged(fmt::format("the pickle ends inside an opcode (it has {} bytes)", size_));
        const unsigned char* at = p_ + pos_;
        pos_ += n;
        return at;
    }
    std::string text(std::uint64_t n) {
        const unsigned char* at = take(n);
        std::string s(reinterpret_cast<const char*>(at), static_cast<std::size_t>(n));
        if (invalid_utf8_at(s) != std::string::npos) damaged("a string that is not UTF-8");
        return s;
    }
    std::string line() {  // GLOBAL's "module\n" and "name\n"
        const std::uint64_t start = pos_;
        while (pos_ < size_ && p_[pos_] != '\n') {
            if (pos_ - start > 256) bad("a GLOBAL's name longer than 256 bytes");
            ++pos_;
        }
        if (pos_ == size_) damaged("the pickle ends inside a GLOBAL");
        ++pos_;
        return std::string(reinterpret_cast<const char*>(p_ + start), static_cast<std::size_t>(pos_ - 1 - start));
    }
    std::size_t mark_floor() const { return marks_.empty() ? 0 : marks_.back(); }
    Item pop() {
        if (stack_.size() <= mark_floor()) damaged("an opcode finds too few items on the stack");
        Item it = std::move(stack_.back());
        stack_.pop_back();
        return it;
    }
    Item& top() {
        if (stack_.size() <= mark_floor()) damaged("an opcode finds too few items on the stack");
        return stack_.back();
    }
    std::vector<Item> pop_mark() {
        if (marks_.empty()) damaged("no MARK before an opcode that needs one");
        const std::size_t m = marks_.back();
        marks_.pop_back();
        std::vector<Item> items(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(m)), std::make_move_iterator(stack_.end()));
        stack_.resize(m);
        return items;
    }
    std::shared_ptr<PyValue> value(Item it, const std::string& role) {
        if (it.kind != Item::Kind::value) {
            const char* what = it.kind == Item::Kind::global ? "a global" : it.kind == Item::Kind::storage ? "a storage" : "a tuple of globals";
            bad(fmt::format("{} where {} belongs (not what torch.save writes)", what, role));
        }
        return std::move(it.value);
    }
    std::shared_ptr<PyValue> make(PyValue::Type type) {
        if (++created_ > kMaxValues) bad(fmt::format("more than {} objects: not a state dict", kMaxValues));
        auto v = node(type);
        // Containers live as long as the unpickler, so that the addresses in sealed_ and
        // dict_keys_ always name the value they were recorded for.
        if (type != PyValue::Type::none && type != PyValue::Type::boolean && type != PyValue::Type::integer &&
            type != PyValue::Type::floating && type != PyValue::Type::string)
            keep_.push_back(v);
        return v;
    }
    void push(std::shared_ptr<PyValue> v) {
        Item it;
        it.value = std::move(v);
        stack_.push_back(std::move(it));
    }
    // `child` becomes part of `parent`: frozen from then on (so that no value can contain itself),
    // and the parent's nesting grows.
    void adopt(PyValue& parent, const std::shared_ptr<PyValue>& child) {
        if (child.get() == &parent) bad("a value inside itself (not what torch.save writes)");
        sealed_.insert(child.get());
        parent.depth = std::max(parent.depth, child->depth + 1);
        if (parent.depth > kMaxDepth) bad(fmt::format("values nested more than {} deep: not a state dict", kMaxDepth));
    }
    void seal(const Item& it) {
        if (it.kind == Item::Kind::value) sealed_.insert(it.value.get());
    }
    PyValue& container(Item& it, bool dict, const char* op) {
        const bool ok = it.kind == Item::Kind::value &&
                        (dict ? it.value->is_dict() : it.value->type == PyValue::Type::list);
        if (!ok) bad(fmt::format("{} on {}", op, it.kind == Item::Kind::value ? "a " + it.value->type_name() : std::string("a global or storage")));
        if (sealed_.count(it.value.get())) bad(fmt::format("{} changes a value already inside another (not what torch.save writes)", op));
        return *it.value;
    }
    void set_item(PyValue& dict, Item key_item, Item val_item) {
        auto key = value(std::move(key_item), "a dict key");
        auto val = value(std::move(val_item), "a dict value");
        std::string k;
        if (key->type == PyValue::Type::string) {
            k = "s" + key->string;
        } else if (key->type == PyValue::Type::integer) {
            k = "i" + std::to_string(key->integer);
        } else {
            bad(fmt::format("a dict key of type {} (a state dict's keys are str or int)", key->type_name()));
        }
        if (!dict_keys_[&dict].insert(k).second) bad(fmt::format("the key {} twice in one dict", k.substr(1)));
        adopt(dict, key);
        adopt(dict, val);
        dict.entries.emplace_back(std::move(key), std::move(val));
    }
    void append(PyValue& list, Item item) {
        auto v = value(std::move(item), "a list item");
        adopt(list, v);
        list.items.push_back(std::move(v));
    }
    Item tuple(std::vector<Item> items) {
        Item it;
        if (std::all_of(items.begin(), items.end(), [](const Item& i) { return i.kind == Item::Kind::value; })) {
            it.value = make(PyValue::Type::tuple);
            for (auto& i : items) {
                adopt(*it.value, i.value);
                it.value->items.push_back(std::move(i.value));
            }
        } else {
            for (const auto& i : items) {
                if (i.kind == Item::Kind::raw_tuple) bad("a tuple holding a tuple of globals (not what torch.save writes)");
                seal(i);
            }
            it.kind = Item::Kind::raw_tuple;
            it.raw = std::make_shared<const std::vector<Item>>(std::move(items));
        }
        return it;
    }
    void memo_put(std::uint64_t index) { memo_[index] = top(); }
    void memo_get(std::uint64_t index) {
        const auto it = memo_.find(index);
        if (it == memo_.end()) damaged(fmt::format("GET of memo entry {}, never PUT", index));
        stack_.push_back(it->second);
    }
    void global(const std::string& module, const std::string& name);
    void persistent_id(Item pid);
    void reduce(Item args, Item func);
    void build(Item state, Item& target);
    std::shared_ptr<PyValue> rebuild_tensor(std::vector<Item>& args);
    std::int64_t integer(const Item& it, const char* role) {
        if (it.kind != Item::Kind::value || it.value->type != PyValue::Type::integer) bad(fmt::format("{} is not an int", role));
        return it.value->integer;
    }
    std::vector<std::uint64_t> dims(const Item& it, const char* role) {
        if (it.kind != Item::Kind::value || it.value->type != PyValue::Type::tuple) bad(fmt::format("{} is not a tuple", role));
        std::vector<std::uint64_t> out;
        for (const auto& d : it.value->items) {
            if (d->type != PyValue::Type::integer || d->integer < 0) bad(fmt::format("{} has an entry that is not a non-negative int", role));
            out.push_back(static_cast<std::uint64_t>(d->integer));
        }
        return out;
    }

    const std::string& file_;
    const std::string& archive_;
    const unsigned char* base_;
    const std::vector<TorchRecord>& records_;
    const unsigned char* p_;
    std::uint64_t size_, pos_ = 0, op_at_ = 0, created_ = 0;
    std::vector<Item> stack_;
    std::vector<std::size_t> marks_;
    std::unordered_map<std::uint64_t, Item> memo_;
    std::unordered_set<const PyValue*> sealed_;
    std::unordered_map<const PyValue*, std::unordered_set<std::string>> dict_keys_;
    std::map<std::string, std::shared_ptr<const Storage>> storages_;
    std::vector<std::shared_ptr<PyValue>> keep_;
};

void Unpickler::global(const std::string& module, const std::string& name) {
    Item it;
    it.kind = Item::Kind::global;
    const auto st = std::find_if(kStorageTypes.begin(), kStorageTypes.end(), [&](const StorageType& s) { return name == s.global; });
    if (module == "collections" && name == "OrderedDict") {
        it.global = Global::ordered_dict;
    } else if (module == "torch._utils" && name == "_rebuild_tensor_v2") {
        it.global = Global::rebuild_tensor_v2;
    } else if (module == "torch._utils" && name == "_rebuild_parameter") {
        it.global = Global::rebuild_parameter;
    } else if (module == "torch" && st != kStorageTypes.end()) {
        it.global = Global::storage_type;
        it.storage_type = static_cast<std::size_t>(st - kStorageTypes.begin());
    } else {
        const bool object = module == "__main__" || module.rfind("torch.nn", 0) == 0 || module.rfind("torch.optim", 0) == 0 ||
                            module == "previous_chapters" || module == "gpt";
        bad(fmt::format("the global {}.{} is not allowed: a state dict is made of tensors, numbers, strings, lists and dicts "
                        "(collections.OrderedDict, torch._utils._rebuild_tensor_v2, torch.FloatStorage), and unpickling anything "
                        "else can run code",
                        module, name),
            object ? "the file holds a whole object (torch.save(model) or torch.save(optimizer)): re-save it with "
                     "torch.save(model.state_dict(), PATH)"
                   : "re-save it with torch.save(model.state_dict(), PATH); never load a file you do not trust with plain torch.load");
    }
    stack_.push_back(std::move(it));
}

// BINPERSID of ("storage", torch.FloatStorage, KEY, LOCATION, NUMEL): the record ARCHIVE/data/KEY.
void Unpickler::persistent_id(Item pid) {
    const std::string form = "a persistent id other than (\"storage\", torch.FloatStorage, KEY, LOCATION, NUMEL)";
    if (pid.kind != Item::Kind::raw_tuple || pid.raw->size() != 5) bad(form);
    const auto& f = *pid.raw;
    const auto str = [&](const Item& i) -> const std::string& {
        if (i.kind != Item::Kind::value || i.value->type != PyValue::Type::string) bad(form);
        return i.value->string;
    };
    if (str(f[0]) != "storage" || f[1].kind != Item::Kind::global || f[1].global != Global::storage_type) bad(form);
    auto s = std::make_shared<Storage>();
    s->type = f[1].storage_type;
    s->key = str(f[2]);
    s->location = str(f[3]);
    const std::int64_t numel = integer(f[4], "a storage's size");
    if (numel < 0) bad(fmt::format("storage \"{}\" has a negative size {}", s->key, numel));
    s->numel = static_cast<std::uint64_t>(numel);
    const std::string record = "data/" + s->key;
    const auto r = std::find_if(records_.begin(), records_.end(), [&](const TorchRecord& x) { return x.name == record; });
    if (r == records_.end()) bad(fmt::format("storage \"{}\" has no record {}/{} in the archive", s->key, archive_, record), "the file is damaged");
    s->record = &*r;
    const std::size_t es = kStorageTypes[s->type].size;
    if (s->numel > std::numeric_limits<std::uint64_t>::max() / es || s->numel * es != r->size)
        bad(fmt::format("storage \"{}\" of {} {} elements ({}) does not fill its record of {} bytes", s->key, s->numel, kStorageTypes[s->type].dtype,
                        kStorageTypes[s->type].global, r->size),
            "the file is damaged");
    const auto [known, inserted] = storages_.emplace(s->key, s);
    if (!inserted && (known->second->type != s->type || known->second->numel != s->numel))
        bad(fmt::format("storage \"{}\" named twice with other types or sizes", s->key), "the file is damaged or forged");
    Item it;
    it.kind = Item::Kind::storage;
    it.storage = known->second;
    stack_.push_back(std::move(it));
}

// torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
std::shared_ptr<PyValue> Unpickler::rebuild_tensor(std::vector<Item>& a) {
    if (a.size() != 6 && a.size() != 7) bad(fmt::format("_rebuild_tensor_v2 with {} arguments, not 6 or 7", a.size()));
    if (a[0].kind != Item::Kind::storage) bad("_rebuild_tensor_v2's first argument is not a storage");
    const Storage& s = *a[0].storage;
    const std::int64_t offset = integer(a[1], "a tensor's storage offset");
    const auto shape = dims(a[2], "a tensor's size");
    const auto stride = dims(a[3], "a tensor's stride");
    if (a[4].kind != Item::Kind::value || a[4].value->type != PyValue::Type::boolean) bad("a tensor's requires_grad is not a bool");
    if (a[5].kind != Item::Kind::value || !a[5].value->is_dict() || !a[5].value->entries.empty())
        bad("a tensor with backward hooks (a state dict's tensors have none)");
    if (a.size() == 7 && (a[6].kind != Item::Kind::value || !a[6].value->is_dict())) bad("a tensor's metadata is not a dict");
    const std::string what = fmt::format("tensor of storage \"{}\"", s.key);
    if (offset < 0) bad(fmt::format("{}: negative storage offset {}", what, offset));
    if (stride.size() != shape.size()) bad(fmt::format("{}: size [{}] but stride [{}]", what, fmt::join(shape, ", "), fmt::join(stride, ", ")));
    // Contiguous, row-major (dims of size 1 may have any stride, as torch's is_contiguous allows).
    std::uint64_t numel = 1, expected = 1;
    bool empty = false;
    for (std::size_t i = shape.size(); i-- > 0;) {
        if (shape[i] == 0) empty = true;
        if (shape[i] != 1 && stride[i] != expected && !empty)
            bad(fmt::format("{}: size [{}], stride [{}] is not contiguous", what, fmt::join(shape, ", "), fmt::join(stride, ", ")),
                "save contiguous tensors: torch.save({k: v.contiguous() for k, v in model.state_dict().items()}, PATH)");
        if (shape[i] != 0 && numel > std::numeric_limits<std::uint64_t>::max() / shape[i])
            bad(fmt::format("{}: size [{}] is too large", what, fmt::join(shape, ", ")));
        numel *= shape[i];
        if (shape[i] != 0 && expected <= std::numeric_limits<std::uint64_t>::max() / shape[i]) expected *= shape[i];
    }
    const auto uoffset = static_cast<std::uint64_t>(offset);
    if (numel > 0 && (uoffset > s.numel || numel > s.numel - uoffset))
        bad(fmt::format("{}: {} elements from offset {} run past its {} elements", what, numel, uoffset, s.numel), "the file is damaged");
    auto v = make(PyValue::Type::tensor);
    TorchTensor& t = v->tensor;
    t.dtype = kStorageTypes[s.type].dtype;
    t.element_size = kStorageTypes[s.type].size;
    t.storage_key = s.key;
    t.location = s.location;
    t.shape = shape;
    t.storage_offset = uoffset;
    t.requires_grad = a[4].value->boolean;
    t.data = base_ + s.record->offset + (numel > 0 ? uoffset * t.element_size : 0);
    return v;
}

void Unpickler::reduce(Item args, Item func) {
    if (func.kind != Item::Kind::global || func.global == Global::storage_type)
        bad("REDUCE calls something other than collections.OrderedDict or torch._utils._rebuild_tensor_v2");
    // The number of arguments first: a hostile file could pass a huge tuple many times.
    std::size_t n = 0;
    if (args.kind == Item::Kind::raw_tuple) {
        n = args.raw->size();
    } else if (args.kind == Item::Kind::value && args.value->type == PyValue::Type::tuple) {
        n = args.value->items.size();
    } else {
        bad("REDUCE's arguments are not a tuple");
    }
    const std::size_t wanted = func.global == Global::ordered_dict ? 0 : func.global == Global::rebuild_parameter ? 3 : n == 7 ? 7 : 6;
    if (n != wanted)
        bad(fmt::format("{} called with {} arguments", func.global == Global::ordered_dict ? "collections.OrderedDict" :
                                                       func.global == Global::rebuild_parameter ? "torch._utils._rebuild_parameter" :
                                                                                                  "torch._utils._rebuild_tensor_v2", n));
    std::vector<Item> a;
    if (args.kind == Item::Kind::raw_tuple) {
        a = *args.raw;
    } else {
        for (const auto& v : args.value->items) {
            Item i;
            i.value = std::const_pointer_cast<PyValue>(v);
            a.push_back(std::move(i));
        }
    }
    switch (func.global) {
        case Global::ordered_dict:
            if (!a.empty()) bad("collections.OrderedDict called with arguments (torch.save writes OrderedDict() and then its items)");
            push(make(PyValue::Type::ordered_dict));
            return;
        case Global::rebuild_tensor_v2:
            push(rebuild_tensor(a));
            return;
        case Global::rebuild_parameter:  // _rebuild_parameter(data, requires_grad, backward_hooks): a tensor
            if (a.size() != 3 || a[0].kind != Item::Kind::value || a[0].value->type != PyValue::Type::tensor)
                bad("_rebuild_parameter's arguments are not (tensor, requires_grad, backward_hooks)");
            if (a[2].kind != Item::Kind::value || !a[2].value->is_dict() || !a[2].value->entries.empty())
                bad("a parameter with backward hooks (a state dict's tensors have none)");
            push(a[0].value);
            return;
        case Global::storage_type: break;
    }
    bad("REDUCE of a storage type");
}

// BUILD: only a state dict's OrderedDict gets a state (its {"_metadata": ...}).
void Unpickler::build(Item state, Item& target) {
    if (target.kind != Item::Kind::value || target.value->type != PyValue::Type::ordered_dict)
        bad(fmt::format("BUILD on {} (only an OrderedDict's attributes are allowed)",
                        target.kind == Item::Kind::value ? "a " + target.value->type_name() : std::string("a global or storage")));
    if (sealed_.count(target.value.get()) || target.value->state) bad("BUILD on an OrderedDict already used or built (not what torch.save writes)");
    auto s = value(std::move(state), "BUILD's state");
    if (s->type != PyValue::Type::dict) bad(fmt::format("BUILD with a {} state, not a dict of attributes", s->type_name()));
    adopt(*target.value, s);
    target.value->state = std::move(s);
}

PyRef Unpickler::load() {
    while (true) {
        op_at_ = pos_;
        const unsigned char op = *take(1);
        switch (op) {
            case 0x80: {  // PROTO
                const unsigned v = *take(1);
                if (v < 2 || v > 5) bad(fmt::format("pickle protocol {} (torch.save writes 2)", v));
                break;
            }
            case 0x95: take(8); break;  // FRAME: a length hint
            case '.': {                 // STOP
                if (stack_.size() != 1 || !marks_.empty()) damaged("STOP with other than one value on the stack");
                return value(std::move(stack_.back()), "the file's object");
            }
            case '(': marks_.push_back(stack_.size()); break;
            case 'N': push(make(PyValue::Type::none)); break;
            case 0x88:
            case 0x89: {
                auto v = make(PyValue::Type::boolean);
                v->boolean = op == 0x88;
                push(v);
                break;
            }
            case 'J': case 'K': case 'M': {  // BININT, BININT1, BININT2
                const int n = op == 'J' ? 4 : op == 'K' ? 1 : 2;
                std::uint64_t u = le(take(static_cast<std::uint64_t>(n)), n);
                auto v = make(PyValue::Type::integer);
                v->integer = op == 'J' ? static_cast<std::int64_t>(static_cast<std::int32_t>(static_cast<std::uint32_t>(u))) : static_cast<std::int64_t>(u);
                push(v);
                break;
            }
            case 0x8a: {  // LONG1: n bytes, two's complement, little-endian
                const unsigned n = *take(1);
                if (n > 8) bad(fmt::format("an int of {} bytes (beyond 64 bits)", n));
                const unsigned char* d = take(n);
                std::uint64_t u = n == 0 ? 0 : le(d, static_cast<int>(n));
                if (n > 0 && n < 8 && (d[n - 1] & 0x80)) u |= ~std::uint64_t{0} << (8 * n);  // sign-extend
                auto v = make(PyValue::Type::integer);
                v->integer = static_cast<std::int64_t>(u);
                push(v);
                break;
            }
            case 'G': {  // BINFLOAT: big-endian double
                const unsigned char* d = take(8);
                std::uint64_t u = 0;
                for (int i = 0; i < 8; ++i) u = (u << 8) | d[i];
                auto v = make(PyValue::Type::floating);
                std::memcpy(&v->floating, &u, 8);
                push(v);
                break;
            }
            case 'X': case 0x8c: case 0x8d: {  // BINUNICODE, SHORT_BINUNICODE, BINUNICODE8
                const int n = op == 'X' ? 4 : op == 0x8c ? 1 : 8;
                const std::uint64_t len = le(take(static_cast<std::uint64_t>(n)), n);
                auto v = make(PyValue::Type::string);
                v->string = text(len);
                push(v);
                break;
            }
            case ')': push(make(PyValue::Type::tuple)); break;
            case 't': stack_.push_back(tuple(pop_mark())); break;
            case 0x85: case 0x86: case 0x87: {  // TUPLE1, TUPLE2, TUPLE3
                const std::size_t n = op - 0x84u;
                if (stack_.size() < mark_floor() + n) damaged("an opcode finds too few items on the stack");
                std::vector<Item> items(std::make_move_iterator(stack_.end() - static_cast<std::ptrdiff_t>(n)), std::make_move_iterator(stack_.end()));
                stack_.resize(stack_.size() - n);
                stack_.push_back(tuple(std::move(items)));
                break;
            }
            case ']': push(make(PyValue::Type::list)); break;
            case '}': push(make(PyValue::Type::dict)); break;
            case 'a': {
                Item item = pop();
                append(container(top(), false, "APPEND"), std::move(item));
                break;
            }
            case 'e': {
                auto items = pop_mark();
                PyValue& list = container(top(), false, "APPENDS");
                for (auto& i : items) append(list, std::move(i));
                break;
            }
            case 's': {
                Item val = pop();
                Item key = pop();
                set_item(container(top(), true, "SETITEM"), std::move(key), std::move(val));
                break;
            }
            case 'u': {
                auto items = pop_mark();
                if (items.size() % 2 != 0) damaged("SETITEMS with an odd number of items");
                PyValue& dict = container(top(), true, "SETITEMS");
                for (std::size_t i = 0; i < items.size(); i += 2) set_item(dict, std::move(items[i]), std::move(items[i + 1]));
                break;
            }
            case 'q': memo_put(*take(1)); break;
            case 'r': memo_put(le(take(4), 4)); break;
            case 0x94: memo_put(memo_.size()); break;  // MEMOIZE
            case 'h': memo_get(*take(1)); break;
            case 'j': memo_get(le(take(4), 4)); break;
            case 'c': {
                const std::string module = line();
                const std::string name = line();
                global(module, name);
                break;
            }
            case 0x93: {  // STACK_GLOBAL
                auto name = value(pop(), "a global's name");
                auto module = value(pop(), "a global's module");
                if (name->type != PyValue::Type::string || module->type != PyValue::Type::string) bad("STACK_GLOBAL of names that are not strings");
                global(module->string, name->string);
                break;
            }
            case 'R': {
                Item args = pop();
                Item func = pop();
                reduce(std::move(args), std::move(func));
                break;
            }
            case 'b': {
                Item state = pop();
                build(std::move(state), top());
                break;
            }
            case 'Q': persistent_id(pop()); break;
            default:
                bad(fmt::format("opcode {} is not allowed (a state dict needs only dicts, lists, tuples, numbers, strings and tensors)", opcode_name(op)));
        }
    }
}

}  // namespace

// ---- the file -----------------------------------------------------------------------------------

TorchSaveFile::TorchSaveFile(MappedFile file, std::string name) : file_(std::move(file)), name_(std::move(name)) { parse(); }
TorchSaveFile::TorchSaveFile(TorchSaveFile&&) noexcept = default;
TorchSaveFile& TorchSaveFile::operator=(TorchSaveFile&&) noexcept = default;
TorchSaveFile::~TorchSaveFile() = default;

TorchSaveFile TorchSaveFile::open(const std::filesystem::path& path) {
    return TorchSaveFile(MappedFile::open(path, "check the path (a file written by torch.save(model.state_dict(), \"model.pth\"))"), path.string());
}

TorchSaveFile TorchSaveFile::from_bytes(std::string bytes, const std::string& name) {
    return TorchSaveFile(MappedFile::from_bytes(std::move(bytes)), name);
}

void TorchSaveFile::parse() {
    const unsigned char* b = file_.data();
    const auto entries = read_zip(name_, b, file_.size());
    if (entries.empty()) fail(name_, "an empty zip archive");
    // Every record is ARCHIVE/NAME, ARCHIVE the first one's folder (PyTorchStreamReader's rule).
    const auto slash = entries[0].name.find('/');
    if (slash == std::string::npos || slash == 0) fail(name_, fmt::format("record \"{}\" is not in a folder, as torch.save's are", entries[0].name));
    archive_ = entries[0].name.substr(0, slash);
    for (const auto& e : entries) {
        if (e.name.size() <= slash + 1 || e.name.compare(0, slash + 1, archive_ + "/") != 0)
            fail(name_, fmt::format("record \"{}\" is not in the archive's folder \"{}/\"", e.name, archive_));
        records_.push_back({e.name.substr(slash + 1), e.data_offset, e.size});
    }
    const auto record = [&](const std::string& n) -> const TorchRecord* {
        for (const auto& r : records_)
            if (r.name == n) return &r;
        return nullptr;
    };
    const auto small_text = [&](const TorchRecord& r) {
        return std::string(reinterpret_cast<const char*>(b + r.offset), static_cast<std::size_t>(std::min<std::uint64_t>(r.size, 64)));
    };
    if (record("constants.pkl") != nullptr || record("code/") != nullptr)
        fail(name_, "a TorchScript archive (torch.jit.save), not a state dict", "save the model's weights with torch.save(model.state_dict(), PATH)");
    if (const TorchRecord* order = record("byteorder"); order != nullptr && small_text(*order) != "little")
        fail(name_, fmt::format("the tensors are stored \"{}\"-endian", small_text(*order)), "re-save the file on a little-endian machine");
    if (!little_endian_host()) fail(name_, "this reader needs a little-endian machine", "run it on x86-64 or arm64");
    const TorchRecord* pickle = record("data.pkl");
    if (pickle == nullptr) fail(name_, fmt::format("no record {}/data.pkl", archive_));
    if (pickle->size > kMaxPickle) fail(name_, fmt::format("{}/data.pkl has {} bytes, more than a state dict's {}", archive_, pickle->size, kMaxPickle));
    root_ = Unpickler(name_, archive_, b, records_, *pickle).load();
}

}  // namespace llmfs

// ---- writing: the pickle ------------------------------------------------------------------------

namespace llmfs {

namespace {

// Python's C pickler (Modules/_pickle.c), protocol 2, for the values a state dict holds: every
// container and string memoized when first written (strings here by value: in a state dict equal
// strings are the same Python object), later uses a GET.
class Pickler {
public:
    explicit Pickler(std::vector<const TorchTensor*>* tensors) : tensors_(tensors) {}
    std::string run(const PyValue& root) {
        out_ += "\x80\x02";
        save(root);
        out_ += '.';
        return std::move(out_);
    }

private:
    void put_u32(std::uint64_t v, int n) {
        for (int i = 0; i < n; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xFF);
    }
    void memoize(const void* key) {
        const std::uint64_t index = next_++;
        if (key != nullptr) objects_[key] = index;
        if (index < 256) {
            out_ += 'q';
            put_u32(index, 1);
        } else {
            out_ += 'r';
            put_u32(index, 4);
        }
    }
    void get(std::uint64_t index) {
        if (index < 256) {
            out_ += 'h';
            put_u32(index, 1);
        } else {
            out_ += 'j';
            put_u32(index, 4);
        }
    }
    bool memoized(const void* key) {
        const auto it = objects_.find(key);
        if (it == objects_.end()) return false;
        get(it->second);
        return true;
    }
    void save_int(std::int64_t i) {
        if (i >= 0 && i <= 0xFF) {
            out_ += 'K';
            put_u32(static_cast<std::uint64_t>(i), 1);
        } else if (i >= 0 && i <= 0xFFFF) {
            out_ += 'M';
            put_u32(static_cast<std::uint64_t>(i), 2);
        } else if (i >= -0x80000000ll && i <= 0x7FFFFFFFll) {
            out_ += 'J';
            put_u32(static_cast<std::uint32_t>(static_cast<std::int32_t>(i)), 4);
        } else {  // LONG1: the shortest two's complement, little-endian
            std::string bytes;
            std::uint64_t u = static_cast<std::uint64_t>(i);
            for (int k = 0; k < 8; ++k) bytes += static_cast<char>((u >> (8 * k)) & 0xFF);
            while (bytes.size() > 1) {
                const auto last = static_cast<unsigned char>(bytes.back()), prev = static_cast<unsigned char>(bytes[bytes.size() - 2]);
                if ((last == 0 && !(prev & 0x80)) || (last == 0xFF && (prev & 0x80))) {
                    bytes.pop_back();
                } else {
                    break;
                }
            }
            out_ += '\x8a';
            out_ += static_cast<char>(bytes.size());
            out_ += bytes;
        }
    }
    void save_str(const std::string& s) {
        const auto it = strings_.find(s);
        if (it != strings_.end()) return get(it->second);
        out_ += 'X';
        put_u32(s.size(), 4);
        out_ += s;
        strings_[s] = next_;
        memoize(nullptr);
    }
    void save_global(const char* module, const char* name) {
        const std::string key = std::string(module) + "\n" + name + "\n";
        const auto it = globals_.find(key);
        if (it != globals_.end()) return get(it->second);
        out_ += 'c';
        out_ += key;
        globals_[key] = next_;
        memoize(nullptr);
    }
    void save_tuple_of(const std::vector<std::uint64_t>& dims) {  // a tensor's size or stride: a new tuple
        if (dims.empty()) {
            out_ += ')';
            return;
        }
        if (dims.size() > 3) out_ += '(';
        for (const auto d : dims) save_int(static_cast<std::int64_t>(d));
        out_ += dims.size() > 3 ? 't' : static_cast<char>(0x84 + dims.size());
        memoize(nullptr);
    }
    // for batch in items[i : i + 1000]: MARK k v ... SETITEMS; `exact` (a dict, not an OrderedDict's
    // iterator): one item alone is SETITEM only when the dict has one, and a full last batch is
    // followed by an empty one, as batch_dict_exact writes; else a lone item in a batch is SETITEM.
    void save_items(const std::vector<std::pair<PyRef, PyRef>>& entries, bool exact) {
        constexpr std::size_t kBatch = 1000;
        const std::size_t n = entries.size();
        if (n == 0) return;
        if (n == 1) {
            save(*entries[0].first);
            save(*entries[0].second);
            out_ += 's';
            return;
        }
        std::size_t i = 0;
        do {
            const std::size_t batch = std::min(kBatch, n - i);
            if (!exact && batch == 1) {
                save(*entries[i].first);
                save(*entries[i].second);
                out_ += 's';
                return;
            }
            out_ += '(';
            for (std::size_t k = 0; k < batch; ++k, ++i) {
                save(*entries[i].first);
                save(*entries[i].second);
            }
            out_ += 'u';
            if (batch < kBatch) return;
        } while (i < n || exact);
    }
    void save_tensor(const PyValue& v) {
        const TorchTensor& t = v.tensor;
        if (t.dtype != "float32" || t.element_size != 4)
            throw std::invalid_argument("torch_pickle: only float32 tensors are written, not " + t.dtype);
        save_global("torch._utils", "_rebuild_tensor_v2");
        out_ += '(';
        // the storage: persistent id ("storage", torch.FloatStorage, KEY, "cpu", numel)
        out_ += '(';
        save_str("storage");
        save_global("torch", "FloatStorage");
        save_str(std::to_string(keys_++));
        save_str("cpu");
        save_int(static_cast<std::int64_t>(t.numel()));
        out_ += 't';
        memoize(nullptr);
        out_ += 'Q';
        save_int(0);  // storage_offset
        save_tuple_of(t.shape);
        std::vector<std::uint64_t> stride(t.shape.size());
        std::uint64_t s = 1;
        for (std::size_t i = t.shape.size(); i-- > 0;) {
            stride[i] = s;
            s *= t.shape[i];
        }
        save_tuple_of(stride);
        out_ += t.requires_grad ? '\x88' : '\x89';
        save_global("collections", "OrderedDict");  // backward_hooks: OrderedDict()
        out_ += ")R";
        memoize(nullptr);
        out_ += 't';
        memoize(nullptr);
        out_ += 'R';
        memoize(&v);
        if (tensors_ != nullptr) tensors_->push_back(&t);
    }
    void save(const PyValue& v) {
        using T = PyValue::Type;
        switch (v.type) {
            case T::none: out_ += 'N'; return;
            case T::boolean: out_ += v.boolean ? '\x88' : '\x89'; return;
            case T::integer: save_int(v.integer); return;
            case T::floating: {
                std::uint64_t u;
                std::memcpy(&u, &v.floating, 8);
                out_ += 'G';
                for (int i = 7; i >= 0; --i) out_ += static_cast<char>((u >> (8 * i)) & 0xFF);
                return;
            }
            case T::string: save_str(v.string); return;
            case T::tuple:
                if (memoized(&v)) return;
                if (v.items.empty()) {
                    out_ += ')';
                    return;
                }
                if (v.items.size() > 3) out_ += '(';
                for (const auto& i : v.items) save(*i);
                out_ += v.items.size() > 3 ? 't' : static_cast<char>(0x84 + v.items.size());
                memoize(&v);
                return;
            case T::list: {
                if (memoized(&v)) return;
                out_ += ']';
                memoize(&v);
                const std::size_t n = v.items.size();
                if (n == 1) {
                    save(*v.items[0]);
                    out_ += 'a';
                } else if (n > 1) {
                    for (std::size_t i = 0; i < n;) {  // batch_list_exact
                        out_ += '(';
                        for (std::size_t k = 0; k < 1000 && i < n; ++k, ++i) save(*v.items[i]);
                        out_ += 'e';
                    }
                }
                return;
            }
            case T::dict:
                if (memoized(&v)) return;
                out_ += '}';
                memoize(&v);
                save_items(v.entries, true);
                return;
            case T::ordered_dict:  // save_reduce(OrderedDict, (), state, None, iter(items))
                if (memoized(&v)) return;
                save_global("collections", "OrderedDict");
                out_ += ")R";
                memoize(&v);
                save_items(v.entries, false);
                if (v.state) {
                    save(*v.state);
                    out_ += 'b';
                }
                return;
            case T::tensor:
                if (memoized(&v)) return;
                save_tensor(v);
                return;
        }
    }

    std::string out_;
    std::uint64_t next_ = 0, keys_ = 0;
    std::unordered_map<const void*, std::uint64_t> objects_;
    std::map<std::string, std::uint64_t> strings_, globals_;
    std::vector<const TorchTensor*>* tensors_;
};

}  // namespace

std::string torch_pickle(const PyValue& root, std::vector<const TorchTensor*>* tensors) { return Pickler(tensors).run(root); }

// ---- writing: the zip archive -------------------------------------------------------------------

namespace {

// caffe2's PyTorchStreamWriter over miniz: each record stored, after a local header whose extra
// field "FB" pads the data to a multiple of 64, followed by a data descriptor; ZIP64 fields where a
// size or an offset reaches 2^32 - 1 (`zip64_at`), and the ZIP64 end records always.
class ZipWriter {
public:
    ZipWriter(std::ostream& out, std::string archive, std::uint64_t zip64_at)
        : out_(out), prefix_(std::move(archive) + "/"), zip64_at_(std::min<std::uint64_t>(zip64_at, 0xFFFFFFFFu)) {}

    void record(const std::string& name, const unsigned char* data, std::uint64_t size) {
        Entry e{prefix_ + name, pos_, size, crc32_of(data, size), size >= zip64_at_ || pos_ >= zip64_at_};
        std::string h;
        const auto put = [&h](std::uint64_t v, int n) {
            for (int i = 0; i < n; ++i) h += static_cast<char>((v >> (8 * i)) & 0xFF);
        };
        std::string zip64;
        const bool big = size >= zip64_at_, far = pos_ >= zip64_at_;
        if (e.zip64) {  // the local header's ZIP64 field: the sizes if large, the offset if far
            put(1, 2);
            put((big ? 16 : 0) + (far ? 8 : 0), 2);
            if (big) {
                put(size, 8);
                put(size, 8);
            }
            if (far) put(pos_, 8);
            zip64.swap(h);
        }
        const std::uint64_t start = pos_ + 30 + e.name.size() + zip64.size() + 4;
        const std::uint64_t pad = (64 - start % 64) % 64;
        put(kLocalHeader, 4);
        put(e.zip64 ? 45 : 0, 2);  // version needed
        put(0x0808, 2);            // sizes in a data descriptor; UTF-8 names
        put(0, 2);                 // stored
        put(0, 4);                 // time, date
        put(0, 4);                 // crc-32, sizes: in the descriptor
        put(0, 4);
        put(0, 4);
        put(e.name.size(), 2);
        put(zip64.size() + 4 + pad, 2);
        h += e.name;
        h += zip64;
        h += "FB";
        put(pad, 2);
        h.append(static_cast<std::size_t>(pad), 'Z');
        write(h);
        write(reinterpret_cast<const char*>(data), size);
        h.clear();
        put(kDataDescriptor, 4);
        put(e.crc, 4);
        put(size, e.zip64 ? 8 : 4);
        put(size, e.zip64 ? 8 : 4);
        write(h);
        // PyTorchStreamWriter's serialization id: the records' names and CRC-32s combined.
        combined_crc_ = hash_combine(combined_crc_, e.crc);
        written_.insert(name);
        entries_.push_back(std::move(e));
    }
    void record(const std::string& name, const std::string& text) { record(name, reinterpret_cast<const unsigned char*>(text.data()), text.size()); }

    // writeEndOfFile: "version", ".data/serialization_id", then the central directory.
    void finish() {
        record("version", "3\n");
        std::uint64_t names = 0;
        for (const auto& n : written_) names = hash_combine(names, std::hash<std::string>{}(n));
        record(".data/serialization_id", fmt::format("{:020}{:020}", names, combined_crc_));
        const std::uint64_t cd_offset = pos_;
        std::string h;
        const auto put = [&h](std::uint64_t v, int n) {
            for (int i = 0; i < n; ++i) h += static_cast<char>((v >> (8 * i)) & 0xFF);
        };
        for (const auto& e : entries_) {
            const bool big = e.size >= zip64_at_, far = e.offset >= zip64_at_;
            put(kCentralHeader, 4);
            put(e.zip64 ? 45 : 0, 2);  // made by
            put(e.zip64 ? 45 : 0, 2);  // needed
            put(0x0808, 2);
            put(0, 2);
            put(0, 4);
            put(e.crc, 4);
            put(big ? 0xFFFFFFFFu : e.size, 4);
            put(big ? 0xFFFFFFFFu : e.size, 4);
            put(e.name.size(), 2);
            put((big ? 16 : 0) + (far ? 8 : 0) + (big || far ? 4 : 0), 2);
            put(0, 2);  // comment
            put(0, 2);  // disk
            put(0, 2);  // internal attributes
            put(0, 4);  // external attributes
            put(far ? 0xFFFFFFFFu : e.offset, 4);
            h += e.name;
            if (big || far) {
                put(1, 2);
                put((big ? 16 : 0) + (far ? 8 : 0), 2);
                if (big) {
                    put(e.size, 8);
                    put(e.size, 8);
                }
                if (far) put(e.offset, 8);
            }
        }
        const std::uint64_t cd_size = h.size(), n = entries_.size(), z64 = cd_offset + cd_size;
        put(kZip64End, 4);
        put(44, 8);
        put(0x031e, 2);
        put(45, 2);
        put(0, 4);
        put(0, 4);
        put(n, 8);
        put(n, 8);
        put(cd_size, 8);
        put(cd_offset, 8);
        put(kZip64Locator, 4);
        put(0, 4);
        put(z64, 8);
        put(1, 4);
        put(kEndOfCentralDirectory, 4);
        put(0, 4);
        put(std::min<std::uint64_t>(n, 0xFFFF), 2);
        put(std::min<std::uint64_t>(n, 0xFFFF), 2);
        put(std::min<std::uint64_t>(cd_size, 0xFFFFFFFFu), 4);
        put(std::min<std::uint64_t>(cd_offset, 0xFFFFFFFFu), 4);
        put(0, 2);
        write(h);
        out_.flush();
        if (!out_) throw std::runtime_error("write error");
    }

private:
    struct Entry {
        std::string name;
        std::uint64_t offset, size;
        std::uint32_t crc;
        bool zip64;
    };
    static std::uint64_t hash_combine(std::uint64_t seed, std::uint64_t value) {  // c10::hash_combine
        return seed ^ (value + 0x9e3779b9 + (seed << 6) + (seed >> 2));
    }
    void write(const std::string& s) { write(s.data(), s.size()); }
    void write(const char* p, std::uint64_t n) {
        out_.write(p, static_cast<std::streamsize>(n));
        if (!out_) throw std::runtime_error("write error");
        pos_ += n;
    }

    std::ostream& out_;
    std::string prefix_;
    std::uint64_t zip64_at_, pos_ = 0, combined_crc_ = 0;
    std::vector<Entry> entries_;
    std::unordered_set<std::string> written_;
};

}  // namespace

void write_torch_save(std::ostream& out, const PyValue& root, const std::string& archive_name, std::uint64_t zip64_at) {
    if (!little_endian_host()) throw std::runtime_error("write_torch_save: needs a little-endian machine");
    std::vector<const TorchTensor*> tensors;
    const std::string pickle = torch_pickle(root, &tensors);
    ZipWriter zip(out, archive_name.empty() ? "archive" : archive_name, zip64_at);
    zip.record("data.pkl", pickle);
    zip.record(".format_version", "1");
    zip.record(".storage_alignment", "64");
    zip.record("byteorder", "little");
    for (std::size_t i = 0; i < tensors.size(); ++i) zip.record("data/" + std::to_string(i), tensors[i]->data, tensors[i]->nbytes());
    zip.finish();
}

std::string torch_zip(const std::string& archive_name, const std::vector<std::pair<std::string, std::string>>& records, std::uint64_t zip64_at) {
    std::ostringstream out;
    ZipWriter zip(out, archive_name, zip64_at);
    for (const auto& [name, bytes] : records) zip.record(name, bytes);
    zip.finish();
    return out.str();
}

void write_torch_save(const std::filesystem::path& path, const PyValue& root) {
    const std::string name = path.string();
    const std::filesystem::path tmp = path.string() + ".tmp-" + std::to_string(::getpid());
    try {
        {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            if (!out) throw std::runtime_error(fmt::format("cannot create {}: {}", tmp.string(), std::strerror(errno)));
            write_torch_save(out, root, path.stem().string());
            out.close();
            if (!out) throw std::runtime_error("write error (is the disk full?)");
        }
        std::filesystem::rename(tmp, path);
    } catch (const std::exception& e) {
        std::error_code ec;
        std::filesystem::remove(tmp, ec);
        throw std::runtime_error(fmt::format("{}: cannot save: {}; check that the folder exists and is writable", name, e.what()));
    }
}

}  // namespace llmfs
