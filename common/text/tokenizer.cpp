// GPT-2's byte-level BPE tokenizer, following OpenAI's gpt-2 src/encoder.py function by function
// (bytes_to_unicode, get_pairs/bpe, encode, decode), with tiktoken's handling of "<|endoftext|>".
//
// encoder.py works on "byte-mapped" text: every byte of the UTF-8 input is replaced by a printable
// character (bytes_to_unicode), and encoder.json/vocab.bpe are written in those characters
// ("Ġthe" is " the"). This file keeps that representation for BPE, so the merge table is looked
// up with exactly the lines of vocab.bpe, and converts back to raw bytes only for decoding.
#include "llmfs/text/tokenizer.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <memory>
#include <mutex>
#include <new>
#include <queue>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <nlohmann/json.hpp>

#include "llmfs/text/data_dir.hpp"
#include "llmfs/text/validate.hpp"

namespace fs = std::filesystem;

namespace llmfs {
namespace {

constexpr std::string_view kEndOfTextText = "<|endoftext|>";

// ---- UTF-8 (append_utf8, next_code_point: validate.hpp) --------------------------------------

// Throws std::invalid_argument unless `text` is well-formed UTF-8 (what a Python str encodes to).
void check_utf8(std::string_view text) {
    if (const std::size_t i = invalid_utf8_at(text); i != std::string_view::npos) {
        static constexpr char kHex[] = "0123456789ABCDEF";
        const auto b = static_cast<unsigned char>(text[i]);
        throw std::invalid_argument(std::string("text is not valid UTF-8: bad sequence at byte ") + std::to_string(i) +
                                    " (0x" + kHex[b >> 4] + kHex[b & 0xF] + ")");
    }
}

// Python's bytes.decode("utf-8", errors="replace").
std::string decode_utf8_replace(std::string_view bytes) {
    std::string text;
    text.reserve(bytes.size());
    for (std::size_t i = 0; i < bytes.size();) {
        const Utf8Step step = utf8_step(bytes, i);
        if (step.valid) {
            text.append(bytes.substr(i, step.length));
        } else {
            text += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
        }
        i += step.length;
    }
    return text;
}

// The code points of well-formed UTF-8 `text`, each with its byte length.
std::vector<std::pair<char32_t, std::size_t>> code_points(std::string_view text) {
    std::vector<std::pair<char32_t, std::size_t>> out;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t start = i;
        const char32_t cp = next_code_point(text, i);
        out.emplace_back(cp, i - start);
    }
    return out;
}

// ---- encoder.py: bytes_to_unicode -------------------------------------------------------------

// encoder.py's bytes_to_unicode(): a printable character for each byte. Printable Latin-1 bytes
// ('!'..'~', '¡'..'¬', '®'..'ÿ') stand for themselves; the other 68 bytes (controls, space, ...)
// get U+0100, U+0101, ... in byte order, so space (0x20) becomes 'Ġ' (U+0120).
std::array<char32_t, 256> bytes_to_unicode() {
    const auto printable = [](int b) {
        return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    };
    std::array<char32_t, 256> map{};
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
        map[b] = printable(b) ? static_cast<char32_t>(b) : next++;
    }
    return map;
}

// ---- the pre-tokenizer pattern ----------------------------------------------------------------

// GPT-2's pre-tokenizer, encoder.py's self.pat (tiktoken's gpt2 pat_str is the same pattern):
//     's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// written out with explicit classes so that PCRE2 matches exactly what Python's `regex` module
// (the reference) and tiktoken do. Comparing the two engines on every code point (PCRE2 10.42 with
// UTF+UCP vs. regex 2022.10.31) found these differences, handled here:
//   * \s: regex uses Unicode's White_Space property; PCRE2's \s (UCP) also matches U+180E
//     MONGOLIAN VOWEL SEPARATOR, which left White_Space in Unicode 6.3. kSpace is White_Space.
//     Both agree that \x0b and U+0085, U+00A0, U+3000 are spaces and that \x1c-\x1f (spaces to
//     Python's str.isspace() and `re`) and U+200B, U+FEFF are not.
//   * \p{L}, \p{N}: PCRE2 10.42 has Unicode 14.0 tables, regex has 15.0. kLetter/kNumber add the
//     letters and digits new in Unicode 15.0 (CJK Ext. H, Kawi, Nag Mundari, Kaktovik numerals,
//     ...); with newer PCRE2 tables these ranges are already in \p{L}/\p{N} and change nothing
//     (characters assigned after Unicode 15.0 then follow the PCRE2 build's tables).
// Each difference has golden cases (the "U+180E ..." and "(Unicode 15)" ones) that fail without
// these classes.
constexpr const char* kSpace =
    "\\t-\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}";
constexpr const char* kLetter =
    "\\p{L}\\x{1123F}\\x{11240}\\x{11F02}\\x{11F04}-\\x{11F10}\\x{11F12}-\\x{11F33}\\x{1342F}"
    "\\x{13441}-\\x{13446}\\x{1B132}\\x{1B155}\\x{1DF25}-\\x{1DF2A}\\x{1E030}-\\x{1E06D}"
    "\\x{1E4D0}-\\x{1E4EB}\\x{2B739}\\x{31350}-\\x{323AF}";
constexpr const char* kNumber = "\\p{N}\\x{11F50}-\\x{11F59}\\x{1D2C0}-\\x{1D2D3}\\x{1E4F0}-\\x{1E4F9}";

std::string pretokenizer_pattern() {
    const std::string s = kSpace, l = kLetter, n = kNumber;
    return "'s|'t|'re|'ve|'m|'ll|'d"
           "| ?[" + l + "]+"
           "| ?[" + n + "]+"
           "| ?[^" + s + l + n + "]+"
           "|[" + s + "]+(?![^" + s + "])"
           "|[" + s + "]+";
}

struct Pcre2CodeDeleter {
    void operator()(pcre2_code* code) const { pcre2_code_free(code); }
};
struct Pcre2MatchDataDeleter {
    void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};
using Pcre2Code = std::unique_ptr<pcre2_code, Pcre2CodeDeleter>;
using Pcre2MatchData = std::unique_ptr<pcre2_match_data, Pcre2MatchDataDeleter>;

std::string pcre2_message(int error) {
    PCRE2_UCHAR buffer[256];
    pcre2_get_error_message(error, buffer, sizeof buffer);
    return reinterpret_cast<const char*>(buffer);
}

Pcre2Code compile_pretokenizer() {
    const std::string pattern = pretokenizer_pattern();
    int error = 0;
    PCRE2_SIZE offset = 0;
    Pcre2Code code(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                 PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr));
    if (!code) {
        throw std::logic_error("cannot compile the GPT-2 pre-tokenizer pattern at offset " +
                               std::to_string(offset) + ": " + pcre2_message(error));
    }
    // Optional speed-up: without JIT support PCRE2 falls back to its interpreter.
    pcre2_jit_compile(code.get(), PCRE2_JIT_COMPLETE);
    return code;
}

// Bounds the BPE cache (encoder.py's self.cache, which grows without limit).
constexpr std::size_t kMaxCacheEntries = 1 << 17;

}  // namespace

struct Gpt2Tokenizer::Impl {
    std::array<std::string, 256> byte_encoder;             // byte -> its character, as UTF-8
    std::unordered_map<std::string, std::int64_t> encoder;  // encoder.json: token characters -> id
    std::vector<std::string> decoder;                       // id -> the token's raw bytes
    std::unordered_map<std::string, int> bpe_ranks;         // "first second" (a vocab.bpe line) -> rank
    Pcre2Code pattern;

    mutable std::mutex cache_mutex;
    mutable std::unordered_map<std::string, std::vector<std::int64_t>> cache;  // raw piece -> ids

    // The rank of the merge "first second" in vocab.bpe, or INT_MAX if it is none.
    int rank_of(const std::string& first, const std::string& second, std::string& key) const {
        key.assign(first).append(1, ' ').append(second);
        const auto it = bpe_ranks.find(key);
        return it == bpe_ranks.end() ? INT_MAX : it->second;
    }

    // encoder.py's Encoder.bpe(token), literally: `word` starts as the characters of one
    // pre-token; repeatedly merge the adjacent pair (get_pairs) with the lowest rank in vocab.bpe,
    // every occurrence of it left to right, until no pair of the word is in vocab.bpe. Each round
    // scans the whole word, so a piece of n characters takes up to n rounds: quadratic (100,000
    // letters without a space took 10 s). The reference bpe() is tested against.
    std::vector<std::string> bpe_reference(std::vector<std::string> word) const {
        std::string key;
        while (word.size() > 1) {
            int best_rank = INT_MAX;
            std::size_t best = 0;
            for (std::size_t i = 0; i + 1 < word.size(); ++i) {
                const int rank = rank_of(word[i], word[i + 1], key);
                if (rank < best_rank) {
                    best_rank = rank;
                    best = i;
                }
            }
            if (best_rank == INT_MAX) {
                break;
            }
            // encoder.py's inner loop (which jumps with word.index(first, i)): copy the word,
            // joining each (first, second) occurrence, left to right, without overlaps.
            const std::string first = word[best], second = word[best + 1];
            std::vector<std::string> new_word;
            new_word.reserve(word.size());
            for (std::size_t i = 0; i < word.size();) {
                if (i + 1 < word.size() && word[i] == first && word[i + 1] == second) {
                    new_word.push_back(first + second);
                    i += 2;
                } else {
                    new_word.push_back(std::move(word[i]));
                    i += 1;
                }
            }
            word = std::move(new_word);
        }
        return word;
    }

    // The same merges as bpe_reference, in O(n log n): the word is a linked list of symbols and a
    // min-heap holds its mergeable pairs by rank. A round pops every pair of the lowest rank and
    // merges them left to right, skipping those an earlier merge of the round took apart, as
    // encoder.py's inner loop does; pairs a merge creates enter the heap (never with the same
    // rank: "a b" cannot be "a ab" or "ab b"). Stale heap entries are recognised by their rank no
    // longer being their pair's. tiktoken's own merge loop is quadratic on such pieces too
    // (openai/tiktoken#195).
    std::vector<std::string> bpe(std::vector<std::string> word) const {
        const std::size_t n = word.size();
        if (n < 2) return word;
        constexpr std::size_t kNone = static_cast<std::size_t>(-1);
        std::vector<std::size_t> next(n), prev(n);
        std::vector<bool> alive(n, true);
        for (std::size_t i = 0; i < n; ++i) {
            next[i] = i + 1 < n ? i + 1 : kNone;
            prev[i] = i > 0 ? i - 1 : kNone;
        }
        using Entry = std::pair<int, std::size_t>;  // (rank, position of the pair's first symbol)
        std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
        std::string key;
        const auto push_pair = [&](std::size_t i) {
            if (i == kNone || next[i] == kNone) return;
            const int rank = rank_of(word[i], word[next[i]], key);
            if (rank != INT_MAX) heap.emplace(rank, i);
        };
        for (std::size_t i = 0; i + 1 < n; ++i) push_pair(i);
        std::vector<std::size_t> round;
        while (!heap.empty()) {
            const int rank = heap.top().first;
            round.clear();
            while (!heap.empty() && heap.top().first == rank) {
                round.push_back(heap.top().second);
                heap.pop();
            }
            std::sort(round.begin(), round.end());  // positions keep the word's order
            round.erase(std::unique(round.begin(), round.end()), round.end());
            for (const std::size_t i : round) {
                if (!alive[i] || next[i] == kNone || rank_of(word[i], word[next[i]], key) != rank) continue;
                const std::size_t j = next[i];
                word[i] += word[j];
                alive[j] = false;
                next[i] = next[j];
                if (next[j] != kNone) prev[next[j]] = i;
                push_pair(prev[i]);
                push_pair(i);
            }
        }
        std::vector<std::string> merged;
        for (std::size_t i = 0; i != kNone; i = next[i]) merged.push_back(std::move(word[i]));
        return merged;
    }

    // One iteration of encoder.py's Encoder.encode loop: map the pre-token's bytes to characters
    // (byte_encoder), run bpe and look the resulting tokens up in encoder.json. Memoised.
    void encode_piece(std::string_view piece, std::vector<std::int64_t>& ids, bool reference = false) const {
        const std::string key(piece);
        if (!reference) {
            std::lock_guard<std::mutex> lock(cache_mutex);
            if (const auto it = cache.find(key); it != cache.end()) {
                ids.insert(ids.end(), it->second.begin(), it->second.end());
                return;
            }
        }
        std::vector<std::string> word;
        word.reserve(piece.size());
        for (const char c : piece) {
            word.push_back(byte_encoder[static_cast<unsigned char>(c)]);
        }
        std::vector<std::int64_t> piece_ids;
        for (const std::string& token : reference ? bpe_reference(std::move(word)) : bpe(std::move(word))) {
            piece_ids.push_back(encoder.at(token));  // load() checked every merge result is a token
        }
        ids.insert(ids.end(), piece_ids.begin(), piece_ids.end());
        if (reference) return;
        std::lock_guard<std::mutex> lock(cache_mutex);
        if (cache.size() >= kMaxCacheEntries) {
            cache.clear();
        }
        cache.emplace(key, std::move(piece_ids));
    }

    // encoder.py's Encoder.encode(text) = tiktoken's encode_ordinary: re.findall(self.pat, text),
    // then encode_piece for each match. `text` must be valid UTF-8 (checked by the callers).
    void encode_ordinary(std::string_view text, std::vector<std::int64_t>& ids, bool reference = false) const {
        Pcre2MatchData match(pcre2_match_data_create_from_pattern(pattern.get(), nullptr));
        if (!match) {
            throw std::bad_alloc();
        }
        const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
        for (std::size_t offset = 0; offset < text.size();) {
            const int rc = pcre2_match(pattern.get(), subject, text.size(), offset, PCRE2_NO_UTF_CHECK,
                                       match.get(), nullptr);
            if (rc == PCRE2_ERROR_NOMATCH) {
                break;  // findall skips unmatched text (impossible here: every character matches)
            }
            if (rc < 0) {
                throw std::runtime_error("GPT-2 pre-tokenizer: PCRE2 error: " + pcre2_message(rc));
            }
            const PCRE2_SIZE* span = pcre2_get_ovector_pointer(match.get());
            if (span[1] <= span[0]) {
                throw std::logic_error("GPT-2 pre-tokenizer matched an empty string");
            }
            encode_piece(text.substr(span[0], span[1] - span[0]), ids, reference);
            offset = span[1];
        }
    }
};

Gpt2Tokenizer::Gpt2Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

// encoder.py's get_encoder(): encoder.json and vocab.bpe, plus consistency checks so that encode
// can never meet an unknown token.
Gpt2Tokenizer Gpt2Tokenizer::load(const fs::path& dir) {
    auto impl = std::make_shared<Impl>();
    const std::array<char32_t, 256> byte_to_char = bytes_to_unicode();
    std::unordered_map<char32_t, unsigned char> char_to_byte;  // encoder.py's byte_decoder
    for (int b = 0; b < 256; ++b) {
        append_utf8(impl->byte_encoder[b], byte_to_char[b]);
        char_to_byte[byte_to_char[b]] = static_cast<unsigned char>(b);
    }

    const fs::path encoder_path = dir / "encoder.json";
    const auto malformed = [](const fs::path& path, const std::string& what) {
        return std::runtime_error(path.string() + " is not a GPT-2 vocabulary file: " + what);
    };
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(read_verified_file(dir, "encoder.json"));
    } catch (const nlohmann::json::exception& e) {
        throw malformed(encoder_path, e.what());
    }
    if (!json.is_object()) {
        throw malformed(encoder_path, "expected a JSON object of token -> id");
    }
    impl->decoder.resize(json.size());
    std::vector<bool> seen(json.size(), false);
    for (auto entry = json.begin(); entry != json.end(); ++entry) {
        const std::string& token = entry.key();
        const bool valid_id = entry->is_number_integer() && entry->get<std::int64_t>() >= 0 &&
                              entry->get<std::int64_t>() < static_cast<std::int64_t>(json.size());
        if (!valid_id || seen[entry->get<std::size_t>()]) {
            throw malformed(encoder_path, "ids must be 0..N-1, each once; bad id for \"" + token + "\"");
        }
        const std::int64_t id = entry->get<std::int64_t>();
        seen[id] = true;
        std::string& bytes = impl->decoder[id];
        for (const auto& [cp, length] : code_points(token)) {
            const auto it = char_to_byte.find(cp);
            if (it == char_to_byte.end()) {
                throw malformed(encoder_path,
                                "token \"" + token + "\" has a character outside bytes_to_unicode()");
            }
            bytes += static_cast<char>(it->second);
        }
        impl->encoder.emplace(token, id);
    }
    for (const std::string& byte_token : impl->byte_encoder) {
        if (impl->encoder.count(byte_token) == 0) {
            throw malformed(encoder_path, "the single-byte token \"" + byte_token + "\" is missing");
        }
    }
    if (const auto it = impl->encoder.find(std::string(kEndOfTextText));
        it == impl->encoder.end() || it->second != kEndOfText) {
        throw malformed(encoder_path, "\"<|endoftext|>\" must have id " + std::to_string(kEndOfText));
    }

    // vocab.bpe: a "#version" line, then one merge "first second" per line, best (rank 0) first.
    // encoder.py reads bpe_data.split('\n')[1:-1].
    const fs::path merges_path = dir / "vocab.bpe";
    const std::string merges = read_verified_file(dir, "vocab.bpe");
    if (merges.find('\0') != std::string::npos) {
        throw malformed(merges_path, "it holds NUL bytes (byte " + std::to_string(merges.find('\0')) +
                                         "): a text file of merges was expected");
    }
    if (merges.find('\r') != std::string::npos) {
        throw malformed(merges_path, "its lines end in CRLF (\\r\\n, as Windows or git's autocrlf writes them): "
                                     "encoder.py reads \\n line endings; convert it back (dos2unix) or restore it");
    }
    if (merges.rfind("#version", 0) != 0) {
        throw malformed(merges_path, "its first line must be the \"#version\" header");
    }
    std::size_t line_start = merges.find('\n');
    int rank = 0;
    while (line_start != std::string::npos && line_start + 1 < merges.size()) {
        ++line_start;
        std::size_t line_end = merges.find('\n', line_start);
        if (line_end == std::string::npos) {
            line_end = merges.size();
        }
        const std::string line = merges.substr(line_start, line_end - line_start);
        const std::size_t space = line.find(' ');
        if (space == 0 || space == std::string::npos || space + 1 == line.size() ||
            line.find(' ', space + 1) != std::string::npos) {
            throw malformed(merges_path,
                            "line " + std::to_string(rank + 2) + " is not \"first second\"");
        }
        if (impl->encoder.count(line.substr(0, space) + line.substr(space + 1)) == 0) {
            throw malformed(merges_path, "the merge on line " + std::to_string(rank + 2) +
                                             " makes a token missing from encoder.json");
        }
        // As dict(zip(bpe_merges, range(len(bpe_merges)))): a repeated merge keeps its last rank.
        impl->bpe_ranks[line] = rank++;
        line_start = line_end;
    }

    if (rank == 0) throw malformed(merges_path, "it lists no merges after its \"#version\" line");

    impl->pattern = compile_pretokenizer();
    return Gpt2Tokenizer(std::move(impl));
}

Gpt2Tokenizer Gpt2Tokenizer::load_default() { return load(data_dir() / "gpt2"); }

// tiktoken's Encoding.encode(text, allowed_special={"<|endoftext|>"}): split the text at each
// special token, encode the parts in between as ordinary text.
std::vector<std::int64_t> Gpt2Tokenizer::encode(std::string_view text) const {
    check_utf8(text);
    std::vector<std::int64_t> ids;
    ids.reserve(text.size() / 3);
    for (std::size_t start = 0;;) {
        const std::size_t special = text.find(kEndOfTextText, start);
        impl_->encode_ordinary(text.substr(start, special - start), ids);
        if (special == std::string_view::npos) {
            break;
        }
        ids.push_back(kEndOfText);
        start = special + kEndOfTextText.size();
    }
    return ids;
}

std::vector<std::int64_t> Gpt2Tokenizer::encode_ordinary_reference(std::string_view text) const {
    check_utf8(text);
    std::vector<std::int64_t> ids;
    impl_->encode_ordinary(text, ids, /*reference=*/true);
    return ids;
}

std::vector<std::int64_t> Gpt2Tokenizer::encode_ordinary(std::string_view text) const {
    check_utf8(text);
    std::vector<std::int64_t> ids;
    ids.reserve(text.size() / 3);
    impl_->encode_ordinary(text, ids);
    return ids;
}

// encoder.py's Encoder.decode / tiktoken's Encoding.decode: the tokens' bytes, then
// .decode("utf-8", errors="replace").
std::string Gpt2Tokenizer::decode(const std::vector<std::int64_t>& ids) const {
    std::string bytes;
    for (const std::int64_t id : ids) {
        if (id < 0 || id >= static_cast<std::int64_t>(impl_->decoder.size())) {
            throw std::out_of_range("token id " + std::to_string(id) + " is outside the GPT-2 vocabulary [0, " +
                                    std::to_string(vocab_size()) + ")");
        }
        bytes += impl_->decoder[id];
    }
    return decode_utf8_replace(bytes);
}

std::size_t Gpt2Tokenizer::vocab_size() const { return impl_->decoder.size(); }

}  // namespace llmfs
