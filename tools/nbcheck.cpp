// llmfs-nbcheck: does a notebook you ran print what the chapter programs print? Cell by cell.
//
//   llmfs-nbcheck ch03.ipynb                 one line per output cell, then the summary line
//   llmfs-nbcheck ch04.ipynb --diff          plus a unified diff under each close/differ cell
//   llmfs-nbcheck ch03.ipynb --json          the same as JSON
//   llmfs-nbcheck ch03.ipynb --strict        exit 1 also when a cell of the book is missing, or a
//                                            cell never ran or raised an error
//   llmfs-nbcheck ch05.ipynb --no-training   the training programs stop before they train (their
//                                            training cells are then not covered)
//
// Runs every chapter program once with --annotate (those that draw dropout once more with the
// other kernel under --bernoulli auto), maps the notebook's cells onto the programs' cells by their
// code (common/app/nbcheck.cpp) and compares the outputs (common/app/compare.cpp).
// A training program (ch05_pretraining, appendix_d_training) runs once, with --bernoulli default
// whatever the notebook's kernel: an MKL build's training cannot be matched (its sgemm is MKL's),
// and training twice would double the longest run.
// The book's exercise notebooks (exercise-solutions.ipynb of ch02-ch05, ch07) are checked against the
// exercise programs, which run only when the chapter's own programs do not cover a notebook (the
// chapter the path names first, then every chapter in turn).
// Exit status: 0 when no cell differs, 1 when one does or a program fails (or, with --strict, when
// the notebook is incomplete), 2 for bad input.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdlib.h>
#include <nlohmann/json.hpp>

#include "llmfs/torch/blas.hpp"
#include "llmfs/app/cli.hpp"
#include "llmfs/app/nbcheck.hpp"
#include "llmfs/app/process.hpp"
#include "llmfs/nn/tf_checkpoint.hpp"
#include "llmfs/text/data_dir.hpp"

namespace {

using llmfs::CellResult;
using llmfs::CellStatus;
using llmfs::ProgramCell;

// The programs, in the groups llmfs-nbcheck tries in turn, from CMake:
// "ch03:ch03_naive_attention,...|ch03 exercises:ch03_exercise_3_1,...|ch04:...|ch04 exercises:...".
struct Group {
    std::string name;
    std::vector<std::string> programs;
    bool exercises() const { return name.find("exercises") != std::string::npos; }
};
// The training programs, from CMake, comma-separated: "ch05_pretraining=5.1" (program=the last
// section it runs under --no-training, given to its --stop-after) or "ch05_exercise_5_4" (an
// exercise that trains briefly: run whole). Each runs once, with --bernoulli default.
std::map<std::string, std::string> training_programs() {
    std::map<std::string, std::string> training;
    std::istringstream list{LLMFS_NBCHECK_TRAINING};
    for (std::string text; std::getline(list, text, ',');) {
        const std::size_t eq = text.find('=');
        training[text.substr(0, eq)] = eq == std::string::npos ? "" : text.substr(eq + 1);
    }
    return training;
}
std::vector<Group> program_groups() {
    std::vector<Group> groups;
    std::istringstream list{LLMFS_NBCHECK_GROUPS};
    for (std::string text; std::getline(list, text, '|');) {
        Group g{text.substr(0, text.find(':')), {}};
        std::istringstream names{text.substr(text.find(':') + 1)};
        for (std::string name; std::getline(names, name, ',');) g.programs.push_back(name);
        groups.push_back(g);
    }
    return groups;
}

struct Run {
    std::vector<ProgramCell> cells;
    bool drew_dropout = false;  // the program said on stderr which dropout kernel it used
};

std::string lowercase(const std::string& text) {
    std::string lower;
    for (const char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower;
}

bool is_exercise_notebook(const std::string& path) { return lowercase(path).find("exercise") != std::string::npos; }

// The group of the chapter a notebook's path names (its index in `groups`): ".../ch05/01_main-chapter-code/ch05.ipynb"
// and "ch04_book.ipynb" name "ch05" and "ch04", "appendix-D.ipynb" names "appendix_d",
// ".../ch07/01_main-chapter-code/exercise-solutions.ipynb" names "ch07" (whose exercises' group the
// caller tries next); nothing for a path that names no group. That group's programs run first: a
// chapter-5 notebook need not wait for the chapter-3 and 4 programs (GPT-2 124M among them) to be
// refused by them first, nor chapter 7's exercise notebook for every chapter before it (49 s, not 1).
std::optional<std::size_t> named_group(const std::string& path, const std::vector<Group>& groups) {
    const std::string lower = lowercase(path);
    std::string name;
    for (std::size_t i = 0; i + 2 < lower.size(); ++i) {
        const bool starts_word = i == 0 || !std::isalnum(static_cast<unsigned char>(lower[i - 1]));
        if (!starts_word) continue;
        if (lower.compare(i, 2, "ch") == 0 && std::isdigit(static_cast<unsigned char>(lower[i + 2]))) {
            std::size_t j = i + 2;
            while (j < lower.size() && lower[j] == '0') ++j;
            std::string digits;
            while (j < lower.size() && std::isdigit(static_cast<unsigned char>(lower[j]))) digits += lower[j++];
            if (!digits.empty() && digits.size() <= 2) name = "ch" + std::string(2 - digits.size(), '0') + digits;
        } else if (lower.compare(i, 8, "appendix") == 0) {
            std::size_t j = i + 8;
            if (j < lower.size() && (lower[j] == '-' || lower[j] == '_' || lower[j] == ' ')) ++j;
            if (j < lower.size() && std::isalpha(static_cast<unsigned char>(lower[j])) &&
                (j + 1 == lower.size() || !std::isalnum(static_cast<unsigned char>(lower[j + 1]))))
                name = std::string("appendix_") + lower[j];
        }
    }
    const auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.name == name; });
    if (it == groups.end()) return std::nullopt;
    return static_cast<std::size_t>(it - groups.begin());
}

// A chapter program must run; an exercise program may stop (a student build's TODO), which leaves
// its cells uncovered and says so on stderr.
Run run_annotated(const std::filesystem::path& bin, const std::string& program, const std::string& kernel, bool may_fail = false,
                  const std::vector<std::string>& more_args = {}) {
    std::vector<std::string> args{"--annotate", "--bernoulli", kernel};
    args.insert(args.end(), more_args.begin(), more_args.end());
    const llmfs::ProcessResult r = llmfs::run_process(bin / program, args);
    if (r.exit_code != 0) {
        const std::string what = program + " " + fmt::format("{}", fmt::join(args, " ")) + " failed with exit code " +
                                 std::to_string(r.exit_code) + ": " + r.err;
        if (!may_fail) throw std::runtime_error(what);
        std::cerr << "llmfs-nbcheck: " << what << "(its cells are not covered)\n";
        return {};
    }
    return {llmfs::parse_annotated(program, r.out), r.err.find("dropout drawn with") != std::string::npos};
}

// A chapter's notebook is a few MB, with figures; more than this is not one (/dev/zero, say).
constexpr std::uintmax_t kMaxNotebookBytes = std::uintmax_t{128} << 20;

std::string read_notebook_file(const std::string& path) { return llmfs::read_input(path, kMaxNotebookBytes, "notebook"); }

// "3.3.1" of "3.3.1 A simple self-attention ...", "Exercise 3.1" of "Exercise 3.1: Comparing ...".
std::string section_number(const std::string& section) {
    if (section.rfind("Exercise ", 0) == 0) return section.substr(0, section.find_first_of(": ", 9));
    return section.substr(0, section.find(' '));
}

struct Check {
    std::vector<ProgramCell> cells;   // every program's cells, in program order
    std::vector<CellResult> results;  // one per output cell of the notebook
};

// How the notebook's dropout cells agree with one kernel's run: (matches, closes).
std::pair<std::size_t, std::size_t> dropout_agreement(const Check& check, const std::map<std::string, bool>& dropout) {
    std::pair<std::size_t, std::size_t> score{0, 0};
    for (const CellResult& r : check.results) {
        if (!r.program_cell || !dropout.at(check.cells[*r.program_cell].program)) continue;
        score.first += r.status == CellStatus::match;
        score.second += r.status == CellStatus::close;
    }
    return score;
}

// A check writes nothing that stays: the figures the programs draw (ch04_feed_forward's GELU plot)
// go to a temporary folder, removed when the check ends.
struct ScratchFigures {
    llmfs::TempFolder dir{"llmfs-nbcheck"};
    ScratchFigures() { ::setenv("LLMFS_FIGURE_DIR", dir.path().c_str(), 1); }  // the programs run next inherit it
};

struct Options {
    std::string notebook, bernoulli = "auto";
    std::string data, weights;  // --data (else found beside the notebook), --weights
    bool show_diff = false, as_json = false, strict = false, no_training = false;
};

// The programs that read the SMS Spam Collection (--data) and those that take GPT-2's weights
// (--weights), from CMake, comma-separated.
bool listed(const char* list_text, const std::string& program) {
    std::istringstream list{list_text};
    for (std::string name; std::getline(list, name, ',');)
        if (name == program) return true;
    return false;
}

// The SMS Spam Collection for chapter 6's and appendix E's programs: --data, else where the
// notebook's download cell leaves it, beside the notebook (sms_spam_collection/SMSSpamCollection.tsv,
// or the zip); "" when neither.
std::string sms_data(const Options& opt) {
    if (!opt.data.empty()) return opt.data;
    if (opt.notebook == "-") return "";
    const std::filesystem::path dir = std::filesystem::path(opt.notebook).parent_path();
    for (const char* name : {"sms_spam_collection/SMSSpamCollection.tsv", "sms_spam_collection.zip"}) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(dir / name, ec)) return (dir / name).string();
    }
    return "";
}

// gpt_download.py's gpt2/124M folder for the programs that read nothing else (ch05_openai_weights):
// --weights when it is a folder, else where the notebook's download cell leaves it, gpt2/124M
// beside the notebook; "" when neither.
std::string gpt2_folder(const Options& opt) {
    std::error_code ec;
    if (!opt.weights.empty()) return std::filesystem::is_directory(opt.weights, ec) ? opt.weights : "";
    if (opt.notebook == "-") return "";
    const std::filesystem::path folder = std::filesystem::path(opt.notebook).parent_path() / "gpt2" / "124M";
    return std::filesystem::is_regular_file(folder / "hparams.json", ec) ? folder.string() : "";
}

// A cell's first line of code as written (blank and comment lines skipped), for a report line.
std::string first_line(const std::string& code) {
    std::istringstream lines(code);
    for (std::string line; std::getline(lines, line);) {
        const std::size_t begin = line.find_first_not_of(" \t");
        if (begin == std::string::npos || line[begin] == '#') continue;
        line = line.substr(begin, line.find_last_not_of(" \t\r") - begin + 1);
        return "`" + (line.size() > 70 ? line.substr(0, 67) + "..." : line) + "`";
    }
    return "``";
}

// Why cells are close, as far as a check can know, one line per cause:
//   - a cell whose code is not the book's: the edit;
//   - the others, when this machine ran the OpenBLAS kernel the suite's expected outputs were
//     printed with (its programs then print PyTorch's own digits, as the tests check): the
//     notebook's own run, whose BLAS (MKL, Accelerate) or PyTorch build rounds differently;
//   - else either side could be the cause, and OPENBLAS_CORETYPE=<the goldens' kernel> tells them
//     apart where this CPU can run it.
std::string close_note(const std::vector<CellResult>& results) {
    std::vector<std::size_t> edited, plain;
    for (const CellResult& r : results) {
        if (r.status == CellStatus::close) (r.code_change.empty() ? plain : edited).push_back(r.index);
    }
    const auto cells = [](const std::vector<std::size_t>& v) {
        return (v.size() == 1 ? "cell " : "cells ") + fmt::format("{}", fmt::join(v, ", "));
    };
    std::vector<std::string> lines;
    if (!edited.empty())
        lines.push_back("close: " + cells(edited) + ": the notebook's code differs from the book's there (the lines named "
                        "above), and the edit moved the last digits");
    if (!plain.empty()) {
        const std::string running = llmfs::blas_kernel(), golden = llmfs::golden_blas_kernel();
        if (running == golden) {
            lines.push_back("close: " + cells(plain) + ": the programs' products came from OpenBLAS's " + running +
                            " kernel, the one the expected outputs were printed with, so these last digits come from the "
                            "notebook's own run: its BLAS (MKL on Intel Linux, Accelerate on macOS) or its PyTorch build "
                            "rounds differently");
        } else {
            lines.push_back("close: " + cells(plain) + ": this machine's OpenBLAS kernel (" + running +
                            ") is not the one the expected outputs were printed with (" + golden +
                            "), and the notebook's own BLAS (MKL on Intel Linux, Accelerate on macOS) can round a last digit "
                            "differently too; " +
                            (llmfs::can_run_golden_blas_kernel()
                                 ? "check again with OPENBLAS_CORETYPE=" + golden + " in the environment to tell which"
                                 : "this CPU cannot run the " + golden + " kernel to tell which"));
        }
    }
    return fmt::format("{}", fmt::join(lines, "\n"));
}

int run(const Options& opt, const std::filesystem::path& bin) {
    const std::string& notebook_path = opt.notebook;
    const std::string& bernoulli = opt.bernoulli;
    const ScratchFigures figures;
    const std::vector<llmfs::NotebookCell> notebook = llmfs::read_notebook(read_notebook_file(notebook_path));
    if (notebook.empty()) throw std::invalid_argument(notebook_path + " has no code cells");

    // One run of each program with the first kernel, chapter by chapter until the notebook's cells
    // are covered (a chapter-3 notebook never waits for GPT-2 to be built); programs that drew
    // dropout may run once more with the other kernel below.
    const std::string first_kernel = bernoulli == "default" ? "default" : "mkl";
    std::map<std::string, bool> dropout;
    Check check;
    std::vector<std::string> notes;  // what was left out: the data's cells without --data, training with --no-training
    bool notebook_covered = false;  // a group's programs cover the notebook
    const auto looks_checked = [&check](const std::vector<CellResult>& results, const Group& group) {
        std::size_t covered = 0, uncovered = 0, by_group = 0;
        for (const CellResult& r : results) {
            if (r.program_cell) ++covered;
            else if (r.reason != "version print") ++uncovered;
            if (r.program_cell) {
                const std::string& program = check.cells[*r.program_cell].program;
                by_group += std::find(group.programs.begin(), group.programs.end(), program) != group.programs.end();
            }
        }
        // An exercise notebook is mostly prose and cells needing what the suite does not have (OpenAI's
        // weights, the model.pth chapter 5 trained; ch05's): one cell its exercise programs print is enough.
        if (group.exercises() && by_group > 0) return true;
        // A notebook of another chapter shares a cell or two with chapter 4 (GPTModel) at most.
        return covered > 0 && 3 * covered >= uncovered;
    };
    const std::vector<Group> groups = program_groups();
    const std::map<std::string, std::string> training = training_programs();
    // The group the notebook's path names first (named_group); if it does not cover the notebook,
    // every group in order, as if it had not been tried (its runs are kept, not repeated).
    std::vector<Group> order = groups;
    const std::string data = sms_data(opt);
    const std::string folder = gpt2_folder(opt);
    const auto needs_data = [&](const std::string& program) { return data.empty() && listed(LLMFS_NBCHECK_DATA, program); };
    const auto data_message = [](const std::string& program) {
        return program + " reads the SMS Spam Collection, which is neither given (--data FILE) nor beside the notebook "
                         "(sms_spam_collection/SMSSpamCollection.tsv or sms_spam_collection.zip, where its download cell leaves it)";
    };
    // A program that cannot run without an input the check was not given: why, or "".
    const auto missing_input = [&](const std::string& program) -> std::string {
        if (needs_data(program)) return data_message(program);
        if (folder.empty() && listed(LLMFS_NBCHECK_FOLDER, program))
            return program + " reads OpenAI's weights as gpt_download.py's gpt2/124M folder, which is neither given "
                             "(--weights FOLDER) nor beside the notebook (gpt2/124M, where its download cell leaves it)";
        return "";
    };
    const std::optional<std::size_t> named = named_group(notebook_path, groups);
    const bool exercise_notebook = is_exercise_notebook(notebook_path);
    std::size_t named_tried = 0;  // how many groups at the front of `order` the path named
    if (named) {
        const Group& own = groups[*named];
        // the notebook's own chapter cannot run: say so now, not after every other chapter's programs
        for (const std::string& program : own.programs)
            if (!exercise_notebook && needs_data(program))
                throw std::invalid_argument(notebook_path + " is " + own.name + "'s notebook, but " + data_message(program));
        // nor can its program that reads a gpt2/124M folder of another size or with a broken
        // hparams.json: said now, not after the chapter's other programs (ch05_pretraining's 124M)
        if (!folder.empty())
            for (const std::string& program : own.programs)
                if (listed(LLMFS_NBCHECK_FOLDER, program)) {
                    try {
                        llmfs::read_gpt2_hparams(folder);
                    } catch (const std::runtime_error& e) {
                        throw std::runtime_error(program + " reads OpenAI's weights from " + folder + ": " + e.what());
                    }
                }
        std::vector<Group> first{own};
        // an exercise notebook: the chapter's programs, then its exercises' (their cells reuse the chapter's)
        const auto exercises = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.name == own.name + " exercises"; });
        if (exercise_notebook && exercises != groups.end()) first.push_back(*exercises);
        order.insert(order.begin(), first.begin(), first.end());
        named_tried = first.size();
    }
    std::map<std::string, Run> runs;  // program -> its run
    std::vector<std::string> chapter;  // the programs of the group that covers the notebook
    std::map<std::string, std::string> left_out;  // a program left out for want of its input -> why
    // A program's own inputs: the data and the weights for those that read them.
    const auto inputs = [&](const std::string& program) {
        std::vector<std::string> args;
        if (listed(LLMFS_NBCHECK_DATA, program)) args = {"--data", data};
        if (listed(LLMFS_NBCHECK_WEIGHTS, program) && !opt.weights.empty()) args.insert(args.end(), {"--weights", opt.weights});
        if (listed(LLMFS_NBCHECK_FOLDER, program)) args.insert(args.end(), {"--weights", folder});
        return args;
    };
    for (std::size_t g = 0; g < order.size(); ++g) {
        const Group& group = order[g];
        const bool named_group_did_not_cover = named_tried > 0 && g == named_tried;  // tried first: start over, its runs kept
        if (named_group_did_not_cover) check.cells.clear();
        for (const std::string& program : group.programs) {
            auto done = runs.find(program);
            if (const std::string why = missing_input(program); done == runs.end() && !why.empty()) {
                left_out[program] = why + ": its cells are not covered";
                done = runs.emplace(program, Run{}).first;
            }
            if (done == runs.end()) {
                if (const auto t = training.find(program); t != training.end()) {
                    // Until the notebook is known to be this chapter's, only the sections before training
                    // (a training exercise, which continues a checkpoint, runs whole: it is short).
                    std::vector<std::string> args = inputs(program);
                    if (!t->second.empty()) args.insert(args.end(), {"--stop-after", t->second});
                    Run r = run_annotated(bin, program, "default", group.exercises(), args);
                    r.drew_dropout = false;  // never run again with the other kernel
                    done = runs.emplace(program, std::move(r)).first;
                } else {
                    done = runs.emplace(program, run_annotated(bin, program, first_kernel, group.exercises(), inputs(program))).first;
                }
            }
            dropout[program] = done->second.drew_dropout;
            check.cells.insert(check.cells.end(), done->second.cells.begin(), done->second.cells.end());
        }
        check.results = llmfs::check_notebook(notebook, check.cells);
        chapter = group.programs;
        if (looks_checked(check.results, group)) {
            notebook_covered = true;
            // A chapter's notebook is checked against its own programs only: an earlier chapter's
            // cell with like code (a download cell, GPTModel(GPT_CONFIG_124M)) is not its cell. An
            // exercise notebook keeps its chapter's programs too (its cells reuse the chapter's).
            if (!group.exercises()) {
                const auto other = [&](const ProgramCell& c) { return std::find(chapter.begin(), chapter.end(), c.program) == chapter.end(); };
                check.cells.erase(std::remove_if(check.cells.begin(), check.cells.end(), other), check.cells.end());
                check.results = llmfs::check_notebook(notebook, check.cells);
            }
            break;
        }
    }
    if (check.results.empty()) throw std::invalid_argument(notebook_path + " has no output cells to check (run it first)");
    if (!notebook_covered) {
        const llmfs::Summary s = llmfs::summarize(check.results);
        std::string inputs_left_out;  // an input's absence may be why: the notebook's own chapter's, else any
        std::vector<std::string> own;  // the programs of the groups the path named
        for (std::size_t g = 0; g < named_tried; ++g) own.insert(own.end(), order[g].programs.begin(), order[g].programs.end());
        for (const auto& [program, why] : left_out)
            if (named_tried == 0 || std::find(own.begin(), own.end(), program) != own.end()) inputs_left_out += "; " + why;
        throw std::invalid_argument(notebook_path + " does not look like a chapter of the book, or an exercise notebook of "
                                    "chapters 2 to 5 and 7: " + std::to_string(s.covered()) + " of its " + std::to_string(check.results.size()) +
                                    " output cells match a chapter program (llmfs-nbcheck checks ch02 to ch07, "
                                    "the exercise notebooks of ch02 to ch05 and ch07, appendix-D.ipynb and appendix-E.ipynb)" +
                                    inputs_left_out);
    }
    for (const std::string& program : chapter)
        if (const auto it = left_out.find(program); it != left_out.end()) notes.push_back(it->second);

    // The notebook is this chapter's: its training programs train now, unless --no-training.
    for (const std::string& program : chapter) {
        const auto t = training.find(program);
        if (t == training.end() || t->second.empty() || left_out.count(program)) continue;
        if (opt.no_training) {
            notes.push_back(program + " stopped after section " + t->second + " (--no-training): its training cells are not covered");
            continue;
        }
        std::cerr << "llmfs-nbcheck: " << program << " trains as the notebook does (10 to 25 minutes on 2 cores; "
                  << "--no-training stops it before), once, with --bernoulli default\n";
        const Run r = run_annotated(bin, program, "default", false, inputs(program));
        const auto first = std::find_if(check.cells.begin(), check.cells.end(), [&](const ProgramCell& c) { return c.program == program; });
        const auto last = std::find_if(first, check.cells.end(), [&](const ProgramCell& c) { return c.program != program; });
        check.cells.insert(check.cells.erase(first, last), r.cells.begin(), r.cells.end());
        check.results = llmfs::check_notebook(notebook, check.cells);
    }

    // --bernoulli auto: the dropout cells decide between the two kernels.
    std::string kernel = first_kernel, kernel_note = "as asked";
    if (bernoulli == "auto") {
        std::map<std::string, bool> needed;
        for (const CellResult& r : check.results) {
            if (r.program_cell && dropout[check.cells[*r.program_cell].program]) needed[check.cells[*r.program_cell].program] = true;
        }
        if (needed.empty()) {
            kernel_note = "no cell of this notebook draws dropout";
        } else {
            Check other;
            for (const ProgramCell& cell : check.cells) {
                if (!needed.count(cell.program)) other.cells.push_back(cell);
            }
            for (const auto& [program, _] : needed) {
                const Run r = run_annotated(bin, program, "default", program.find("_exercise_") != std::string::npos);
                other.cells.insert(other.cells.end(), r.cells.begin(), r.cells.end());
            }
            other.results = llmfs::check_notebook(notebook, other.cells);
            const auto mkl_score = dropout_agreement(check, dropout);
            const auto default_score = dropout_agreement(other, dropout);
            const auto describe = [](std::pair<std::size_t, std::size_t> s) {
                return std::to_string(s.first) + " match, " + std::to_string(s.second) + " close";
            };
            if (default_score > mkl_score) {
                check = std::move(other);
                kernel = "default";
            }
            kernel_note = "picked by the dropout cells: mkl " + describe(mkl_score) + "; default " + describe(default_score);
        }
    }

    llmfs::set_aside_other_chapters(check.results, check.cells, chapter);
    const llmfs::Summary summary = llmfs::summarize(check.results);
    const llmfs::Completeness completeness = llmfs::check_completeness(notebook, check.cells, chapter);
    const auto code_of = [&](std::size_t index) { return notebook[index - 1].code; };
    const std::string blas_note = close_note(check.results);
    if (opt.as_json) {
        nlohmann::json cells = nlohmann::json::array();
        for (const CellResult& r : check.results) {
            nlohmann::json cell{{"cell", r.index}, {"status", llmfs::to_string(r.status)}};
            if (r.program_cell) {
                const ProgramCell& p = check.cells[*r.program_cell];
                cell["section"] = p.section;
                cell["program"] = p.program;
                cell["cpp"] = p.cpp;
            }
            if (!r.reason.empty()) cell["reason"] = r.reason;
            if (!r.diff.empty()) cell["diff"] = r.diff;
            if (!r.code_change.empty()) cell["code_change"] = r.code_change;
            cells.push_back(cell);
        }
        nlohmann::json missing = nlohmann::json::array(), not_run = nlohmann::json::array(), errors = nlohmann::json::array();
        for (std::size_t k : completeness.missing) {
            const ProgramCell& p = check.cells[k];
            missing.push_back({{"section", p.section}, {"program", p.program}, {"cpp", p.cpp}, {"code", first_line(p.code)}});
        }
        for (std::size_t i : completeness.not_run) not_run.push_back({{"cell", i}, {"code", first_line(code_of(i))}});
        for (std::size_t i : completeness.errors) errors.push_back({{"cell", i}, {"error", notebook[i - 1].error_text}});
        nlohmann::json report{
            {"notebook", notebook_path},
            {"bernoulli", {{"mode", bernoulli}, {"kernel", kernel}, {"why", kernel_note}}},
            {"blas", {{"kernel", llmfs::blas_kernel()}, {"golden_kernel", llmfs::golden_blas_kernel()}}},
            {"cells", cells},
            {"completeness", {{"missing", missing}, {"not_run", not_run}, {"errors", errors},
                              {"line", llmfs::completeness_line(completeness)}}},
            {"summary",
             {{"match", summary.match}, {"close", summary.close}, {"differ", summary.differ},
              {"not_covered", summary.not_covered}, {"covered", summary.covered()}, {"line", llmfs::summary_line(summary)}}}};
        if (summary.close > 0) report["blas"]["note"] = blas_note;  // one line per cause
        if (!notes.empty()) report["notes"] = notes;
        // A text export may hold any bytes, and its diffs with them: invalid UTF-8 becomes U+FFFD.
        std::cout << report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } else {
        std::cout << notebook_path << ": dropout kernel " << kernel << " (" << kernel_note << ")\n";
        for (const CellResult& r : check.results) {
            std::cout << "cell " << r.index << "  ";
            if (r.program_cell) {
                const ProgramCell& p = check.cells[*r.program_cell];
                std::cout << section_number(p.section) << "  " << llmfs::to_string(r.status);
                if (!r.code_change.empty()) std::cout << " (code differs from the book's: " << r.code_change << ")";
                std::cout << "  " << p.program << "  " << p.cpp << '\n';
            } else {
                std::cout << "-  not covered  (" << r.reason << ")\n";
            }
            if (opt.show_diff && !r.diff.empty()) std::cout << r.diff;
        }
        for (std::size_t k : completeness.missing) {
            const ProgramCell& p = check.cells[k];
            std::cout << "missing  " << section_number(p.section) << "  " << first_line(p.code) << "  (" << p.program << "  "
                      << p.cpp << ")\n";
        }
        for (std::size_t i : completeness.not_run) std::cout << "not run  cell " << i << "  " << first_line(code_of(i)) << '\n';
        for (std::size_t i : completeness.errors) {
            std::cout << "error    cell " << i << "  " << first_line(code_of(i)) << "  " << notebook[i - 1].error_text << '\n';
        }
        if (summary.close > 0) std::cout << blas_note << '\n';
        for (const std::string& note : notes) std::cout << note << '\n';
        std::cout << llmfs::completeness_line(completeness) << '\n';
        std::cout << llmfs::summary_line(summary) << '\n';
    }
    std::cout.flush();
    if (!std::cout) throw std::runtime_error("cannot write to standard output");
    return summary.differ == 0 && (!opt.strict || completeness.complete()) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Check a notebook of the book you ran (.ipynb, or the seeds' plain-text export)\n"
                 "against the llmfs programs, output cell by output cell: match (byte-identical), close\n"
                 "(numbers within 2 units of the last digit, 1e-6 relative or 1e-6 absolute: another CPU\n"
                 "or BLAS), differ, or not covered.",
                 "llmfs-nbcheck"};
    Options opt;
    // Not ->required(): CLI11 would then report a missing NOTEBOOK before an unknown flag
    // ("--frobnicate"), which is the real mistake; run() asks for it instead.
    app.add_option("NOTEBOOK", opt.notebook, "The notebook: a .ipynb file or a plain-text export (- for standard input)");
    app.add_option("--bernoulli", opt.bernoulli,
                   "Dropout kernel the notebook ran with: auto (the default: try both on the cells that draw "
                   "dropout), mkl (Linux/Colab on Intel) or default (macOS, ARM, AMD)")
        ->type_name("{auto,mkl,default}")
        ->check(CLI::IsMember({"auto", "mkl", "default"}).description(""));
    app.add_flag("--no-training", opt.no_training,
                 "Stop the training programs (ch05_pretraining, appendix_d_training) before they train: seconds instead of minutes; their "
                 "training cells are then not covered");
    app.add_option("--data", opt.data,
                   "The SMS Spam Collection for chapter 6's and appendix E's notebooks (the zip or its TSV; default: "
                   "sms_spam_collection/ beside the notebook, where its download cell leaves it)")
        ->type_name("FILE");
    app.add_option("--weights", opt.weights,
                   "GPT-2 124M's weights for chapter 6's and appendix E's notebooks (model.safetensors, the book's model.pth or gpt_download.py's "
                   "gpt2/124M folder; without it their model cells are the random model's and differ), and, as that folder, for chapter 5's 5.5 "
                   "(default: gpt2/124M beside the notebook, where its download cell leaves it; without it 5.5's cells are not covered)")
        ->type_name("FILE");
    app.add_flag("--diff", opt.show_diff, "Show a unified diff (notebook against program) under each close or differ cell");
    app.add_flag("--json", opt.as_json, "Print the report as JSON");
    app.add_flag("--strict", opt.strict,
                 "Also fail (exit 1) when a cell of the book is missing from the notebook, or a cell never ran or raised an error");
    app.footer("Before the last line: the book's cells the notebook lacks (\"missing\"), its cells that never ran\n"
               "(\"not run\") or raised an error (\"error\"), one a line, then their count. The last line is\n"
               "\"N/M covered output cells match, C close, D differ (U not covered)\".\n"
               "Exit status: 0 when no cell differs, 1 when one does (or a program fails; with --strict, also when\n"
               "the notebook is incomplete), 2 for bad input.");
    const std::filesystem::path bin = llmfs::executable_dir(argc > 0 ? argv[0] : "llmfs-nbcheck");
    return llmfs::run_tool(app, argc, argv, [&] {
        if (opt.notebook.empty()) throw std::invalid_argument("NOTEBOOK is required: the .ipynb file or text export to check");
        return run(opt, bin);
    });
}
