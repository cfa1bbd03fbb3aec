// Bonus: the figures of ch04/04_gqa .. 08_deltanet, one subcommand per plot script, each with the
// script's own arguments plus --figure PATH. The path is relative to the current folder, as the
// scripts' savefig; a name ending in .pdf gives a PDF (as the scripts write), any other a PNG. The
// SWA script's --output and the MoE script's --save are taken too, as other names of --figure:
//   ch04_memory_plots gqa                      plot_memory_estimates_gqa.py
//   ch04_memory_plots mla                      plot_memory_estimates_mla.py
//   ch04_memory_plots swa --emb_dim E --n_heads H --n_layers L --sliding_window_size W [--swa_ratio 5:1] [--output PATH] ...
//   ch04_memory_plots moe --emb_dim E --hidden_dim H [--ffn_type swiglu] [--top_k 2] [--no_log] [--save PATH] ...
//   ch04_memory_plots deltanet [--emb_dim 2048] [--n_heads 16] [--n_layers 48] ...
#include <iostream>
#include <map>

#include "llmfs/app/memory_plots.hpp"
#include "llmfs/app/script.hpp"
#include "llmfs/nn/memory_estimate.hpp"

using namespace llmfs;

namespace {

// --figure PATH, and the script's own name for it (swa: --output, moe: --save), if it has one.
void add_figure(ArgumentParser& p, const std::string& file_name, const std::string& script_option = "") {
    p.add_string("--figure", file_name,
                 "PNG to write (a name ending in .pdf: a PDF), relative to the current folder" +
                     (script_option.empty() ? std::string() : "; " + script_option + " PATH, the script's own name for it, too"));
    if (!script_option.empty()) p.add_string(script_option, "");  // no help text: argparse would show "(default: )"
}

// Where the figure goes: the script's own option if given, else --figure, as typed (relative to the
// current folder); the default name goes into $LLMFS_FIGURE_DIR instead if that is set.
std::filesystem::path figure_path(const ArgumentParser& args, const std::string& default_name,
                                  const std::string& script_option = "") {
    if (!script_option.empty() && !args.get_string(script_option).empty()) return args.get_string(script_option);
    const std::string& figure = args.get_string("figure");
    return figure == default_name ? default_output_path(default_name) : std::filesystem::path(figure);
}

void save(const LineChart& chart, const std::filesystem::path& path) {
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);  // plot_lines says if it failed
    plot_lines(path, chart);
    std::cerr << "figure: " << path.string() << "\n";
}

int usage(const char* prog) {
    std::cerr << "usage: " << prog << " {gqa,mla,swa,moe,deltanet} [the plot script's arguments] [--figure PATH]\n"
              << prog << ": error: name the figure: gqa, mla, swa, moe or deltanet (then -h for its arguments)\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage(argv[0]);
    const std::string which = argv[1];
    std::vector<char*> rest{argv[0]};
    const std::string prog = std::filesystem::path(argv[0]).filename().string() + " " + which;
    rest[0] = const_cast<char*>(prog.c_str());
    rest.insert(rest.end(), argv + 2, argv + argc);
    const int n = static_cast<int>(rest.size());

    if (which == "gqa" || which == "mla") {
        return run_script(n, rest.data(), "",
            [&](ArgumentParser& p) { add_figure(p, which + "_kv_bytes_vs_context_length.png"); },
            [&](const ArgumentParser& args) {
                save(which == "gqa" ? gqa_memory_chart() : mla_memory_chart(), figure_path(args, which + "_kv_bytes_vs_context_length.png"));
            });
    }
    if (which == "swa") {
        return run_script(n, rest.data(), "KV-cache vs Context Length \u2014 MHA vs GQA with SWA overlays",
            [](ArgumentParser& p) {
                p.add_int("--emb_dim", std::nullopt, "", true);
                p.add_int("--n_heads", std::nullopt, "", true);
                p.add_int("--n_layers", std::nullopt, "", true);
                p.add_int("--batch_size", 1);
                p.add_choice("--dtype", dtype_names(), "bf16");
                p.add_int("--sliding_window_size", std::nullopt, "SWA window size W", true);
                p.add_string("--swa_ratio", "5:1", "SWA:Full ratio, e.g., 5:1");
                add_figure(p, "swa_kv_bytes_vs_context_length.png", "--output");
            },
            [](const ArgumentParser& args) {
                SwaPlotArgs a;
                a.emb_dim = *args.get_int("emb_dim");
                a.n_heads = *args.get_int("n_heads");
                a.n_layers = *args.get_int("n_layers");
                a.batch_size = *args.get_int("batch_size");
                a.dtype = args.get_string("dtype");
                a.sliding_window_size = *args.get_int("sliding_window_size");
                a.swa_ratio = args.get_string("swa_ratio");
                std::string skipped;
                const LineChart chart = swa_memory_chart(a, &skipped);
                if (!skipped.empty()) std::cout << skipped << "\n";
                save(chart, figure_path(args, "swa_kv_bytes_vs_context_length.png", "output"));
            });
    }
    if (which == "moe") {
        return run_script(n, rest.data(), "Plot Dense vs MoE active parameters.",
            [](ArgumentParser& p) {
                p.add_int("--emb_dim", std::nullopt, "Embedding dimension", true);
                p.add_int("--hidden_dim", std::nullopt, "Dense FFN hidden size", true);
                p.add_choice("--ffn_type", {"gelu", "swiglu"}, "swiglu");
                p.add_int("--top_k", 2, "Active experts per token");
                p.add_int("--max_experts", 512, "Max experts on x-axis");
                p.add_flag("--no_log", "Disable log-scale y-axis");
                p.add_flag("--no_match_dense", "Disable matching MoE parameters to dense FFN total; uses provided hidden_dim instead.");
                add_figure(p, "moe_active_vs_total_params.png", "--save");
            },
            [](const ArgumentParser& args) {
                MoEPlotArgs a;
                a.emb_dim = *args.get_int("emb_dim");
                a.hidden_dim = *args.get_int("hidden_dim");
                a.ffn_type = args.get_string("ffn_type");
                a.top_k = *args.get_int("top_k");
                a.max_experts = *args.get_int("max_experts");
                a.log_y = !args.get_flag("no_log");
                a.match_dense = !args.get_flag("no_match_dense");
                save(moe_params_chart(a), figure_path(args, "moe_active_vs_total_params.png", "save"));
            });
    }
    if (which == "deltanet") {
        return run_script(n, rest.data(), "Memory vs. Context Length: MHA vs. DeltaNet (3:1 mix)",
            [](ArgumentParser& p) {
                p.add_int("--batch", 1);
                p.add_int("--emb_dim", 2048);
                p.add_int("--n_heads", 16);
                p.add_int("--n_layers", 48);
                p.add_choice("--dtype", dtype_names(), "bf16");
                p.add_int("--min_ctx", 128);
                p.add_int("--max_ctx", 131072);
                add_figure(p, "deltanet_memory_plot.png");
            },
            [](const ArgumentParser& args) {
                DeltaNetPlotArgs a;
                a.batch = *args.get_int("batch");
                a.emb_dim = *args.get_int("emb_dim");
                a.n_heads = *args.get_int("n_heads");
                a.n_layers = *args.get_int("n_layers");
                a.dtype = args.get_string("dtype");
                a.min_ctx = *args.get_int("min_ctx");
                a.max_ctx = *args.get_int("max_ctx");
                save(deltanet_memory_chart(a), figure_path(args, "deltanet_memory_plot.png"));
            });
    }
    if (which == "-h" || which == "--help") {
        std::cout << "usage: " << argv[0] << " {gqa,mla,swa,moe,deltanet} [the plot script's arguments] [--figure PATH]\n\n"
                  << "The figures of the book's ch04 bonus folders (plot_memory_estimates_*.py), as PNGs.\n";
        return 0;
    }
    return usage(argv[0]);
}
