#include "llmfs/train/data.hpp"

#include <cmath>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "llmfs/text/validate.hpp"

namespace llmfs {

namespace {

void check_utf8(std::string_view text) {
    const std::size_t bad = invalid_utf8_at(text);
    if (bad != std::string_view::npos)
        throw std::invalid_argument("the text is not UTF-8: byte " + std::to_string(bad) + " does not start a character");
}

}  // namespace

TextSplit split_text(std::string_view text, double train_ratio) {
    check_utf8(text);
    TextSplit split;
    split.characters = count_characters(text);
    // int(train_ratio * len(text_data)): a double product, truncated
    split.split_index = static_cast<std::size_t>(train_ratio * static_cast<double>(split.characters));
    const std::size_t byte = byte_offset(text, split.split_index);
    split.train = std::string(text.substr(0, byte));
    split.validation = std::string(text.substr(byte));
    return split;
}

GPTDataset::GPTDataset(std::vector<std::int64_t> token_ids, std::size_t max_length, std::size_t stride)
    : ids(std::move(token_ids)), T(max_length) {
    if (stride == 0) throw std::invalid_argument("GPTDataset: stride must be positive (range() arg 3 must not be zero)");
    // for i in range(0, len(token_ids) - max_length, stride)
    for (std::size_t i = 0; i + max_length < ids.size(); i += stride) starts.push_back(i);
}

GPTDataset::GPTDataset(const Gpt2Tokenizer& tokenizer, std::string_view text, std::size_t max_length, std::size_t stride)
    : GPTDataset(tokenizer.encode(text), max_length, stride) {}

std::vector<std::size_t> randperm(Generator& gen, std::size_t n) {
    std::vector<std::size_t> r(n);
    std::iota(r.begin(), r.end(), std::size_t{0});
    for (std::size_t i = 0; i + 1 < n; ++i) {
        const std::size_t z = gen.random() % (n - i);  // generator->random() % (n - i)
        std::swap(r[i], r[z + i]);
    }
    return r;
}

LoaderView view_of(const DataLoader& loader) {
    return {loader.size(), [&loader](Generator& gen) {
                auto epoch = std::make_shared<DataLoader::Epoch>(loader.begin(gen));
                return std::function<bool(Batch&)>([epoch](Batch& batch) { return epoch->next(batch); });
            }};
}

std::vector<std::size_t> sampler_order(Generator& gen, std::size_t n, bool shuffle) {
    if (shuffle) {
        // RandomSampler: seed = int(torch.empty((), dtype=torch.int64).random_().item());
        // generator.manual_seed(seed) keeps the low 32 bits; then torch.randperm(n, generator=generator)
        const std::uint64_t seed = gen.random64() % (std::uint64_t{1} << 63);
        Generator private_gen(gen.bernoulli_kernel(), seed);
        return randperm(private_gen, n);
    }
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    return order;
}

DataLoader::DataLoader(const GPTDataset& dataset, std::size_t batch_size_, bool shuffle_, bool drop_last_)
    : data(&dataset), batch_size(batch_size_), shuffle(shuffle_), drop_last(drop_last_) {
    if (batch_size == 0) throw std::invalid_argument("DataLoader: batch_size should be a positive integer value, but got batch_size=0");
    if (shuffle && dataset.size() == 0)
        throw std::invalid_argument("DataLoader: no window of " + std::to_string(dataset.max_length() + 1) + " tokens in a text of " +
                                    std::to_string(dataset.token_count()) + " tokens, so nothing to shuffle (PyTorch's RandomSampler: "
                                    "num_samples should be a positive integer value, but got num_samples=0)");
}

std::size_t DataLoader::size() const {
    const std::size_t n = data->size();
    return drop_last ? n / batch_size : (n + batch_size - 1) / batch_size;
}

DataLoader::Epoch DataLoader::begin(Generator& gen) const { return Epoch(*this, gen); }

DataLoader::Epoch::Epoch(const DataLoader& loader_, Generator& gen_) : loader(loader_), gen(gen_) {
    gen.random64();  // _BaseDataLoaderIter: self._base_seed = torch.empty((), dtype=torch.int64).random_().item()
}

bool DataLoader::Epoch::next(Batch& batch) {
    const std::size_t n = loader.data->size();
    if (!started) {  // the sampler's iterator starts at the first next()
        started = true;
        order = sampler_order(gen, n, loader.shuffle);
    }
    const std::size_t first = batch_index * loader.batch_size;
    if (first >= n || (loader.drop_last && first + loader.batch_size > n)) return false;
    const std::size_t B = std::min(loader.batch_size, n - first), T = loader.data->max_length();
    batch.B = B;
    batch.T = T;
    batch.inputs.resize(B * T);
    batch.targets.resize(B * T);
    for (std::size_t b = 0; b < B; ++b) {  // default_collate: torch.stack of the windows
        const std::size_t i = order[first + b];
        std::copy(loader.data->input(i), loader.data->input(i) + T, batch.inputs.begin() + static_cast<std::ptrdiff_t>(b * T));
        std::copy(loader.data->target(i), loader.data->target(i) + T, batch.targets.begin() + static_cast<std::ptrdiff_t>(b * T));
    }
    ++batch_index;
    return true;
}

}  // namespace llmfs
