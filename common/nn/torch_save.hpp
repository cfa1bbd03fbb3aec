// PyTorch's torch.save files (the zip format it has written since 1.6), read and written as far as
// a state dict needs: the book's model.pth and model_and_optimizer.pth (section 5.4).
//
//   TorchSaveFile     the file, memory-mapped and checked: the zip's central directory, every
//                     record stored (not compressed) inside the file, none overlapping another, its
//                     CRC-32 right; data.pkl read by a restricted unpickler; tensors are views into
//                     the mapping (64-byte aligned as torch writes them), nothing copied
//   write_torch_save  a Python value with float32 tensors as torch.save writes it (2.x's records),
//                     atomically: a temporary file beside PATH, renamed over it when complete
//
// The file (torch/serialization.py _save, caffe2/serialize/inline_container.cc):
//   ARCHIVE/data.pkl             the object, pickled with protocol 2; each tensor is
//                                torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride,
//                                requires_grad, OrderedDict()), its storage a persistent id
//                                ("storage", torch.FloatStorage, KEY, "cpu", numel)
//   ARCHIVE/.format_version, ARCHIVE/.storage_alignment, ARCHIVE/byteorder   (2.x; "1", "64", "little")
//   ARCHIVE/data/KEY             the storage's bytes, little-endian, at a file offset that is a multiple
//                                of 64 (a local-header extra field "FB" pads it)
//   ARCHIVE/version              "3\n"; 2.x also ARCHIVE/.data/serialization_id
// ARCHIVE is the file's name without its extension ("model" for model.pth). Every record is stored,
// with a data descriptor after it; the end of central directory has its ZIP64 records always.
//
// Why a restricted unpickler: unpickling runs whatever callables the pickle names (os.system,
// builtins.eval, a class's constructor), which is why torch.load(..., weights_only=True) exists.
// This reader knows only the opcodes and the globals a state dict is made of and refuses anything
// else by name, with the file, the byte offset in data.pkl and a hint (docs/checkpoints.md).
//
// Errors are std::runtime_error "FILE: what (where); hint".
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "llmfs/nn/mapped_file.hpp"

namespace llmfs {

// A tensor of the file: its storage's record, and a view of its bytes (no copy).
struct TorchTensor {
    std::string dtype = "float32";          // "float32", "float64", "float16", "bfloat16", "int64", ...
    std::size_t element_size = 4;           // bytes per element of dtype
    std::string storage_key;                // KEY of the record ARCHIVE/data/KEY
    std::string location = "cpu";           // where it was saved from: "cpu", "cuda:0", "mps", ...
    std::vector<std::uint64_t> shape;       // [] for a scalar (optimizer.state[p]["step"])
    std::uint64_t storage_offset = 0;       // in elements
    bool requires_grad = false;
    const unsigned char* data = nullptr;    // the first element; contiguous, row-major
    std::uint64_t numel() const;
    std::uint64_t nbytes() const { return numel() * element_size; }
    bool aligned() const;                   // data is aligned for its dtype (a plain load is allowed)
};

// A value of the pickle: what a state dict and an optimizer's state_dict() are made of.
struct PyValue;
using PyRef = std::shared_ptr<const PyValue>;
struct PyValue {
    enum class Type { none, boolean, integer, floating, string, tuple, list, dict, ordered_dict, tensor };
    Type type = Type::none;
    bool boolean = false;
    std::int64_t integer = 0;
    double floating = 0.0;
    std::string string;
    std::vector<PyRef> items;                      // tuple, list
    std::vector<std::pair<PyRef, PyRef>> entries;  // dict, ordered_dict: keys str or int, in order
    PyRef state;                                   // ordered_dict: BUILD's state ({"_metadata": ...}), or null
    TorchTensor tensor;
    std::uint32_t depth = 1;                       // nesting: 1 for a leaf

    std::string type_name() const;                 // Python's: "dict", "OrderedDict", "int", "Tensor", ...
    bool is_dict() const { return type == Type::dict || type == Type::ordered_dict; }
    // The entry of a dict with that key, or nullptr.
    const PyValue* get(std::string_view key) const;
    const PyValue* get(std::int64_t key) const;

    static PyRef make_none();
    static PyRef make_bool(bool b);
    static PyRef make_int(std::int64_t i);
    static PyRef make_float(double f);
    static PyRef make_str(std::string s);
    static PyRef make_tuple(std::vector<PyRef> items);
    static PyRef make_list(std::vector<PyRef> items);
    static PyRef make_dict(std::vector<std::pair<PyRef, PyRef>> entries, bool ordered = false, PyRef state = nullptr);
    // A float32 tensor over `data` (contiguous, row-major; it must outlive the value), for writing.
    static PyRef make_tensor(const float* data, std::vector<std::uint64_t> shape);
};

// One record of the archive: its name without "ARCHIVE/", where its bytes are, how long.
struct TorchRecord {
    std::string name;
    std::uint64_t offset = 0, size = 0;
};

class TorchSaveFile {
public:
    // Maps the file and checks it. Throws std::runtime_error.
    static TorchSaveFile open(const std::filesystem::path& path);
    // The same checks on bytes in memory (tests, fuzzing); `name` stands for the file in messages.
    static TorchSaveFile from_bytes(std::string bytes, const std::string& name = "<memory>");

    TorchSaveFile(TorchSaveFile&&) noexcept;
    TorchSaveFile& operator=(TorchSaveFile&&) noexcept;
    ~TorchSaveFile();

    const std::string& name() const { return name_; }            // the path, for messages
    const std::string& archive_name() const { return archive_; }  // "model" for model.pth
    const std::vector<TorchRecord>& records() const { return records_; }  // in central-directory order
    const PyValue& root() const { return *root_; }               // what torch.load returns

private:
    TorchSaveFile(MappedFile file, std::string name);
    void parse();

    MappedFile file_;
    std::string name_, archive_;
    std::vector<TorchRecord> records_;
    PyRef root_;
};

// Whether the bytes start as a zip archive does ("PK\3\4"): how llmfs-generate tells a .pth from a
// .safetensors file (which starts with its header's length).
bool looks_like_zip(const unsigned char* bytes, std::size_t size);

// data.pkl's bytes for `root`, as Python's pickle (protocol 2, the C pickler torch.save uses)
// writes them: the same memo, the same batching. Storage keys are "0", "1", ... in the order the
// tensors are met; `tensors` (if not null) gets them in that order.
std::string torch_pickle(const PyValue& root, std::vector<const TorchTensor*>* tensors = nullptr);

// The whole file to `out`: ARCHIVE/data.pkl, .format_version, .storage_alignment, byteorder, data/0 ...,
// version, .data/serialization_id (2.x's records). Every tensor must be float32. ZIP64 fields are
// written where a size or offset reaches `zip64_at` (2^32 - 1; tests lower it to exercise them).
void write_torch_save(std::ostream& out, const PyValue& root, const std::string& archive_name,
                      std::uint64_t zip64_at = 0xFFFFFFFFu);
// A zip archive of the given records (ARCHIVE/NAME, bytes) laid out as write_torch_save lays
// records out, then version and .data/serialization_id: for tests that need a file torch.save
// would never write (a hand-made pickle, a record missing).
std::string torch_zip(const std::string& archive_name, const std::vector<std::pair<std::string, std::string>>& records,
                      std::uint64_t zip64_at = 0xFFFFFFFFu);
// To `path`, atomically: PATH.tmp-PID is written, flushed, then renamed over PATH; on any error it
// is removed and PATH is untouched. ARCHIVE is PATH's stem, as torch.save names it. Throws
// std::runtime_error naming the path.
void write_torch_save(const std::filesystem::path& path, const PyValue& root);

}  // namespace llmfs
