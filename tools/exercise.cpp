// llmfs-exercise: the classroom exercises 3.1-4.3.
//   llmfs-exercise list                  each exercise's number, title and statement
//   llmfs-exercise check 3.1             runs ch03_exercise_3_1 (built beside this tool; builds nothing)
//                                        and says whether its output is right, with the first wrong line
//   llmfs-exercise student-copy FILE [-o OUT]  the student version of a solution source (TODOs for answers)
// check exits 0 when the output is right (also when right but not bit-exact), 1 otherwise.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include "llmfs/torch/blas.hpp"
#include "llmfs/app/cli.hpp"
#include "llmfs/text/data_dir.hpp"
#include "llmfs/app/exercise.hpp"
#include "llmfs/app/process.hpp"

using namespace llmfs;
namespace fs = std::filesystem;

namespace {

struct Run {
    int exit_code;
    std::string out, err;
};

std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Runs `command` (already quoted) through the shell: its exit code, stdout and stderr.
Run run_command(const std::string& command) {
    char err_path[] = "/tmp/llmfs-exercise-XXXXXX";
    const int fd = mkstemp(err_path);
    if (fd < 0) throw std::runtime_error("cannot create a temporary file in /tmp");
    close(fd);
    Run run{0, {}, {}};
    FILE* pipe = popen((command + " 2>" + shell_quote(err_path)).c_str(), "r");
    if (!pipe) throw std::runtime_error("cannot run " + command);
    char buffer[4096];
    for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) run.out.append(buffer, n);
    const int status = pclose(pipe);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    run.err = read_file_checked(err_path);
    fs::remove(err_path);
    return run;
}

int list() {
    for (const auto& e : exercises())
        std::cout << fmt::format("{}  {}  ({})\n{}\n\n", e.id, e.title, e.program, e.statement);
    return 0;
}

struct CheckOptions {
    std::string id, bernoulli = "mkl", program, golden;
};

int check(const CheckOptions& opt, const char* argv0) {
    const Exercise& e = find_exercise(opt.id);
    const fs::path program = opt.program.empty() ? executable_dir(argv0) / e.program : fs::path(opt.program);
    const fs::path golden = opt.golden.empty() ? data_dir() / "golden" / opt.bernoulli / (e.program + ".txt") : fs::path(opt.golden);
    if (!fs::exists(program))
        throw std::runtime_error(fmt::format("{} is not built: run cmake --build build --target {}", program.string(), e.program));
    const std::string expected = read_file_checked(golden);
    const Run run = run_command(fmt::format("{} --annotate --bernoulli {}", shell_quote(program.string()), opt.bernoulli));
    ExerciseCheck result = check_exercise_output(e, expected, run.out, run.exit_code, run.err);
    // The program runs in this environment, so OpenBLAS picked the same kernel for it as for us.
    if (const std::string note = blas_kernel_note(); result.verdict == ExerciseVerdict::close && !note.empty())
        result.message += "\n  close: " + note;
    (result.verdict == ExerciseVerdict::match || result.verdict == ExerciseVerdict::close ? std::cout : std::cerr)
        << result.message << "\n";
    return result.verdict == ExerciseVerdict::match || result.verdict == ExerciseVerdict::close ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"The classroom exercises 3.1-4.3 of the book: list them, check an answer, make a student copy.",
                 "llmfs-exercise"};
    app.require_subcommand(1);
    app.add_subcommand("list", "print each exercise's number, title and statement");

    CheckOptions check_opt;
    auto* check_cmd = app.add_subcommand("check", "run an exercise's program (it must be built) and judge its output");
    check_cmd->add_option("exercise", check_opt.id, "the exercise, e.g. 3.1")->required();
    check_cmd->add_option("--bernoulli", check_opt.bernoulli, "the dropout kernel to run and compare with")
        ->capture_default_str()
        ->check(CLI::IsMember({"mkl", "default"}));
    check_cmd->add_option("--program", check_opt.program, "the program to run (default: the one beside llmfs-exercise)");
    check_cmd->add_option("--golden", check_opt.golden, "the expected output (default: data/golden/KERNEL/PROGRAM.txt)");

    std::string solution, output;
    auto* copy_cmd = app.add_subcommand("student-copy", "print (or write) the student version of a solution source");
    copy_cmd->add_option("solution", solution, "e.g. chapters/exercises/solutions/exercise_3_1.cpp")->required();
    copy_cmd->add_option("-o,--output", output, "write it to this file instead of stdout");

    return run_tool(app, argc, argv, [&] {
        if (*check_cmd) return check(check_opt, argv[0]);
        if (*copy_cmd) {
            const std::string copy = student_copy(read_file_checked(solution, "give the path of a solution source"));
            if (output.empty()) return std::cout << copy ? 0 : kExitRuntimeError;
            std::ofstream out(output, std::ios::binary);
            return out << copy ? 0 : (std::cerr << "llmfs-exercise: cannot write " << output << "\n", kExitRuntimeError);
        }
        return list();
    });
}
