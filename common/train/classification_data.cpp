#include "llmfs/train/classification_data.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "llmfs/text/pandas_repr.hpp"
#include "llmfs/text/validate.hpp"
#include "llmfs/text/zip_archive.hpp"
#include "llmfs/train/data.hpp"

namespace llmfs {

std::vector<std::vector<std::string>> pandas_records(std::string_view text, char delimiter) {
    // The states of pandas' tokenizer.c that a quoted, doublequoted, comment-free read visits.
    enum class State { StartRecord, StartField, InField, InQuotedField, QuoteInQuotedField };
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    std::vector<std::vector<std::string>> records;
    std::vector<std::string> record;
    std::string field;
    State state = State::StartRecord;
    std::size_t line = 1, quote_line = 0;
    auto end_field = [&] {
        record.push_back(std::move(field));
        field.clear();
    };
    auto end_line = [&] {
        records.push_back(std::move(record));
        record.clear();
        state = State::StartRecord;
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        bool newline = c == '\n' || c == '\r';
        if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;  // "\r\n" is one line end
        switch (state) {
            case State::StartRecord:
                if (newline) break;  // skip_blank_lines
                state = State::StartField;
                [[fallthrough]];
            case State::StartField:
                if (newline) {
                    end_field();
                    end_line();
                } else if (c == '"') {
                    state = State::InQuotedField;
                    quote_line = line;
                } else if (c == delimiter) {
                    end_field();
                } else {
                    field += c;
                    state = State::InField;
                }
                break;
            case State::InField:
                if (newline) {
                    end_field();
                    end_line();
                } else if (c == delimiter) {
                    end_field();
                    state = State::StartField;
                } else {
                    field += c;
                }
                break;
            case State::InQuotedField:
                if (c == '"') {
                    state = State::QuoteInQuotedField;
                } else if (c == '\r' && text[i] == '\n') {
                    field += "\r\n";  // a "\r\n" inside quotes stays whole
                } else {
                    field += c;
                }
                break;
            case State::QuoteInQuotedField:
                if (c == '"') {
                    field += c;
                    state = State::InQuotedField;
                } else if (c == delimiter) {
                    end_field();
                    state = State::StartField;
                } else if (newline) {
                    end_field();
                    end_line();
                } else {
                    field += c;
                    state = State::InField;
                }
                break;
        }
        if (newline) ++line;
    }
    if (state == State::InQuotedField)
        throw std::runtime_error("EOF inside string starting at line " + std::to_string(quote_line) +
                                 " (a '\"' opens a field that is never closed)");
    if (state != State::StartRecord) {
        end_field();
        end_line();
    }
    return records;
}

bool pandas_na(std::string_view field) {
    static const std::array<std::string_view, 18> na = {
        "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
        "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "n/a", "nan", "null"};
    return std::find(na.begin(), na.end(), field) != na.end();
}

std::string read_sms_spam_collection(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw std::runtime_error("cannot read " + path);
    std::string text;
    if (bytes.compare(0, 4, "PK\x03\x04", 4) == 0) {
        try {
            text = read_zip_member(bytes, "SMSSpamCollection");
        } catch (const std::runtime_error& e) {
            throw std::runtime_error(path + ": " + e.what() +
                                     "; expected the SMS Spam Collection's zip (sms_spam_collection.zip)");
        }
    } else {
        text = std::move(bytes);
    }
    std::size_t bad = invalid_utf8_at(text);
    if (bad != std::string::npos)
        throw std::runtime_error(path + ": not UTF-8 text (an ill-formed sequence at byte " + std::to_string(bad) +
                                 "), as pandas' read_csv would refuse it");
    return text;
}

std::vector<SmsMessage> parse_sms_tsv(std::string_view tsv) {
    std::vector<SmsMessage> df;
    std::vector<std::vector<std::string>> records = pandas_records(tsv, '\t');
    for (std::size_t r = 0; r < records.size(); ++r) {
        auto& fields = records[r];
        if (fields.size() > 2)
            throw std::runtime_error("record " + std::to_string(r + 1) + " has " + std::to_string(fields.size()) +
                                     " tab-separated fields; the SMS Spam Collection has two (label, text)");
        SmsMessage m;
        m.label = std::move(fields[0]);
        if (fields.size() == 2 && !pandas_na(fields[1])) m.text = std::move(fields[1]);
        df.push_back(std::move(m));
    }
    return df;
}

std::string value_counts_text(const std::vector<SmsMessage>& df) {
    std::vector<std::pair<std::string, std::size_t>> counts;  // first-occurrence order
    for (const SmsMessage& m : df) {
        auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == m.label; });
        if (it == counts.end()) counts.push_back({m.label, 1});
        else ++it->second;
    }
    if (counts.size() > 60) throw std::invalid_argument("value_counts_text: more than 60 labels (pandas would elide rows)");
    std::stable_sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::size_t label_width = 0, count_width = 0;
    for (const auto& [label, n] : counts) {
        label_width = std::max(label_width, count_characters(label));
        count_width = std::max(count_width, std::to_string(n).size() + 1);  // f"{x: d}"
    }
    std::string out = "Label\n";
    for (const auto& [label, n] : counts) {
        const std::string count = " " + std::to_string(n);
        out += label + std::string(label_width - count_characters(label), ' ') + "   " +
               std::string(count_width - count.size(), ' ') + count + "\n";
    }
    return out + "Name: count, dtype: int64";
}

std::vector<std::size_t> numpy_permutation(std::size_t n, std::uint32_t seed) {
    // np.random.RandomState(seed): MT19937 seeded by init_genrand, which std::mt19937 is.
    std::mt19937 mt(seed);
    std::vector<std::size_t> arr(n);  // np.arange(n)
    for (std::size_t i = 0; i < n; ++i) arr[i] = i;
    for (std::size_t i = n; i-- > 1;) {  // _shuffle_raw: for i in reversed(range(1, n))
        // random_interval(bitgen, i): the smallest all-ones mask covering i, 32-bit draws
        // rejected while above i.
        std::uint64_t max = i, mask = i;
        for (int s = 1; s <= 32; s *= 2) mask |= mask >> s;
        std::uint64_t j;
        if (max <= 0xFFFFFFFFu) {
            do {
                j = static_cast<std::uint32_t>(mt()) & mask;
            } while (j > max);
        } else {
            do {  // next_uint64: two 32-bit draws, the first the high half
                std::uint64_t hi = static_cast<std::uint32_t>(mt());
                j = ((hi << 32) | static_cast<std::uint32_t>(mt())) & mask;
            } while (j > max);
        }
        std::swap(arr[i], arr[j]);
    }
    return arr;
}

std::vector<std::int64_t> balanced_rows(const std::vector<SmsMessage>& df) {
    std::vector<std::int64_t> ham, spam;
    for (std::size_t i = 0; i < df.size(); ++i) {
        if (df[i].label == "spam") spam.push_back(static_cast<std::int64_t>(i));
        if (df[i].label == "ham") ham.push_back(static_cast<std::int64_t>(i));
    }
    if (spam.size() > ham.size())
        throw std::runtime_error("Cannot take a larger sample than population when 'replace=False': " +
                                 std::to_string(spam.size()) + " spam messages, " + std::to_string(ham.size()) + " ham");
    std::vector<std::size_t> drawn = numpy_permutation(ham.size(), 123);  // .sample(num_spam, random_state=123)
    std::vector<std::int64_t> rows;
    for (std::size_t k = 0; k < spam.size(); ++k) rows.push_back(ham[drawn[k]]);
    rows.insert(rows.end(), spam.begin(), spam.end());  // pd.concat([ham_subset, spam])
    return rows;
}

std::vector<SmsMessage> create_balanced_dataset(const std::vector<SmsMessage>& df) {
    std::vector<SmsMessage> balanced;
    for (const std::int64_t row : balanced_rows(df)) balanced.push_back(df[static_cast<std::size_t>(row)]);
    return balanced;
}

std::string sms_frame_repr(const std::vector<SmsMessage>& df) {
    std::vector<std::int64_t> index;
    std::vector<std::optional<std::string>> labels, texts;
    for (std::size_t i = 0; i < df.size(); ++i) {
        index.push_back(static_cast<std::int64_t>(i));
        labels.emplace_back(df[i].label);
        texts.push_back(df[i].text);
    }
    return dataframe_repr(index, {{"Label", std::move(labels)}, {"Text", std::move(texts)}});
}

std::string labeled_frame_repr(const std::vector<std::int64_t>& index, const std::vector<LabeledMessage>& df) {
    std::vector<std::int64_t> labels;
    std::vector<std::optional<std::string>> texts;
    for (const LabeledMessage& m : df) {
        labels.push_back(m.label);
        texts.push_back(m.text);
    }
    return dataframe_repr(index, {{"Label", std::move(labels)}, {"Text", std::move(texts)}});
}

std::vector<LabeledMessage> map_labels(const std::vector<SmsMessage>& df) {
    std::vector<LabeledMessage> out;
    for (const SmsMessage& m : df) {
        if (m.label != "ham" && m.label != "spam")
            throw std::invalid_argument("map_labels: label '" + m.label + "' is neither ham nor spam");
        out.push_back({m.label == "spam" ? 1 : 0, m.text});
    }
    return out;
}

SplitData random_split(const std::vector<LabeledMessage>& df, double train_frac, double validation_frac) {
    std::vector<std::size_t> order = numpy_permutation(df.size(), 123);  // df.sample(frac=1, random_state=123)
    double n = static_cast<double>(df.size());
    std::size_t train_end = static_cast<std::size_t>(n * train_frac);                       // int(len(df) * train_frac)
    std::size_t validation_end = train_end + static_cast<std::size_t>(n * validation_frac);
    train_end = std::min(train_end, df.size());
    validation_end = std::min(validation_end, df.size());
    SplitData split;
    for (std::size_t k = 0; k < order.size(); ++k) {
        auto& part = k < train_end ? split.train : k < validation_end ? split.validation : split.test;
        part.push_back(df[order[k]]);
    }
    return split;
}

void write_split_csvs(const std::filesystem::path& dir, const SplitData& split) {
    const std::pair<const char*, const std::vector<LabeledMessage>*> files[] = {
        {"train.csv", &split.train}, {"validation.csv", &split.validation}, {"test.csv", &split.test}};
    for (const auto& [name, rows] : files) {
        std::ofstream out(dir / (std::string(name) + ".tmp"), std::ios::binary);
        out << to_csv(*rows);
        if (!out.flush()) throw std::runtime_error("cannot write " + (dir / name).string() + ".tmp");
    }
    for (const auto& [name, rows] : files) std::filesystem::rename(dir / (std::string(name) + ".tmp"), dir / name);
}

std::string to_csv(const std::vector<LabeledMessage>& df) {
    std::string out = "Label,Text\n";
    for (const LabeledMessage& m : df) {
        out += std::to_string(m.label);
        out += ',';
        if (m.text) {
            const std::string& t = *m.text;
            if (t.find_first_of(",\"\n") == std::string::npos) {
                out += t;
            } else {
                out += '"';
                for (char c : t) {
                    if (c == '"') out += '"';
                    out += c;
                }
                out += '"';
            }
        }
        out += '\n';
    }
    return out;
}

std::vector<LabeledMessage> read_labeled_csv(std::string_view csv) {
    std::vector<std::vector<std::string>> records = pandas_records(csv, ',');
    if (records.empty() || records[0] != std::vector<std::string>{"Label", "Text"})
        throw std::runtime_error("not a split of chapter 6's data: the header is not Label,Text");
    std::vector<LabeledMessage> df;
    for (std::size_t r = 1; r < records.size(); ++r) {
        const auto& f = records[r];
        if (f.size() != 2 || (f[0] != "0" && f[0] != "1"))
            throw std::runtime_error("record " + std::to_string(r + 1) +
                                     " is not a label (0 or 1) and a text");
        LabeledMessage m{f[0] == "1" ? 1 : 0, std::nullopt};
        if (!pandas_na(f[1])) m.text = f[1];
        df.push_back(std::move(m));
    }
    return df;
}

SpamDataset::SpamDataset(const std::vector<LabeledMessage>& data, const Gpt2Tokenizer& tokenizer,
                         std::optional<std::size_t> max_length, std::int64_t pad_token_id, Padding padding) {
    static const std::string special = "<|endoftext|>";
    std::vector<std::vector<std::int64_t>> encoded;  // self.encoded_texts
    for (std::size_t i = 0; i < data.size(); ++i) {
        if (!data[i].text)
            throw std::runtime_error("row " + std::to_string(i) + " of the data has no text (NaN: an empty or \"NA\" "
                                     "message), which the book's SpamDataset cannot tokenize");
        if (data[i].text->find(special) != std::string::npos)
            throw std::runtime_error("row " + std::to_string(i) + ": Encountered text corresponding to disallowed "
                                     "special token '<|endoftext|>'.");
        encoded.push_back(tokenizer.encode_ordinary(*data[i].text));  // tokenizer.encode(text)
        labels.push_back(data[i].label);
    }
    if (max_length) {
        T = *max_length;
        for (auto& e : encoded)
            if (e.size() > T) e.resize(T);  // encoded_text[:self.max_length]
    } else {
        for (const auto& e : encoded) T = std::max(T, e.size());  // _longest_encoded_length()
    }
    for (auto& e : encoded) {
        if (padding == Padding::to_max_length) e.resize(T, pad_token_id);  // + [pad_token_id] * (self.max_length - len(encoded_text))
        ids.insert(ids.end(), e.begin(), e.end());
        offsets.push_back(ids.size());
    }
}

ClassificationLoader::ClassificationLoader(const SpamDataset& dataset, std::size_t batch_size_, bool shuffle_,
                                           bool drop_last_)
    : data(&dataset), batch_size(batch_size_), shuffle(shuffle_), drop_last(drop_last_) {
    if (batch_size == 0) throw std::invalid_argument("batch_size should be a positive integer value, but got batch_size=0");
    if (shuffle && dataset.size() == 0)
        throw std::invalid_argument("num_samples should be a positive integer value, but got num_samples=0");
}

std::size_t ClassificationLoader::size() const {
    const std::size_t n = data->size();
    return drop_last ? n / batch_size : (n + batch_size - 1) / batch_size;
}

ClassificationLoader::Epoch ClassificationLoader::begin(Generator& gen) const { return Epoch(*this, gen); }

ClassificationLoader::Epoch::Epoch(const ClassificationLoader& loader_, Generator& gen_) : loader(loader_), gen(gen_) {
    gen.random64();  // _BaseDataLoaderIter's _base_seed
}

bool ClassificationLoader::Epoch::next(ClassificationBatch& batch) {
    const std::size_t n = loader.data->size();
    if (!started) {
        started = true;
        if (loader.shuffle) {
            // RandomSampler: seed = int(torch.empty((), dtype=torch.int64).random_().item());
            // generator.manual_seed(seed); torch.randperm(n, generator=generator)
            const std::uint64_t seed = gen.random64() % (std::uint64_t{1} << 63);
            Generator private_gen(gen.bernoulli_kernel(), seed);
            order = randperm(private_gen, n);
        } else {
            order.resize(n);
            std::iota(order.begin(), order.end(), std::size_t{0});
        }
    }
    const std::size_t first = batch_index * loader.batch_size;
    if (first >= n || (loader.drop_last && first + loader.batch_size > n)) return false;
    const std::size_t B = std::min(loader.batch_size, n - first), T = loader.data->length(order[first]);
    batch.B = B;
    batch.T = T;
    batch.inputs.resize(B * T);  // [B, T]
    batch.labels.resize(B);      // [B]
    for (std::size_t b = 0; b < B; ++b) {  // default_collate: torch.stack
        const std::size_t i = order[first + b];
        if (loader.data->length(i) != T)
            throw std::runtime_error(fmt::format("stack expects each tensor to be equal size, but got [{}] at entry 0 and [{}] at entry {} "
                                                 "(texts without padding need --batch_size 1)",
                                                 T, loader.data->length(i), b));
        std::copy(loader.data->input(i), loader.data->input(i) + T, batch.inputs.begin() + static_cast<std::ptrdiff_t>(b * T));
        batch.labels[b] = loader.data->label(i);
    }
    ++batch_index;
    return true;
}

SpamData load_spam_data(const std::string& path, const Gpt2Tokenizer& tokenizer, Generator& gen) {
    SpamData d;
    d.split = random_split(map_labels(create_balanced_dataset(parse_sms_tsv(read_sms_spam_collection(path)))), 0.7, 0.1);
    d.train_dataset = std::make_unique<SpamDataset>(read_labeled_csv(to_csv(d.split.train)), tokenizer);
    const std::size_t max_length = d.train_dataset->max_length();
    d.val_dataset = std::make_unique<SpamDataset>(read_labeled_csv(to_csv(d.split.validation)), tokenizer, max_length);
    d.test_dataset = std::make_unique<SpamDataset>(read_labeled_csv(to_csv(d.split.test)), tokenizer, max_length);
    gen.manual_seed(123);
    d.train_loader = std::make_unique<ClassificationLoader>(*d.train_dataset, 8, true, true);
    d.val_loader = std::make_unique<ClassificationLoader>(*d.val_dataset, 8, false, false);
    d.test_loader = std::make_unique<ClassificationLoader>(*d.test_dataset, 8, false, false);
    return d;
}

}  // namespace llmfs
