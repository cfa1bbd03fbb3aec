// The classroom exercises of chapters 3 to 5 (the book's exercises 3.1-5.3): what each asks,
// the helper a student build calls where an answer is still missing, how a student copy is made
// from a solution, and how a program's output is judged against the expected one.
#pragma once

#include <filesystem>
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
    std::vector<std::string> names;  // the C++ the answer needs: "Tensor<2>::parameter(...)", "T(...)"
    // What check, grade and the tests add to the program's command line: 5.3's "--untrained" (its
    // model without the trained model.pth the notebook loads); nothing for the others.
    std::vector<std::string> check_args = {};
    // For an exercise that continues a checkpoint (5.4): llmfs-train's arguments for the one whose
    // continuation the expected output is (a small GPT, seconds). check and grade train it first,
    // with this build's llmfs-train, into a folder of their own, and pass it as --checkpoint FILE.
    std::vector<std::string> checkpoint_train_args = {};
    // The hidden variants `grade` runs besides the book's case, each as the arguments it adds to the
    // program's command line ({"--variant", "1"}, ...): the exercise's computation, through the
    // functions the student edits, on other inputs. Their expected outputs are the solution
    // program's, computed at grading time: never on disk, never in a hand-out.
    std::vector<std::vector<std::string>> variants = {};
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
// and each block of the book's solution code (the PyTorch of exercise-solutions.ipynb that no
// chapter notebook has: in the header's notebook code, in a cell the program shows)
//       // BEGIN BOOK SOLUTION: <why>
//       ...lines the solutions build has, the student copy not...
//       // STUDENT COPY: <a line the student copy has in their place, uncommented>
//       // END BOOK SOLUTION
// becomes its STUDENT COPY lines only, at their indentation.
// Everything else is copied unchanged. A malformed region or block is a std::invalid_argument naming the line.
std::string student_copy(std::string_view solution_source);

// How an exercise's program did against the expected (golden) output.
enum class ExerciseVerdict {
    match,          // byte for byte what PyTorch prints
    close,          // right, but not bit-exact: compare_outputs' "close" (numbers off in the last printed digits)
    differ_on_variants,  // right on the book's case, but not on some of grade's hidden variants (a hard-coded answer)
    differ,         // a different result
    build_error,    // the program does not compile
    runtime_error,  // the program stopped with an error (a shape mismatch, an exception)
    unfinished      // the program stopped at a TODO the student has not answered yet
};
// The verdict as `llmfs-exercise grade` prints it: "right", "right-not-bit-exact", "differs",
// "build-error", "runtime-error", "not-finished", and "differs-on-variants".
const char* grade_name(ExerciseVerdict verdict);
// Whether the verdict counts as solved (right, or right but not bit-exact).
inline bool solved(ExerciseVerdict verdict) { return verdict == ExerciseVerdict::match || verdict == ExerciseVerdict::close; }

struct ExerciseCheck {
    ExerciseVerdict verdict;
    std::string message;  // for the student, e.g. "exercise 3.1: your sa_v1(inputs) differs ..."
};

// Judges `annotated_output` (the program's stdout with --annotate: ">>> code" lines before each
// output, "## " headings) against `expected` (the golden: outputs only). The first differing
// output line is reported with what was expected there and the notebook code that printed it.
// The closeness rule is compare_outputs' (llmfs/app/compare.hpp), the one llmfs-nbcheck uses.
// `exit_code` and `errors` (stderr) are the program's: a non-zero exit is `unfinished` when the
// program stopped at a TODO (exercise_todo's message), `runtime_error` otherwise.
ExerciseCheck check_exercise_output(const Exercise& exercise, std::string_view expected, std::string_view annotated_output,
                                    int exit_code, std::string_view errors);
// ---- the hand-out's expected outputs: digests, not text --------------------------------------
// A hand-out carries, in place of each exercise's expected output data/golden/<kernel>/<program>.txt,
// data/golden/<kernel>/<program>.lines: one line per output line, "<exact> <coarse>", the lowercase
// hex SHA-256 of the line and of coarse_line(line) (docs/classroom.md, "What the hand-out holds").

// The line with each run of spacing made one space (none at the ends), each number cut to two fewer
// decimals (at least one kept: 0.1234 -> 0.12, 10.277 -> 10.2, 0.12 -> 0.1; integers unchanged) and
// a cut number that is zero unsigned: a last-digit difference (another BLAS kernel) mostly vanishes.
std::string coarse_line(std::string_view line);
// The digests of an expected output, as a hand-out's .lines file holds them.
std::string output_digests(std::string_view expected);
// check_exercise_output against digests: match when every line's exact digest agrees, close
// ("right, but not bit-exact (probably)") when every line agrees at least coarsely, differ at the
// first line that agrees in neither (the student's line, the notebook code that printed it,
// "expected: another line"), or at the end of the shorter output. Damaged digests: std::invalid_argument.
ExerciseCheck check_exercise_digests(const Exercise& exercise, std::string_view digests, std::string_view annotated_output,
                                     int exit_code, std::string_view errors);
// The outputs of a program's --annotate output, as the goldens hold them: the ">>> code", "## "
// heading, "# C++: " and "# Note: " lines left out.
std::string outputs_only(std::string_view annotated_output);

// The verdict of a program right on the book's case (`book`, solved) after its runs on the
// hidden variants: match or close when every variant is solved, else differ_on_variants with
// "right on the book's case, differs on 2 of 3 variants" and the first failing variant's message.
// `variants[i]` is the check of variant i + 1 (its expected output the solution program's).
ExerciseCheck combine_variants(const Exercise& exercise, const ExerciseCheck& book, const std::vector<ExerciseCheck>& variants);

// The verdict for a program that does not compile, with the compiler's first errors.
ExerciseCheck build_failure(const Exercise& exercise, std::string_view build_output);

// ---- instructors: answers, student sources, hand-outs ---------------------------------------

// The answer lines of a solution source: the lines between its BEGIN SOLUTION and END SOLUTION
// markers, without surrounding whitespace (blank ones left out).
std::vector<std::string> answer_lines(std::string_view solution_source);

// Writes student/<name>.cpp = student_copy(solutions/<name>.cpp) for every exercise, and records
// each file's SHA-256 in student/GENERATED.sha256. A student file whose content is no longer
// what the generator last wrote (the hash recorded there) has been edited, by a student answering
// it: it is not overwritten unless `force`, and the std::runtime_error names every such file.
// Returns the files written.
std::vector<std::string> write_student_sources(const std::filesystem::path& solutions_dir,
                                               const std::filesystem::path& student_dir, bool force);

// The files of a student hand-out, relative to the source tree: what a student needs to build,
// run, change and check the programs and exercises, without an answer in any form: not
// chapters/exercises/solutions/, tests/goldens/exercises_reference.py (the book's solutions in
// PyTorch), the book's solution notebooks (tests/nbcheck/*_exercises_book.ipynb), any file whose
// bytes are an exercise's expected output (data/golden/<kernel>/<program>.txt, and a copy elsewhere:
// 5.4's is llmfs-train's resume golden), tests/classroom/ (the instructor's tests, which answer an
// exercise) or docs/classroom.md (whose walk-through shows 3.2's answer); the hand-out's README.md
// is chapters/exercises/README-student.md.
std::vector<std::filesystem::path> handout_files(const std::filesystem::path& source_dir);
// Writes the hand-out of `source_dir` into `out_dir` (which must not exist, or be empty): the
// handout_files, the README, and each expected output's digests (output_digests) in place of its
// text. Returns the number of files written.
std::size_t write_handout(const std::filesystem::path& source_dir, const std::filesystem::path& out_dir);

// The files under `tree` that hold an answer, one line each, "path: what (N lines, e.g. `line`)",
// the path relative to `tree`, sorted. What counts (lines compared with whitespace trimmed; a
// notebook's cell sources and outputs decoded from its JSON; a line also as a // or # comment's
// text and, in a C++ file, as the lines of its string literals):
//   "solution line"             an answer line of chapters/exercises/solutions/;
//   "the book's solution code"  a line of tests/goldens/exercises_reference.py, of a code cell of
//                               the book's solution notebooks, or of a solution's BEGIN BOOK
//                               SOLUTION block (its indented comments, its string literals);
//   "expected output of exercise 3.3"  two consecutive non-blank lines of an exercise's expected
//                               output, or the whole of a one-line one;
// except lines (and line pairs) the hand-out also holds elsewhere (a lone "}", a GPTConfig line of
// the chapter code, a line of a chapter notebook or of the notebook code a program shows, a
// comment's text, an output line another program prints too).
std::vector<std::string> find_answer_leaks(const std::filesystem::path& source_dir, const std::filesystem::path& tree);

}  // namespace llmfs
