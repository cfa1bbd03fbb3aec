// The zip reader against archives Python's zipfile wrote (data/tests/ch06/, made by
// tests/goldens/make_ch06_data_goldens.py): deflated and stored members give the TSV's bytes; a
// missing member, a damaged archive and random damage give clear errors, never a crash.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>

#include "llmfs/text/zip_archive.hpp"
#include "test_support.hpp"

using namespace llmfs;

namespace {

std::string slurp(const std::string& name) {
    std::ifstream in((std::filesystem::path(LLMFS_TEST_DATA_DIR) / "ch06" / name).string(), std::ios::binary);
    REQUIRE(in);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("zip: deflated and stored members read back as the bytes zipfile wrote") {
    const std::string tsv = slurp("sms_small.tsv");
    const std::string deflated = slurp("sms_small.zip");
    CHECK(zip_member_names(deflated) == std::vector<std::string>{"SMSSpamCollection", "readme"});
    CHECK(read_zip_member(deflated, "SMSSpamCollection") == tsv);
    const std::string stored = slurp("sms_small_stored.zip");
    CHECK(zip_member_names(stored) == std::vector<std::string>{"readme", "SMSSpamCollection"});
    CHECK(read_zip_member(stored, "SMSSpamCollection") == tsv);
}

TEST_CASE("zip: a missing member is named with the members there are") {
    const std::string other = slurp("not_sms.zip");
    try {
        read_zip_member(other, "SMSSpamCollection");
        FAIL("no error");
    } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()) == "the zip archive has no member SMSSpamCollection (its members: readme)");
    }
    CHECK_THROWS_WITH(zip_member_names(std::string("PK\x03\x04") + std::string(40, 'x')), Catch::Contains("no end-of-central-directory"));
    CHECK_THROWS_WITH(zip_member_names(""), Catch::Contains("shorter than"));
}

TEST_CASE("zip: a flipped byte in a member's data is caught by its CRC or by inflate") {
    std::string damaged = slurp("sms_small_stored.zip");
    std::size_t at = damaged.find("Ok lar");
    REQUIRE(at != std::string::npos);
    damaged[at] = 'o';
    CHECK_THROWS_WITH(read_zip_member(damaged, "SMSSpamCollection"), Catch::Contains("CRC-32"));
}

TEST_CASE("zip: random damage and truncation give messages, never a crash", "[fuzz]") {
    const std::string good = slurp("sms_small.zip");
    std::mt19937 gen(60);
    for (int k = 0; k < 400; ++k) {
        std::string bytes = good;
        if (k % 2 == 0) {
            bytes.resize(gen() % bytes.size());
        } else {
            for (int f = 0; f < 1 + k % 5; ++f) bytes[gen() % bytes.size()] = static_cast<char>(gen());
        }
        llmfs::testing::fuzz_case("zip_archive", bytes, [&] {
            zip_member_names(bytes);
            read_zip_member(bytes, "SMSSpamCollection");
        });
    }
}
