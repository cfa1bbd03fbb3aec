#include "llmfs/cli.hpp"

#include <exception>
#include <filesystem>
#include <iostream>
#include <map>


namespace llmfs {

int run_chapter(int argc, char** argv, const std::string& description,
                const std::function<void(Notebook&, Generator&)>& body) {
    return run_chapter(argc, argv, description, [](CLI::App&) {}, body);
}

int run_chapter(int argc, char** argv, const std::string& description,
                const std::function<void(CLI::App&)>& add_options,
                const std::function<void(Notebook&, Generator&)>& body) {
    CLI::App app{description, argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "llmfs"};
    ChapterOptions options;
    const std::map<std::string, BernoulliKernel> kernels{{"mkl", BernoulliKernel::mkl},
                                                         {"default", BernoulliKernel::standard}};
    app.add_option("--bernoulli", options.bernoulli,
                   "PyTorch CPU dropout kernel to reproduce: mkl (Linux/Colab on Intel, the seed notebooks) "
                   "or default (macOS/ARM/AMD and builds without MKL, the book's printed outputs)")
        ->transform(CLI::CheckedTransformer(kernels, CLI::ignore_case))
        ->default_str("mkl");
    app.add_flag("--annotate", options.annotate, "also print section headers and the notebook code lines");
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
        Generator gen(options.bernoulli);
        Notebook notebook(options.annotate);
        body(notebook, gen);
        std::cout.flush();
        return std::cout ? 0 : kExitRuntimeError;
    } catch (const std::exception& e) {
        std::cerr << app.get_name() << ": error: " << e.what() << "\n";
        return kExitRuntimeError;
    }
}

int run_tool(CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
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
