// The bonus folders' figures: the numbers and labels each plot script computes.
#include <catch2/catch.hpp>

#include "llmfs/app/memory_plots.hpp"
#include "llmfs/nn/memory_estimate.hpp"

using namespace llmfs;

TEST_CASE("gqa_memory_chart: the estimator's bytes rounded to 0.01 GB, compression in the labels") {
    const LineChart c = gqa_memory_chart();
    REQUIRE(c.series.size() == 5);
    CHECK(c.series[0].label == "MHA (KV total)");
    CHECK(c.series[0].y.back() == 51.94);  // 131072 tokens, 48 layers of 24 heads of 86, bf16
    CHECK(c.series[4].label == "GQA (n_kv_groups=24, 24.0\u00d7 compression)");
    CHECK(c.series[1].y.back() == 12.99);  // 12,985,565,184 bytes
    CHECK(c.log_x);
}

TEST_CASE("mla_memory_chart: its own formula (emb_dim / n_heads unrounded)") {
    const LineChart c = mla_memory_chart();
    REQUIRE(c.series.size() == 5);
    CHECK(c.series[0].y.back() == Approx(131072.0 * 2048 * 2 * 2 * 48 / 1e9));
    CHECK(c.series[1].label == "MLA (latent_dim=1024, 4.0\u00d7 compression)");
    CHECK(c.series[4].label == "MLA (latent_dim=64, 64.0\u00d7 compression)");
}

TEST_CASE("swa_memory_chart: round(n_layers * a / (a + b)) window layers, GQA only when n_heads allows") {
    SwaPlotArgs a;
    a.emb_dim = 4096, a.n_heads = 48, a.n_layers = 36, a.sliding_window_size = 2048;
    std::string skipped;
    LineChart c = swa_memory_chart(a, &skipped);
    REQUIRE(c.series.size() == 4);
    CHECK(skipped.empty());
    CHECK(c.series[1].label == "SWA on MHA (ratio 5:1, W=2048)");
    CHECK(c.series[1].dashed);
    // 30 window layers of 2048 tokens + 6 full ones, at 256 tokens: the window exceeds the context
    CHECK(c.series[1].y.front() == Approx((6.0 * 256 + 30.0 * 2048) * 4096 * 2 * 2 / 1e9));
    a.n_heads = 30;
    c = swa_memory_chart(a, &skipped);
    CHECK(c.series.size() == 2);
    CHECK(skipped == "Skipped GQA kv_groups=4 because n_heads=30 is not divisible by 4.");
    a.swa_ratio = "0:0";
    CHECK_THROWS_AS(swa_memory_chart(a), PythonError);
}

TEST_CASE("moe_params_chart and deltanet_memory_chart") {
    MoEPlotArgs m;
    m.emb_dim = 7168, m.hidden_dim = 28672, m.top_k = 8;
    const LineChart c = moe_params_chart(m);
    REQUIRE(c.series.size() == 2);
    CHECK(c.series[0].x.size() == 12);
    CHECK(c.hlines.at(0).y == 3.0 * 7168 * 28672);
    CHECK(c.series[0].y.front() > c.hlines[0].y);  // 1 expert, top 8: active counts 8 experts
    DeltaNetPlotArgs d;
    const LineChart dn = deltanet_memory_chart(d);
    CHECK(dn.series.at(0).x.size() == 1310);  // np.arange(128, 131073, 100)
    CHECK(dn.series.at(1).y.front() == dn.series.at(1).y.back());  // DeltaNet's state does not grow
}
