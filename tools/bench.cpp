// llmfs-bench: how long the expensive steps take, for docs/performance.md's tables and for
// spotting regressions (benchmarks, not timed tests).
//   llmfs-bench [--model NAME] [--repeat N]     tokenizer load, model build, forward, generation
//   llmfs-bench mha --batch B --tokens T --dim D --heads H [--json] [--figure PNG] [--pytorch JSON]
//                                               causal multi-head attention, one line per variant of
//                                               the book's MHA notebook, PyTorch's time beside
//   llmfs-bench generate [--tokens N] [--kv-cache] [--load N] [--json]
//                                               build, prompt, decode tokens/s, peak RSS, bandwidth;
//                                               with --load, decode again beside N busy processes
//   llmfs-bench variants [--variant NAME]... [--tokens N] [--json]
//                                               the bonus scripts' GPTs (MHA, GQA, MLA, SWA, SwiGLU,
//                                               MoE) at their defaults: KV-cache decode tokens/s, its
//                                               share of the bandwidth bound, the cache's bytes
//                                               against the memory estimator's
//   llmfs-bench train [--context-length T] [--batch-size B] [--steps N] [--pytorch 2|1.13] [--json]
//                                               the 124M model's training step (forward, loss,
//                                               backward, AdamW): time, tokens/s, its share of this
//                                               machine's sgemm rate, peak RSS
//   llmfs-bench finetune [--lora] [--context-length T] [--batch-size B] [--steps N] [--json]
//                                               one step of chapter 6's fine-tuning (appendix E's
//                                               LoRA with --lora) on 124M's shapes: time, CPU, RSS;
//                                               chapter 6's through its FrozenTrunk (the warm-up
//                                               step keeps the batch's rows: a step of epochs 2 to 5;
//                                               LLMFS_TRUNK_CACHE=off: every step as epoch 1's)
// Each timing is over --repeat runs; the median is reported (the best too in the first form).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <functional>
#include <optional>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <cblas.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <xtensor/xadapt.hpp>

#include <csignal>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/nn/gpt.hpp"
#include "llmfs/fast/kernels.hpp"
#include "llmfs/nn/fast_multihead_attention.hpp"
#include "llmfs/nn/mha_variants.hpp"
#include "llmfs/app/plot.hpp"
#include "llmfs/nn/kv_cache.hpp"
#include "llmfs/nn/gpt_variants.hpp"
#include "llmfs/nn/memory_estimate.hpp"
#include "llmfs/fast/memory.hpp"
#include "llmfs/fast/thread_pool.hpp"
#include "llmfs/torch/ops.hpp"
#include "llmfs/nn/lora.hpp"
#include "llmfs/train/classifier.hpp"
#include "llmfs/train/loop.hpp"

using namespace llmfs;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Runs step `repeat` times; returns the sorted durations in seconds.
std::vector<double> time_runs(int repeat, const std::function<void()>& step) {
    std::vector<double> seconds;
    for (int i = 0; i < repeat; ++i) {
        const auto start = Clock::now();
        step();
        seconds.push_back(seconds_since(start));
    }
    std::sort(seconds.begin(), seconds.end());
    return seconds;
}

double median(const std::vector<double>& sorted) { return sorted[sorted.size() / 2]; }

void time_step(const std::string& name, int repeat, const std::function<void()>& step) {
    const auto seconds = time_runs(repeat, step);
    std::cout << fmt::format("{:<44} best {:8.3f} s   median {:8.3f} s\n", name, seconds.front(), median(seconds));
}

int overview(const std::string& model_name, int repeat) {
    const GPTConfig cfg = GPTConfig::by_name(model_name);
    std::optional<Gpt2Tokenizer> tokenizer;
    time_step("load tokenizer (with SHA-256 checks)", repeat, [&] { tokenizer = Gpt2Tokenizer::load_default(); });
    const IdArray<2> batch = encode_batch(*tokenizer, {"Every effort moves you", "Every day holds a"});

    Generator gen;
    std::optional<GPTModel> model;
    time_step(fmt::format("build {} (seed 123)", model_name), repeat, [&] {
        model.reset();
        gen.manual_seed(123);
        model.emplace(gen, cfg);
    });
    time_step("forward [2, 4], training mode", repeat, [&] { model->forward(batch); });
    model->train(false);
    const auto prompt = tokenizer->encode("Hello, I am");
    const IdArray<2> idx = xt::adapt(prompt, std::array<std::size_t, 2>{1, prompt.size()});
    time_step("generate 6 tokens from \"Hello, I am\"", repeat, [&] { generate_text_simple(*model, idx, 6, cfg.context_length); });
    time_step("generate 6 tokens, KV cache", repeat, [&] { generate_text_simple_cached(*model, idx, 6, cfg.context_length); });
    return 0;
}

// ---- mha ---------------------------------------------------------------------------------------

struct MhaOptions {
    std::size_t batch = 8, tokens = 1024, dim = 768, heads = 12;
    int repeat = 3;
    bool json = false;
    std::string figure;   // --figure PATH: the bar chart
    std::string pytorch;  // --pytorch FILE: tools/bench_pytorch.py mha --json's times, shown beside
};

// PyTorch's time per variant label, from tools/bench_pytorch.py mha --json (NaN where absent).
std::map<std::string, double> read_pytorch_times(const std::string& path, const MhaOptions& o) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path + " (make it with: /usr/bin/python3 tools/bench_pytorch.py mha --book BOOK --json > " + path + ")");
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.contains("variants") || !j["variants"].is_array())
        throw std::runtime_error(path + " is not the JSON of tools/bench_pytorch.py mha --json");
    for (const auto& [key, mine] : {std::pair{"batch", o.batch}, {"tokens", o.tokens}, {"dim", o.dim}, {"heads", o.heads}}) {
        if (!j.contains(key) || !j[key].is_number_unsigned() || j[key].get<std::size_t>() != mine)
            throw std::runtime_error(fmt::format("{} was measured with another {} than --{} {}", path, key, key, mine));
    }
    std::map<std::string, double> times;
    for (const auto& v : j["variants"])
        if (v.contains("name") && v["name"].is_string() && v.contains("ms") && v["ms"].is_number())
            times[v["name"].get<std::string>()] = v["ms"].get<double>();
    return times;
}

// The variants of the bonus notebook "Comparing Efficient Multi-Head Attention Implementations"
// (ch03/02_bonus_efficient-multihead-attention), under the notebook's labels, each the small class
// of common/nn/attention.hpp or mha_variants.hpp, plus this project's fast path. All causal, no
// dropout, as the notebook runs them.
int mha(const MhaOptions& o) {
    if (o.heads == 0 || o.dim % o.heads != 0)
        throw std::invalid_argument(fmt::format("--dim {} must be divisible by --heads {}", o.dim, o.heads));
    const std::map<std::string, double> pytorch = o.pytorch.empty() ? std::map<std::string, double>{} : read_pytorch_times(o.pytorch, o);
    Generator gen;
    gen.manual_seed(123);
    const Tensor<3> x = rand<3>(gen, {o.batch, o.tokens, o.dim});  // torch.rand(B, T, D)
    const std::size_t hs = o.dim / o.heads;
    // QKV and output projections, then Q K^T and weights @ V over the full T x T (masked or not)
    const double flop = 2.0 * o.batch * o.tokens * o.dim * o.dim * 4 + 2.0 * 2.0 * o.batch * o.tokens * o.tokens * o.dim;

    MultiHeadAttentionWrapper wrapper(gen, o.dim, hs, o.tokens, 0.0, o.heads);
    MultiHeadAttention chapter3(gen, o.dim, o.dim, o.tokens, 0.0, o.heads);
    MultiHeadAttentionCombinedQKV combined(gen, o.dim, o.dim, o.heads, o.tokens, 0.0);
    const MHAEinsum einsum(gen, o.dim, o.dim, o.tokens, o.heads);
    const MHAPyTorchSDPA sdpa_causal(gen, o.dim, o.dim, o.heads, o.tokens, MHAPyTorchSDPA::Mask::is_causal);
    const MHAPyTorchSDPA sdpa_mask(gen, o.dim, o.dim, o.heads, o.tokens, MHAPyTorchSDPA::Mask::explicit_mask);
    const MHAPyTorchClass torch_layout(gen, o.dim, o.dim, o.heads, o.tokens);
    chapter3.train(false);
    const FastMultiHeadAttention fast(chapter3);
    const std::vector<std::pair<std::string, std::function<void()>>> variants{
        {"1) MHA wrapper class", [&] { wrapper.forward(x); }},
        {"2) MHA Ch03", [&] { chapter3.forward(x); }},
        {"3) MHA with combined QKV weights", [&] { combined.forward(x); }},
        {"4) MHA with Einsum", [&] { einsum.forward(x); }},
        {"5) MHA with PyTorch scaled_dot_product_attention", [&] { sdpa_causal.forward(x); }},
        {"6) PyTorch's SDPA, no FlashAttention", [&] { sdpa_mask.forward(x); }},
        {"8) PyTorch MHA with need_weights=False", [&] { torch_layout.forward(x); }},
        {"llmfs fast path (masked half skipped)", [&] { fast.forward(x.data); }},
    };
    nlohmann::json report = {{"batch", o.batch}, {"tokens", o.tokens}, {"dim", o.dim}, {"heads", o.heads},
                             {"gflop", flop / 1e9}, {"repeat", o.repeat}, {"variants", nlohmann::json::array()}};
    std::vector<std::string> labels;
    BarSeries ours{"llmfs", {}}, theirs{"PyTorch (tools/bench_pytorch.py mha)", {}};
    for (const auto& [name, run] : variants) {
        const double ms = median(time_runs(o.repeat, run)) * 1e3;
        const double gflops = flop / (ms / 1e3) / 1e9;
        const auto it = pytorch.find(name);
        const double torch_ms = it == pytorch.end() ? std::nan("") : it->second;
        labels.push_back(name);
        ours.values.push_back(ms);
        theirs.values.push_back(torch_ms);
        if (o.json) {
            nlohmann::json v = {{"name", name}, {"ms", ms}, {"gflop_per_s", gflops}};
            if (std::isfinite(torch_ms)) v["pytorch_ms"] = torch_ms;
            report["variants"].push_back(v);
        } else {
            std::string line = fmt::format("{}: {:.1f} ms ({:.1f} GFLOP/s)", name, ms, gflops);
            if (!pytorch.empty())
                line += std::isfinite(torch_ms) ? fmt::format("; PyTorch {:.1f} ms ({:.1f}x)", torch_ms, torch_ms / ms) : "; PyTorch: n/a";
            std::cout << line << std::endl;
        }
    }
    if (o.json) {
        std::cout << report.dump(2) << "\n";
    } else {
        std::cout << "not on a CPU: 7) need_weights=True (the same attention, plus head-averaged weights; not timed here),\n"
                     "9) FlexAttention (PyTorch >= 2.5 on CUDA), and the notebook's torch.compile timings (CUDA)\n";
    }
    if (!o.figure.empty()) {
        std::vector<BarSeries> series{ours};
        if (!pytorch.empty()) series.push_back(theirs);
        plot_bars(o.figure, fmt::format("Causal MHA forward, {} x {} x {}, {} heads", o.batch, o.tokens, o.dim, o.heads), "ms",
                  labels, series);
        std::cerr << "bar chart written to " << o.figure << "\n";
    }
    return 0;
}

// ---- generate ----------------------------------------------------------------------------------

struct GenerateOptions {
    std::size_t tokens = 200;
    DecodePath path = DecodePath::fast;  // --kv-cache, --teaching
    std::string model = "gpt2-small";
    std::string prompt = "Hello, I am";
    SamplingOptions sampling;  // --temperature, --top-k (greedy by default)
    int load = 0;  // busy processes beside the second measurement
    bool json = false;
};

// N CPU-bound processes (`while True: pass`), a student's browser or IDE indexing, for as long as
// this object lives; each also ends itself after kMaxSeconds, should the benchmark be killed.
class BusyProcesses {
public:
    static constexpr unsigned kMaxSeconds = 600;
    explicit BusyProcesses(int n) {
        for (int i = 0; i < n; ++i) {
            const pid_t pid = fork();
            if (pid < 0) throw std::runtime_error("--load: could not start a busy process (fork failed)");
            if (pid == 0) {
                alarm(kMaxSeconds);  // SIGALRM ends the child
                volatile unsigned long spin = 0;
                for (;;) spin = spin + 1;
            }
            pids_.push_back(pid);
        }
    }
    ~BusyProcesses() {
        for (pid_t pid : pids_) kill(pid, SIGKILL);
        for (pid_t pid : pids_) waitpid(pid, nullptr, 0);
    }
    BusyProcesses(const BusyProcesses&) = delete;
    BusyProcesses& operator=(const BusyProcesses&) = delete;

private:
    std::vector<pid_t> pids_;
};

// The read bandwidth a decode had, measured beside it: before each of its steps, one read_pass
// (kernels.hpp: a sum on the pool's threads, reading as gemv reads a weight, with the same vector
// width) over a 512 MiB buffer, timed apart from the step. On the development VM the bandwidth moved
// from 26 to 50 GB/s and back a second apart as the host's other guests came and went; one
// measurement before and one after a run caught moments the decode never had. Passes between the
// steps see the moments the steps saw. The buffer is mapped on its own and unmapped after, not
// taken from the heap (which reuse_freed_memory() keeps).
class BandwidthProbe {
public:
    BandwidthProbe() {
        mapped_ = mmap(nullptr, kMapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mapped_ == MAP_FAILED) throw std::runtime_error("read bandwidth: cannot map a 512 MiB buffer (out of memory?)");
        // From a 2 MB boundary, whichever address the kernel chose: in huge pages throughout, as the
        // weights are (prefault), so that neither reads in pages the other does not have.
        const auto first = (reinterpret_cast<std::uintptr_t>(mapped_) + kAlign - 1) / kAlign * kAlign;
        buffer_ = reinterpret_cast<float*>(first);
        prefault(buffer_, kFloats * sizeof(float));
        std::fill(buffer_, buffer_ + kFloats, 1.0f);
    }
    ~BandwidthProbe() { munmap(mapped_, kMapped); }
    BandwidthProbe(const BandwidthProbe&) = delete;
    BandwidthProbe& operator=(const BandwidthProbe&) = delete;

    // A read pass just before a decoding step.
    void pass() {
        const auto start = Clock::now();
        sink_ = read_pass(buffer_, kFloats);
        const double pass_s = seconds_since(start);
        seconds_ += pass_s;
        ++passes_;
    }
    double seconds() const { return seconds_; }  // all passes so far
    double bytes_per_s() const { return static_cast<double>(passes_ * kFloats * sizeof(float)) / seconds_; }

private:
    static constexpr std::size_t kFloats = std::size_t{128} << 20;
    static constexpr std::size_t kAlign = std::size_t{2} << 20;
    static constexpr std::size_t kMapped = kFloats * sizeof(float) + kAlign;
    void* mapped_ = nullptr;
    float* buffer_ = nullptr;
    double seconds_ = 0.0;
    std::size_t passes_ = 0;
    volatile float sink_ = 0.0f;  // the sums are kept, so the passes are not optimised away
};

// What a decode's steps did, from two readings of gemv_runs() around them (the prompt left out).
struct StepWork {
    GemvRuns before, after;

    // Where the steps' decode_s seconds went: the one-row products (gemv), the attention heads, the
    // rest (LayerNorm, residual adds, argmax, many-row products); and the rate the products
    // read W at, over the read passes' bytes/s. What a step loses against its bound is in these.
    struct Shares {
        double products = 0, heads = 0, products_rate = 0;
    };
    // None without steps that ran products (a single new token) or without passes.
    std::optional<Shares> shares(double decode_s, double pass_bytes_per_s) const {
        const double products_s = after.seconds - before.seconds;
        if (!(decode_s > 0) || !(products_s > 0) || !(pass_bytes_per_s > 0)) return std::nullopt;
        return Shares{products_s / decode_s, (after.head_seconds - before.head_seconds) / decode_s,
                      (after.bytes - before.bytes) / products_s / pass_bytes_per_s};
    }
};

// "gemv products 95% (reading W at 90% of the passes' rate), attention heads 3%, the rest 2%"
std::string describe_step_time(const std::optional<StepWork::Shares>& shares) {
    if (!shares) return "no decoding steps";
    const StepWork::Shares& s = *shares;
    return fmt::format("gemv products {:.0f}% (reading W at {:.0f}% of the passes' rate), attention heads {:.0f}%, the rest {:.0f}%",
                       100.0 * s.products, 100.0 * s.products_rate, 100.0 * s.heads,
                       100.0 * std::max(0.0, 1.0 - s.products - s.heads));
}

// The same for --json (nulls without decoding steps).
void add_step_time(nlohmann::json& row, const std::optional<StepWork::Shares>& s) {
    const auto value = [&](double StepWork::Shares::*field) { return s ? nlohmann::json((*s).*field) : nlohmann::json(nullptr); };
    row["products_share_of_step"] = value(&StepWork::Shares::products);
    row["products_rate_over_read_rate"] = value(&StepWork::Shares::products_rate);
    row["attention_heads_share_of_step"] = value(&StepWork::Shares::heads);
}

struct DecodeTiming {
    double first_token_s = 0;  // the prompt
    double decode_s = 0;       // the other tokens
    double rate = 0;           // decoding tokens/s
    StepWork work;             // of the other tokens
};

// With a probe, a read pass after every token, its time left out of the decode's.
DecodeTiming time_decode(const GenerateOptions& o, const GPTModel& model, const IdArray<2>& idx,
                         BandwidthProbe* probe = nullptr) {
    // The first new token needs the whole prompt (the prompt time); the rest are decoding steps.
    DecodeTiming t;
    const double passes_before = probe ? probe->seconds() : 0.0;
    t.work.before = gemv_runs();  // read again after the prompt's token (none when no token is asked for)
    const auto start = Clock::now();
    const auto on_token = [&](std::size_t step) {
        if (step == 1) {
            t.first_token_s = seconds_since(start);
            t.work.before = gemv_runs();
        }
        if (probe) probe->pass();
    };
    // Sampling draws from a generator seeded 123 afresh for every run: which tokens come out does
    // not matter here, only that the sampled path does its full work (softmax, top-k, multinomial).
    Generator gen;
    gen.manual_seed(123);
    generate(o.path, model, idx, o.tokens, model.cfg.context_length, o.sampling, gen, on_token);
    t.work.after = gemv_runs();
    t.decode_s = seconds_since(start) - t.first_token_s - (probe ? probe->seconds() - passes_before : 0.0);
    t.rate = o.tokens > 1 && t.decode_s > 0 ? static_cast<double>(o.tokens - 1) / t.decode_s : 0.0;
    return t;
}

// CPU time of this process so far (user and system, every thread), in seconds.
double cpu_seconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

// Peak resident set size of this process so far, in bytes.
double peak_rss_bytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
#ifdef __APPLE__
    return static_cast<double>(usage.ru_maxrss);  // bytes on macOS
#else
    return static_cast<double>(usage.ru_maxrss) * 1024.0;  // kilobytes on Linux
#endif
}

int generate(const GenerateOptions& o) {
    const GPTConfig cfg = GPTConfig::by_name(o.model);
    const auto tokenizer = Gpt2Tokenizer::load_default();
    const auto encoded = tokenizer.encode(o.prompt);
    if (encoded.empty()) throw std::invalid_argument("--prompt: the prompt encodes to no tokens");
    const IdArray<2> idx = xt::adapt(encoded, std::array<std::size_t, 2>{1, encoded.size()});

    auto start = Clock::now();
    Generator gen;
    gen.manual_seed(123);
    GPTModel model(gen, cfg);
    model.train(false);
    const double build_s = seconds_since(start);

    const std::size_t threads = compute_pool().size();
    const DecodeTiming idle = time_decode(o, model, idx);
    std::optional<DecodeTiming> loaded;
    if (o.load > 0) {
        BusyProcesses busy(o.load);
        loaded = time_decode(o, model, idx);
    }
    const double first_token_s = idle.first_token_s, decode_s = idle.decode_s, decode_rate = idle.rate;
    const double rss = peak_rss_bytes();  // before the probe's buffer
    // The decode again, a read pass between its steps: its rate beside the bandwidth of the same moments.
    BandwidthProbe probe;
    const DecodeTiming probed = time_decode(o, model, idx, &probe);
    const double bandwidth = probe.bytes_per_s();
    const std::optional<StepWork::Shares> step_time = probed.work.shares(probed.decode_s, bandwidth);
    const char* path = describe(o.path);
    const std::string decoding = o.sampling.greedy()
                                     ? std::string("greedy")
                                     : fmt::format("temperature {:g}{}", o.sampling.temperature,
                                                   o.sampling.top_k ? fmt::format(", top-k {}", *o.sampling.top_k) : "");

    // A decoding step reads every weight once, except the embedding tables (one row each).
    const double weight_bytes = static_cast<double>(model.num_parameters() - model.tok_emb.weight.data.size() -
                                                    model.pos_emb.weight.data.size()) * sizeof(float);
    const double bound = bandwidth / weight_bytes;  // tokens/s if a step only streamed the weights

    if (o.json) {
        nlohmann::json report = {
            {"model", o.model}, {"path", path}, {"decoding", decoding}, {"prompt_tokens", encoded.size()}, {"new_tokens", o.tokens},
            {"threads", threads}, {"huge_pages", huge_pages_in_use()}, {"build_s", build_s}, {"prompt_s", first_token_s}, {"decode_tokens_per_s", decode_rate},
            {"total_tokens_per_s", static_cast<double>(o.tokens) / (first_token_s + decode_s)}, {"peak_rss_bytes", rss},
            {"read_bandwidth_bytes_per_s", bandwidth}, {"weight_bytes_per_step", weight_bytes},
            {"bandwidth_bound_tokens_per_s", bound}, {"probed_decode_tokens_per_s", probed.rate},
            {"share_of_bound", probed.rate / bound}};
        add_step_time(report, step_time);
        if (loaded) {
            report["busy_processes"] = o.load;
            report["loaded_decode_tokens_per_s"] = loaded->rate;
            report["loaded_prompt_s"] = loaded->first_token_s;
        }
        std::cout << report.dump(2) << "\n";
        return 0;
    }
    std::cout << fmt::format("model                {} ({}, {} prompt tokens, {} new, {})\n", o.model,
                             path, encoded.size(), o.tokens, decoding)
              << fmt::format("threads              {} (LLMFS_THREADS, else the CPUs this process may use)\n", threads)
              << fmt::format("weight pages         {} (LLMFS_HUGE_PAGES=auto|on|off; llmfs-bench's default: on)\n",
                             huge_pages_in_use() ? "2 MB where the kernel offers them" : "4 KB")
              << fmt::format("build                {:.3f} s\n", build_s)
              << fmt::format("prompt (1st token)   {:.3f} s\n", first_token_s)
              << fmt::format("decode               {:.1f} tokens/s ({} tokens in {:.2f} s)\n", decode_rate,
                             o.tokens > 0 ? o.tokens - 1 : 0, decode_s)
              << fmt::format("peak RSS             {:.0f} MB\n", rss / 1e6)
              << fmt::format("read bandwidth       {:.1f} GB/s (a read pass between the steps of a second decode, at {:.1f} tokens/s)\n",
                             bandwidth / 1e9, probed.rate)
              << fmt::format("bound                {:.1f} tokens/s ({:.0f} MB of weights per step); the second decode reaches {:.0f}%\n",
                             bound, weight_bytes / 1e6, 100.0 * probed.rate / bound)
              << fmt::format("step time            {} (the second decode)\n", describe_step_time(step_time));
    if (loaded)
        std::cout << fmt::format("under load           {:.1f} tokens/s beside {} busy process{} ({:.0f}% of idle; prompt {:.3f} s)\n",
                                 loaded->rate, o.load, o.load == 1 ? "" : "es", 100.0 * loaded->rate / decode_rate,
                                 loaded->first_token_s);
    return 0;
}

struct VariantsOptions {
    std::vector<std::string> variants{"mha", "gqa", "mla", "swa", "ffn", "moe"};
    std::size_t tokens = 200;  // --max_new_tokens
    bool json = false;
};

// The scripts' defaults (gpt_with_kv_<name>.py with no arguments): GPT-2 124M's sizes, context =
// prompt + new tokens; GQA 2 K/V heads, MLA latent 96, SWA window 1024 in 2 of every 3 layers,
// SwiGLU of 3072, MoE with 0 experts (the dense GELU layer). And what the memory estimator of the
// variant's folder predicts for the cache at that context length, float32.
std::pair<VariantConfig, std::int64_t> script_defaults(const std::string& name, std::int64_t context) {
    VariantConfig cfg;
    cfg.context_length = context;
    const std::int64_t C = 768, NH = 12, L = 12;
    std::int64_t expected = calc_kv_bytes_total(1, context, C, NH, NH, L, 4);  // the estimators' MHA line
    if (name == "gqa") {
        cfg.attention = AttentionKind::gqa;
        cfg.n_kv_groups = 2;
        // memory_estimator_gqa.py --n_kv_groups 6 (heads per K/V head) = 2 K/V heads
        expected = calc_kv_bytes_total(1, context, C, NH, NH / 6, L, 4);
    } else if (name == "mla") {
        cfg.attention = AttentionKind::mla;
        cfg.latent_dim = 96;
        expected = calc_mla_bytes_total(1, context, L, 96, 4);
    } else if (name == "swa") {
        cfg.attention = AttentionKind::swa;
        // memory_estimator_swa.py --swa_ratio 2:1 --sliding_window_size 1024
        const auto [swa_layers, full_layers] = swa_layer_split(L, "2:1");
        expected = calc_kv_bytes_total(1, std::min<std::int64_t>(context, 1024), C, NH, NH, swa_layers, 4) +
                   calc_kv_bytes_total(1, context, C, NH, NH, full_layers, 4);
    } else if (name == "ffn") {
        cfg.feed_forward = FeedForwardKind::swiglu;
    } else if (name != "mha" && name != "moe") {
        throw std::invalid_argument("--variant " + name + ": use mha, gqa, mla, swa, ffn or moe");
    }
    return {cfg, expected};
}

struct VariantDecode {
    double prompt_s = 0, decode_s = 0;
    std::size_t cache_after_prompt = 0;
    StepWork work;  // of the decoding steps
};

// generate_text_simple_cached, timed in its two parts: the prompt, then one token per call; with a
// probe, a read pass before each call, its time left out.
VariantDecode time_variant_decode(VariantGPTModel& model, const std::vector<std::int64_t>& prompt, std::size_t tokens,
                                  BandwidthProbe* probe = nullptr) {
    VariantDecode d;
    model.reset_kv_cache();
    auto start = Clock::now();
    Array<2> logits = model.forward(prompt, true, true);
    d.prompt_s = seconds_since(start);
    d.cache_after_prompt = model.kv_cache_bytes();
    const double passes_before = probe ? probe->seconds() : 0.0;
    d.work.before = gemv_runs();
    start = Clock::now();
    for (std::size_t i = 0; i < tokens; ++i) {
        if (probe) probe->pass();
        logits = model.forward({argmax(logits.data(), model.cfg.vocab_size)}, true, true);
    }
    d.decode_s = seconds_since(start) - (probe ? probe->seconds() - passes_before : 0.0);
    d.work.after = gemv_runs();
    return d;
}

int variants(const VariantsOptions& o) {
    const auto tokenizer = Gpt2Tokenizer::load_default();
    const std::vector<std::int64_t> prompt = tokenizer.encode("Hello, I am");
    const std::int64_t context = static_cast<std::int64_t>(prompt.size() + o.tokens);
    nlohmann::json rows = nlohmann::json::array();
    double peak_rss = 0.0;  // up to the last unprobed decode (the probe's buffer is left out)
    if (!o.json)
        std::cout << fmt::format("{} new tokens after a {}-token prompt, KV cache, float32, {} threads, weights in {} pages\n"
                                 "(LLMFS_HUGE_PAGES=auto|on|off; llmfs-bench's default: on). Each variant decodes\n"
                                 "twice: decode/s is the first; GB/s and share are the second's, a read pass before each step\n"
                                 "(the bandwidth of the same moments; the VM's neighbours move it second to second)\n",
                                 o.tokens, prompt.size(), compute_pool().size(), huge_pages_in_use() ? "2 MB" : "4 KB")
                  << fmt::format("{:<8}{:>10}{:>10}{:>12}{:>14}{:>14}{:>8}{:>10}{:>8}\n", "variant", "decode/s", "prompt s",
                                 "MB/step", "KV bytes", "estimator", "GB/s", "bound/s", "share");
    for (const auto& name : o.variants) {
        const auto [cfg, expected_cache] = script_defaults(name, context);
        Generator gen;
        gen.manual_seed(123);
        VariantGPTModel model(gen, cfg);
        const VariantDecode run = time_variant_decode(model, prompt, o.tokens);
        peak_rss = std::max(peak_rss, peak_rss_bytes());  // before the probe's buffer
        const std::size_t cache = model.kv_cache_bytes();
        const double rate = static_cast<double>(o.tokens) / run.decode_s;
        BandwidthProbe probe;
        const VariantDecode probed = time_variant_decode(model, prompt, o.tokens, &probe);
        const double probed_rate = static_cast<double>(o.tokens) / probed.decode_s;
            const double bandwidth = probe.bytes_per_s();
        const std::optional<StepWork::Shares> step_time = probed.work.shares(probed.decode_s, bandwidth);
        // A step streams the weights it uses and reads the cache (on average half-way between its sizes).
        const double step_bytes = static_cast<double>(model.parameters_per_token()) * sizeof(float) +
                                  0.5 * static_cast<double>(run.cache_after_prompt + cache);
        const double bound = bandwidth / step_bytes;
        if (o.json) {
            nlohmann::json row = {{"variant", name}, {"decode_tokens_per_s", rate}, {"prompt_s", run.prompt_s},
                                  {"bytes_per_step", step_bytes}, {"kv_cache_bytes", cache}, {"estimator_kv_bytes", expected_cache},
                                  {"read_bandwidth_bytes_per_s", bandwidth}, {"bound_tokens_per_s", bound},
                                  {"probed_decode_tokens_per_s", probed_rate}, {"share_of_bound", probed_rate / bound},
                                  {"peak_rss_bytes", peak_rss}};
            add_step_time(row, step_time);
            rows.push_back(std::move(row));
            continue;
        }
        std::cout << fmt::format("{:<8}{:>10.1f}{:>10.3f}{:>12.0f}{:>14}{:>14}{:>8.1f}{:>10.1f}{:>7.0f}%{}\n", name, rate,
                                 run.prompt_s, step_bytes / 1e6, cache, expected_cache, bandwidth / 1e9, bound,
                                 100.0 * probed_rate / bound,
                                 static_cast<std::int64_t>(cache) == expected_cache ? "" : "  (cache != estimator)")
                  << fmt::format("{:<8}step time: {}\n", "", describe_step_time(step_time));
    }
    if (o.json) {
        std::cout << nlohmann::json{{"tokens", o.tokens}, {"threads", compute_pool().size()}, {"huge_pages", huge_pages_in_use()},
                                    {"variants", rows}}
                         .dump(2)
                  << "\n";
    } else {
        std::cout << fmt::format("peak RSS {:.0f} MB (of the whole run; one --variant per run for each's own)\n", peak_rss / 1e6);
    }
    return 0;
}

// ---- train -------------------------------------------------------------------------------------

struct TrainOptions {
    std::size_t context_length = 256, batch_size = 2;
    int steps = 5;
    PyTorchVersion pytorch = PyTorchVersion::v2;
    bool json = false;
};

// This machine's sgemm rate in FLOP/s at the step's largest per-layer product (fc1's forward, rows
// x C -> 4C, as the forward calls OpenBLAS), on OpenBLAS's default threads: the median of 5 calls,
// measured after each step, so that a busy host's moments weigh on the rate as on the steps.
class SgemmRate {
public:
    SgemmRate(std::size_t rows, std::size_t C) : rows_(rows), C_(C), a_(rows * C, 0.5f), w_(4 * C * C, 0.25f), c_(rows * 4 * C) {}
    void measure() {
        const auto run = [&] { gemm(a_.data(), w_.data(), c_.data(), rows_, C_, 4 * C_, /*b_transposed=*/true, false); };
        run();  // warm-up
        rates_.push_back(2.0 * static_cast<double>(rows_ * C_ * 4 * C_) / median(time_runs(5, run)));
    }
    double median_rate() const {
        std::vector<double> sorted = rates_;
        std::sort(sorted.begin(), sorted.end());
        return median(sorted);
    }

private:
    std::size_t rows_, C_;
    std::vector<float> a_, w_, c_;
    std::vector<double> rates_;
};

// The FLOPs of one training step, counted by hand: every matrix product's multiply-adds, 2 FLOPs
// each, the forward's once and the backward's twice (an input and a weight gradient; 6 * weights *
// tokens in all, the embedding tables left out: they are looked up, not multiplied), plus the
// attention's two products per head (Q K^T and weights @ V, the full T x T, masked half included)
// likewise three times. Elementwise work (LayerNorm, GELU, softmax, AdamW) is not counted.
struct StepFlops {
    double matmul = 0, attention = 0;
    double total() const { return matmul + attention; }
};
StepFlops step_flops(const GPTConfig& cfg, std::size_t B, std::size_t T) {
    const double C = static_cast<double>(cfg.emb_dim), L = static_cast<double>(cfg.n_layers), tokens = static_cast<double>(B * T);
    const double weights = L * (4 * C * C + 2 * C * 4 * C) + C * static_cast<double>(cfg.vocab_size);  // W_q, W_k, W_v, out_proj, fc1, fc2; out_head
    const double attention_forward = L * static_cast<double>(B) * 2.0 * (2.0 * static_cast<double>(T * T) * C);
    return {6.0 * weights * tokens, 3.0 * attention_forward};
}

int train(const TrainOptions& o) {
    GPTConfig cfg = GPTConfig::gpt2_small();  // the book's GPT_CONFIG_124M, its context_length replaced
    cfg.context_length = o.context_length;
    cfg.drop_rate = 0.1;
    cfg.qkv_bias = false;
    Generator gen;
    gen.manual_seed(123);
    GPTModel model(gen, cfg);
    model.train(true);
    AdamWOptions adamw;
    adamw.lr = 5e-4;
    adamw.weight_decay = 0.1;
    adamw.version = o.pytorch;
    AdamW optimizer(model, adamw);
    Batch batch;  // random token ids: the numbers do not change the work
    batch.B = o.batch_size, batch.T = o.context_length;
    batch.inputs = gen.randint(0, static_cast<std::int64_t>(cfg.vocab_size), batch.B * batch.T);
    batch.targets = gen.randint(0, static_cast<std::int64_t>(cfg.vocab_size), batch.B * batch.T);
    TrainBuffers buffers;
    SgemmRate sgemm_rate(batch.B * batch.T, cfg.emb_dim);
    // The step's three parts timed apart: train_step's forward, loss with backward, optimizer step.
    std::vector<double> forward_s, backward_s, optimizer_s, step_s, cpu_s;
    for (int i = 0; i <= o.steps; ++i) {  // step 0: the warm-up (the optimizer's state and the buffers are made)
        if (i == 0) std::cerr << "warm-up step...\n";
        const auto start = Clock::now();
        const double cpu_start = cpu_seconds();
        StepTimes times;
        train_step(model, optimizer, batch, buffers, &times);
        const double total = seconds_since(start), cpu = cpu_seconds() - cpu_start;
        if (i == 0) continue;
        forward_s.push_back(times.forward_s);
        backward_s.push_back(times.backward_s);
        optimizer_s.push_back(times.optimizer_s);
        step_s.push_back(total);
        cpu_s.push_back(cpu);
        sgemm_rate.measure();
        std::cerr << fmt::format("step {}/{}: {:.3f} s ({:.3f} s of CPU)\n", i, o.steps, total, cpu);
    }
    const std::vector<double> steps_in_order = step_s;
    for (auto* v : {&forward_s, &backward_s, &optimizer_s, &step_s, &cpu_s}) std::sort(v->begin(), v->end());
    const double rss = peak_rss_bytes();
    const double sgemm = sgemm_rate.median_rate();
    const StepFlops flops = step_flops(cfg, batch.B, batch.T);
    const double seconds = median(step_s), tokens = static_cast<double>(batch.B * batch.T);
    const double rate = flops.total() / seconds;
    const std::size_t threads = std::max<std::size_t>(1, static_cast<std::size_t>(openblas_get_num_threads()));
    if (o.json) {
        std::cout << nlohmann::json{{"context_length", o.context_length}, {"batch_size", o.batch_size}, {"steps", o.steps},
                                    {"pytorch", to_string(o.pytorch)}, {"threads", compute_pool().size()}, {"blas_threads", threads},
                                    {"step_s", seconds}, {"steps_s", steps_in_order}, {"tokens_per_s", tokens / seconds},
                                    {"cpu_s", median(cpu_s)},
                                    {"forward_s", median(forward_s)}, {"loss_backward_s", median(backward_s)},
                                    {"optimizer_s", median(optimizer_s)}, {"gflop_per_step", flops.total() / 1e9},
                                    {"matmul_gflop_per_step", flops.matmul / 1e9}, {"attention_gflop_per_step", flops.attention / 1e9},
                                    {"gflop_per_s", rate / 1e9}, {"sgemm_gflop_per_s", sgemm / 1e9}, {"share_of_sgemm", rate / sgemm},
                                    {"peak_rss_bytes", rss}}
                             .dump(2)
                  << "\n";
        return 0;
    }
    std::cout << fmt::format("training step          GPT_CONFIG_124M, context {}, batch {}, dropout 0.1, no qkv bias; AdamW lr 5e-4,\n"
                             "                       weight decay 0.1 (PyTorch {}'s update); {} threads, OpenBLAS {}\n",
                             o.context_length, o.batch_size, to_string(o.pytorch), compute_pool().size(), threads)
              << fmt::format("step                   {:.3f} s median of {} ({:.1f} tokens/s); {:.3f} s of CPU (all threads, median)\n",
                             seconds, o.steps, tokens / seconds, median(cpu_s))
              << fmt::format("parts                  forward {:.3f} s, loss and backward {:.3f} s, AdamW {:.3f} s (medians)\n",
                             median(forward_s), median(backward_s), median(optimizer_s))
              << fmt::format("work                   {:.1f} GFLOP a step: products 6 x {:.1f} M weights x {} tokens, attention {:.1f}\n",
                             flops.total() / 1e9, flops.matmul / 6.0 / tokens / 1e6, batch.B * batch.T, flops.attention / 1e9)
              << fmt::format("rate                   {:.1f} GFLOP/s: {:.0f}% of this machine's sgemm rate, {:.1f} GFLOP/s\n"
                             "                       ({} x {} x {}, fc1's product, measured after each step; median)\n",
                             rate / 1e9, 100.0 * rate / sgemm, sgemm / 1e9, batch.B * batch.T, cfg.emb_dim, 4 * cfg.emb_dim)
              << fmt::format("peak RSS               {:.0f} MB\n", rss / 1e6);
    return 0;
}

// ---- finetune ----------------------------------------------------------------------------------

struct FinetuneOptions {
    std::size_t context_length = 120, batch_size = 8;
    int steps = 5;
    bool lora = false, json = false;
};

// One step of chapter 6's fine-tuning (frozen but the last block, final_norm and the two-class head)
// or appendix E's (LoRA adapters of rank 16, alpha 16 on every Linear) on GPT-2 124M's shapes with
// qkv_bias (BASE_CONFIG), random weights and a random batch: the numbers do not change the work.
int finetune(const FinetuneOptions& o) {
    GPTConfig cfg = GPTConfig::gpt2_small();
    cfg.context_length = 1024;
    cfg.drop_rate = 0.0;
    cfg.qkv_bias = true;
    Generator gen;
    gen.manual_seed(123);
    GPTModel model(gen, cfg);
    gen.manual_seed(123);
    replace_out_head(model, gen, 2);
    if (o.lora) replace_linear_with_lora(model, gen, 16, 16.0);
    ClassificationBatch batch;
    batch.B = o.batch_size, batch.T = o.context_length;
    batch.inputs = gen.randint(0, static_cast<std::int64_t>(cfg.vocab_size), batch.B * batch.T);
    batch.labels = gen.randint(0, 2, batch.B);
    AdamWOptions adamw;
    adamw.lr = o.lora ? 8e-4 : 5e-5;
    adamw.weight_decay = 0.1;
    std::unique_ptr<ClassifierAdamW> frozen;
    std::unique_ptr<LoRAAdamW> adapters;
    // chapter 6's: blocks 0 to 10 kept per example once computed (frozen_trunk.hpp); inactive for LoRA
    FrozenTrunk trunk = o.lora ? FrozenTrunk(model, 0) : frozen_trunk(model, TrainableLayers::last_block);
    if (o.lora) adapters = std::make_unique<LoRAAdamW>(model, adamw);
    else frozen = std::make_unique<ClassifierAdamW>(model, adamw);
    model.train(true);
    std::vector<double> step_s, cpu_s;
    for (int i = 0; i <= o.steps; ++i) {  // step 0: the warm-up
        if (i == 0) std::cerr << "warm-up step...\n";
        const auto start = Clock::now();
        const double cpu_start = cpu_seconds();
        if (o.lora) train_lora_classifier_step(model, *adapters, batch);
        else train_classifier_step(model, *frozen, batch, StepKernels::fast, {}, &trunk);
        const double total = seconds_since(start), cpu = cpu_seconds() - cpu_start;
        if (i == 0) continue;
        step_s.push_back(total);
        cpu_s.push_back(cpu);
        std::cerr << fmt::format("step {}/{}: {:.3f} s ({:.3f} s of CPU)\n", i, o.steps, total, cpu);
    }
    const std::vector<double> steps_in_order = step_s;
    std::sort(step_s.begin(), step_s.end());
    std::sort(cpu_s.begin(), cpu_s.end());
    const double seconds = median(step_s), rss = peak_rss_bytes();
    const std::string what = o.lora ? "LoRA (appendix E): rank 16, alpha 16 on every Linear; AdamW lr 8e-4"
                                    : "chapter 6: frozen but the last block, final_norm and the head; AdamW lr 5e-5";
    if (o.json) {
        std::cout << nlohmann::json{{"lora", o.lora}, {"context_length", o.context_length}, {"batch_size", o.batch_size},
                                    {"steps", o.steps}, {"threads", compute_pool().size()}, {"step_s", seconds},
                                    {"trunk_kept", trunk.batches_reused() > 0},
                                    {"steps_s", steps_in_order}, {"cpu_s", median(cpu_s)}, {"peak_rss_bytes", rss}}
                         .dump(2)
                  << "\n";
        return 0;
    }
    std::cout << fmt::format("fine-tuning step       GPT-2 124M's shapes with a two-class head, batch {} x {} tokens;\n"
                             "                       {}, weight decay 0.1\n",
                             o.batch_size, o.context_length, what)
              << fmt::format("step                   {:.3f} s median of {}; {:.3f} s of CPU (all threads, median)\n", seconds, o.steps,
                             median(cpu_s))
              << (o.lora ? std::string()
                  : trunk.batches_reused() > 0
                      ? "frozen trunk           blocks 0 to 10 kept for the batch's messages: a step of epochs 2 to 5\n"
                        "                       (LLMFS_TRUNK_CACHE=off: every step computes them, as in epoch 1)\n"
                      : fmt::format("frozen trunk           computed every step ({})\n", trunk.describe()))
              << fmt::format("peak RSS               {:.0f} MB\n", rss / 1e6);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Time the expensive steps: with no subcommand the tokenizer, the GPT-2 build, a forward pass and\n"
                 "greedy generation; `mha` the attention variants; `generate` decoding speed against memory bandwidth.",
                 "llmfs-bench"};
    int repeat = 3;
    std::string model_name = "gpt2-small";
    const auto models = CLI::IsMember({"gpt2-small", "gpt2-medium", "gpt2-large", "gpt2-xl"});
    app.add_option("--repeat", repeat, "runs per step")->capture_default_str()->check(CLI::Range(1, 100));
    app.add_option("--model", model_name, "model size")->capture_default_str()->check(models);

    MhaOptions mha_opt;
    auto* mha_cmd = app.add_subcommand("mha", "forward time of causal multi-head attention variants: NAME: N ms (G GFLOP/s)");
    mha_cmd->add_option("--batch", mha_opt.batch, "B")->capture_default_str()->check(CLI::Range(1, 4096));
    mha_cmd->add_option("--tokens", mha_opt.tokens, "T")->capture_default_str()->check(CLI::Range(1, 1 << 16));
    mha_cmd->add_option("--dim", mha_opt.dim, "D (d_in = d_out)")->capture_default_str()->check(CLI::Range(1, 1 << 16));
    mha_cmd->add_option("--heads", mha_opt.heads, "H")->capture_default_str()->check(CLI::Range(1, 1024));
    mha_cmd->add_option("--repeat", mha_opt.repeat, "runs per variant (the median is shown)")
        ->capture_default_str()
        ->check(CLI::Range(1, 100));
    mha_cmd->add_flag("--json", mha_opt.json, "print one JSON object instead");
    mha_cmd->add_option("--figure", mha_opt.figure, "also draw the times as a bar chart (PNG) at this path");
    mha_cmd->add_option("--pytorch", mha_opt.pytorch,
                        "show PyTorch's time beside each variant, from this JSON file (made on the same machine by\n"
                        "/usr/bin/python3 tools/bench_pytorch.py mha --book BOOK --json)");

    GenerateOptions gen_opt;
    auto* gen_cmd = app.add_subcommand("generate", "build time, prompt time, decode tokens/s, peak RSS, memory bandwidth");
    gen_cmd->add_option("--tokens", gen_opt.tokens, "new tokens")->capture_default_str()->check(CLI::Range(1, 1 << 20));
    auto* kv = gen_cmd->add_flag_callback("--kv-cache", [&] { gen_opt.path = DecodePath::kv_cache; }, "decode with the KV cache");
    gen_cmd->add_flag_callback("--teaching", [&] { gen_opt.path = DecodePath::teaching; },
                               "no cache, through the chapter's GPTModel.forward (as llmfs-generate --teaching)")
        ->excludes(kv);
    gen_cmd->add_option("--model", gen_opt.model, "model size")->capture_default_str()->check(models);
    gen_cmd->add_option("--prompt", gen_opt.prompt, "text to continue")->capture_default_str();
    gen_cmd->add_option("--load", gen_opt.load,
                        "then decode again beside this many CPU-bound busy processes (ended by the benchmark,\n"
                        "or by themselves after 10 minutes), and report both")
        ->capture_default_str()
        ->check(CLI::Range(0, 64));
    add_sampling_options(*gen_cmd, gen_opt.sampling, /*with_eos=*/false);  // no eos: every run decodes --tokens
    gen_cmd->add_flag("--json", gen_opt.json, "print one JSON object instead");

    VariantsOptions var_opt;
    auto* var_cmd = app.add_subcommand("variants", "the bonus scripts' GPTs at their defaults: KV-cache decode tokens/s against\n"
                                                   "the bandwidth bound, the cache's bytes against the memory estimator's");
    var_cmd->add_option("--variant", var_opt.variants, "mha, gqa, mla, swa, ffn, moe (repeatable; default: all)")
        ->check(CLI::IsMember({"mha", "gqa", "mla", "swa", "ffn", "moe"}));
    var_cmd->add_option("--tokens", var_opt.tokens, "new tokens (--max_new_tokens)")->capture_default_str()->check(CLI::Range(1, 1 << 16));
    var_cmd->add_flag("--json", var_opt.json, "print one JSON object instead");

    TrainOptions train_opt;
    auto* train_cmd = app.add_subcommand("train", "the 124M model's training step (forward, loss, backward, AdamW): time,\n"
                                                  "tokens/s, share of the sgemm rate, peak RSS (tools/bench_pytorch.py train: PyTorch's)");
    train_cmd->add_option("--context-length", train_opt.context_length, "T")->capture_default_str()->check(CLI::Range(1, 1024));
    train_cmd->add_option("--batch-size", train_opt.batch_size, "B")->capture_default_str()->check(CLI::Range(1, 256));
    train_cmd->add_option("--steps", train_opt.steps, "timed steps after one warm-up (the median is shown)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    std::string train_pytorch = "2";
    train_cmd->add_option("--pytorch", train_pytorch, "whose AdamW update: PyTorch 2.x's or 1.13's")
        ->capture_default_str()
        ->check(CLI::IsMember({"2", "1.13"}));
    train_cmd->add_flag("--json", train_opt.json, "print one JSON object instead");

    FinetuneOptions finetune_opt;
    auto* finetune_cmd = app.add_subcommand("finetune", "one step of chapter 6's fine-tuning (or appendix E's LoRA) on GPT-2 124M's shapes:\n"
                                                        "time, CPU time, peak RSS (tools/bench_pytorch.py finetune: PyTorch's)");
    finetune_cmd->add_flag("--lora", finetune_opt.lora, "appendix E's LoRA adapters instead of chapter 6's frozen layers");
    finetune_cmd->add_option("--context-length", finetune_opt.context_length, "T (ch06's data: 120)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1024));
    finetune_cmd->add_option("--batch-size", finetune_opt.batch_size, "B")->capture_default_str()->check(CLI::Range(1, 256));
    finetune_cmd->add_option("--steps", finetune_opt.steps, "timed steps after one warm-up (the median is shown)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    finetune_cmd->add_flag("--json", finetune_opt.json, "print one JSON object instead");

    return run_tool(app, argc, argv, [&] {
        if (*finetune_cmd) return finetune(finetune_opt);
        if (*train_cmd) {
            train_opt.pytorch = *parse_pytorch_version(train_pytorch);
            return train(train_opt);
        }
        // The weights in 2 MB pages unless LLMFS_HUGE_PAGES says otherwise: the benchmark measures the
        // decode, which streams faster from them, where programs weigh it against their start (memory.hpp).
        const char* const asked = std::getenv("LLMFS_HUGE_PAGES");
        set_huge_pages(asked && *asked ? huge_pages_from_environment() : HugePages::on);
        if (*var_cmd) return variants(var_opt);
        if (*mha_cmd) return mha(mha_opt);
        if (*gen_cmd) return generate(gen_opt);
        return overview(model_name, repeat);
    });
}
