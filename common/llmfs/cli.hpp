// The command line every chapter program shares:
//   --bernoulli mkl|default   which PyTorch CPU dropout kernel to reproduce (default mkl)
//   --annotate                also print section headers and the notebook code lines
//   --help
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "llmfs/notebook.hpp"
#include "llmfs/rng.hpp"

namespace llmfs {

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

}  // namespace llmfs
