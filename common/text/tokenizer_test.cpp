// Tests of the GPT-2 tokenizer against data/tests/tokenizer_cases.txt, written by
// tests/goldens/make_tokenizer_goldens.py with OpenAI's encoder.py (same ids as tiktoken's "gpt2").
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include "test_support.hpp"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <random>
#include <thread>
#include <vector>

#include <unistd.h>

#include "llmfs/text/data_dir.hpp"
#include "llmfs/text/tokenizer.hpp"

namespace fs = std::filesystem;
using llmfs::Gpt2Tokenizer;
using Ids = std::vector<std::int64_t>;

namespace {

using llmfs::testing::EnvGuard;
using llmfs::testing::from_hex;
using llmfs::testing::TempDir;

fs::path gpt2_dir() { return fs::path(LLMFS_TEST_DATA_DIR) / ".." / "gpt2"; }

const Gpt2Tokenizer& tokenizer() {
    static const Gpt2Tokenizer tok = Gpt2Tokenizer::load(gpt2_dir());
    return tok;
}

// One line of tokenizer_cases.txt: "encode<TAB>name<TAB>hex text<TAB>ids" or
// "decode<TAB>name<TAB>ids<TAB>hex text".
struct GoldenCase {
    std::string kind;
    std::string name;
    std::string text;
    Ids ids;
};

Ids parse_ids(const std::string& text) {
    Ids ids;
    std::istringstream in(text);
    for (std::int64_t id; in >> id;) {
        ids.push_back(id);
    }
    if (!in.eof()) {
        throw std::runtime_error("bad id list: " + text);
    }
    return ids;
}

std::vector<GoldenCase> load_goldens() {
    const fs::path path = fs::path(LLMFS_TEST_DATA_DIR) / "tokenizer_cases.txt";
    std::ifstream file(path);
    if (!file) {
        throw std::runtime_error("cannot open " + path.string() + " (regenerate it with "
                                 "/usr/bin/python3 tests/goldens/make_tokenizer_goldens.py)");
    }
    std::vector<GoldenCase> cases;
    for (std::string line; std::getline(file, line);) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        std::vector<std::string> fields;
        std::size_t start = 0;
        for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) {
            fields.push_back(line.substr(start, tab - start));
        }
        fields.push_back(line.substr(start));
        if (fields.size() != 4 || (fields[0] != "encode" && fields[0] != "decode")) {
            throw std::runtime_error(path.string() + ": malformed line: " + line);
        }
        const bool encode = fields[0] == "encode";
        cases.push_back({fields[0], fields[1], from_hex(encode ? fields[2] : fields[3]),
                         parse_ids(encode ? fields[3] : fields[2])});
    }
    return cases;
}

const std::vector<GoldenCase>& goldens() {
    static const std::vector<GoldenCase> cases = load_goldens();
    return cases;
}


// Copies the GPT-2 files into `dir` (written anew, so that the copies are writable).
void copy_gpt2_files(const fs::path& dir) {
    fs::create_directories(dir);
    for (const char* name : {"SHA256SUMS", "encoder.json", "vocab.bpe"}) {
        std::ofstream(dir / name, std::ios::binary) << llmfs::read_file_checked(gpt2_dir() / name);
    }
}

}  // namespace

TEST_CASE("the golden file holds the expected cases") {
    REQUIRE_NOTHROW(goldens());
    std::size_t encodes = 0, decodes = 0;
    for (const GoldenCase& c : goldens()) {
        (c.kind == "encode" ? encodes : decodes) += 1;
    }
    CHECK(encodes >= 600);
    CHECK(decodes >= 300);
}

TEST_CASE("encode matches encoder.py on every golden case") {
    for (const GoldenCase& c : goldens()) {
        if (c.kind == "encode") {
            DYNAMIC_SECTION("encode: " << c.name) { CHECK(tokenizer().encode(c.text) == c.ids); }
        }
    }
}

TEST_CASE("decode matches encoder.py on every golden case") {
    for (const GoldenCase& c : goldens()) {
        // Encode cases are valid UTF-8, so decoding their ids gives the text back.
        DYNAMIC_SECTION(c.kind << ": " << c.name) { CHECK(tokenizer().decode(c.ids) == c.text); }
    }
}

TEST_CASE("the book's examples") {
    const Gpt2Tokenizer& tok = tokenizer();
    CHECK(tok.encode("Every effort moves you") == Ids{6109, 3626, 6100, 345});
    CHECK(tok.encode("Hello, I am") == Ids{15496, 11, 314, 716});
    CHECK(tok.decode({15496, 11, 314, 716}) == "Hello, I am");
    CHECK(tok.encode("Akwirw ier") == Ids{33901, 86, 343, 86, 220, 959});
    const std::string text =
        "Hello, do you like tea? <|endoftext|> In the sunlit terraces of someunknownPlace.";
    const Ids ids{15496, 11,  466, 345, 588,  8887,  30,   220,  50256, 554,
                  262,   4252, 18250, 8812, 2114, 286, 617, 34680, 27271, 13};
    CHECK(tok.encode(text) == ids);
    CHECK(tok.decode(ids) == text);
}

TEST_CASE("encode_ordinary treats <|endoftext|> as plain text") {
    CHECK(tokenizer().encode_ordinary("<|endoftext|>") == Ids{27, 91, 437, 1659, 5239, 91, 29});
    CHECK(tokenizer().encode("<|endoftext|>") == Ids{Gpt2Tokenizer::kEndOfText});
}

TEST_CASE("vocabulary size") { CHECK(tokenizer().vocab_size() == 50257); }

TEST_CASE("decode rejects ids outside the vocabulary") {
    CHECK_THROWS_AS(tokenizer().decode({50257}), std::out_of_range);
    CHECK_THROWS_AS(tokenizer().decode({15496, -1}), std::out_of_range);
    CHECK_THROWS_WITH(tokenizer().decode({99999}), Catch::Contains("99999"));
}

TEST_CASE("encode rejects text that is not UTF-8") {
    CHECK_THROWS_AS(tokenizer().encode("abc\xff"), std::invalid_argument);
    CHECK_THROWS_AS(tokenizer().encode("\xe2\x80"), std::invalid_argument);
    CHECK_THROWS_AS(tokenizer().encode("\xed\xa0\x80"), std::invalid_argument);  // a surrogate
    CHECK_THROWS_WITH(tokenizer().encode_ordinary("ok \xc0\xaf"), Catch::Contains("byte 3"));
}

TEST_CASE("round trip of a long text") {
    std::string text;
    for (const GoldenCase& c : goldens()) {
        if (c.kind == "encode") {
            text += c.text;
            text += '\n';
        }
    }
    const Ids ids = tokenizer().encode(text);
    CHECK(ids.size() > 1000);
    CHECK(tokenizer().decode(ids) == text);
    CHECK(tokenizer().encode(text) == ids);  // again, now from the BPE cache
}

TEST_CASE("encode can be called from several threads") {
    std::string text;
    for (int i = 0; i < 50; ++i) {
        text += "Thread " + std::to_string(i) + " says: it's fine, isn't it? ";
        text += "caf\xc3\xa9 \xe4\xb8\x96\xe7\x95\x8c\n";  // "café 世界"
    }
    const Ids expected = tokenizer().encode(text);
    std::vector<Ids> results(4);
    std::vector<std::thread> threads;
    const Gpt2Tokenizer copy = tokenizer();  // copies share the vocabulary and the cache
    for (Ids& result : results) {
        threads.emplace_back([&] { result = copy.encode(text); });
    }
    for (std::thread& t : threads) {
        t.join();
    }
    for (const Ids& result : results) {
        CHECK(result == expected);
    }
}

TEST_CASE("load detects corrupt and missing files") {
    TempDir tmp("llmfs_tokenizer_test");
    const fs::path dir = tmp.path / "gpt2";
    copy_gpt2_files(dir);
    REQUIRE(Gpt2Tokenizer::load(dir).encode("Hello, I am") == Ids{15496, 11, 314, 716});

    SECTION("a changed byte in vocab.bpe") {
        std::string merges = llmfs::read_file_checked(dir / "vocab.bpe");
        merges[merges.size() / 2] ^= 1;
        std::ofstream(dir / "vocab.bpe", std::ios::binary | std::ios::trunc) << merges;
        CHECK_THROWS_WITH(Gpt2Tokenizer::load(dir), Catch::Contains((dir / "vocab.bpe").string()) &&
                                                        Catch::Contains("corrupt") &&
                                                        Catch::Contains("SHA-256"));
    }
    SECTION("a truncated encoder.json") {
        const std::string json = llmfs::read_file_checked(dir / "encoder.json");
        std::ofstream(dir / "encoder.json", std::ios::binary | std::ios::trunc)
            << json.substr(0, json.size() - 1);
        CHECK_THROWS_WITH(Gpt2Tokenizer::load(dir), Catch::Contains((dir / "encoder.json").string()));
    }
    SECTION("a missing encoder.json") {
        fs::remove(dir / "encoder.json");
        CHECK_THROWS_WITH(Gpt2Tokenizer::load(dir), Catch::Contains((dir / "encoder.json").string()) &&
                                                        Catch::Contains("LLMFS_DATA_DIR"));
    }
    SECTION("a missing SHA256SUMS") {
        fs::remove(dir / "SHA256SUMS");
        CHECK_THROWS_WITH(Gpt2Tokenizer::load(dir), Catch::Contains((dir / "SHA256SUMS").string()));
    }
    SECTION("encoder.json replaced by /dev/zero or a FIFO: refused at once, no hang") {
        fs::remove(dir / "encoder.json");
        SECTION("/dev/zero") { fs::create_symlink("/dev/zero", dir / "encoder.json"); }
        SECTION("a FIFO") { REQUIRE(::mkfifo((dir / "encoder.json").c_str(), 0600) == 0); }
        CHECK_THROWS_WITH(Gpt2Tokenizer::load(dir), Catch::Contains((dir / "encoder.json").string()) &&
                                                        Catch::Contains("not a regular file"));
    }
}

namespace {

// Replaces dir/vocab.bpe by `merges` and lists its hash in SHA256SUMS, as a careless copy would.
void replace_merges(const fs::path& dir, const std::string& merges) {
    std::ofstream(dir / "vocab.bpe", std::ios::binary | std::ios::trunc) << merges;
    std::ofstream(dir / "SHA256SUMS", std::ios::binary | std::ios::trunc)
        << llmfs::sha256_hex(llmfs::read_file_checked(gpt2_dir() / "encoder.json")) << "  encoder.json\n"
        << llmfs::sha256_hex(merges) << "  vocab.bpe\n";
}

}  // namespace

TEST_CASE("load refuses a vocab.bpe that is not GPT-2's merges, even with matching hashes") {
    TempDir tmp("llmfs_tokenizer_test");
    const fs::path dir = tmp.path / "gpt2";
    copy_gpt2_files(dir);
    const std::string merges = llmfs::read_file_checked(dir / "vocab.bpe");
    SECTION("empty") {
        replace_merges(dir, "");
        CHECK_THROWS_WITH(Gpt2Tokenizer::load(dir), Catch::Contains("#version"));
    }
    SECTION("only its header") {
        replace_merges(dir, merges.substr(0, merges.find('\n') + 1));
        CHECK_THROWS_WITH(Gpt2Tokenizer::load(dir), Catch::Contains("no merges"));
    }
    SECTION("all NUL bytes") {
        replace_merges(dir, std::string(4096, '\0'));
        CHECK_THROWS_WITH(Gpt2Tokenizer::load(dir), Catch::Contains("NUL"));
    }
    SECTION("CRLF line endings") {
        std::string crlf;
        for (char c : merges) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
        replace_merges(dir, crlf);
        CHECK_THROWS_WITH(Gpt2Tokenizer::load(dir), Catch::Contains("CRLF") && Catch::Contains("vocab.bpe"));
    }
}

TEST_CASE("the O(n log n) merges equal encoder.py's merge loop, long pieces included") {
    const std::string letters = "abcdefghijklmnopqrstuvwxyz";
    std::mt19937 rng(7);
    std::vector<std::string> texts = {std::string(3000, 'a'), std::string(2000, 'x') + "yz", "Hello, I am", "aaaa bbbb aaaa",
                                      "ananananananananananananananananana", "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"};
    for (int length : {2, 3, 17, 200, 3000}) {
        for (int k = 0; k < 5; ++k) {
            std::string word;
            for (int i = 0; i < length; ++i) word += letters[rng() % (k == 0 ? 2 : letters.size())];
            texts.push_back(word);
        }
    }
    std::string text = llmfs::read_file_checked(gpt2_dir() / "vocab.bpe").substr(0, 20000);  // real words, spaces
    for (char& c : text) c = c == '\n' ? ' ' : c;
    texts.push_back(text);
    for (const std::string& t : texts) {
        INFO(t.substr(0, 40) << " (" << t.size() << " bytes)");
        CHECK(tokenizer().encode_ordinary(t) == tokenizer().encode_ordinary_reference(t));
    }
}

TEST_CASE("load_default honours LLMFS_DATA_DIR") {
    TempDir tmp("llmfs_tokenizer_test");
    copy_gpt2_files(tmp.path / "gpt2");
    {
        EnvGuard env("LLMFS_DATA_DIR", tmp.path.c_str());
        CHECK(Gpt2Tokenizer::load_default().encode("Every effort moves you") ==
              Ids{6109, 3626, 6100, 345});
        fs::remove(tmp.path / "gpt2" / "vocab.bpe");
        CHECK_THROWS_WITH(Gpt2Tokenizer::load_default(),
                          Catch::Contains((tmp.path / "gpt2" / "vocab.bpe").string()));
    }
    {
        EnvGuard env("LLMFS_DATA_DIR", (tmp.path / "missing").c_str());
        CHECK_THROWS_WITH(Gpt2Tokenizer::load_default(),
                          Catch::Contains((tmp.path / "missing").string()));
    }
    {
        EnvGuard env("LLMFS_DATA_DIR", nullptr);
        CHECK(Gpt2Tokenizer::load_default().decode({15496, 11, 314, 716}) == "Hello, I am");
    }
}

// ---- fuzzing (test_support.hpp) ------------------------------------------------------------------

TEST_CASE("fuzz: mutated text encodes and decodes back, or is refused as not UTF-8", "[fuzz][long]") {
    const std::string seed = llmfs::read_file_checked(fs::path(LLMFS_SOURCE_DIR) / "README.md").substr(0, 6000) +
                             " <|endoftext|> caf\xc3\xa9 \xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\x98\x80 " + std::string(300, 'a');
    llmfs::testing::Mutator m(11);
    constexpr int kCases = 3000;
    for (int i = 0; i < kCases; ++i) {
        std::string text = seed.substr(m.below(seed.size()), 1 + m.below(2000));
        if (i % 2 == 0) text = m.bytes(text);
        llmfs::testing::fuzz_case("encode-" + std::to_string(i), text, [&] {
            const Ids ids = tokenizer().encode(text);  // throws std::invalid_argument for invalid UTF-8
            CHECK(tokenizer().decode(ids) == text);
            if (text.size() <= 3000) CHECK(tokenizer().encode_ordinary(text) == tokenizer().encode_ordinary_reference(text));
        });
    }
}

TEST_CASE("fuzz: any ids decode to valid UTF-8, or are refused as outside the vocabulary", "[fuzz]") {
    llmfs::testing::Mutator m(12);
    constexpr int kCases = 3000;
    for (int i = 0; i < kCases; ++i) {
        Ids ids(m.below(50));
        for (auto& id : ids) {
            id = m.chance(0.05) ? static_cast<std::int64_t>(m.below(1u << 31)) - (1 << 30)
                                : static_cast<std::int64_t>(m.below(50257 + (m.chance(0.02) ? 5 : 0)));
        }
        llmfs::testing::fuzz_case("decode-" + std::to_string(i), std::to_string(ids.size()) + " ids", [&] {
            const std::string text = tokenizer().decode(ids);  // throws std::out_of_range for a bad id
            CHECK_NOTHROW(tokenizer().encode(text));           // valid UTF-8: U+FFFD for broken sequences
        });
    }
}

TEST_CASE("fuzz: damaged data files (encoder.json, vocab.bpe, SHA256SUMS) load or are refused with a message", "[fuzz][long]") {
    TempDir tmp("llmfs_tokenizer_fuzz");
    const fs::path dir = tmp.path / "gpt2";
    copy_gpt2_files(dir);
    const std::string encoder = llmfs::read_file_checked(dir / "encoder.json");
    const std::string merges = llmfs::read_file_checked(dir / "vocab.bpe");
    const std::string sums = llmfs::read_file_checked(dir / "SHA256SUMS");
    llmfs::testing::Mutator m(13);
    // Each case parses the 1 MB encoder.json (some 50 ms, more under ASan): fewer cases than the others.
    constexpr int kCases = 240;
    for (int i = 0; i < kCases; ++i) {
        std::string new_encoder = encoder, new_merges = merges, new_sums;
        switch (i % 4) {
            case 0: new_encoder = m.bytes(encoder); break;
            case 1: {  // a merge line changed, dropped or duplicated, or bytes
                new_merges = m.bytes(merges.substr(0, 2000 + m.below(merges.size()))) ;
                break;
            }
            case 2: {  // an entry of encoder.json given another id or type
                const std::size_t at = encoder.find(": ", m.below(encoder.size()));
                if (at != std::string::npos) new_encoder.insert(at + 2, m.chance(0.5) ? "\"" : std::to_string(m.below(60000)) + ", \"x\": ");
                break;
            }
            default: new_sums = m.bytes(sums); break;
        }
        std::ofstream(dir / "encoder.json", std::ios::binary | std::ios::trunc) << new_encoder;
        std::ofstream(dir / "vocab.bpe", std::ios::binary | std::ios::trunc) << new_merges;
        // The hashes listed for the damaged files, so the parsers see the damage (not only the hash check).
        std::ofstream(dir / "SHA256SUMS", std::ios::binary | std::ios::trunc)
            << (new_sums.empty() ? llmfs::sha256_hex(new_encoder) + "  encoder.json\n" + llmfs::sha256_hex(new_merges) + "  vocab.bpe\n"
                                 : new_sums);
        llmfs::testing::fuzz_case("data-files-" + std::to_string(i), new_encoder.substr(0, 64) + new_merges.substr(0, 64), [&] {
            const Gpt2Tokenizer loaded = Gpt2Tokenizer::load(dir);  // std::runtime_error naming the file
            const Ids ids = loaded.encode("Hello, I am " + std::string(200, 'z'));
            CHECK_NOTHROW(loaded.decode(ids));
        });
    }
}
