// Chapter 6's data: the SMS Spam Collection as the notebook reads, balances, splits and saves it.
//   read_sms_spam_collection("sms_spam_collection.zip")    // the zip the notebook downloads, or
//   read_sms_spam_collection("SMSSpamCollection.tsv")      // the TSV it extracts: its text
//   parse_sms_tsv(text)            pd.read_csv(path, sep="\t", header=None, names=["Label", "Text"])
//   create_balanced_dataset(df)    ham rows .sample(num_spam, random_state=123), then the spam rows
//   map_labels(df)                 df["Label"].map({"ham": 0, "spam": 1})
//   random_split(df, 0.7, 0.1)     df.sample(frac=1, random_state=123).reset_index(drop=True), cut
//   to_csv(df)                     df.to_csv(path, index=None): the bytes pandas writes
//   read_labeled_csv(text)         pd.read_csv(path): train.csv back (SpamDataset's data)
// The program never downloads: the file is given. pandas' sampling is numpy's legacy
// RandomState(123).permutation (MT19937, numpy's bounded integers, Fisher-Yates from the end),
// reproduced by numpy_permutation. Text a pandas parser reads as missing ("", "NA", "null", ...) is
// NaN: std::nullopt here, an empty field in the CSVs, as pandas writes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llmfs/text/tokenizer.hpp"
#include "llmfs/torch/rng.hpp"

namespace llmfs {

// The records pandas' C tokenizer (read_csv, engine "c", quotechar '"', doublequote) cuts `text`
// into: fields split at `delimiter`, a field opened by '"' quoted up to its closing '"' ("" is
// one '"'), blank lines skipped, "\n", "\r\n" or "\r" ending a record, a UTF-8 BOM dropped.
// A quoted field still open at the end is a std::runtime_error ("EOF inside string", as pandas).
std::vector<std::vector<std::string>> pandas_records(std::string_view text, char delimiter);

// Whether pandas reads `field` as NaN (its default na_values, pandas 1.5).
bool pandas_na(std::string_view field);

struct SmsMessage {
    std::string label;                // "ham" or "spam" (any other label is kept, then dropped)
    std::optional<std::string> text;  // nullopt: NaN
};

struct LabeledMessage {
    int label;                        // 0 ham, 1 spam
    std::optional<std::string> text;  // nullopt: NaN
};

// The TSV text of `path`: the member SMSSpamCollection when the file is a zip ("PK\3\4"), else the
// file itself. std::runtime_error naming the file on failure (unreadable, a zip without that
// member, not UTF-8).
std::string read_sms_spam_collection(const std::string& path);

// pd.read_csv(sep="\t", header=None, names=["Label", "Text"]): one message per record. A record of
// more than two fields is a std::runtime_error (pandas re-reads the table with an index column or
// refuses it); a record of one field has Text NaN.
std::vector<SmsMessage> parse_sms_tsv(std::string_view tsv);

// print(df["Label"].value_counts()) as pandas 2.x prints it (the notebook's): the index name line
// "Label", each label left-justified with its count, most frequent first (ties in the order the
// labels first occur), then "Name: count, dtype: int64". No final newline; at most 60 labels
// (pandas' display.max_rows; more is a std::invalid_argument).
std::string value_counts_text(const std::vector<SmsMessage>& df);

// np.random.RandomState(seed).permutation(n): numpy's legacy shuffle of arange(n).
std::vector<std::size_t> numpy_permutation(std::size_t n, std::uint32_t seed);

// create_balanced_dataset(df): num_spam ham rows drawn by .sample(num_spam, random_state=123), in
// the order drawn, then every spam row in file order. std::runtime_error when there are fewer ham
// than spam rows (pandas' "Cannot take a larger sample than population").
std::vector<SmsMessage> create_balanced_dataset(const std::vector<SmsMessage>& df);
// The rows of df that create_balanced_dataset takes, in its order: balanced_df's index.
std::vector<std::int64_t> balanced_rows(const std::vector<SmsMessage>& df);

// The notebook's displays of the frames (text/pandas_repr): `df` (index 0..n-1, Label and Text as
// read) and `balanced_df` after its labels were mapped (the index of its rows in df, Label int64).
std::string sms_frame_repr(const std::vector<SmsMessage>& df);
std::string labeled_frame_repr(const std::vector<std::int64_t>& index, const std::vector<LabeledMessage>& df);

// df["Label"].map({"ham": 0, "spam": 1}) on a balanced data set (only those two labels).
std::vector<LabeledMessage> map_labels(const std::vector<SmsMessage>& df);

struct SplitData {
    std::vector<LabeledMessage> train, validation, test;
};

// random_split(df, train_frac, validation_frac): the shuffled rows cut at int(n * train_frac) and
// that plus int(n * validation_frac); the test part is the rest.
SplitData random_split(const std::vector<LabeledMessage>& df, double train_frac, double validation_frac);

// df.to_csv(path, index=None): "Label,Text\n", then each row, the text quoted ('"', doubled inside)
// when it holds ',', '"' or '\n' (Python's csv.QUOTE_MINIMAL with pandas' line terminator "\n").
std::string to_csv(const std::vector<LabeledMessage>& df);

// train_df.to_csv("train.csv", index=None), validation.csv and test.csv's the same, into `dir`: each
// written to NAME.tmp, then all three renamed (no half-written set). std::runtime_error when one cannot be written.
void write_split_csvs(const std::filesystem::path& dir, const SplitData& split);

// pd.read_csv(path) of a CSV that to_csv wrote: a header "Label,Text", labels 0 or 1.
// std::runtime_error on another header, a label that is not 0 or 1, or a record of another width.
std::vector<LabeledMessage> read_labeled_csv(std::string_view csv);

// SpamDataset(csv rows, tokenizer, max_length, pad_token_id=50256): each text's token ids
// (tiktoken's encode: "<|endoftext|>" in a text is refused), cut to max_length when one is given,
// padded with pad_token_id to max_length (the longest text's length when none is given). A NaN
// text is a std::runtime_error naming its row (the book's class fails on it with a TypeError).
// additional_experiments.py's SpamDataset(..., no_padding=True) cuts but leaves each text its
// own length (Padding::none).
enum class Padding { to_max_length, none };
class SpamDataset {
public:
    SpamDataset(const std::vector<LabeledMessage>& data, const Gpt2Tokenizer& tokenizer,
                std::optional<std::size_t> max_length = std::nullopt, std::int64_t pad_token_id = 50256,
                Padding padding = Padding::to_max_length);
    std::size_t size() const { return labels.size(); }  // len(dataset)
    std::size_t max_length() const { return T; }
    const std::int64_t* input(std::size_t i) const { return ids.data() + offsets.at(i); }  // [length(i)]
    std::size_t length(std::size_t i) const { return offsets.at(i + 1) - offsets.at(i); }  // max_length() when padded
    std::int64_t label(std::size_t i) const { return labels.at(i); }

private:
    std::size_t T = 0;
    std::vector<std::int64_t> ids;        // the texts one after another: [N, T] when padded
    std::vector<std::size_t> offsets{0};  // [N + 1]: text i is ids[offsets[i], offsets[i + 1])
    std::vector<std::int64_t> labels;     // [N]
};

// One batch as default_collate stacks it: inputs [B, T] row-major, labels [B]. Texts of other
// lengths in one batch (an unpadded data set) are torch.stack's RuntimeError, a std::runtime_error.
struct ClassificationBatch {
    std::size_t B = 0, T = 0;
    std::vector<std::int64_t> inputs, labels;
};

// DataLoader(dataset, batch_size, shuffle, drop_last, num_workers=0) over a SpamDataset, drawing
// from torch's global generator as train/data.hpp's DataLoader does (iter() draws the _base_seed;
// a shuffling loader's first batch draws the RandomSampler's seed and shuffles with randperm).
class ClassificationLoader {
public:
    ClassificationLoader(const SpamDataset& dataset, std::size_t batch_size, bool shuffle, bool drop_last);
    std::size_t size() const;  // len(loader)
    const SpamDataset& dataset() const { return *data; }

    class Epoch {
    public:
        bool next(ClassificationBatch& batch);  // the next batch; false at the end
    private:
        friend class ClassificationLoader;
        Epoch(const ClassificationLoader& loader, Generator& gen);
        const ClassificationLoader& loader;
        Generator& gen;
        std::vector<std::size_t> order;
        std::size_t batch_index = 0;
        bool started = false;
    };
    Epoch begin(Generator& gen) const;  // iter(loader)

private:
    const SpamDataset* data;
    std::size_t batch_size;
    bool shuffle, drop_last;
};

// Chapter 6's sections 6.2 and 6.3 as their cells leave the data (appendix E's the same):
//   df = pd.read_csv(...); balanced_df = create_balanced_dataset(df); the labels mapped;
//   train_df, validation_df, test_df = random_split(balanced_df, 0.7, 0.1); to_csv each
//   train_dataset = SpamDataset("train.csv", max_length=None, ...); val and test at its max_length
//   torch.manual_seed(123); the three loaders (batch 8; the training one shuffled, drop_last)
// from `path` (the zip or the TSV; read_sms_spam_collection), the CSVs read back as pandas reads them.
struct SpamData {
    SplitData split;
    std::unique_ptr<SpamDataset> train_dataset, val_dataset, test_dataset;
    std::unique_ptr<ClassificationLoader> train_loader, val_loader, test_loader;
};
SpamData load_spam_data(const std::string& path, const Gpt2Tokenizer& tokenizer, Generator& gen);

}  // namespace llmfs
