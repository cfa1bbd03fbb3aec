// TensorFlow's checkpoints (the "V2" tensor bundle tf.train.Saver writes), and GPT-2's real weights
// in them: the gpt2/124M folder the book's gpt_download.py downloads from OpenAI (ch05's
// 5.5 and ch06's notebooks read it with tf.train.load_variable):
//   TfCheckpoint         a bundle, PREFIX.index and PREFIX.data-SSSSS-of-NNNNN, checked as TensorFlow's
//                        BundleReader checks it (tensorflow/core/util/tensor_bundle); tensors are
//                        views into the memory-mapped data shards, nothing copied
//   gpt2_tf_checkpoint   a gpt2/<size> folder as the SafeTensors of Hugging Face's layout, so that
//                        infer_gpt_config and load_weights_into_gpt (nn/safetensors.hpp) load it
//   open_gpt2_weights    a --weights argument: such a folder, or a .safetensors file
//
// The bundle's format (tensorflow/core/protobuf/tensor_bundle.proto, core/lib/io/table*):
//   PREFIX.index is a LevelDB-style table (TensorFlow's copy of it, table::TableBuilder, written
//     uncompressed): data blocks of prefix-compressed key/value entries and restart points, each
//     block followed by a type byte and a masked CRC-32C; an index block mapping the last key of
//     each data block to its (offset, size); a 48-byte footer ending in the magic 0xdb4775248b80fb57.
//     Key "" holds a BundleHeaderProto {num_shards, endianness, version}; every other key is a
//     tensor's name, its value a BundleEntryProto {dtype, shape, shard_id, offset, size, crc32c}.
//   PREFIX.data-SSSSS-of-NNNNN holds the tensors' raw little-endian bytes, at the entries' offsets.
// Only what GPT-2's checkpoints use is read: uncompressed tables, little-endian bundles, whole
// (unsliced) numeric tensors. Every block's checksum and every tensor's CRC-32C is verified.
//
// Errors are std::runtime_error naming the file, what is wrong and a hint, as nn/safetensors'.
// No Debian package reads this format (libleveldb reads the table but not the bundle; crc32c has
// no bookworm package), so the ~150 lines of format live here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "llmfs/nn/mapped_file.hpp"
#include "llmfs/nn/safetensors.hpp"

namespace llmfs {

// CRC-32C (Castagnoli), as TensorFlow's crc32c::Value, and its mask for stored checksums.
std::uint32_t crc32c(const unsigned char* data, std::size_t n, std::uint32_t crc = 0);
std::uint32_t crc32c_mask(std::uint32_t crc);    // ((crc >> 15) | (crc << 17)) + 0xa282ead8
std::uint32_t crc32c_unmask(std::uint32_t masked);

// One tensor of a bundle: its entry and a view of its bytes (in a mapped data shard).
struct TfTensorView {
    std::string name;
    int dtype = 0;                       // TensorFlow's DataType: 1 DT_FLOAT, 2 DT_DOUBLE, 3 DT_INT32, ...
    std::vector<std::uint64_t> shape;    // [] for a scalar
    std::uint32_t shard = 0;
    std::uint64_t offset = 0, size = 0;  // in the shard
    const unsigned char* data = nullptr;
};

// TensorFlow's name of a DataType ("DT_FLOAT"), or "DataType N".
std::string tf_dtype_name(int dtype);

class TfCheckpoint {
public:
    // Reads PREFIX.index and maps its data shards (PREFIX.data-00000-of-00001 for one shard).
    static TfCheckpoint open(const std::filesystem::path& prefix);
    // The same checks on the index's bytes and the shards' in memory (tests); `name` stands for PREFIX.
    static TfCheckpoint from_bytes(std::string index, std::vector<std::string> shards, const std::string& name = "<memory>");

    const std::string& name() const { return name_; }                 // PREFIX, for messages
    const std::vector<TfTensorView>& tensors() const { return tensors_; }  // in key (name) order
    const TfTensorView* find(std::string_view tensor) const;          // nullptr if absent

private:
    TfCheckpoint() = default;
    void parse(const unsigned char* index, std::uint64_t size);

    std::string name_;
    std::vector<MappedFile> shards_;
    std::vector<TfTensorView> tensors_;
    std::map<std::string, std::size_t, std::less<>> index_;
};

// A TensorFlow variable's name split as Python's name.split("/"): "model/h3/attn/c_attn/w" ->
// {"model", "h3", "attn", "c_attn", "w"}.
std::vector<std::string> tf_name_parts(std::string_view name);

// A folder as gpt_download.py leaves it (checkpoint, hparams.json, model.ckpt.index,
// model.ckpt.data-00000-of-00001; encoder.json and vocab.bpe are not read: GPT-2's tokenizer is
// built in) as the SafeTensors of Hugging Face's model.safetensors: the book's
// load_gpt2_params_from_tf_ckpt renamed (model/wte -> wte.weight, model/h3/attn/c_attn/w ->
// h.3.attn.c_attn.weight, .../g -> .weight, .../b -> .bias) and np.squeeze'd ([1, C, 3C] ->
// [C, 3C]), and hparams.json's n_head as __metadata__ "n_head". The checkpoint is the one the
// folder's `checkpoint` file names (tf.train.latest_checkpoint), else model.ckpt. hparams.json's
// n_vocab, n_ctx, n_embd and n_layer must agree with the tensors' shapes, and a folder named
// 124M / 355M / 774M / 1558M must hold that size. One copy of the weights is made.
SafeTensors gpt2_tf_checkpoint(const std::filesystem::path& folder);

// The folder's hparams.json, read and checked as gpt2_tf_checkpoint checks it before the
// checkpoint: n_vocab, n_ctx, n_embd, n_head and n_layer positive integers, and a folder named
// 124M / 355M / 774M / 1558M holding that size. std::runtime_error naming the file otherwise.
struct Gpt2Hparams {
    std::string text;  // the file as written
    std::uint64_t n_vocab = 0, n_ctx = 0, n_embd = 0, n_head = 0, n_layer = 0;
};
Gpt2Hparams read_gpt2_hparams(const std::filesystem::path& folder);

// gpt2_tf_checkpoint's folder, each file read once, with what it was made from: hparams.json's
// text (ch05's 5.5 prints it as the notebook's settings dict) and the checkpoint itself (its
// names and raw tensors: the notebook's params).
struct Gpt2TfFolder {
    std::string hparams_json;
    TfCheckpoint checkpoint;
    SafeTensors weights;  // gpt2_tf_checkpoint(folder)
};
Gpt2TfFolder read_gpt2_tf_folder(const std::filesystem::path& folder);

// tf.train.latest_checkpoint(folder): the prefix the folder's `checkpoint` file names
// (model_checkpoint_path, relative to the folder), else FOLDER/model.ckpt.
std::filesystem::path gpt2_checkpoint_prefix(const std::filesystem::path& folder);

// GPT-2's weights from a --weights argument: a folder is read by gpt2_tf_checkpoint, a file by
// SafeTensors::open.
SafeTensors open_gpt2_weights(const std::filesystem::path& path);

// ---- test support ------------------------------------------------------------------------------

// A one-shard bundle as TensorFlow's BundleWriter writes it: the header entry {num_shards 1,
// version {producer 1}}, the entries in name order, the tensors' bytes in the data shard in the
// order given, table blocks of at most 256 KiB with a restart point every 16 keys, index keys
// shortened as LevelDB's bytewise comparator shortens them. Given a real TensorFlow checkpoint's
// tensors in its data order it rewrites the checkpoint byte for byte (docs/gpt2-tf-checkpoint.md).
struct TfTensorBytes {
    std::string name;
    int dtype = 1;  // DT_FLOAT
    std::vector<std::uint64_t> shape;
    std::string bytes;  // little-endian
};
struct TfBundleBytes {
    std::string index, data;
};
TfBundleBytes write_tf_bundle(const std::vector<TfTensorBytes>& tensors);
// write_tf_bundle's bytes as PREFIX.index and PREFIX.data-00000-of-00001.
void write_tf_bundle(const std::filesystem::path& prefix, const std::vector<TfTensorBytes>& tensors);

// A GPT-2 checkpoint of Hugging Face's layout (write_synthetic_gpt2's) as gpt_download.py's folder:
// model/ names, Conv1D weights [1, in, out] as OpenAI saved them, layer norms g / b, the
// `checkpoint` file, and `hparams_json` as hparams.json (attn.bias buffers left out).
void write_gpt2_tf_folder(const std::filesystem::path& folder, const SafeTensors& hf, const std::string& hparams_json);

}  // namespace llmfs
