#include "llmfs/text/simple_tokenizer.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "llmfs/text/python_text.hpp"

namespace llmfs {

std::vector<std::string> split_words(std::string_view text) {
    return strip_nonempty(re_split(kWordSplitPattern, text));
}

Vocabulary Vocabulary::build(const std::vector<std::string>& words, const std::vector<std::string>& extra) {
    // std::string compares bytes as unsigned char: UTF-8's byte order is the code points' order.
    const std::set<std::string> unique(words.begin(), words.end());
    Vocabulary v;
    v.tokens.assign(unique.begin(), unique.end());
    v.tokens.insert(v.tokens.end(), extra.begin(), extra.end());
    for (std::size_t i = 0; i < v.tokens.size(); ++i) v.ids[v.tokens[i]] = static_cast<std::int64_t>(i);
    return v;
}

std::int64_t SimpleTokenizerV1::id_of(const std::string& token) const {
    const auto it = vocab_.ids.find(token);
    if (it == vocab_.ids.end()) throw std::out_of_range("KeyError: " + python_repr(token));
    return it->second;
}

std::vector<std::int64_t> SimpleTokenizerV1::encode(std::string_view text) const {
    std::vector<std::int64_t> ids;
    for (const std::string& s : split_words(text)) ids.push_back(id_of(s));  // self.str_to_int[s]
    return ids;
}

std::string SimpleTokenizerV1::join_tokens(const std::vector<std::int64_t>& ids) const {
    std::string text;
    // " ".join([self.int_to_str[i] for i in ids]); int_to_str holds the last token of each id
    for (std::size_t k = 0; k < ids.size(); ++k) {
        const std::int64_t i = ids[k];
        if (i < 0 || static_cast<std::size_t>(i) >= vocab_.tokens.size()) {
            throw std::out_of_range("KeyError: " + std::to_string(i));
        }
        if (k) text += ' ';
        text += vocab_.tokens[static_cast<std::size_t>(i)];
    }
    return text;
}

std::string SimpleTokenizerV1::decode(const std::vector<std::int64_t>& ids) const {
    return re_sub(R"(\s+([,.?!"()\']))", R"(\1)", join_tokens(ids));
}

std::vector<std::int64_t> SimpleTokenizerV2::encode(std::string_view text) const {
    std::vector<std::int64_t> ids;
    for (const std::string& s : split_words(text)) {
        ids.push_back(vocab_.ids.count(s) ? vocab_.ids.at(s) : id_of("<|unk|>"));
    }
    return ids;
}

std::string SimpleTokenizerV2::decode(const std::vector<std::int64_t>& ids) const {
    return re_sub(R"(\s+([,.:;?!"()\']))", R"(\1)", join_tokens(ids));
}

}  // namespace llmfs
