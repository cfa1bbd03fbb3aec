#include "llmfs/train/instruction.hpp"

#include <algorithm>
#include <memory>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "llmfs/text/data_dir.hpp"
#include "llmfs/text/validate.hpp"

namespace llmfs {

namespace {

// The code points of valid UTF-8 `s` (nlohmann's parser has checked it).
std::vector<char32_t> code_points(std::string_view s) {
    std::vector<char32_t> out;
    for (std::size_t i = 0; i < s.size();) out.push_back(next_code_point(s, i));
    return out;
}

// str.isprintable() for one code point: the ASCII rule exactly, and beyond it the categories Python
// counts as unprintable (Cc, Cf, Cs, Co, Zl, Zp, Zs other than ' ') for the code points a text file
// of instructions may hold; other code points are taken as printable.
bool printable(char32_t cp) {
    if (cp < 0x80) return cp >= 0x20 && cp != 0x7F;
    if (cp <= 0xA0 || cp == 0xAD) return false;
    if (cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) ||
        (cp >= 0x205F && cp <= 0x206F) || cp == 0x3000 || cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB))
        return false;
    if ((cp >= 0xD800 && cp <= 0xF8FF) || cp >= 0xF0000) return false;  // surrogates, private use
    return true;
}

}  // namespace

const std::string& InstructionEntry::at(std::string_view key) const {
    for (const auto& [k, v] : fields)
        if (k == key) return v;
    throw std::out_of_range("instruction entry: no key \"" + std::string(key) + "\"");
}

void InstructionEntry::set(const std::string& key, std::string value) {
    for (auto& [k, v] : fields)
        if (k == key) {
            v = std::move(value);
            return;
        }
    fields.emplace_back(key, std::move(value));
}

std::vector<InstructionEntry> parse_instruction_data(std::string_view json_text, std::string_view what) {
    nlohmann::ordered_json doc;
    try {
        doc = nlohmann::ordered_json::parse(json_text.begin(), json_text.end());
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(fmt::format("{}: not JSON ({})", what, e.what()));
    }
    if (!doc.is_array()) throw std::invalid_argument(fmt::format("{}: not a JSON list of entries", what));
    std::vector<InstructionEntry> data;
    data.reserve(doc.size());
    for (std::size_t i = 0; i < doc.size(); ++i) {
        const auto& item = doc[i];
        if (!item.is_object()) throw std::invalid_argument(fmt::format("{}: entry {} is not an object", what, i));
        InstructionEntry entry;
        for (auto it = item.begin(); it != item.end(); ++it) {
            if (!it.value().is_string())
                throw std::invalid_argument(fmt::format("{}: entry {}: \"{}\" is not a string", what, i, it.key()));
            entry.fields.emplace_back(it.key(), it.value().get<std::string>());
        }
        for (const char* key : {"instruction", "input", "output"})
            if (std::none_of(entry.fields.begin(), entry.fields.end(), [&](const auto& f) { return f.first == key; }))
                throw std::invalid_argument(fmt::format("{}: entry {} has no \"{}\"", what, i, key));
        data.push_back(std::move(entry));
    }
    return data;
}

std::vector<InstructionEntry> load_instruction_data(const std::filesystem::path& path) {
    const std::string text = read_file_checked(path, "the book's instruction-data.json (ch07/01_main-chapter-code)");
    return parse_instruction_data(text, path.string());
}

std::filesystem::path default_instruction_data_path() { return data_dir() / "instruction" / "instruction-data.json"; }

namespace {

// json.dumps of a str, ensure_ascii=True: '"', '\\', \n \r \t \b \f escaped by name, everything
// outside ' '..'~' as \uxxxx (a surrogate pair above U+FFFF).
std::string json_string(std::string_view s) {
    std::string out = "\"";
    for (const char32_t cp : code_points(s)) {
        switch (cp) {
            case '"': out += "\\\""; continue;
            case '\\': out += "\\\\"; continue;
            case '\n': out += "\\n"; continue;
            case '\r': out += "\\r"; continue;
            case '\t': out += "\\t"; continue;
            case '\b': out += "\\b"; continue;
            case '\f': out += "\\f"; continue;
            default: break;
        }
        if (cp >= 0x20 && cp <= 0x7E) {
            out += static_cast<char>(cp);
        } else if (cp < 0x10000) {
            out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
        } else {
            const char32_t v = cp - 0x10000;
            out += fmt::format("\\u{:04x}\\u{:04x}", static_cast<unsigned>(0xD800 | (v >> 10)), static_cast<unsigned>(0xDC00 | (v & 0x3FF)));
        }
    }
    return out + "\"";
}

}  // namespace

std::string dump_instruction_data(const std::vector<InstructionEntry>& data) {
    if (data.empty()) return "[]";
    std::string out = "[\n";
    for (std::size_t i = 0; i < data.size(); ++i) {
        const auto& fields = data[i].fields;
        if (fields.empty()) {
            out += "    {}";
        } else {
            out += "    {\n";
            for (std::size_t k = 0; k < fields.size(); ++k) {
                out += "        " + json_string(fields[k].first) + ": " + json_string(fields[k].second);
                out += k + 1 < fields.size() ? ",\n" : "\n";
            }
            out += "    }";
        }
        out += i + 1 < data.size() ? ",\n" : "\n";
    }
    return out + "]";
}

std::string python_str_repr(std::string_view s) {
    const bool has_single = s.find('\'') != std::string_view::npos, has_double = s.find('"') != std::string_view::npos;
    const char quote = has_single && !has_double ? '"' : '\'';
    std::string out(1, quote);
    for (const char32_t cp : code_points(s)) {
        if (cp == static_cast<char32_t>(quote) || cp == '\\') {
            out += '\\';
            out += static_cast<char>(cp);
        } else if (cp == '\t') {
            out += "\\t";
        } else if (cp == '\n') {
            out += "\\n";
        } else if (cp == '\r') {
            out += "\\r";
        } else if (printable(cp)) {
            append_utf8(out, cp);
        } else if (cp < 0x100) {
            out += fmt::format("\\x{:02x}", static_cast<unsigned>(cp));
        } else if (cp < 0x10000) {
            out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
        } else {
            out += fmt::format("\\U{:08x}", static_cast<unsigned>(cp));
        }
    }
    return out + quote;
}

std::string python_repr(const InstructionEntry& entry) {
    std::string out = "{";
    for (std::size_t k = 0; k < entry.fields.size(); ++k) {
        if (k) out += ", ";
        out += python_str_repr(entry.fields[k].first) + ": " + python_str_repr(entry.fields[k].second);
    }
    return out + "}";
}

InstructionEntry instruction_entry(std::string instruction, std::string input, std::string output) {
    InstructionEntry e;
    e.set("instruction", std::move(instruction));
    e.set("input", std::move(input));
    e.set("output", std::move(output));
    return e;
}

std::string format_input(const InstructionEntry& entry) {
    const std::string instruction_text =
        "Below is an instruction that describes a task. "
        "Write a response that appropriately completes the request."
        "\n\n### Instruction:\n" + entry.at("instruction");
    const std::string& input = entry.at("input");
    const std::string input_text = input.empty() ? "" : "\n\n### Input:\n" + input;
    return instruction_text + input_text;
}

std::string desired_response(const InstructionEntry& entry) { return "\n\n### Response:\n" + entry.at("output"); }

InstructionSplit split_instruction_data(const std::vector<InstructionEntry>& data) {
    const double n = static_cast<double>(data.size());
    const auto train_portion = static_cast<std::size_t>(n * 0.85);  // int(len(data) * 0.85)
    const auto test_portion = static_cast<std::size_t>(n * 0.1);    // int(len(data) * 0.1)
    InstructionSplit split;
    const auto begin = data.begin();
    split.train.assign(begin, begin + static_cast<std::ptrdiff_t>(train_portion));
    split.test.assign(begin + static_cast<std::ptrdiff_t>(train_portion), begin + static_cast<std::ptrdiff_t>(train_portion + test_portion));
    split.validation.assign(begin + static_cast<std::ptrdiff_t>(train_portion + test_portion), data.end());
    return split;
}

InstructionDataset::InstructionDataset(const std::vector<InstructionEntry>& data, const Gpt2Tokenizer& tokenizer) {
    encoded_texts.reserve(data.size());
    for (std::size_t i = 0; i < data.size(); ++i) {
        const std::string full_text = format_input(data[i]) + desired_response(data[i]);
        if (full_text.find("<|endoftext|>") != std::string::npos)
            throw std::invalid_argument(fmt::format("instruction entry {}: its text holds the special token \"<|endoftext|>\", which "
                                                    "tiktoken's encode() refuses (disallowed special token)", i));
        encoded_texts.push_back(tokenizer.encode_ordinary(full_text));
    }
}

Batch custom_collate(const std::vector<const std::vector<std::int64_t>*>& items, const CollateOptions& options) {
    if (items.empty()) throw std::invalid_argument("custom_collate_fn: an empty batch (max() arg is an empty sequence)");
    // batch_max_length = max(len(item)+1 for item in batch)
    std::size_t batch_max_length = 0;
    for (const auto* item : items) batch_max_length = std::max(batch_max_length, item->size() + 1);
    std::size_t T = batch_max_length - 1;  // padded[:-1]
    if (options.allowed_max_length) T = std::min(T, *options.allowed_max_length);
    Batch batch;
    batch.B = items.size();
    batch.T = T;
    batch.inputs.resize(batch.B * T);   // [B, T]
    batch.targets.resize(batch.B * T);  // [B, T]
    std::vector<std::int64_t> padded(batch_max_length);
    for (std::size_t b = 0; b < items.size(); ++b) {
        const auto& item = *items[b];
        // padded = item + [pad_token_id] + [pad_token_id] * (batch_max_length - len(new_item))
        std::copy(item.begin(), item.end(), padded.begin());
        std::fill(padded.begin() + static_cast<std::ptrdiff_t>(item.size()), padded.end(), options.pad_token_id);
        // targets = padded[1:]; mask = targets == pad_token_id; targets[indices[1:]] = ignore_index
        std::vector<std::int64_t> targets(padded.begin() + 1, padded.end());
        if (options.mask_padding) {
            bool first_seen = false;
            for (auto& t : targets) {
                if (t != options.pad_token_id) continue;
                if (first_seen) t = options.ignore_index;
                first_seen = true;
            }
        }
        std::copy(padded.begin(), padded.begin() + static_cast<std::ptrdiff_t>(T), batch.inputs.begin() + static_cast<std::ptrdiff_t>(b * T));
        std::copy(targets.begin(), targets.begin() + static_cast<std::ptrdiff_t>(T), batch.targets.begin() + static_cast<std::ptrdiff_t>(b * T));
    }
    return batch;
}

InstructionLoader::InstructionLoader(const InstructionDataset& dataset, std::size_t batch_size_, bool shuffle_, bool drop_last_,
                                     CollateOptions options_)
    : data(&dataset), batch_size(batch_size_), shuffle(shuffle_), drop_last(drop_last_), options(options_) {
    if (batch_size == 0) throw std::invalid_argument("DataLoader: batch_size should be a positive integer value, but got batch_size=0");
    if (shuffle && dataset.size() == 0)
        throw std::invalid_argument("DataLoader: no entries to shuffle (PyTorch's RandomSampler: num_samples should be a positive "
                                    "integer value, but got num_samples=0)");
}

std::size_t InstructionLoader::size() const {
    const std::size_t n = data->size();
    return drop_last ? n / batch_size : (n + batch_size - 1) / batch_size;
}

LoaderView InstructionLoader::view() const {
    return {size(), [this](Generator& gen) {
                auto epoch = std::make_shared<Epoch>(begin(gen));
                return std::function<bool(Batch&)>([epoch](Batch& batch) { return epoch->next(batch); });
            }};
}

InstructionLoader::Epoch InstructionLoader::begin(Generator& gen) const { return Epoch(*this, gen); }

InstructionLoader::Epoch::Epoch(const InstructionLoader& loader_, Generator& gen_) : loader(loader_), gen(gen_) {
    gen.random64();  // _BaseDataLoaderIter's _base_seed, as chapter 5's DataLoader draws it
}

bool InstructionLoader::Epoch::next(Batch& batch) {
    const std::size_t n = loader.data->size();
    if (!started) {
        started = true;
        order = sampler_order(gen, n, loader.shuffle);
    }
    const std::size_t first = batch_index * loader.batch_size;
    if (first >= n || (loader.drop_last && first + loader.batch_size > n)) return false;
    const std::size_t B = std::min(loader.batch_size, n - first);
    std::vector<const std::vector<std::int64_t>*> items(B);
    for (std::size_t b = 0; b < B; ++b) items[b] = &loader.data->encoded_texts[order[first + b]];
    batch = custom_collate(items, loader.options);
    ++batch_index;
    return true;
}

}  // namespace llmfs
