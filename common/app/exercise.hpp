// The classroom exercises of chapters 3 and 4 (the book's exercises 3.1-4.3): what each asks,
// the helper a student build calls where an answer is still missing, how a student copy is made
// from a solution, and how a program's output is judged against the expected one.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace llmfs {

struct Exercise {
    std::string id;         // "3.1"
    std::string program;    // "ch03_exercise_3_1": the executable, its source and its golden file
    std::string title;      // "Comparing SelfAttention_v1 and SelfAttention_v2"
    std::string statement;  // what the student is asked to do, in a few sentences
};

// All exercises, in the book's order.
const std::vector<Exercise>& exercises();
// The exercise with this id ("3.1"); std::invalid_argument listing the ids if there is none.
const Exercise& find_exercise(std::string_view id);
// Where the student edits it: "chapters/exercises/student/exercise_3_1.cpp"
std::string student_source(const Exercise& exercise);

// Thrown where a student build reaches an unanswered TODO (the program then exits with 1).
struct ExerciseNotDone : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// What a student copy runs in place of an answer: throws ExerciseNotDone naming the exercise,
// the TODO and the file to edit.
[[noreturn]] void exercise_todo(std::string_view id, std::string_view todo);

// The student copy of a solution source: each region
//       // BEGIN SOLUTION(exercise 3.1): <what to do>
//       ...the answer...
//       // END SOLUTION
// becomes, at the same indentation,
//       // TODO(exercise 3.1): <what to do>
//       exercise_todo("3.1", "<what to do>");
// Everything else is copied unchanged. A malformed region is a std::invalid_argument naming the line.
std::string student_copy(std::string_view solution_source);

// How an exercise's output compares with the expected (golden) output.
enum class ExerciseVerdict {
    match,     // byte for byte what PyTorch prints
    close,     // right, but not bit-exact: compare_outputs' "close" (numbers off in the last printed digits)
    differ,    // a different result
    unfinished // the program stopped (a TODO, an error) before printing everything
};

struct ExerciseCheck {
    ExerciseVerdict verdict;
    std::string message;  // for the student, e.g. "exercise 3.1: your sa_v1(inputs) differs ..."
};

// Judges `annotated_output` (the program's stdout with --annotate: ">>> code" lines before each
// output, "## " headings) against `expected` (the golden: outputs only). The first differing
// output line is reported with what was expected there and the notebook code that printed it.
// The closeness rule is compare_outputs' (llmfs/app/compare.hpp), the one llmfs-nbcheck uses.
// `exit_code` and `errors` (stderr) are the program's: a non-zero exit is `unfinished`.
ExerciseCheck check_exercise_output(const Exercise& exercise, std::string_view expected, std::string_view annotated_output,
                                    int exit_code, std::string_view errors);

}  // namespace llmfs
