// The figures: written, of the expected size, and not blank; bad shapes refused with a message.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>

#include "llmfs/app/attention_figure.hpp"
#include "llmfs/app/plot.hpp"
#include "llmfs/torch/ops.hpp"
#include "test_support.hpp"

using namespace llmfs;

TEST_CASE("plot_heatmaps: the causal mask's triangle, size from the cells, many colours") {
    const llmfs::testing::TempDir dir("llmfs_plot_test");
    const std::filesystem::path png = dir.path / "causal.png";
    const Tensor<2> weights = softmax(masked_fill(Tensor<2>(xt::zeros<float>({6, 6})), causal_mask(6), kNegInf), -1);
    plot_heatmaps(png, {attention_heatmap("causal", weights), attention_heatmap("one row", weights, 0)}, 40);
    const ImageSummary image = summarize_png(png);
    CHECK(image.width == 2 * (90 + 6 * 40 + 20));  // two panels: margins plus 6 cells of 40 px
    CHECK(image.height == 40 + 6 * 40 + 90);
    CHECK(image.colours > 50);  // cells of several colours, text anti-aliased: far from blank
}

TEST_CASE("plot_heatmaps and attention_heatmap refuse shapes that do not fit") {
    Heatmap bad;
    bad.title = "bad";
    bad.rows = 2;
    bad.cols = 2;
    bad.values = {1, 2, 3};
    CHECK_THROWS_WITH(plot_heatmaps("/nonexistent/x.png", {bad}), Catch::Contains("'bad' is 2 x 2 with 3 values"));
    CHECK_THROWS_WITH(plot_heatmaps("/nonexistent/x.png", {}), Catch::Contains("no heatmaps"));
    CHECK_THROWS_AS(attention_heatmap("too wide", Tensor<2>(xt::zeros<float>({1, 7}))), ShapeError);
    CHECK_THROWS_WITH(summarize_png("/nonexistent/x.png"), Catch::Contains("cannot read the PNG /nonexistent/x.png"));
}

TEST_CASE("plot_heatmaps into a folder that cannot be written: a message naming the path") {
    Heatmap one;
    one.title = "one";
    one.rows = one.cols = 1;
    one.values = {0.5f};
    one.row_labels = one.col_labels = {"Your"};
    CHECK_THROWS_WITH(plot_heatmaps("/nonexistent/dir/x.png", {one}), Catch::Contains("cannot write the figure to /nonexistent/dir/x.png"));
}

TEST_CASE("plot_bars: one row per label, a bar per series, n/a where a value is missing") {
    const llmfs::testing::TempDir dir("llmfs_plot_test");
    const std::filesystem::path png = dir.path / "bars.png";
    plot_bars(png, "times", "ms", {"1) wrapper", "2) Ch03", "fast path"},
              {{"llmfs", {100, 80, 30}}, {"PyTorch", {300, 250, std::nan("")}}});
    const ImageSummary image = summarize_png(png);
    CHECK(image.width == 900);
    CHECK(image.height > 200);
    CHECK(image.colours > 20);
    CHECK_THROWS_WITH(plot_bars(png, "t", "ms", {"a", "b"}, {{"llmfs", {1}}}), Catch::Contains("series 'llmfs' has 1 values for 2 labels"));
    CHECK_THROWS_WITH(plot_bars(png, "t", "ms", {}, {}), Catch::Contains("nothing to draw"));
}

TEST_CASE("plot_lines: log axes, markers, a dotted line, the size asked for") {
    const llmfs::testing::TempDir dir("llmfs_plot_test");
    const std::filesystem::path png = dir.path / "lines.png";
    LineChart chart;
    chart.title = "two lines\nand a rule";
    chart.log_x = chart.log_y = true;
    chart.series.push_back({"up", {1, 10, 100}, {1, 100, 1e4}, kC0, false, 'o'});
    chart.series.push_back({"flat", {1, 10, 100}, {50, 50, 50}, kC1, true, 's'});
    chart.hlines.push_back({20, "rule", kGray, true});
    chart.width_px = 700, chart.height_px = 500, chart.scale = 1.4;
    plot_lines(png, chart);
    const ImageSummary image = summarize_png(png);
    CHECK(image.width == 700);
    CHECK(image.height == 500);
    CHECK(image.colours > 50);
}

TEST_CASE("plot_lines refuses what it cannot draw") {
    const llmfs::testing::TempDir dir("llmfs_plot_test");
    LineChart chart;
    chart.series.push_back({"bad", {1, 2}, {1}, kC0});
    CHECK_THROWS_WITH(plot_lines(dir.path / "x.png", chart), "plot: series 'bad' has 2 x and 1 y values");
    chart.series = {{"zero", {0, 1}, {1, 2}, kC0}};
    chart.log_x = true;
    CHECK_THROWS_WITH(plot_lines(dir.path / "x.png", chart), "plot: x = 0 on a log axis");
    chart.log_x = false;
    CHECK_THROWS_WITH(plot_lines(dir.path / "no/such/folder/x.png", chart),
                      Catch::Contains("cannot write the figure to") && Catch::Contains("no/such/folder/x.png"));
}

TEST_CASE("plot_values: chapter 6's figure (figsize 5 x 3), only the figure left, unequal curves refused") {
    const llmfs::testing::TempDir dir("llmfs_plot_test");
    const std::filesystem::path png = dir.path / "accuracy-plot.png";
    plot_values(png, 5, 1040, {0.5, 0.625, 0.75, 0.875, 1.0}, {0.5, 0.5, 0.625, 0.75, 0.75}, "accuracy");
    const ImageSummary image = summarize_png(png);
    CHECK(image.width == 500);
    CHECK(image.height == 300);
    CHECK(image.colours > 50);
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path)) ++files;
    CHECK(files == 1);  // no partial file beside it
    CHECK_THROWS_WITH(plot_values(dir.path / "loss-plot.pdf", 5, 1040, {1, 2}, {1}, "loss"),
                      "plot_values: 2 training values but 1 validation values");
    CHECK_FALSE(std::filesystem::exists(dir.path / "loss-plot.pdf"));
}
