// llmfs-exercise: the classroom exercises 3.1-5.4.
//
// For students:
//   llmfs-exercise list                  each exercise: statement, the file to edit, the C++ it needs
//   llmfs-exercise check 3.2             builds ch03_exercise_3_2 from the current source, runs it and
//                                        judges its output against PyTorch's, with the first wrong line
// For instructors:
//   llmfs-exercise handout DIR           a buildable student tree, without any answer, in DIR
//   llmfs-exercise audit DIR             names each file under DIR that holds an answer: a solution
//                                        line, the book's solution code, an expected output
//   llmfs-exercise grade [--json] [--details] [--summary DIR] STUDENT_DIR...   builds each student's
//                                        exercises against this build's library and judges them against
//                                        this build's goldens, then (solutions build) on hidden variants
//   llmfs-exercise student-sources [--force]       writes chapters/exercises/student/ from solutions/
//   llmfs-exercise student-copy FILE [-o OUT]      the student version of one solution source
// Exit status: check 0 when the output is right (also right but not bit-exact), 1 otherwise;
// audit 1 when it finds an answer; every command 2 for bad usage.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"
#include "llmfs/app/process.hpp"
#include "llmfs/app/sandbox.hpp"
#include "llmfs/text/data_dir.hpp"
#include "llmfs/torch/blas.hpp"

using namespace llmfs;
namespace fs = std::filesystem;

#ifndef LLMFS_EXERCISES_MODE
#error "LLMFS_EXERCISES_MODE (solutions or student), LLMFS_SOURCE_DIR and LLMFS_CMAKE_COMMAND come from tools/CMakeLists.txt"
#endif

namespace {

const fs::path kSourceDir = LLMFS_SOURCE_DIR;  // the tree this build was configured from
const bool kSolutionsBuild = std::string(LLMFS_EXERCISES_MODE) == "solutions";

// The build tree this llmfs-exercise belongs to (build/bin/..), if it is one.
std::optional<fs::path> build_dir(const char* argv0) {
    const fs::path dir = executable_dir(argv0).parent_path();
    std::error_code ec;
    if (fs::exists(dir / "CMakeCache.txt", ec)) return dir;
    return std::nullopt;
}

// The exercise's source in this build's tree: chapters/exercises/{solutions,student}/exercise_3_1.cpp.
fs::path source_of(const Exercise& e) {
    return kSourceDir / "chapters" / "exercises" / LLMFS_EXERCISES_MODE / (e.program.substr(e.program.find("exercise_")) + ".cpp");
}

ProcessResult run_cmake(const std::vector<std::string>& args) { return run_process(LLMFS_CMAKE_COMMAND, args); }

int list() {
    for (const auto& e : exercises()) {
        std::cout << fmt::format("{}  {}  ({})\n{}\n  Edit: {}\n", e.id, e.title, e.program, e.statement, student_source(e));
        std::string names;
        for (const std::string& n : e.names) names += (names.empty() ? "" : ", ") + n;
        std::cout << "  C++ you will need: " << names << "\n";
        if (!e.check_args.empty()) std::cout << fmt::format("  check runs {} {}\n", e.program, fmt::join(e.check_args, " "));
        if (!e.variants.empty())
            std::cout << fmt::format("  grade also runs it on {} hidden variant(s): other inputs, through the same functions\n",
                                     e.variants.size());
        if (!e.checkpoint_train_args.empty())
            std::cout << fmt::format("  check continues the checkpoint of llmfs-train {} --save model_and_optimizer.pth --with-optimizer\n",
                                     fmt::join(e.checkpoint_train_args, " "));
        std::cout << "\n";
    }
    return 0;
}

// The dropout kernels an exercise has expected outputs for in `data`: both, or only "default" for
// a training exercise (5.4: PyTorch's goldens on OpenBLAS only, an MKL build's sgemm cannot be matched).
// A hand-out has the expected outputs as digests (.lines) in place of their text (.txt).
std::vector<std::string> golden_kernels(const fs::path& data, const Exercise& e) {
    const auto has = [&](const char* kernel) {
        const fs::path golden = data / "golden" / kernel / e.program;
        return fs::exists(fs::path(golden).concat(".txt")) || fs::exists(fs::path(golden).concat(".lines"));
    };
    if (!has("mkl") && has("default")) return {"default"};
    return {"mkl", "default"};
}

struct CheckOptions {
    std::string id, bernoulli = "mkl", program, golden;
};

// Runs one exercise program with --annotate, the exercise's check_args and `extra_args` (a hidden
// variant's --variant N). An exercise that continues a checkpoint (5.4) gets the one its golden
// continues, trained first by `tools`/llmfs-train (this build's, never a student's) in a folder of its own.
// With a `box` (grade), the program runs in it, in a fresh working folder that is also its figure
// folder, the checkpoint readable; `stopped_by` then says which limit stopped it, if one did.
SandboxResult run_exercise_program(const Exercise& e, const fs::path& program, const fs::path& tools, const std::string& bernoulli,
                                   const ProcessOptions& options, const std::vector<std::string>& extra_args,
                                   const SandboxLimits* box = nullptr) {
    std::vector<std::string> args{"--annotate", "--bernoulli", bernoulli};
    args.insert(args.end(), e.check_args.begin(), e.check_args.end());
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    std::optional<TempFolder> scratch;
    if (!e.checkpoint_train_args.empty()) {
        scratch.emplace("llmfs-exercise");
        const fs::path checkpoint = scratch->path() / "model_and_optimizer.pth";
        std::vector<std::string> train = e.checkpoint_train_args;
        train.insert(train.end(), {"--save", checkpoint.string(), "--with-optimizer"});
        const ProcessResult trained = run_process(tools / "llmfs-train", train, options);
        if (trained.exit_code != 0)
            throw std::runtime_error(fmt::format("exercise {}: llmfs-train {} failed (exit {}), so there is no checkpoint to continue: {}",
                                                 e.id, fmt::join(train, " "), trained.exit_code, trained.err));
        args.insert(args.end(), {"--checkpoint", checkpoint.string()});
    }
    if (box == nullptr) {
        SandboxResult run;
        static_cast<ProcessResult&>(run) = run_process(program, args, options);
        return run;
    }
    const TempFolder work("llmfs-exercise-run");
    SandboxLimits limits = *box;
    limits.work_dir = work.path();
    if (scratch) limits.readable.push_back(scratch->path());
    ProcessOptions boxed = options;
    boxed.env.erase(std::remove_if(boxed.env.begin(), boxed.env.end(), [](const auto& v) { return v.first == "LLMFS_FIGURE_DIR"; }),
                    boxed.env.end());
    boxed.env.emplace_back("LLMFS_FIGURE_DIR", work.path().string());
    return run_sandboxed(program, args, boxed, limits);
}

// Runs one exercise program (run_exercise_program) and judges it against `golden_text`: the expected
// output, or its digests where `digests` (a hand-out's .lines). Stopped by one of the box's limits,
// it gets runtime-error with the reason (a TODO's stop is no limit's: it stays not-finished).
ExerciseCheck judge(const Exercise& e, const fs::path& program, const fs::path& tools, const std::string& golden_text,
                    const std::string& bernoulli, const ProcessOptions& options = {}, const std::vector<std::string>& extra_args = {},
                    bool digests = false, const SandboxLimits* box = nullptr) {
    const SandboxResult run = run_exercise_program(e, program, tools, bernoulli, options, extra_args, box);
    ExerciseCheck result = digests ? check_exercise_digests(e, golden_text, run.out, run.exit_code, run.err)
                                   : check_exercise_output(e, golden_text, run.out, run.exit_code, run.err);
    if (!run.stopped_by.empty() && result.verdict != ExerciseVerdict::unfinished) {
        std::cerr << fmt::format("  exercise {}: stopped by the sandbox: {}\n", e.id, run.stopped_by);
        result = {ExerciseVerdict::runtime_error,
                  fmt::format("exercise {}: your program was stopped by the sandbox: {}: {}", e.id, run.stopped_by, result.message)};
    }
    return result;
}

int check(const CheckOptions& opt, const char* argv0) {
    const Exercise& e = find_exercise(opt.id);
    const fs::path program = opt.program.empty() ? executable_dir(argv0) / e.program : fs::path(opt.program);
    // The expected output's text, or in a hand-out its digests (data/golden/<kernel>/<program>.lines).
    fs::path golden = opt.golden.empty() ? data_dir() / "golden" / opt.bernoulli / (e.program + ".txt") : fs::path(opt.golden);
    if (std::error_code ec; opt.golden.empty() && !fs::exists(golden, ec)) golden.replace_extension(".lines");
    const bool digests = golden.extension() == ".lines";
    const std::string expected = read_file_checked(golden);
    if (opt.program.empty()) {
        // Judge the current source: build the program first (quietly, errors shown on failure);
        // where that cannot be done, refuse a program older than its source.
        if (const auto build = build_dir(argv0)) {
            // make trusts modification times, which a restored or copied file can carry from the
            // past: a source whose content differs from the last one built here is touched first.
            const fs::path stamp = *build / "llmfs-exercise" / (e.program + ".source.sha256");
            const std::string hash = fs::exists(source_of(e)) ? sha256_hex(read_file_checked(source_of(e))) : "";
            std::error_code ec;
            if (!hash.empty() && (!fs::exists(stamp, ec) || read_file_checked(stamp) != hash))
                fs::last_write_time(source_of(e), fs::file_time_type::clock::now(), ec);
            const ProcessResult made = run_cmake({"--build", build->string(), "--target", e.program});
            if (made.exit_code != 0) {
                std::cerr << build_failure(e, made.out + made.err).message;
                return 1;
            }
            fs::create_directories(stamp.parent_path(), ec);
            std::ofstream(stamp, std::ios::trunc) << hash;
        } else if (std::error_code ec; fs::exists(source_of(e), ec) && fs::exists(program, ec) &&
                                       fs::last_write_time(source_of(e)) > fs::last_write_time(program)) {
            throw std::runtime_error(fmt::format("{} is newer than {}: rebuild it first (cmake --build build --target {})",
                                                 source_of(e).string(), program.string(), e.program));
        }
    }
    if (!fs::exists(program))
        throw std::runtime_error(fmt::format("{} is not built: run cmake --build build --target {}", program.string(), e.program));
    // Digests cannot tell a last-digit difference from another answer: run under the BLAS kernel the
    // goldens were printed with where this CPU can (unless OPENBLAS_CORETYPE says otherwise), so that
    // a right answer is right byte for byte; elsewhere the coarse digests say "probably right".
    ProcessOptions options;
    if (digests && !std::getenv("OPENBLAS_CORETYPE") && can_run_golden_blas_kernel())
        options.env.emplace_back("OPENBLAS_CORETYPE", golden_blas_kernel());
    ExerciseCheck result = judge(e, program, executable_dir(argv0), expected, opt.bernoulli, options, {}, digests);
    // The program runs in this environment, so OpenBLAS picked the same kernel for it as for us.
    if (const std::string note = blas_kernel_note(); result.verdict == ExerciseVerdict::close && !note.empty() && options.env.empty())
        result.message += "\n  close: " + note;
    if (kSolutionsBuild && opt.program.empty()) {
        result.message += fmt::format(
            "\n  Note: this is the solutions build: it ran the book's solution ({}), not an answer of yours.\n"
            "  To do the exercise, build the student version, where each answer is a TODO:\n"
            "    cmake -S . -B build-student -DLLMFS_EXERCISES=student && cmake --build build-student --target exercises\n"
            "    ./build-student/bin/llmfs-exercise check {}",
            fs::relative(source_of(e), kSourceDir).string(), e.id);
    }
    (solved(result.verdict) ? std::cout : std::cerr) << result.message << "\n";
    return solved(result.verdict) ? 0 : 1;
}

int handout(const std::string& dir) {
    const std::size_t written = write_handout(kSourceDir, dir);
    const auto leaks = find_answer_leaks(kSourceDir, dir);
    if (!leaks.empty()) {
        for (const std::string& leak : leaks) std::cerr << "answer in the hand-out: " << leak << "\n";
        throw std::runtime_error(fmt::format("the hand-out in {} has an answer in {} file(s): remove them", dir, leaks.size()));
    }
    std::cout << fmt::format("Wrote the student hand-out to {} ({} files, no answer in any of them: checked).\n"
                             "A student builds it with\n"
                             "  cd {} && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2\n",
                             dir, written, dir);
    return 0;
}

int audit(const std::string& dir) {
    const auto leaks = find_answer_leaks(kSourceDir, dir);
    for (const std::string& leak : leaks) std::cout << leak << "\n";
    std::cout << fmt::format("{}: {} file(s) with an answer found\n", dir, leaks.size());
    return leaks.empty() ? 0 : 1;
}

// ---- grading -------------------------------------------------------------------------------------

struct GradeOptions {
    std::vector<std::string> students;
    std::vector<std::string> only;  // --exercise: the exercises to grade (default all)
    bool json = false;
    bool details = false;  // --details: each verdict's reason under the table
    std::string summary;   // --summary DIR: one page per student
    // Each run of a student's program, in the sandbox (common/app/sandbox.hpp). 5.3 builds the 124M
    // model (about 1.2 GB resident, 2 GB of address space), 5.4 trains for about 13 s on 2 cores.
    double time_limit = 300;       // seconds of wall time; CPU time: this times the cores
    std::size_t memory_limit = 4096;  // MB of address space
    std::size_t file_limit = 64;      // MB, the largest file it may write
};

// What a student's program may read of the instructor's data: everything but golden/ (the expected
// outputs), copied into `dir` (a few MB), so that the program cannot print the golden it is judged by.
fs::path write_grading_data(const fs::path& data, const fs::path& dir) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const auto& entry : fs::directory_iterator(data)) {
        if (entry.path().filename() == "golden") continue;
        fs::copy(entry.path(), dir / entry.path().filename(), fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    }
    return dir;
}

// A folder name made of a student tree's path: "alice" for "/x/alice/".
std::string student_name(const fs::path& student) {
    std::string name = student.filename().string();
    if (name.empty()) name = student.parent_path().filename().string();
    for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return name;
}

// A student tree's own build directory: a small CMake project building its exercise sources
// against this build's libllmfs (llmfs-targets.cmake), with this build's compiler and flags.
fs::path write_grading_project(const fs::path& build, const fs::path& student, std::size_t index,
                               const std::vector<const Exercise*>& chosen) {
    const fs::path dir = build / "grading" / fmt::format("{}-{}", index + 1, student_name(student));
    fs::create_directories(dir);
    std::string cmake = fmt::format(
        "# Written by llmfs-exercise grade: {}'s exercises against the instructor's libllmfs.\n"
        "cmake_minimum_required(VERSION 3.20)\nproject(llmfs_grading CXX)\n"
        "set(LLMFS_SANITIZE {})\ninclude(\"{}/cmake/llmfs_dependencies.cmake\")\ninclude(\"{}/llmfs-targets.cmake\")\n"
        "set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${{CMAKE_BINARY_DIR}}/bin)\n",
        student.string(), LLMFS_SANITIZE_VALUE, kSourceDir.generic_string(), build.generic_string());
    for (const Exercise* e : chosen) {
        const std::string file = e->program.substr(e->program.find("exercise_")) + ".cpp";
        cmake += fmt::format("add_executable({0} \"{1}\")\ntarget_link_libraries({0} PRIVATE llmfs)\n"
                             "target_compile_options({0} PRIVATE -Wno-unused-parameter)\n",
                             e->program, (fs::absolute(student) / "chapters" / "exercises" / "student" / file).generic_string());
    }
    std::ofstream(dir / "CMakeLists.txt") << cmake;
    return dir;
}

// `text` with `indent` before each line.
std::string indented(const std::string& text, const std::string& indent) {
    std::string out = indent;
    for (char c : text) {
        out += c;
        if (c == '\n') out += indent;
    }
    return out.substr(0, out.find_last_not_of(" \n") + 1);
}

// One page per student in `dir`, "<n>-<name>.txt", for the instructor to send back: each exercise's
// verdict and why (the compiler's first errors, or the first differing line and the variant).
void write_summaries(const fs::path& dir, const std::vector<std::string>& students, const std::vector<const Exercise*>& chosen,
                     const std::map<std::string, std::map<std::string, ExerciseCheck>>& table) {
    fs::create_directories(dir);
    for (std::size_t s = 0; s < students.size(); ++s) {
        std::string page = fmt::format("Exercises of {}\n\n", students[s]);
        std::size_t right = 0;
        for (const Exercise* e : chosen) {
            const ExerciseCheck& c = table.at(students[s]).at(e->id);
            right += solved(c.verdict);
            page += fmt::format("{} {}: {}\n{}\n\n", e->id, e->title, grade_name(c.verdict), indented(c.message, "    "));
        }
        page += fmt::format("{} of {} exercise(s) right.\n", right, chosen.size());
        const fs::path file = dir / fmt::format("{}-{}.txt", s + 1, student_name(students[s]));
        std::ofstream out(file, std::ios::trunc);
        if (!(out << page)) throw std::runtime_error("cannot write " + file.string());
    }
}

int grade(const GradeOptions& opt, const char* argv0) {
    const auto build = build_dir(argv0);
    if (!build) throw std::runtime_error("grade runs from a build tree (build/bin/llmfs-exercise): this one has no CMakeCache.txt");
    std::vector<const Exercise*> chosen;
    for (const Exercise& e : exercises()) {
        if (opt.only.empty() || std::find(opt.only.begin(), opt.only.end(), e.id) != opt.only.end()) chosen.push_back(&e);
    }
    for (const std::string& id : opt.only) find_exercise(id);  // an unknown id is a usage error
    for (const std::string& student : opt.students) {
        if (!fs::is_directory(fs::path(student) / "chapters" / "exercises" / "student"))
            throw std::invalid_argument(student + " is not a student tree: it has no chapters/exercises/student/");
    }
    // The instructor's expected outputs, never the student's (whose goldens may be edited); the
    // student's program gets the instructor's data without them.
    const fs::path data = data_dir();
    ProcessOptions run_options;
    run_options.env = {{"LLMFS_DATA_DIR", write_grading_data(data, *build / "grading" / "data").string()},
                       {"LLMFS_FIGURE_DIR", (*build / "grading" / "figures").string()}};
    // Under the BLAS kernel the goldens were printed with, where this CPU can run it: a right
    // answer is then right byte for byte, not "right, but not bit-exact" for this CPU's rounding.
    if (can_run_golden_blas_kernel()) run_options.env.emplace_back("OPENBLAS_CORETYPE", golden_blas_kernel());
    run_options.timeout_seconds = 600;
    // The solution programs (this build's, when it is the solutions build) print the hidden variants'
    // expected outputs, with the instructor's data; kept in memory only, once per variant and kernel.
    ProcessOptions solution_options = run_options;
    solution_options.env[0].second = data.string();
    if (!kSolutionsBuild)
        std::cerr << "llmfs-exercise grade: this is a student build (no solutions): only the book's case is judged, "
                     "not the hidden variants; grade from the solutions build to run them\n";
    std::map<std::string, std::string> variant_expected;  // "3.3 mkl 2" -> the solution's outputs
    const auto expected_for = [&](const Exercise& e, const std::string& kernel, std::size_t v) -> const std::string& {
        const std::string key = fmt::format("{} {} {}", e.id, kernel, v);
        if (auto it = variant_expected.find(key); it != variant_expected.end()) return it->second;
        if (std::error_code ec; !fs::exists(executable_dir(argv0) / e.program, ec))
            throw std::runtime_error(fmt::format("the solution {} is not built, so exercise {}'s variants have no expected output: "
                                                 "cmake --build {} --target exercises",
                                                 (executable_dir(argv0) / e.program).string(), e.id, build->string()));
        const ProcessResult run =
            run_exercise_program(e, executable_dir(argv0) / e.program, executable_dir(argv0), kernel, solution_options, e.variants[v]);
        if (run.exit_code != 0)
            throw std::runtime_error(fmt::format("exercise {}: the solution {} {} failed (exit {}), so variant {} has no expected output: {}",
                                                 e.id, e.program, fmt::join(e.variants[v], " "), run.exit_code, v + 1, run.err));
        return variant_expected[key] = outputs_only(run.out);
    };
    // The box each student's program runs in: it reads the data it needs (the vocabulary, the
    // texts, GPT-2's files), never the expected outputs; under AddressSanitizer (whose shadow
    // memory is terabytes of address space) without the memory limit.
    SandboxLimits box;
    box.wall_seconds = opt.time_limit;
    box.cpu_seconds = opt.time_limit * std::max(1u, std::thread::hardware_concurrency());
    box.memory_mb = std::string(LLMFS_SANITIZE_VALUE) == "ON" ? 0 : opt.memory_limit;
    box.file_mb = opt.file_limit;
    box.processes = 256;  // OpenBLAS's threads (one a core) and then some; a fork bomb's 257th fork fails
    box.readable.push_back(run_options.env[0].second);  // the grading data folder: data/ without golden/
    // The student's build: its tree, this build's library and headers, the system; it writes only
    // its grading folder (a `#include` of the instructor's ~/.ssh/id_rsa finds nothing).
    SandboxLimits build_box;
    build_box.wall_seconds = 1800;
    build_box.file_mb = 1024;
    build_box.processes = 1024;  // make, cmake and the compilers at once
    build_box.readable = {kSourceDir / "cmake", kSourceDir / "common", *build / "common" / "include",
                          *build / "common" / "libllmfs.a", *build / "llmfs-targets.cmake"};
    const bool build_boxed = sandbox_kind() == SandboxKind::bubblewrap;
    std::cerr << sandbox_description(box) << "\n"
              << (build_boxed ? "sandbox: the students' builds run in bubblewrap too (they read only their tree, this build's library and the system)\n"
                              : "sandbox: the students' builds run unboxed: a student's source could #include any file this user may read\n");

    std::map<std::string, std::map<std::string, ExerciseCheck>> table;  // student -> exercise -> verdict and reason
    std::map<std::string, std::map<std::string, std::size_t>> variants_run;
    for (std::size_t s = 0; s < opt.students.size(); ++s) {
        const std::string& student = opt.students[s];
        const fs::path project = write_grading_project(*build, student, s, chosen);
        std::cerr << fmt::format("grading {} ...\n", student);
        SandboxLimits student_build = build_box;
        student_build.work_dir = project;
        student_build.readable.push_back(fs::absolute(student));
        const auto cmake = [&](const std::vector<std::string>& args) -> ProcessResult {
            if (!build_boxed) return run_cmake(args);
            return run_sandboxed(LLMFS_CMAKE_COMMAND, args, {}, student_build);
        };
        const ProcessResult configured =
            cmake({"-S", project.string(), "-B", (project / "build").string(), "-DCMAKE_BUILD_TYPE=" LLMFS_BUILD_TYPE,
                   "-DCMAKE_CXX_COMPILER=" LLMFS_CXX_COMPILER, "-DCMAKE_CXX_FLAGS=" LLMFS_CXX_FLAGS});
        for (const Exercise* e : chosen) {
            const ProcessResult made = configured.exit_code != 0 ? configured
                                                                 : cmake({"--build", (project / "build").string(), "--target", e->program});
            if (made.exit_code != 0) {
                table[student].emplace(e->id, build_failure(*e, made.out + made.err));
                continue;
            }
            const fs::path program = project / "build" / "bin" / e->program;
            std::optional<ExerciseCheck> worst;
            for (const std::string& kernel : golden_kernels(data, *e)) {
                const std::string golden = read_file_checked(data / "golden" / kernel / (e->program + ".txt"));
                ExerciseCheck c = judge(*e, program, executable_dir(argv0), golden, kernel, run_options, {}, false, &box);
                if (solved(c.verdict) && kSolutionsBuild && !e->variants.empty()) {
                    std::vector<ExerciseCheck> on_variants;
                    for (std::size_t v = 0; v < e->variants.size(); ++v)
                        on_variants.push_back(
                            judge(*e, program, executable_dir(argv0), expected_for(*e, kernel, v), kernel, run_options, e->variants[v],
                                  false, &box));
                    variants_run[student][e->id] = on_variants.size();
                    c = combine_variants(*e, c, on_variants);
                }
                // the worse of the two dropout modes (the enum's order)
                if (!worst || c.verdict > worst->verdict) worst = c;
            }
            table[student].emplace(e->id, *worst);
        }
    }
    const auto verdict = [&](const std::string& student, const Exercise* e) { return table[student].at(e->id).verdict; };
    if (!opt.summary.empty()) write_summaries(opt.summary, opt.students, chosen, table);
    if (opt.json) {
        nlohmann::ordered_json rows = nlohmann::ordered_json::array();
        for (const std::string& student : opt.students)
            for (const Exercise* e : chosen)
                rows.push_back({{"student", student},
                                {"exercise", e->id},
                                {"verdict", grade_name(verdict(student, e))},
                                {"variants", variants_run[student][e->id]},
                                {"details", table[student].at(e->id).message},
                                {"sandbox", sandbox_kind() == SandboxKind::bubblewrap ? "bubblewrap" : "rlimits"}});
        std::cout << rows.dump(2) << "\n";
        return 0;
    }
    std::size_t name_width = 7;
    for (const std::string& student : opt.students) name_width = std::max(name_width, student.size());
    std::vector<std::size_t> widths;
    for (const Exercise* e : chosen) {
        std::size_t w = e->id.size();
        for (const std::string& student : opt.students) w = std::max(w, std::string(grade_name(verdict(student, e))).size());
        widths.push_back(w);
    }
    const auto print_row = [&](const std::string& first, const auto& cell) {
        std::string row = fmt::format("{:<{}}", first, name_width);
        for (std::size_t k = 0; k < chosen.size(); ++k) row += fmt::format("  {:<{}}", cell(k), widths[k]);
        std::cout << row.substr(0, row.find_last_not_of(' ') + 1) << "\n";
    };
    print_row("student", [&](std::size_t k) { return chosen[k]->id; });
    for (const std::string& student : opt.students)
        print_row(student, [&](std::size_t k) { return std::string(grade_name(verdict(student, chosen[k]))); });
    if (opt.details) {
        for (const std::string& student : opt.students) {
            std::cout << "\n" << student << ":\n";
            for (const Exercise* e : chosen) std::cout << indented(table[student].at(e->id).message, "  ") << "\n";
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"The classroom exercises 3.1-5.4 of the book: list and check them (students); hand out,\n"
                 "audit and grade them (instructors).",
                 "llmfs-exercise"};
    app.require_subcommand(1);
    app.add_subcommand("list", "each exercise's statement, the file to edit and the C++ names its answer needs");

    CheckOptions check_opt;
    auto* check_cmd = app.add_subcommand("check", "build an exercise's program from its current source, run it and judge its output");
    check_cmd->add_option("exercise", check_opt.id, "the exercise, e.g. 3.1")->required();
    check_cmd->add_option("--bernoulli", check_opt.bernoulli, "the dropout kernel to run and compare with")
        ->capture_default_str()
        ->check(CLI::IsMember({"mkl", "default"}));
    check_cmd->add_option("--program", check_opt.program,
                          "judge this program as it is, building nothing (default: build and run the one beside llmfs-exercise)");
    check_cmd->add_option("--golden", check_opt.golden, "the expected output, as text or, ending in .lines, as digests (default: data/golden/KERNEL/PROGRAM.txt, in a hand-out .lines)");

    std::string handout_dir, audit_dir;
    auto* handout_cmd = app.add_subcommand("handout", "write a buildable student tree, with no answer in any file, into DIR");
    handout_cmd->add_option("DIR", handout_dir, "a new (or empty) folder")->required();
    auto* audit_cmd = app.add_subcommand("audit", "name each file under DIR that holds an answer: a solution line, the book's solution code, an expected output");
    audit_cmd->add_option("DIR", audit_dir, "a hand-out, or any tree about to be published")->required();

    GradeOptions grade_opt;
    auto* grade_cmd = app.add_subcommand(
        "grade", "build each student tree's exercises against this build's library, and judge them against this build's goldens");
    grade_cmd->add_option("STUDENT_DIR", grade_opt.students, "student trees (each with chapters/exercises/student/)")->required();
    grade_cmd->add_option("--exercise", grade_opt.only, "grade only this exercise, e.g. --exercise 3.2 (repeatable)")
        ->allow_extra_args(false);  // one value each: the student trees after it stay positional
    grade_cmd->add_flag("--json", grade_opt.json,
                        "print a JSON list of {student, exercise, verdict, variants (how many hidden variants ran), details, sandbox}");
    grade_cmd->add_flag("--details", grade_opt.details,
                        "under the table, each verdict's reason: the compiler's first errors, or the first differing line "
                        "(expected and got) and the variant it came from");
    grade_cmd->add_option("--summary", grade_opt.summary, "write one page per student (DIR/N-NAME.txt) to send back")->type_name("DIR");
    grade_cmd->add_option("--time-limit", grade_opt.time_limit, "seconds each run of a student's program may take (wall time)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    grade_cmd->add_option("--memory-limit", grade_opt.memory_limit, "MB of address space each run may use")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    grade_cmd->add_option("--file-limit", grade_opt.file_limit, "MB: the largest file a run may write")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);

    bool force = false;
    auto* sources_cmd = app.add_subcommand("student-sources", "write chapters/exercises/student/ from solutions/, "
                                                              "never over a student file that was edited");
    sources_cmd->add_flag("--force", force, "overwrite edited student files too");

    std::string solution, output;
    auto* copy_cmd = app.add_subcommand("student-copy", "print (or write) the student version of a solution source");
    copy_cmd->add_option("solution", solution, "e.g. chapters/exercises/solutions/exercise_3_1.cpp")->required();
    copy_cmd->add_option("-o,--output", output, "write it to this file instead of stdout");

    app.footer("Verdicts: right (byte for byte), right-not-bit-exact (the last printed digits), differs-on-variants\n"
               "(right on the book's case, wrong on some of grade's hidden variants: other seeds, sizes, configurations,\n"
               "judged against the solutions build's own programs), differs, build-error, runtime-error, not-finished (a\n"
               "TODO is left). Instructors: docs/classroom.md.");
    return run_tool(app, argc, argv, [&] {
        if (*check_cmd) {
            // Without --bernoulli, an exercise with the default kernel's goldens only (5.4) is checked that way.
            if (check_cmd->get_option("--bernoulli")->count() == 0 && check_opt.golden.empty())
                check_opt.bernoulli = golden_kernels(data_dir(), find_exercise(check_opt.id)).front();
            return check(check_opt, argv[0]);
        }
        if (*handout_cmd) return handout(handout_dir);
        if (*audit_cmd) return audit(audit_dir);
        if (*grade_cmd) return grade(grade_opt, argv[0]);
        if (*sources_cmd) {
            const fs::path exercises_dir = kSourceDir / "chapters" / "exercises";
            if (!fs::is_directory(exercises_dir / "solutions"))
                throw std::runtime_error("this tree has no chapters/exercises/solutions/ (a hand-out): nothing to write from");
            for (const std::string& file : write_student_sources(exercises_dir / "solutions", exercises_dir / "student", force))
                std::cout << "wrote " << file << "\n";
            return 0;
        }
        if (*copy_cmd) {
            const std::string copy = student_copy(read_file_checked(solution, "give the path of a solution source"));
            if (output.empty()) return std::cout << copy ? 0 : kExitRuntimeError;
            std::ofstream out(output, std::ios::binary);
            return out << copy ? 0 : (std::cerr << "llmfs-exercise: cannot write " << output << "\n", kExitRuntimeError);
        }
        return list();
    });
}
