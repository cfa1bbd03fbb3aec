#include "llmfs/app/compare.hpp"

#include <catch2/catch.hpp>

using namespace llmfs;

TEST_CASE("is_close: the noise of another CPU or BLAS is close, a real change is not") {
    // The book's notebooks (macOS, Accelerate) against OpenBLAS on x86, from issue 6.
    CHECK(is_close("1.6754", "1.6755"));                                  // 4.1 logits: 1 unit
    CHECK(is_close("-5.9605e-08", "9.9341e-09"));                         // 4.2 means: within 1e-6
    CHECK(is_close("0.00020173587836325169", "0.00020173584925942123"));  // 4.4 gradient means
    CHECK_FALSE(is_close("0.9995", "1.0000"));                            // 5 units: a real difference
    CHECK(is_close("0.1235", "0.1237"));                                  // exactly 2 units
    CHECK_FALSE(is_close("0.1235", "0.1238"));
    CHECK(is_close("-0.0000", "0.0000"));
    CHECK(is_close("1.0000e+05", "1.0001e+05"));  // 1 unit = 10
    CHECK_FALSE(is_close("1.0000e+05", "1.0003e+05"));
    CHECK(is_close("0.5", "0.5002"));        // 2 units of the finer text
    CHECK_FALSE(is_close("0.5", "0.5003"));  // the coarser text's unit (0.1) excuses nothing
}

TEST_CASE("is_close: a tampered number is never close, whichever side it is on") {
    for (const char* tampered : {"1e300", "0e99", "1e-300", "9.9999e+37", "1e999", "-1e300", "1.2345e+03"}) {
        INFO(tampered);
        CHECK_FALSE(is_close("0.1235", tampered));
        CHECK_FALSE(is_close(tampered, "0.1235"));
    }
    CHECK_FALSE(is_close("-0.4619", "-0.4519"));  // the changed digit of llmfs-nbcheck's test notebook
}

TEST_CASE("is_close: the rule is symmetric") {
    const char* numbers[] = {"1.6754", "1.6755", "0.9995", "1.0000", "-5.9605e-08", "9.9341e-09", "0.5", "0.5002",
                             "0.5003", "1.0000e+05", "1.0003e+05", "0.00020173587836325169", "0.0002017358"};
    for (const char* a : numbers)
        for (const char* b : numbers) {
            INFO(a << " vs " << b);
            CHECK(is_close(a, b) == is_close(b, a));
        }
}

TEST_CASE("is_close: integers (token ids, sizes, counts) must be equal") {
    CHECK(is_close("6109", "6109"));
    CHECK_FALSE(is_close("6109", "6110"));
    CHECK_FALSE(is_close("163009536", "163009537"));
    CHECK_FALSE(is_close("0.", "2."));  // a dropout mask element: 2 "units", but a different mask
    CHECK(is_close("2.", "2.0000"));    // the same value in int mode and in fixed mode
}

TEST_CASE("compare_outputs: identical text is a match") {
    const Comparison c = compare_outputs("tensor([1., 2.])\n", "tensor([1., 2.])\n");
    CHECK(c.verdict == Verdict::match);
    CHECK(c.line == 0);
}

TEST_CASE("compare_outputs: numbers within the rule and re-padded columns are close") {
    const Comparison c = compare_outputs("tensor([[ 0.0139,  1.6754],\n        [-0.1192,  0.4539]])\n",
                                         "tensor([[0.0139, 1.6755],\n        [-0.1192, 0.4539]])\n");
    CHECK(c.verdict == Verdict::close);
    CHECK(c.line == 1);
    CHECK(c.expected_line == "tensor([[ 0.0139,  1.6754],");
    CHECK(c.actual_line == "tensor([[0.0139, 1.6755],");
}

TEST_CASE("compare_outputs: a number out of the rule, other words or other structure differ") {
    CHECK(compare_outputs("tensor([[0.9995],\n        [0.9997]])\n", "tensor([[1.0000],\n        [1.0000]])\n").verdict ==
          Verdict::differ);
    CHECK(compare_outputs("grad_fn=<MeanBackward1>", "grad_fn=<MeanBackward0>").verdict == Verdict::differ);
    CHECK(compare_outputs("tensor([1., 2.])", "tensor([1., 2., 3.])").verdict == Verdict::differ);
    CHECK(compare_outputs("Output text: Hello", "Output text: Help").verdict == Verdict::differ);
}

TEST_CASE("compare_outputs: a training run's drift widens close for fractions, never for integers") {
    const char* golden = "weights -0.281274915 0.178803697\nTraining accuracy: 62.50%\n48\n";
    const char* drifted = "weights -0.281265527 0.178797588\nTraining accuracy: 62.50%\n48\n";
    CHECK(compare_outputs(golden, drifted).verdict == Verdict::differ);
    CHECK(compare_outputs(golden, drifted, 1e-3).verdict == Verdict::close);
    CHECK(compare_outputs(golden, drifted, 1e-6).verdict == Verdict::differ);
    CHECK(compare_outputs(golden, "weights -0.281265527 0.178797588\nTraining accuracy: 50.00%\n48\n", 1e-3).verdict ==
          Verdict::differ);
    CHECK(compare_outputs("examples 48", "examples 49", 1e-3).verdict == Verdict::differ);
    CHECK(compare_outputs(golden, golden, 1e-3).verdict == Verdict::match);
}

TEST_CASE("compare_outputs: the first differing line is reported past the shorter text's end") {
    const Comparison c = compare_outputs("a\nb\n", "a\nb\nc\n");
    CHECK(c.verdict == Verdict::differ);
    CHECK(c.line == 3);
    CHECK(c.expected_line.empty());
    CHECK(c.actual_line == "c");
}

TEST_CASE("unified_diff: diff -u's hunks, with context") {
    CHECK(unified_diff("same\n", "same\n", "a", "b").empty());
    // Both texts checked against GNU diff -u: hunks 2 * context lines apart stay separate.
    const std::string expected = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
    const std::string actual = "1\n2\n3\nfour\n5\n6\n7\n8\n9\n10\n11\n12\nthirteen\n";
    CHECK(unified_diff(expected, actual, "notebook", "program") ==
          "--- notebook\n+++ program\n"
          "@@ -1,7 +1,7 @@\n 1\n 2\n 3\n-4\n+four\n 5\n 6\n 7\n"
          "@@ -10,3 +10,4 @@\n 10\n 11\n 12\n+thirteen\n");
    CHECK(unified_diff("a\nb\n", "a\nc\nb\n", "x", "y", 0) == "--- x\n+++ y\n@@ -1,0 +2 @@\n+c\n");
}
