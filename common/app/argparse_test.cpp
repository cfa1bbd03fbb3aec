// Python's argparse as the bonus scripts use it. The programs are checked against every recorded
// run of the scripts (tests/CMakeLists.txt, "script: ..."); these cover what a CMake test cannot
// pass as an argument ("" and surrounding spaces) and the pieces on their own.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "llmfs/app/argparse.hpp"

using namespace llmfs;

namespace {

struct Parsed {
    std::optional<int> status;
    std::string out, err;
};

// p.parse_args(args) with stdout and stderr captured
Parsed parse(ArgumentParser& p, std::vector<std::string> args) {
    args.insert(args.begin(), p.prog());
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    auto* old_out = std::cout.rdbuf(out.rdbuf());
    auto* old_err = std::cerr.rdbuf(err.rdbuf());
    Parsed r;
    r.status = p.parse(static_cast<int>(argv.size()), argv.data());
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

ArgumentParser gqa_parser() {  // gpt_with_kv_gqa.py's
    ArgumentParser p("ch04_gqa", "Run GPT with grouped-query attention.");
    p.add_int("--emb_dim", 768, "Model embedding dimension.");
    p.add_int("--n_heads", 12, "Number of attention heads.");
    p.add_int("--n_layers", 12, "Number of transformer blocks.");
    p.add_int("--n_kv_groups", 2, "Number of key/value groups.");
    p.add_int("--max_new_tokens", 200, "Number of tokens to generate.");
    p.add_hidden_choice("--bernoulli", {"mkl", "default"}, "mkl");
    return p;
}

}  // namespace

TEST_CASE("python_int reads what Python's int() reads, in base 10") {
    CHECK(python_int("42") == 42);
    CHECK(python_int(" 7 ") == 7);
    CHECK(python_int("\t+5\n") == 5);
    CHECK(python_int("-12") == -12);
    CHECK(python_int("1_000") == 1000);
    CHECK(python_int("007") == 7);
    CHECK(python_int("-9223372036854775808") == INT64_MIN);
    for (const char* bad : {"", " ", "1.5", "1e3", "0x2", "-", "+", "1__0", "_1", "1_", "two", "1 2", "٣"}) {
        INFO(bad);
        CHECK_FALSE(python_int(bad));
    }
    bool too_large = false;
    CHECK_FALSE(python_int("9223372036854775808", &too_large));
    CHECK(too_large);
}

TEST_CASE("python_repr quotes as Python's repr of a str") {
    CHECK(python_repr("abc") == "'abc'");
    CHECK(python_repr("") == "''");
    CHECK(python_repr("a'b") == "\"a'b\"");
    CHECK(python_repr("a'b\"c") == "'a\\'b\"c'");
    CHECK(python_repr("x\ny\\") == "'x\\ny\\\\'");
    CHECK(python_repr(std::string("\x01", 1)) == "'\\x01'");
}

TEST_CASE("argparse: values, prefixes, = and repeats as Python takes them") {
    ArgumentParser p = gqa_parser();
    const Parsed r = parse(p, {"--emb", "64", "--n_h=4", "--max_new_tokens", " 7 ", "--n_layers", "2", "--n_layers", "-3"});
    REQUIRE_FALSE(r.status);
    CHECK(p.get_int("emb_dim") == 64);
    CHECK(p.get_int("n_heads") == 4);
    CHECK(p.get_int("max_new_tokens") == 7);
    CHECK(p.get_int("n_layers") == -3);  // the last one wins; "-3" is a value, not an option
    CHECK(p.get_int("n_kv_groups") == 2);
}

TEST_CASE("argparse: errors in argparse's words, usage first, exit status 2") {
    ::setenv("COLUMNS", "80", 1);
    const std::string usage =
        "usage: ch04_gqa [-h] [--emb_dim EMB_DIM] [--n_heads N_HEADS]\n"
        "                [--n_layers N_LAYERS] [--n_kv_groups N_KV_GROUPS]\n"
        "                [--max_new_tokens MAX_NEW_TOKENS]\n";
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--n_kv_groups", ""}, "argument --n_kv_groups: invalid int value: ''"},
        {{"--emb_dim", "a'b"}, "argument --emb_dim: invalid int value: \"a'b\""},
        {{"--max_new_tokens"}, "argument --max_new_tokens: expected one argument"},
        {{"--max_new_tokens", "--emb_dim", "4"}, "argument --max_new_tokens: expected one argument"},
        {{"--n", "2"}, "ambiguous option: --n could match --n_heads, --n_layers, --n_kv_groups"},
        {{"--emb_dim", "x", "--n=2"}, "ambiguous option: --n=2 could match --n_heads, --n_layers, --n_kv_groups"},
        {{"--n_heads", "4", "--emb_dim", "x", "--bogus"}, "argument --emb_dim: invalid int value: 'x'"},
        {{"--bogus", "1", "extra"}, "unrecognized arguments: --bogus 1 extra"},
        {{"-hx"}, "argument -h/--help: ignored explicit argument 'x'"},
        {{"--bernoulli", "intel"}, "argument --bernoulli: invalid choice: 'intel' (choose from 'mkl', 'default')"},
        {{"--b", "mkl"}, "unrecognized arguments: --b mkl"},  // the hidden option needs its full name
        {{"--emb_dim", "99999999999999999999"}, "argument --emb_dim: '99999999999999999999' is beyond llmfs's 64-bit integers"},
    };
    for (const auto& [args, message] : cases) {
        ArgumentParser p = gqa_parser();
        const Parsed r = parse(p, args);
        INFO(r.err);
        CHECK(r.status == 2);
        CHECK(r.out.empty());
        CHECK(r.err == usage + "ch04_gqa: error: " + message + "\n");
    }
}

TEST_CASE("argparse: --help, and the hidden option stays out of it") {
    ::setenv("COLUMNS", "80", 1);
    ArgumentParser p = gqa_parser();
    const Parsed r = parse(p, {"--help", "--emb_dim", "x"});  // help as soon as it is reached
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    CHECK(r.out.find("Run GPT with grouped-query attention.\n\noptions:\n  -h, --help            show this help message and exit\n") !=
          std::string::npos);
    CHECK(r.out.find("  --n_kv_groups N_KV_GROUPS\n                        Number of key/value groups. (default: 2)\n") !=
          std::string::npos);
    CHECK(r.out.find("bernoulli") == std::string::npos);
    ArgumentParser q = gqa_parser();
    CHECK(parse(q, {"--bernoulli", "default"}).status == std::nullopt);
    CHECK(q.get_string("bernoulli") == "default");
}

TEST_CASE("argparse: the width follows COLUMNS, hyphenated words break as textwrap breaks them") {
    ArgumentParser p("prog", "");
    p.add_int("--n_kv_groups", std::nullopt, "GQA groups; 1 means MHA-equivalent KV heads.", true);
    ::setenv("COLUMNS", "50", 1);
    const Parsed r = parse(p, {"-h"});
    CHECK(r.out ==
          "usage: prog [-h] --n_kv_groups N_KV_GROUPS\n"
          "\n"
          "options:\n"
          "  -h, --help            show this help message\n"
          "                        and exit\n"
          "  --n_kv_groups N_KV_GROUPS\n"
          "                        GQA groups; 1 means MHA-\n"
          "                        equivalent KV heads.\n"
          "                        (default: None)\n");
    ::setenv("COLUMNS", "80", 1);
    ArgumentParser q("prog", "");
    q.add_int("--n_kv_groups", std::nullopt, "", true);
    const Parsed missing = parse(q, {});
    CHECK(missing.status == 2);
    CHECK(missing.err == "usage: prog [-h] --n_kv_groups N_KV_GROUPS\nprog: error: the following arguments are required: --n_kv_groups\n");
}
