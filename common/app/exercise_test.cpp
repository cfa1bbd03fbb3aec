// The exercises' student copies and checks.
#include <catch2/catch.hpp>

#include "llmfs/app/exercise.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_support.hpp"

using namespace llmfs;

TEST_CASE("student_copy replaces each solution region by a TODO that names the exercise") {
    const std::string solution =
        "static int answer() {\n"
        "    // BEGIN SOLUTION(exercise 3.2): return the answer\n"
        "    const int a = 1;\n"
        "    return a;\n"
        "    // END SOLUTION\n"
        "}\n";
    CHECK(student_copy(solution) ==
          "static int answer() {\n"
          "    // TODO(exercise 3.2): return the answer\n"
          "    exercise_todo(\"3.2\", \"return the answer\");\n"
          "}\n");
    CHECK(student_copy("int x;\n") == "int x;\n");
}

TEST_CASE("student_copy leaves out the book's solution code, keeping the student copy's lines of a block") {
    const std::string solution =
        "// Exercise 9.9\n"
        "// BEGIN BOOK SOLUTION: the answer in PyTorch\n"
        "//   x = answer()\n"
        "// END BOOK SOLUTION\n"
        "int main() {\n"
        "    // BEGIN BOOK SOLUTION: the cell that holds the answer\n"
        "    nb.code(\"x = answer()\\nprint(x)\");\n"
        "    // STUDENT COPY: nb.added_code(\"# your answer\\nprint(x)\");\n"
        "    // END BOOK SOLUTION\n"
        "}\n";
    CHECK(student_copy(solution) == "// Exercise 9.9\nint main() {\n    nb.added_code(\"# your answer\\nprint(x)\");\n}\n");
    CHECK_THROWS_WITH(student_copy("// BEGIN BOOK SOLUTION: a\nx\n"), Catch::Contains("no END BOOK SOLUTION"));
    CHECK_THROWS_WITH(student_copy("x\n// END BOOK SOLUTION\n"), Catch::Contains("line 2"));
    CHECK_THROWS_WITH(student_copy("// BEGIN BOOK SOLUTION: a\n// BEGIN SOLUTION(exercise 3.1): b\n// END SOLUTION\n// END BOOK SOLUTION\n"),
                      Catch::Contains("line 2"));
    CHECK_THROWS_WITH(student_copy("// BEGIN SOLUTION(exercise 3.1): b\n// BEGIN BOOK SOLUTION: a\n// END BOOK SOLUTION\n// END SOLUTION\n"),
                      Catch::Contains("line 2"));
}

TEST_CASE("student_copy rejects malformed regions, naming the line") {
    CHECK_THROWS_WITH(student_copy("// BEGIN SOLUTION(exercise 3.1): a\n"), Catch::Contains("no END SOLUTION"));
    CHECK_THROWS_WITH(student_copy("x\n// END SOLUTION\n"), Catch::Contains("line 2"));
    CHECK_THROWS_WITH(student_copy("// BEGIN SOLUTION(exercise 3.1): say \"hi\"\n// END SOLUTION\n"),
                      Catch::Contains("quotes"));
    CHECK_THROWS_WITH(student_copy("// BEGIN SOLUTION(exercise 3.1): a\n// BEGIN SOLUTION(exercise 3.1): b\n"),
                      Catch::Contains("inside another region"));
    // The id lands in generated C++: a quote in it must not make broken code.
    CHECK_THROWS_WITH(student_copy("x\n// BEGIN SOLUTION(exercise 3\"1): a\n// END SOLUTION\n"),
                      Catch::Contains("line 2") && Catch::Contains("not an exercise id"));
    CHECK_THROWS_WITH(student_copy("// BEGIN SOLUTION(exercise 9.9): a\n// END SOLUTION\n"), Catch::Contains("not an exercise id"));
}

TEST_CASE("exercise_todo stops with a message naming the exercise, the TODO and the file") {
    CHECK_THROWS_AS(exercise_todo("3.1", "copy the weights"), ExerciseNotDone);
    CHECK_THROWS_WITH(exercise_todo("3.1", "copy the weights"),
                      Catch::Contains("exercise 3.1 is not done yet: TODO(exercise 3.1): copy the weights") &&
                          Catch::Contains("chapters/exercises/student/exercise_3_1.cpp"));
}

TEST_CASE("find_exercise knows the exercises and lists them for an unknown one") {
    CHECK(find_exercise("4.2").program == "ch04_exercise_4_2");
    CHECK(find_exercise("5.1").program == "ch05_exercise_5_1");
    CHECK(find_exercise("5.3").check_args == std::vector<std::string>{"--untrained"});  // no model.pth needed
    CHECK(find_exercise("3.1").check_args.empty());
    CHECK(find_exercise("5.4").program == "ch05_exercise_5_4");
    CHECK_THROWS_WITH(find_exercise("5.2"), Catch::Contains("3.1, 3.2, 3.3, 4.1, 4.2, 4.3, 5.1, 5.3, 5.4"));
}

TEST_CASE("check_exercise_output: the verdict and the first differing line with the code that printed it") {
    const Exercise& e = find_exercise("3.1");
    const std::string expected = "tensor([1.])\ntensor([2.])\n";
    const std::string annotated = "\n## Exercise 3.1\n# C++: chapters/exercises/solutions/exercise_3_1.cpp:40\n>>> sa_v1(inputs)\n"
                                  "tensor([1.])\n# Note: a remark\n# C++: x.cpp:9\n>>> sa_v2(inputs)\ntensor([2.])\n";

    CHECK(check_exercise_output(e, expected, annotated, 0, "").verdict == ExerciseVerdict::match);

    const std::string wrong = "\n## Exercise 3.1\n# C++: x.cpp:1\n>>> sa_v1(inputs)\ntensor([7.])\n>>> sa_v2(inputs)\ntensor([2.])\n";
    const ExerciseCheck differ = check_exercise_output(e, expected, wrong, 0, "");
    CHECK(differ.verdict == ExerciseVerdict::differ);
    CHECK_THAT(differ.message, Catch::StartsWith("exercise 3.1: your sa_v1(inputs) differs from the expected output; "
                                                 "first differing line (line 1 of the output):") &&
                                   Catch::Contains("expected: tensor([1.])") && Catch::Contains("yours:    tensor([7.])"));

    const std::string shorter = ">>> print(\"a:\", a)\ntensor([1.])\n";
    const ExerciseCheck missing = check_exercise_output(e, expected, shorter, 0, "");
    CHECK(missing.verdict == ExerciseVerdict::differ);
    CHECK_THAT(missing.message, Catch::Contains("output of `print(\"a:\", a)`") && Catch::Contains("<end of output>"));

    // A crash is an error in the student's code, not an unfinished exercise.
    const ExerciseCheck crashed =
        check_exercise_output(e, expected, "", 1, "ch03_exercise_3_1: error: matmul: shapes [6, 3] and [2, 3] do not fit\n");
    CHECK(crashed.verdict == ExerciseVerdict::runtime_error);
    CHECK(std::string(grade_name(crashed.verdict)) == "runtime-error");
    CHECK_THAT(crashed.message, Catch::StartsWith("exercise 3.1: your code stops with an error") &&
                                    Catch::Contains("matmul: shapes [6, 3] and [2, 3] do not fit"));
    // Only exercise_todo's stop is "not finished".
    std::string todo;
    try {
        exercise_todo("3.1", "copy the weights");
    } catch (const ExerciseNotDone& stop) {
        todo = std::string("ch03_exercise_3_1: error: ") + stop.what() + "\n";
    }
    const ExerciseCheck stopped = check_exercise_output(e, expected, "", 1, todo);
    CHECK(stopped.verdict == ExerciseVerdict::unfinished);
    CHECK(std::string(grade_name(stopped.verdict)) == "not-finished");
    CHECK_THAT(stopped.message, Catch::StartsWith("exercise 3.1: not finished") && Catch::Contains("copy the weights"));
}

TEST_CASE("build_failure: does not compile, with the compiler's first error") {
    const ExerciseCheck c = build_failure(find_exercise("3.2"), "[ 50%] Building CXX object x.o\n"
                                                                "/h/exercise_3_2.cpp:25:13: error: expected ';' before '}' token\n"
                                                                "   25 |     return 3\n");
    CHECK(c.verdict == ExerciseVerdict::build_error);
    CHECK_THAT(c.message, Catch::StartsWith("exercise 3.2: does not compile") && Catch::Contains("error: expected ';'") &&
                              !Catch::Contains("Building CXX"));
}

TEST_CASE("every exercise has hidden variants, each its --variant N") {
    for (const Exercise& e : exercises()) {
        CHECK_FALSE(e.variants.empty());
        for (std::size_t i = 0; i < e.variants.size(); ++i)
            CHECK(e.variants[i] == std::vector<std::string>{"--variant", std::to_string(i + 1)});
    }
    CHECK(find_exercise("3.3").variants.size() == 3);
    CHECK(find_exercise("5.4").variants.size() == 1);
}

TEST_CASE("outputs_only: an --annotate run's outputs, as a golden holds them") {
    CHECK(outputs_only("\n## Exercise 3.3\n# C++: x.cpp:3\n>>> count_parameters(mha)\n# Note: --variant 1: ...\n2360064\n") ==
          "2360064\n");
}

TEST_CASE("combine_variants: right on the book's case but not on some variants is differs-on-variants, worse than close") {
    const Exercise& e = find_exercise("3.3");
    const ExerciseCheck book = check_exercise_output(e, "2360064\n", ">>> count_parameters(mha)\n2360064\n", 0, "");
    REQUIRE(book.verdict == ExerciseVerdict::match);
    const auto variant = [&](const char* expected) {
        return check_exercise_output(e, expected, ">>> count_parameters(mha)\n2360064\n", 0, "");
    };
    const ExerciseCheck all_right = combine_variants(e, book, {variant("2360064\n"), variant("2360064\n")});
    CHECK(all_right.verdict == ExerciseVerdict::match);
    const ExerciseCheck hard_coded = combine_variants(e, book, {variant("2360064\n"), variant("16640\n"), variant("7424\n")});
    CHECK(hard_coded.verdict == ExerciseVerdict::differ_on_variants);
    CHECK(std::string(grade_name(hard_coded.verdict)) == "differs-on-variants");
    CHECK_THAT(hard_coded.message, Catch::StartsWith("exercise 3.3: right on the book's case, differs on 2 of 3 variants") &&
                                       Catch::Contains("first on variant 2 (--variant 2)") && Catch::Contains("expected: 16640") &&
                                       Catch::Contains("yours:    2360064"));
    CHECK(!solved(hard_coded.verdict));
    // grade keeps the worse of two kernels' verdicts (the enum's order): a plain difference is worse.
    CHECK(ExerciseVerdict::close < ExerciseVerdict::differ_on_variants);
    CHECK(ExerciseVerdict::differ_on_variants < ExerciseVerdict::differ);
    // A book's case that is wrong stays what it is: the variants are not run for it.
    const ExerciseCheck wrong = variant("1\n");
    CHECK(combine_variants(e, wrong, {}).verdict == ExerciseVerdict::differ);
}

TEST_CASE("answer_lines: the lines between the markers, trimmed") {
    CHECK(answer_lines("a\n  // BEGIN SOLUTION(exercise 3.2): x\n    return 7;  // one\n\n  // END SOLUTION\nb\n") ==
          std::vector<std::string>{"return 7;  // one"});
}

TEST_CASE("check_exercise_output: a last-digit difference is right, but not bit-exact") {
    const Exercise& e = find_exercise("3.1");
    const ExerciseCheck close = check_exercise_output(e, "tensor([0.1234, 0.5000])\n", ">>> sa_v1(inputs)\ntensor([0.1235, 0.5000])\n", 0, "");
    CHECK(close.verdict == ExerciseVerdict::close);
    CHECK_THAT(close.message, Catch::StartsWith("exercise 3.1: right, but not bit-exact: your sa_v1(inputs)") &&
                                  Catch::Contains("line 1"));
    const ExerciseCheck far = check_exercise_output(e, "tensor([0.1234, 0.5000])\n", ">>> sa_v1(inputs)\ntensor([0.1240, 0.5000])\n", 0, "");
    CHECK(far.verdict == ExerciseVerdict::differ);
}

// Tagged [solutions]: the instructor's cases, which read the solutions, the book's notebooks and the
// expected outputs; a hand-out has none of them and leaves these cases out (common/CMakeLists.txt).
namespace {

namespace fs = std::filesystem;
const fs::path kSource = LLMFS_SOURCE_DIR;

std::string read_all(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("write_student_sources never overwrites a student file that was edited, unless forced", "[solutions]") {
    llmfs::testing::TempDir tmp("llmfs_student_sources");
    fs::copy(kSource / "chapters/exercises/solutions", tmp.path / "solutions");
    fs::copy(kSource / "chapters/exercises/student", tmp.path / "student");
    // The committed student files are what the generator last wrote: nothing to do.
    CHECK(write_student_sources(tmp.path / "solutions", tmp.path / "student", false).empty());

    const fs::path answered = tmp.path / "student" / "exercise_3_2.cpp";
    std::string text = read_all(answered);
    const std::size_t todo = text.find("    exercise_todo(\"3.2\"");
    REQUIRE(todo != std::string::npos);
    text.replace(todo, text.find('\n', todo) - todo, "    return 7;");
    std::ofstream(answered, std::ios::trunc) << text;
    const fs::path other = tmp.path / "student" / "exercise_4_1.cpp";
    std::ofstream(other, std::ios::app) << "// my note\n";

    CHECK_THROWS_WITH(write_student_sources(tmp.path / "solutions", tmp.path / "student", false),
                      Catch::Contains(answered.string()) && Catch::Contains(other.string()) && Catch::Contains("--force"));
    CHECK(read_all(answered) == text);  // nothing was written
    const auto written = write_student_sources(tmp.path / "solutions", tmp.path / "student", true);
    CHECK(written.size() == 2);
    CHECK(read_all(answered) == read_all(kSource / "chapters/exercises/student/exercise_3_2.cpp"));
}

TEST_CASE("find_answer_leaks names each file that holds a planted answer line or a reference-solution line, and none in a clean copy", "[solutions]") {
    llmfs::testing::TempDir tmp("llmfs_leaks");
    fs::copy(kSource / "chapters/exercises/student", tmp.path / "student");
    CHECK(find_answer_leaks(kSource, tmp.path).empty());
    // Planted at run time, read from the solutions: this file, which a hand-out holds, holds no answer.
    const std::string answer = answer_lines(read_all(kSource / "chapters/exercises/solutions/exercise_3_2.cpp")).at(0);
    std::string reference_line;
    std::istringstream reference(read_all(kSource / "tests/goldens/exercises_reference.py"));
    for (std::string line; std::getline(reference, line) && reference_line.empty();)
        if (line.find("torch.nn.Parameter(") != std::string::npos) reference_line = line;
    REQUIRE_FALSE(reference_line.empty());
    std::ofstream(tmp.path / "student" / "notes.txt") << "my notes\n   " << answer << "\n";
    std::ofstream(tmp.path / "copied.py") << reference_line << "\n";
    const auto leaks = find_answer_leaks(kSource, tmp.path);
    REQUIRE(leaks.size() == 2);
    CHECK(leaks[0] == "copied.py: the book's solution code (1 line, e.g. `" + std::string(reference_line.substr(reference_line.find_first_not_of(' '))) + "`)");
    CHECK(leaks[1] == "student/notes.txt: solution line (1 line, e.g. `" + answer + "`)");
}

TEST_CASE("find_answer_leaks names a student file that holds the book's solution code: as the header's comment, as a cell shown", "[solutions]") {
    llmfs::testing::TempDir tmp("llmfs_leaks_book");
    fs::copy(kSource / "chapters/exercises/student", tmp.path / "student");
    REQUIRE(find_answer_leaks(kSource, tmp.path).empty());
    // The lines of a solution's BEGIN BOOK SOLUTION blocks (read at run time, never written in this
    // file), but the student copy's: its comments (the header's PyTorch) or its code (cells shown).
    const auto book_lines = [](const std::string& name, bool comments) {
        std::string lines;
        bool inside = false;
        std::istringstream source(read_all(kSource / "chapters/exercises/solutions" / (name + ".cpp")));
        for (std::string line; std::getline(source, line);) {
            const std::string t = line.substr(std::min(line.size(), line.find_first_not_of(' ')));
            if (t.rfind("// BEGIN BOOK SOLUTION", 0) == 0) inside = true;
            else if (t.rfind("// END BOOK SOLUTION", 0) == 0) inside = false;
            else if (inside && t.rfind("// STUDENT COPY: ", 0) != 0 && (t.rfind("//", 0) == 0) == comments) lines += line + "\n";
        }
        return lines;
    };
    REQUIRE_FALSE(book_lines("exercise_4_2", true).empty());
    REQUIRE_FALSE(book_lines("exercise_5_1", false).empty());
    std::ofstream(tmp.path / "student" / "exercise_4_2.cpp", std::ios::app) << book_lines("exercise_4_2", true);
    std::ofstream(tmp.path / "student" / "exercise_5_1.cpp", std::ios::app) << book_lines("exercise_5_1", false);
    const auto leaks = find_answer_leaks(kSource, tmp.path);
    std::string all;
    for (const std::string& leak : leaks) all += leak + "\n";
    INFO(all);
    REQUIRE(leaks.size() == 2);
    CHECK_THAT(leaks[0], Catch::StartsWith("student/exercise_4_2.cpp: the book's solution code (") && Catch::Contains("get_config"));
    CHECK_THAT(leaks[1], Catch::StartsWith("student/exercise_5_1.cpp: the book's solution code (") && Catch::Contains("sampled_ids"));
}

TEST_CASE("find_answer_leaks names the book's solution notebooks and every expected output, planted under other names", "[solutions]") {
    llmfs::testing::TempDir tmp("llmfs_leaks_planted");
    std::vector<std::pair<std::string, std::string>> planted;  // file, what it must be said to hold
    for (const char* chapter : {"ch03", "ch04", "ch05"}) {
        const std::string name = std::string("notes/") + chapter + "_mine.ipynb";
        fs::create_directories(tmp.path / "notes");
        fs::copy_file(kSource / "tests/nbcheck" / (std::string(chapter) + "_exercises_book.ipynb"), tmp.path / name);
        planted.emplace_back(name, "the book's solution code");
    }
    for (const char* kernel : {"mkl", "default"}) {
        for (const Exercise& e : exercises()) {
            const fs::path golden = kSource / "data/golden" / kernel / (e.program + ".txt");
            if (!fs::exists(golden)) continue;
            const std::string name = std::string("out/") + kernel + "_" + e.id + ".log";
            fs::create_directories(tmp.path / "out");
            fs::copy_file(golden, tmp.path / name);
            planted.emplace_back(name, "expected output of exercise " + e.id);
        }
    }
    const auto leaks = find_answer_leaks(kSource, tmp.path);
    std::string all;
    for (const std::string& leak : leaks) all += leak + "\n";
    INFO(all);
    CHECK(leaks.size() == planted.size());
    for (const auto& plant : planted) {  // not a structured binding: clang cannot capture one in C++17
        const std::string& file = plant.first;
        const std::string& what = plant.second;
        const bool named = std::any_of(leaks.begin(), leaks.end(), [&](const std::string& leak) {
            return leak.rfind(file + ": ", 0) == 0 && leak.find(what) != std::string::npos;
        });
        CHECK((named ? "" : file + ": " + what + " not found") == std::string());
    }
}

TEST_CASE("coarse_line: spacing made one space, numbers cut to two fewer decimals, a cut zero unsigned") {
    CHECK(coarse_line("tensor([[ 0.1234,  -0.5678]])") == "tensor([[ 0.12, -0.56]])");
    CHECK(coarse_line("  Train loss 10.277, Val loss 10.248  ") == "Train loss 10.2, Val loss 10.2");
    CHECK(coarse_line("tensor([-0.0012, 0.12, 3])") == "tensor([0.00, 0.1, 3])");
    CHECK(coarse_line("2360064") == "2360064");
    CHECK(coarse_line("W_query 3.14159e-05 ch03") == "W_query 3.141e-05 ch03");
}

TEST_CASE("check_exercise_digests: right, probably right, differs at a line with its code, not finished") {
    const Exercise& e = find_exercise("3.1");
    const std::string expected = "tensor([[0.1234, 0.5000]])\ntorch.Size([1, 2])\n";
    const std::string digests = output_digests(expected);
    CHECK(digests.size() == 2 * 130);
    CHECK(digests.find("0.1234") == std::string::npos);
    const auto run = [&](const std::string& output) {
        return check_exercise_digests(e, digests, ">>> sa_v1(inputs)\n" + output, 0, "");
    };
    CHECK(run(expected).verdict == ExerciseVerdict::match);
    const ExerciseCheck close = run("tensor([[0.1235, 0.5000]])\ntorch.Size([1, 2])\n");
    CHECK(close.verdict == ExerciseVerdict::close);
    CHECK_THAT(close.message, Catch::StartsWith("exercise 3.1: right, but not bit-exact (probably): your sa_v1(inputs)") &&
                                  Catch::Contains("line 1"));
    const ExerciseCheck wrong = run("tensor([[0.1234, 0.5000]])\ntorch.Size([2, 2])\n");
    CHECK(wrong.verdict == ExerciseVerdict::differ);
    CHECK(wrong.message == "exercise 3.1: your sa_v1(inputs) differs from the expected output; first differing line (line 2 of the output):\n"
                           "  expected: another line\n  yours:    torch.Size([2, 2])");
    const ExerciseCheck shorter = run("tensor([[0.1234, 0.5000]])\n");
    CHECK(shorter.verdict == ExerciseVerdict::differ);
    CHECK_THAT(shorter.message, Catch::Contains("line 2 of the output") && Catch::Contains("expected: another line\n  yours:    <end of output>"));
    const ExerciseCheck longer = run(expected + "extra\n");
    CHECK_THAT(longer.message, Catch::Contains("line 3 of the output") && Catch::Contains("expected: <end of output>\n  yours:    extra"));
    CHECK(check_exercise_digests(e, digests, "", 1, "exercise 3.1 is not done yet: TODO(exercise 3.1): x").verdict == ExerciseVerdict::unfinished);
    CHECK_THROWS_WITH(check_exercise_digests(e, "not a digest\n", expected, 0, ""), Catch::Contains("damaged"));
}
