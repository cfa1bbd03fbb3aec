// tf_bundle_rewrite PREFIX...: reads each TensorFlow checkpoint (PREFIX.index, PREFIX.data-00000-of-00001)
// with nn/tf_checkpoint's reader, writes its tensors again with write_tf_bundle (in the order of
// their offsets in the data file, as TensorFlow's Saver added them) and compares the bytes with
// TensorFlow's own: "PREFIX: index SAME, data SAME" or DIFFER; exit 1 if any differs or cannot be
// read. Run by tests/goldens/check_tf_bundle_writer.sh on real checkpoints (docs/gpt2-tf-checkpoint.md).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "llmfs/nn/tf_checkpoint.hpp"

namespace {
std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: tf_bundle_rewrite PREFIX... (a TensorFlow checkpoint: PREFIX.index beside PREFIX.data-00000-of-00001)\n");
        return 2;
    }
    int status = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string prefix = argv[i];
        try {
            const llmfs::TfCheckpoint ck = llmfs::TfCheckpoint::open(prefix);
            std::vector<const llmfs::TfTensorView*> order;
            for (const auto& t : ck.tensors()) order.push_back(&t);
            std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->offset < b->offset; });
            std::vector<llmfs::TfTensorBytes> tensors;
            for (const auto* t : order)
                tensors.push_back({t->name, t->dtype, t->shape, std::string(reinterpret_cast<const char*>(t->data), t->size)});
            const llmfs::TfBundleBytes b = llmfs::write_tf_bundle(tensors);
            const bool index = b.index == read_bytes(prefix + ".index"), data = b.data == read_bytes(prefix + ".data-00000-of-00001");
            std::printf("%s: %zu tensors, index %s, data %s\n", prefix.c_str(), tensors.size(), index ? "SAME" : "DIFFER", data ? "SAME" : "DIFFER");
            if (!index || !data) status = 1;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "tf_bundle_rewrite: %s\n", e.what());
            status = 1;
        }
    }
    return status;
}
