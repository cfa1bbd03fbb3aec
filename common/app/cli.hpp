// The command line every chapter program shares:
//   --bernoulli mkl|default   which PyTorch CPU dropout kernel to reproduce (default mkl)
//   --annotate                also print section headers and the notebook code lines
//   --help
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "llmfs/app/notebook.hpp"
#include "llmfs/torch/rng.hpp"

namespace llmfs {

// Exit codes of every llmfs program.
constexpr int kExitRuntimeError = 1;  // e.g. missing or corrupt data, unwritable output
constexpr int kExitUsage = 2;         // bad flags, values or input

struct ChapterOptions {
    BernoulliKernel bernoulli = BernoulliKernel::mkl;
    bool annotate = false;
};

// Parses the options, then runs body(notebook, generator) with a generator using the chosen
// Bernoulli kernel. Returns the process exit code: 0 on success, 0 after --help, 2 for a usage
// error (message and usage on stderr), 1 when the body throws (its message on stderr).
int run_chapter(int argc, char** argv, const std::string& description,
                const std::function<void(Notebook&, Generator&)>& body);
// The same, letting the program add options of its own first.
int run_chapter(int argc, char** argv, const std::string& description,
                const std::function<void(CLI::App&)>& add_options,
                const std::function<void(Notebook&, Generator&)>& body);

// The llmfs-* tools' frame: parses argv with `app` (--help exits 0; a usage error is reported as
// "<name>: ..." and exits 2), then returns body()'s exit code. Bad input the body throws as
// std::invalid_argument or std::out_of_range exits 2, any other exception 1, each with
// "<name>: ..." on stderr.
int run_tool(CLI::App& app, int argc, char** argv, const std::function<int()>& body);

}  // namespace llmfs
