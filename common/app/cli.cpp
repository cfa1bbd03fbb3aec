#include "llmfs/app/cli.hpp"
#include "llmfs/fast/memory.hpp"

#include <exception>
#include <filesystem>
#include <iostream>


namespace llmfs {

namespace {

// Which dropout kernel drew this run's masks, and the flag for the other (on stderr: stdout stays
// the notebook's text). The two kernels print different numbers for the same seed.
void note_dropout_kernel(const std::string& program, BernoulliKernel kernel) {
    if (kernel == BernoulliKernel::mkl) {
        std::cerr << program << ": dropout drawn with PyTorch's mkl kernel (Linux and Colab on Intel, the seed "
                                "notebooks); --bernoulli default gives the book's printed numbers (macOS, ARM, AMD)\n";
    } else {
        std::cerr << program << ": dropout drawn with PyTorch's default kernel (macOS, ARM, AMD, the book's printed "
                                "numbers); --bernoulli mkl gives Linux and Colab on Intel\n";
    }
}

}  // namespace

int run_chapter(int argc, char** argv, const std::string& description,
                const std::function<void(Notebook&, Generator&)>& body) {
    return run_chapter(argc, argv, description, [](CLI::App&) {}, body);
}

int run_chapter(int argc, char** argv, const std::string& description,
                const std::function<void(CLI::App&)>& add_options,
                const std::function<void(Notebook&, Generator&)>& body) {
    reuse_freed_memory();
    CLI::App app{description, argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "llmfs"};
    ChapterOptions options;
    // Shown as "--bernoulli {mkl,default}" with the default in words, not CLI11's enum mapping.
    std::string kernel_name = "mkl";
    app.add_option("--bernoulli", kernel_name,
                   "PyTorch's CPU dropout kernel to reproduce. mkl (the default): Linux and Colab on Intel, "
                   "as in the seed notebooks. default: macOS, ARM, AMD and builds without MKL, as in the "
                   "book's printed outputs")
        ->type_name("{mkl,default}")
        ->check(CLI::Validator(
            [](std::string& value) {
                return parse_bernoulli_kernel(value) ? std::string()
                                                     : "'" + value + "' is not a dropout kernel: use mkl or default";
            },
            ""));
    app.add_flag("--annotate", options.annotate, "also print the section headings, each notebook cell's code (>>> lines) and the C++ line that runs it");
    add_options(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << app.get_name() << ": " << e.what() << "\n\n" << app.help();
        return kExitUsage;
    }
    try {
        options.bernoulli = *parse_bernoulli_kernel(kernel_name);
        Generator gen(options.bernoulli);
        Notebook notebook(options.annotate);
        body(notebook, gen);
        if (gen.drew_bernoulli()) note_dropout_kernel(app.get_name(), options.bernoulli);
        std::cout.flush();
        return std::cout ? 0 : kExitRuntimeError;
    } catch (const std::exception& e) {
        std::cerr << app.get_name() << ": error: " << e.what() << "\n";
        return kExitRuntimeError;
    }
}

int run_tool(CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
    reuse_freed_memory();
    const std::string name = app.get_name();
    app.failure_message([name](const CLI::App* failed, const CLI::Error& e) {
        return name + ": " + CLI::FailureMessage::simple(failed, e);
    });
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : kExitUsage;  // --help exits 0
    }
    try {
        return body();
    } catch (const std::invalid_argument& e) {
        std::cerr << name << ": " << e.what() << "\nRun with --help for more information.\n";
        return kExitUsage;
    } catch (const std::out_of_range& e) {
        std::cerr << name << ": " << e.what() << "\nRun with --help for more information.\n";
        return kExitUsage;
    } catch (const std::exception& e) {
        std::cerr << name << ": error: " << e.what() << "\n";
        return kExitRuntimeError;
    }
}

}  // namespace llmfs
