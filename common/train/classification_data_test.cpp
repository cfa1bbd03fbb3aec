// Chapter 6's data against pandas 1.5 and numpy running the book's create_balanced_dataset and
// random_split (data/tests/ch06/, made by tests/goldens/make_ch06_data_goldens.py): the same rows,
// the CSVs byte for byte, numpy's permutations, and the parser's rules on hard cases.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "llmfs/train/classification_data.hpp"
#include "test_support.hpp"

using namespace llmfs;

namespace {

std::string path(const std::string& name) { return (std::filesystem::path(LLMFS_TEST_DATA_DIR) / "ch06" / name).string(); }

std::string slurp(const std::string& name) {
    std::ifstream in(path(name), std::ios::binary);
    REQUIRE(in);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<LabeledMessage> all_mapped(const std::vector<SmsMessage>& df) {
    std::vector<LabeledMessage> out;
    for (const SmsMessage& m : df) out.push_back({m.label == "spam" ? 1 : 0, m.text});
    return out;
}

}  // namespace

TEST_CASE("classification data: np.random.RandomState(123).permutation(n) as numpy draws it") {
    std::istringstream cases(slurp("permutation_cases.txt"));
    std::string line;
    int n_cases = 0;
    while (std::getline(cases, line)) {
        std::istringstream fields(line);
        std::size_t n;
        fields >> n;
        std::vector<std::size_t> expected;
        for (std::size_t v; fields >> v;) expected.push_back(v);
        INFO("n = " << n);
        CHECK(numpy_permutation(n, 123) == expected);
        ++n_cases;
    }
    CHECK(n_cases == 9);
}

TEST_CASE("classification data: the zip, the stored zip and the TSV read alike") {
    const std::string tsv = read_sms_spam_collection(path("sms_small.tsv"));
    CHECK(read_sms_spam_collection(path("sms_small.zip")) == tsv);
    CHECK(read_sms_spam_collection(path("sms_small_stored.zip")) == tsv);
    CHECK_THROWS_WITH(read_sms_spam_collection(path("not_sms.zip")),
                      Catch::Contains("not_sms.zip: the zip archive has no member SMSSpamCollection (its members: readme)"));
    CHECK_THROWS_WITH(read_sms_spam_collection(path("no_such_file.zip")), Catch::Contains("cannot open"));
}

TEST_CASE("classification data: every row written as pandas' to_csv writes it (quotes, NaN, lines)") {
    std::vector<SmsMessage> df = parse_sms_tsv(read_sms_spam_collection(path("sms_small.tsv")));
    CHECK(df.size() == 58);
    CHECK(to_csv(all_mapped(df)) == slurp("all.csv"));
}

TEST_CASE("classification data: balanced, shuffled and split as the book's functions do") {
    std::vector<SmsMessage> df = parse_sms_tsv(read_sms_spam_collection(path("sms_small.zip")));
    std::vector<LabeledMessage> balanced = map_labels(create_balanced_dataset(df));
    CHECK(balanced.size() == 28);
    SplitData split = random_split(balanced, 0.7, 0.1);
    CHECK(split.train.size() == 19);
    CHECK(split.validation.size() == 2);
    CHECK(split.test.size() == 7);
    CHECK(to_csv(split.train) == slurp("train.csv"));
    CHECK(to_csv(split.validation) == slurp("validation.csv"));
    CHECK(to_csv(split.test) == slurp("test.csv"));
    // pd.read_csv of what to_csv wrote gives the rows back
    std::vector<LabeledMessage> back = read_labeled_csv(slurp("train.csv"));
    REQUIRE(back.size() == split.train.size());
    for (std::size_t i = 0; i < back.size(); ++i) {
        CHECK(back[i].label == split.train[i].label);
        CHECK(back[i].text == split.train[i].text);
    }
}

TEST_CASE("classification data: pandas' tokenizer rules on hard cases") {
    using R = std::vector<std::vector<std::string>>;
    CHECK(pandas_records("ham\t\"a\"b\"\tc\n", '\t') == R{{"ham", "ab\"", "c"}});
    CHECK(pandas_records("x\t\"say \"\"hi\"\"\"\r\n\r\n\ny\tz", '\t') == R{{"x", "say \"hi\""}, {"y", "z"}});
    CHECK(pandas_records("\xEF\xBB\xBFham\tq\"uote\"\n", '\t') == R{{"ham", "q\"uote\""}});
    CHECK(pandas_records("a\t\"x\r\ny\"\n", '\t') == R{{"a", "x\r\ny"}});
    CHECK_THROWS_WITH(pandas_records("a\tb\nc\t\"open\n", '\t'), Catch::Contains("EOF inside string starting at line 2"));
    CHECK_THROWS_WITH(parse_sms_tsv("ham\ta\tb\n"), Catch::Contains("3 tab-separated fields"));
    std::vector<SmsMessage> one = parse_sms_tsv("ham\n\nspam\tNA\n");
    REQUIRE(one.size() == 2);
    CHECK(!one[0].text);
    CHECK(!one[1].text);
    CHECK_THROWS_WITH(create_balanced_dataset(parse_sms_tsv("spam\ta\nspam\tb\nham\tc\n")),
                      Catch::Contains("Cannot take a larger sample than population"));
    CHECK_THROWS_WITH(read_labeled_csv("Label,Text\n2,x\n"), Catch::Contains("record 2"));
}

namespace {

// One dataset's lines as make_ch06_data_goldens.py writes them.
std::string loader_text(const std::string& name, const SpamDataset& dataset, const ClassificationLoader& loader,
                        Generator& gen, int epochs) {
    std::ostringstream out;
    out << "dataset " << name << " max_length " << dataset.max_length() << " len " << dataset.size() << " batches "
        << loader.size() << "\n";
    for (int epoch = 0; epoch < epochs; ++epoch) {
        ClassificationLoader::Epoch it = loader.begin(gen);
        ClassificationBatch batch;
        while (it.next(batch)) {
            out << "epoch " << epoch << " inputs [" << batch.B << ", " << batch.T << "]";
            for (std::int64_t id : batch.inputs) out << ' ' << id;
            out << " labels";
            for (std::int64_t l : batch.labels) out << ' ' << l;
            out << "\n";
        }
    }
    return out.str();
}

}  // namespace

TEST_CASE("classification data: SpamDataset and the notebook's loaders draw and pad as PyTorch's") {
    const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
    SpamDataset train(read_labeled_csv(slurp("train.csv")), tokenizer);
    SpamDataset validation(read_labeled_csv(slurp("validation.csv")), tokenizer, train.max_length());
    CHECK_THROWS_WITH(SpamDataset(read_labeled_csv(slurp("test.csv")), tokenizer, train.max_length()),
                      Catch::Contains("has no text (NaN"));
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(123);
    ClassificationLoader train_loader(train, 8, true, true);
    ClassificationLoader validation_loader(validation, 8, false, false);
    std::string text = loader_text("train", train, train_loader, gen, 2);
    text += loader_text("validation", validation, validation_loader, gen, 2);
    SpamDataset short_train(read_labeled_csv(slurp("train.csv")), tokenizer, std::size_t{6});
    text += loader_text("train_max_length_6", short_train, ClassificationLoader(short_train, 3, false, false), gen, 1);
    CHECK(text == slurp("loader_cases.txt"));
    std::vector<LabeledMessage> special = {{0, std::string("a <|endoftext|> b")}};
    CHECK_THROWS_WITH(SpamDataset(special, tokenizer), Catch::Contains("disallowed special token"));
}

TEST_CASE("classification data: random text gives rows or messages, never a crash", "[fuzz]") {
    std::mt19937 gen(6);
    const std::string alphabet = "ab\t\"\r\n,NA";
    for (int k = 0; k < 2000; ++k) {
        std::string text(gen() % 40, ' ');
        for (char& c : text) c = alphabet[gen() % alphabet.size()];
        llmfs::testing::fuzz_case("classification_data", text, [&] {
            std::vector<SmsMessage> df = parse_sms_tsv(text);
            std::vector<SmsMessage> ham_spam;
            for (const SmsMessage& m : df)
                if (m.label == "ham" || m.label == "spam") ham_spam.push_back(m);
            std::vector<LabeledMessage> mapped = map_labels(ham_spam);
            std::string csv = to_csv(mapped);
            std::vector<LabeledMessage> back = read_labeled_csv(csv);
            if (back.size() != mapped.size()) throw std::logic_error("to_csv and read_labeled_csv disagree");
        });
    }
}

TEST_CASE("classification data: SpamDataset without padding keeps each text's length, cut to max_length, and torch.stack's error for a mixed batch") {
    const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
    const std::vector<LabeledMessage> rows = {{0, std::string("Hi there")}, {1, std::string("Win a prize now, reply YES")}, {0, std::string("ok")}};
    const SpamDataset padded(rows, tokenizer);
    const SpamDataset unpadded(rows, tokenizer, std::nullopt, 50256, Padding::none);
    CHECK(unpadded.max_length() == padded.max_length());  // the longest text's either way
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const std::vector<std::int64_t> ids = tokenizer.encode_ordinary(*rows[i].text);
        CHECK(unpadded.length(i) == ids.size());
        CHECK(std::equal(ids.begin(), ids.end(), unpadded.input(i)));
        CHECK(padded.length(i) == padded.max_length());
        CHECK(padded.input(i)[padded.max_length() - 1] == (ids.size() == padded.max_length() ? ids.back() : 50256));
    }
    const SpamDataset cut(rows, tokenizer, std::size_t{2}, 50256, Padding::none);  // encoded_text[:max_length], not padded
    CHECK(cut.length(0) == 2);
    CHECK(cut.length(2) == 1);
    Generator gen(BernoulliKernel::standard);
    ClassificationLoader ones(unpadded, 1, false, false);
    auto epoch = ones.begin(gen);
    ClassificationBatch batch;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        REQUIRE(epoch.next(batch));
        CHECK(batch.T == unpadded.length(i));
        CHECK(batch.labels == std::vector<std::int64_t>{rows[i].label});
    }
    ClassificationLoader pairs(unpadded, 2, false, false);
    auto mixed = pairs.begin(gen);
    CHECK_THROWS_WITH(mixed.next(batch), Catch::Contains("stack expects each tensor to be equal size, but got [") &&
                                             Catch::Contains("at entry 1") && Catch::Contains("--batch_size 1"));
}
