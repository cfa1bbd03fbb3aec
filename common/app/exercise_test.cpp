// The exercises' student copies and checks.
#include <catch2/catch.hpp>

#include "llmfs/app/exercise.hpp"

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

TEST_CASE("find_exercise knows the six exercises and lists them for an unknown one") {
    CHECK(exercises().size() == 6);
    CHECK(find_exercise("4.2").program == "ch04_exercise_4_2");
    CHECK_THROWS_WITH(find_exercise("5.1"), Catch::Contains("3.1, 3.2, 3.3, 4.1, 4.2, 4.3"));
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

    const ExerciseCheck stopped = check_exercise_output(e, expected, "", 1, "boom\n");
    CHECK(stopped.verdict == ExerciseVerdict::unfinished);
    CHECK_THAT(stopped.message, Catch::StartsWith("exercise 3.1: not finished") && Catch::Contains("boom"));
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
