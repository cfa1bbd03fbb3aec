#include "llmfs/app/memory_plots.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "llmfs/nn/memory_estimate.hpp"

namespace llmfs {

namespace {

const std::vector<double> kContextLengths{256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072};
const std::array<std::array<double, 3>, 5> kColours{kC0, kC1, kC2, kC3, kC4};
constexpr const char* kDash = "\u2014";   // —
constexpr const char* kTimes = "\u00d7";  // ×

LineSeries series(std::string label, std::vector<double> x, std::vector<double> y, std::size_t colour, char marker = 'o') {
    LineSeries s;
    s.label = std::move(label);
    s.x = std::move(x);
    s.y = std::move(y);
    s.rgb = kColours[colour % kColours.size()];
    s.marker = marker;
    return s;
}

LineChart kv_chart(const std::string& title) {  // what the GQA and MLA scripts share
    LineChart c;
    c.title = title;
    c.title_size = 8;
    c.xlabel = "context_length (log scale)";
    c.ylabel = "Total KV cache (GB)";
    c.log_x = true;
    return c;
}

}  // namespace

LineChart gqa_memory_chart() {
    const std::int64_t n_heads = 24, emb_dim = 2048, n_layers = 48, batch = 1, bytes = 2;
    LineChart c = kv_chart(std::string("KV-cache vs Context Length ") + kDash +
                           " MHA vs GQA (multi-group)\n(n_heads=24, emb_dim=2048, n_layers=48, batch=1, dtype=bf16)");
    auto curve = [&](std::int64_t kv_heads) {
        std::vector<double> y;
        for (double L : kContextLengths) {  // float(f"{gb:.2f}")
            const double gb = static_cast<double>(calc_kv_bytes_total(batch, static_cast<std::int64_t>(L), emb_dim, n_heads,
                                                                      kv_heads, n_layers, bytes)) / 1e9;
            y.push_back(std::stod(fmt::format("{:.2f}", gb)));
        }
        return y;
    };
    c.series.push_back(series("MHA (KV total)", kContextLengths, curve(n_heads), 0));
    std::size_t colour = 1;
    for (std::int64_t g : {4, 8, 12, 24}) {
        const std::int64_t kv_heads = n_heads / g;
        c.series.push_back(series(fmt::format("GQA (n_kv_groups={}, {:.1f}{} compression)", g,
                                              static_cast<double>(n_heads) / static_cast<double>(kv_heads), kTimes),
                                  kContextLengths, curve(kv_heads), colour++));
    }
    return c;
}

LineChart mla_memory_chart() {
    const double n_heads = 24, emb_dim = 2048, n_layers = 48, batch = 1, bytes = 2;
    LineChart c = kv_chart(std::string("KV-cache vs Context Length ") + kDash +
                           " MHA vs MLA\n(n_heads=24, emb_dim=2048, n_layers=48, batch=1, dtype=bf16)");
    // the script's own formulas: MHA = batch * L * (emb_dim / n_heads) * n_heads * 2 * bytes * n_layers
    auto mha = [&](double L) { return batch * L * (emb_dim / n_heads) * n_heads * 2 * bytes * n_layers; };
    auto mla = [&](double L, double latent) { return batch * L * n_layers * latent * bytes; };
    std::vector<double> y;
    for (double L : kContextLengths) y.push_back(mha(L) / 1e9);
    c.series.push_back(series("MHA (KV total)", kContextLengths, y, 0));
    std::size_t colour = 1;
    for (double latent : {1024.0, 512.0, 256.0, 64.0}) {
        y.clear();
        for (double L : kContextLengths) y.push_back(mla(L, latent) / 1e9);
        const double comp = mha(131072) / mla(131072, latent);  // at the longest context
        c.series.push_back(series(fmt::format("MLA (latent_dim={}, {:.1f}{} compression)", latent, comp, kTimes),
                                  kContextLengths, y, colour++));
    }
    return c;
}

LineChart swa_memory_chart(const SwaPlotArgs& a, std::string* skipped) {
    const double bytes = bytes_per_elem(a.dtype);
    const auto [ratio_a, ratio_b] = parse_swa_ratio(a.swa_ratio);  // the script's ValueError for a bad ratio
    const double ra = static_cast<double>(ratio_a), rb = static_cast<double>(ratio_b);
    // n_swa_layers = int(round(n_layers * (a / total_blocks))): not the estimator's split
    const double n_swa = std::nearbyint(static_cast<double>(a.n_layers) * (ra / (ra + rb)));
    const double n_full = static_cast<double>(a.n_layers) - n_swa;
    const double B = static_cast<double>(a.batch_size), E = static_cast<double>(a.emb_dim), W = static_cast<double>(a.sliding_window_size);
    auto mha = [&](double L, double layers) { return B * L * E * 2 * bytes * layers; };  // n_heads cancels
    const bool valid_g4 = a.n_heads % 4 == 0;
    if (!valid_g4 && skipped) *skipped = fmt::format("Skipped GQA kv_groups=4 because n_heads={} is not divisible by 4.", a.n_heads);
    LineChart c;
    c.title = fmt::format("KV-cache vs Context Length {} MHA vs GQA (SWA overlays)\n(n_heads={}, emb_dim={}, n_layers={}, batch={}, "
                          "dtype={}; SWA ratio={}, W={})",
                          kDash, a.n_heads, a.emb_dim, a.n_layers, a.batch_size, a.dtype, a.swa_ratio, a.sliding_window_size);
    c.title_size = 8;
    c.xlabel = "context_length (log scale)";
    c.ylabel = "Total KV cache (GB)";
    c.log_x = true;
    c.width_px = 1000;
    c.height_px = 500;
    for (int gqa = 0; gqa <= (valid_g4 ? 1 : 0); ++gqa) {
        const double div = gqa ? 4.0 : 1.0;
        std::vector<double> full, mixed;
        for (double L : kContextLengths) {
            full.push_back(mha(L, static_cast<double>(a.n_layers)) / div / 1e9);
            mixed.push_back((mha(L, n_full) / div + mha(W, n_swa) / div) / 1e9);
        }
        c.series.push_back(series(gqa ? "GQA kv_groups=4 (full)" : "MHA (KV total)", kContextLengths, full, gqa));
        LineSeries s = series(fmt::format("SWA on {} (ratio {}, W={})", gqa ? "GQA kv_groups=4" : "MHA", a.swa_ratio, a.sliding_window_size),
                              kContextLengths, mixed, gqa);
        s.dashed = true;
        c.series.push_back(s);
    }
    return c;
}

LineChart moe_params_chart(const MoEPlotArgs& a) {
    std::vector<double> experts, active, total;
    for (std::int64_t e : {1, 2, 4, 8, 16, 32, 64, 128, 192, 256, 384, 512}) {
        if (e > a.max_experts) continue;
        // calc_moe_active_and_total: match the dense layer unless it is no bigger than the router
        bool match = a.match_dense;
        const MoEParams probe = estimate_params_and_hidden(a.emb_dim, a.hidden_dim, a.ffn_type, e, false);
        if (match && probe.dense_params <= probe.router) match = false;
        const MoEParams r = estimate_params_and_hidden(a.emb_dim, a.hidden_dim, a.ffn_type, e, match);
        experts.push_back(static_cast<double>(e));
        active.push_back(static_cast<double>(r.router + a.top_k * r.per_expert_params));
        total.push_back(static_cast<double>(r.moe_total));
    }
    if (experts.empty()) throw std::invalid_argument("--max_experts: no expert count from 1 to 512 is that small");
    const double dense = static_cast<double>(estimate_params_and_hidden(a.emb_dim, a.hidden_dim, a.ffn_type, 1, false).dense_params);
    LineChart c;
    c.title = fmt::format("Active vs Total Parameters per Token\n(emb_dim={}, hidden_dim={}, ffn={}, top_k={})", a.emb_dim,
                          a.hidden_dim, a.ffn_type, a.top_k);
    c.xlabel = fmt::format("Number of experts (top_k = {})", a.top_k);
    c.ylabel = "Parameters";
    c.log_y = a.log_y;
    c.grid = false;
    c.width_px = 1400;  // figsize (7, 5) at dpi 200
    c.height_px = 1000;
    c.scale = 2;
    c.series.push_back(series("MoE active per token", experts, active, 0, 'o'));
    LineSeries t = series("MoE total parameters", experts, total, 1, 's');
    t.dashed = true;
    c.series.push_back(t);
    c.hlines.push_back({dense, "FFN dense (active = total)", kGray, true});
    return c;
}

LineChart deltanet_memory_chart(const DeltaNetPlotArgs& a) {
    if (a.n_heads == 0) throw PythonError("ZeroDivisionError: integer division or modulo by zero");
    const double bytes = bytes_per_elem(a.dtype), B = static_cast<double>(a.batch), H = static_cast<double>(a.n_heads);
    const double d_head = static_cast<double>(a.emb_dim / a.n_heads);  // emb_dim // n_heads
    auto mha = [&](double t, double layers) { return B * t * H * d_head * 2 * bytes * layers; };
    auto dnet = [&](double layers) { return B * H * d_head * d_head * bytes * layers; };
    const double layers = static_cast<double>(a.n_layers), n_mha = layers / 4, n_dnet = layers - n_mha;
    std::vector<double> ctx, full, delta, mix;
    for (std::int64_t t = a.min_ctx; t <= a.max_ctx; t += 100) {  // np.arange(min_ctx, max_ctx + 1, 100)
        ctx.push_back(static_cast<double>(t));
        full.push_back(mha(static_cast<double>(t), layers) / 1e9);
        delta.push_back(dnet(layers) / 1e9);
        mix.push_back((mha(static_cast<double>(t), n_mha) + dnet(n_dnet)) / 1e9);
    }
    if (ctx.empty()) throw std::invalid_argument("--min_ctx is above --max_ctx: no context lengths to plot");
    LineChart c;
    c.xlabel = "Context length (number of tokens)";
    c.ylabel = "KV cache size (GB)";
    c.width_px = 1120;  // figsize (7, 4.5) at dpi 160
    c.height_px = 720;
    c.scale = 1.6;
    c.series.push_back(series("Full Attention (MHA) KV cache", ctx, full, 0, 0));
    c.series.push_back(series("All Gated DeltaNet (no conv)", ctx, delta, 1, 0));
    c.series.push_back(series("3:1 layer ratio (3 DeltaNet : 1 Full Attention)", ctx, mix, 2, 0));
    return c;
}

}  // namespace llmfs
