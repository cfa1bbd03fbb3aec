// Tests of the data-directory lookup and the checked file helpers.
#include <catch2/catch.hpp>

#include "test_support.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "llmfs/text/data_dir.hpp"

namespace fs = std::filesystem;

namespace {

using llmfs::testing::EnvGuard;
using llmfs::testing::TempDir;


void write_file(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace

TEST_CASE("data_dir: LLMFS_DATA_DIR overrides the default") {
    TempDir tmp("llmfs_data_dir_test");
    EnvGuard env("LLMFS_DATA_DIR", tmp.path.c_str());
    CHECK(llmfs::data_dir() == tmp.path);
}

TEST_CASE("data_dir: LLMFS_DATA_DIR naming a missing directory is an error naming it") {
    TempDir tmp("llmfs_data_dir_test");
    const fs::path missing = tmp.path / "no-such-dir";
    EnvGuard env("LLMFS_DATA_DIR", missing.c_str());
    CHECK_THROWS_WITH(llmfs::data_dir(),
                      Catch::Contains(missing.string()) && Catch::Contains("LLMFS_DATA_DIR"));
}

TEST_CASE("data_dir: without LLMFS_DATA_DIR, a directory holding the GPT-2 files") {
    // The build tree has no ../share/llmfs next to its executables, so this is the source tree's
    // data/ directory; an empty LLMFS_DATA_DIR counts as unset.
    const char* value = GENERATE(as<const char*>{}, nullptr, "");
    EnvGuard env("LLMFS_DATA_DIR", value);
    const fs::path dir = llmfs::data_dir();
    CHECK(fs::exists(dir / "gpt2" / "encoder.json"));
    CHECK(fs::equivalent(dir, fs::path(LLMFS_TEST_DATA_DIR) / ".."));
}

TEST_CASE("open_checked: a missing file is an error naming it, with a hint") {
    TempDir tmp("llmfs_data_dir_test");
    const fs::path missing = tmp.path / "missing.bin";
    CHECK_THROWS_AS(llmfs::open_checked(missing), std::runtime_error);
    CHECK_THROWS_WITH(llmfs::open_checked(missing), Catch::Contains(missing.string()) &&
                                                        Catch::Contains("No such file") &&
                                                        Catch::Contains("LLMFS_DATA_DIR"));
    CHECK_THROWS_WITH(llmfs::open_checked(missing, "try again"), Catch::EndsWith("; try again"));
    CHECK_THROWS_WITH(llmfs::open_checked(tmp.path), Catch::Contains("is a directory"));
}

TEST_CASE("read_file_checked: the bytes of a file") {
    TempDir tmp("llmfs_data_dir_test");
    const std::string bytes("a\0b\r\n\xff", 6);
    write_file(tmp.path / "f", bytes);
    CHECK(llmfs::read_file_checked(tmp.path / "f") == bytes);
    write_file(tmp.path / "empty", "");
    CHECK(llmfs::read_file_checked(tmp.path / "empty").empty());
}

TEST_CASE("sha256_hex: FIPS 180-2 test vectors") {
    CHECK(llmfs::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(llmfs::sha256_hex("abc") ==
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("read_verified_file: checks the hash listed in SHA256SUMS") {
    TempDir tmp("llmfs_data_dir_test");
    write_file(tmp.path / "abc.txt", "abc");
    write_file(tmp.path / "SHA256SUMS",
               "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty.txt\n"
               "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD *abc.txt\n");

    SECTION("a matching file") { CHECK(llmfs::read_verified_file(tmp.path, "abc.txt") == "abc"); }
    SECTION("a changed file") {
        write_file(tmp.path / "abc.txt", "abd");
        CHECK_THROWS_WITH(llmfs::read_verified_file(tmp.path, "abc.txt"),
                          Catch::Contains((tmp.path / "abc.txt").string()) &&
                              Catch::Contains("corrupt"));
    }
    SECTION("a file SHA256SUMS does not list") {
        write_file(tmp.path / "other.txt", "abc");
        CHECK_THROWS_WITH(llmfs::read_verified_file(tmp.path, "other.txt"),
                          Catch::Contains((tmp.path / "SHA256SUMS").string()) &&
                              Catch::Contains("other.txt"));
    }
    SECTION("a missing file") {
        CHECK_THROWS_WITH(llmfs::read_verified_file(tmp.path, "empty.txt"),
                          Catch::Contains((tmp.path / "empty.txt").string()));
    }
    SECTION("a missing SHA256SUMS") {
        fs::remove(tmp.path / "SHA256SUMS");
        CHECK_THROWS_WITH(llmfs::read_verified_file(tmp.path, "abc.txt"),
                          Catch::Contains((tmp.path / "SHA256SUMS").string()));
    }
}
