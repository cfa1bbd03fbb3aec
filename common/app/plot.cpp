#include "llmfs/app/plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>

#include <cstdlib>
#include <system_error>

#include <cairo.h>
#include <fmt/format.h>

#include "llmfs/text/data_dir.hpp"

namespace llmfs {

std::filesystem::path default_figure_path(const std::string& file_name) {
    namespace fs = std::filesystem;
    fs::path dir;
    std::error_code ec;
    if (const char* env = std::getenv("LLMFS_FIGURE_DIR"); env != nullptr && *env != '\0') {
        dir = env;
    } else if (const fs::path exe = executable_path(ec); !ec && fs::exists(exe.parent_path().parent_path() / "CMakeCache.txt", ec)) {
        dir = exe.parent_path().parent_path() / "figures";
    } else if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache != nullptr && *cache != '\0') {
        dir = fs::path(cache) / "llmfs" / "figures";
    } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
        dir = fs::path(home) / ".cache" / "llmfs" / "figures";
    } else {
        dir = fs::temp_directory_path() / "llmfs-figures";
    }
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create the folder " + dir.string() + " for figures: " + ec.message() +
                                     "; set LLMFS_FIGURE_DIR to a writable folder, or give --figure PATH");
    return dir / file_name;
}

namespace {

using Surface = std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)>;
using Context = std::unique_ptr<cairo_t, decltype(&cairo_destroy)>;

// Round tick spacing (1, 2 or 5 times a power of ten) for about 6 ticks over [lo, hi].
double tick_step(double lo, double hi) {
    const double raw = (hi - lo) / 6.0;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0})
        if (raw <= m * power) return m * power;
    return 10.0 * power;
}

void text_centered(cairo_t* cr, const std::string& s, double cx, double cy) {
    cairo_text_extents_t ext;
    cairo_text_extents(cr, s.c_str(), &ext);
    cairo_move_to(cr, cx - ext.width / 2 - ext.x_bearing, cy - ext.height / 2 - ext.y_bearing);
    cairo_show_text(cr, s.c_str());
}

void draw_panel(cairo_t* cr, const std::vector<float>& x, const Panel& panel, double ox, double w, double h) {
    const double left = ox + 55, right = ox + w - 15, top = 30, bottom = h - 40;
    const auto [xmin_it, xmax_it] = std::minmax_element(x.begin(), x.end());
    const auto [ymin_it, ymax_it] = std::minmax_element(panel.y.begin(), panel.y.end());
    const double xmin = *xmin_it, xmax = *xmax_it;
    const double pad = 0.05 * (*ymax_it - *ymin_it + 1e-12);
    const double ymin = *ymin_it - pad, ymax = *ymax_it + pad;
    auto px = [&](double v) { return left + (v - xmin) / (xmax - xmin) * (right - left); };
    auto py = [&](double v) { return bottom - (v - ymin) / (ymax - ymin) * (bottom - top); };

    cairo_set_font_size(cr, 11);
    cairo_set_line_width(cr, 0.5);
    const double xs = tick_step(xmin, xmax), ys = tick_step(ymin, ymax);
    for (double t = std::ceil(xmin / xs) * xs; t <= xmax + 1e-9; t += xs) {  // vertical grid + x ticks
        cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
        cairo_move_to(cr, px(t), top);
        cairo_line_to(cr, px(t), bottom);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        text_centered(cr, fmt::format("{:g}", std::abs(t) < 1e-12 ? 0.0 : t), px(t), bottom + 12);
    }
    for (double t = std::ceil(ymin / ys) * ys; t <= ymax + 1e-9; t += ys) {  // horizontal grid + y ticks
        cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
        cairo_move_to(cr, left, py(t));
        cairo_line_to(cr, right, py(t));
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        text_centered(cr, fmt::format("{:g}", std::abs(t) < 1e-12 ? 0.0 : t), left - 20, py(t));
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_rectangle(cr, left, top, right - left, bottom - top);
    cairo_stroke(cr);

    cairo_set_source_rgb(cr, 0.12, 0.47, 0.71);  // matplotlib's first colour
    cairo_set_line_width(cr, 1.5);
    for (std::size_t i = 0; i < x.size(); ++i)
        i == 0 ? cairo_move_to(cr, px(x[i]), py(panel.y[i])) : cairo_line_to(cr, px(x[i]), py(panel.y[i]));
    cairo_stroke(cr);

    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_font_size(cr, 13);
    text_centered(cr, panel.title, (left + right) / 2, top / 2);
    cairo_set_font_size(cr, 11);
    text_centered(cr, "x", (left + right) / 2, h - 12);
    cairo_save(cr);
    cairo_translate(cr, ox + 12, (top + bottom) / 2);
    cairo_rotate(cr, -M_PI / 2);
    text_centered(cr, panel.ylabel, 0, 0);
    cairo_restore(cr);
}

// matplotlib's viridis at 0, 0.25, 0.5, 0.75, 1, linearly between.
void viridis(double t, double rgb[3]) {
    static constexpr double stops[5][3] = {
        {0.267, 0.005, 0.329}, {0.230, 0.322, 0.546}, {0.128, 0.567, 0.551}, {0.369, 0.789, 0.383}, {0.993, 0.906, 0.144}};
    t = std::clamp(t, 0.0, 1.0) * 4;
    const int i = std::min(3, static_cast<int>(t));
    for (int c = 0; c < 3; ++c) rgb[c] = stops[i][c] + (t - i) * (stops[i + 1][c] - stops[i][c]);
}

// Margins around a heatmap's cells: labels left and below, title above.
constexpr double kHeatLeft = 90, kHeatTop = 40, kHeatBottom = 90, kHeatRight = 20;

void draw_heatmap(cairo_t* cr, const Heatmap& map, double ox, double cell, double vmax) {
    const double left = ox + kHeatLeft, top = kHeatTop;
    cairo_set_font_size(cr, 11);
    for (std::size_t r = 0; r < map.rows; ++r) {
        for (std::size_t c = 0; c < map.cols; ++c) {
            const double v = map.values[r * map.cols + c];
            double rgb[3];
            viridis(v / vmax, rgb);
            cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
            cairo_rectangle(cr, left + c * cell, top + r * cell, cell, cell);
            cairo_fill(cr);
            const double luminance = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2];
            luminance > 0.5 ? cairo_set_source_rgb(cr, 0, 0, 0) : cairo_set_source_rgb(cr, 1, 1, 1);
            text_centered(cr, fmt::format("{:.2f}", v), left + (c + 0.5) * cell, top + (r + 0.5) * cell);
        }
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, left, top, map.cols * cell, map.rows * cell);
    cairo_stroke(cr);
    for (std::size_t r = 0; r < map.rows; ++r) {  // row labels, right-aligned against the cells
        cairo_text_extents_t ext;
        cairo_text_extents(cr, map.row_labels[r].c_str(), &ext);
        cairo_move_to(cr, left - 6 - ext.width - ext.x_bearing, top + (r + 0.5) * cell - ext.height / 2 - ext.y_bearing);
        cairo_show_text(cr, map.row_labels[r].c_str());
    }
    const double bottom = top + map.rows * cell;
    for (std::size_t c = 0; c < map.cols; ++c) {  // column labels, turned 45 degrees
        cairo_save(cr);
        cairo_translate(cr, left + (c + 0.5) * cell, bottom + 8);
        cairo_rotate(cr, M_PI / 4);
        cairo_move_to(cr, 0, 4);
        cairo_show_text(cr, map.col_labels[c].c_str());
        cairo_restore(cr);
    }
    text_centered(cr, map.col_axis, left + map.cols * cell / 2, bottom + kHeatBottom - 12);
    cairo_save(cr);
    cairo_translate(cr, ox + 12, top + map.rows * cell / 2);
    cairo_rotate(cr, -M_PI / 2);
    text_centered(cr, map.row_axis, 0, 0);
    cairo_restore(cr);
    cairo_set_font_size(cr, 13);
    text_centered(cr, map.title, left + map.cols * cell / 2, top / 2);
}

}  // namespace

void plot_heatmaps(const std::filesystem::path& png, const std::vector<Heatmap>& panels, int cell_px) {
    if (panels.empty()) throw std::invalid_argument("plot_heatmaps: no heatmaps");
    double vmax = 1, width = 0, height = 0;
    for (const Heatmap& m : panels) {
        if (m.rows == 0 || m.cols == 0 || m.values.size() != m.rows * m.cols || m.row_labels.size() != m.rows ||
            m.col_labels.size() != m.cols)
            throw std::invalid_argument(fmt::format("plot_heatmaps: '{}' is {} x {} with {} values, {} row and {} column labels",
                                                    m.title, m.rows, m.cols, m.values.size(), m.row_labels.size(),
                                                    m.col_labels.size()));
        for (float v : m.values) vmax = std::max(vmax, static_cast<double>(v));
        width += kHeatLeft + m.cols * cell_px + kHeatRight;
        height = std::max(height, kHeatTop + m.rows * cell_px + kHeatBottom);
    }
    Surface surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, static_cast<int>(width), static_cast<int>(height)),
                    cairo_surface_destroy);
    Context cr(cairo_create(surface.get()), cairo_destroy);
    cairo_set_source_rgb(cr.get(), 1, 1, 1);
    cairo_paint(cr.get());
    cairo_select_font_face(cr.get(), "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    double ox = 0;
    for (const Heatmap& m : panels) {
        draw_heatmap(cr.get(), m, ox, cell_px, vmax);
        ox += kHeatLeft + m.cols * cell_px + kHeatRight;
    }
    const cairo_status_t status = cairo_surface_write_to_png(surface.get(), png.c_str());
    if (status != CAIRO_STATUS_SUCCESS)
        throw std::runtime_error(fmt::format("cannot write the figure to {}: {} (choose a writable folder with --figure)",
                                             png.string(), cairo_status_to_string(status)));
}

void plot_bars(const std::filesystem::path& png, const std::string& title, const std::string& unit,
               const std::vector<std::string>& labels, const std::vector<BarSeries>& series) {
    if (labels.empty() || series.empty()) throw std::invalid_argument("plot_bars: nothing to draw");
    double vmax = 0;
    for (const BarSeries& s : series) {
        if (s.values.size() != labels.size())
            throw std::invalid_argument(fmt::format("plot_bars: series '{}' has {} values for {} labels", s.name, s.values.size(), labels.size()));
        for (double v : s.values)
            if (std::isfinite(v)) vmax = std::max(vmax, v);
    }
    if (vmax <= 0) vmax = 1;
    constexpr double kLeft = 330, kRight = 130, kTop = 50, kBar = 18, kGap = 14, kBottom = 40;
    const double row = kBar * static_cast<double>(series.size()) + kGap, width = 900;
    const double height = kTop + row * static_cast<double>(labels.size()) + kBottom + 18 * static_cast<double>(series.size());
    Surface surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, static_cast<int>(width), static_cast<int>(height)),
                    cairo_surface_destroy);
    Context ctx(cairo_create(surface.get()), cairo_destroy);
    cairo_t* cr = ctx.get();
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    static constexpr double colours[][3] = {{0.12, 0.47, 0.71}, {1.0, 0.50, 0.05}, {0.17, 0.63, 0.17}, {0.84, 0.15, 0.16}};
    const double span = width - kLeft - kRight;
    cairo_set_font_size(cr, 12);
    for (std::size_t j = 0; j < labels.size(); ++j) {
        const double y0 = kTop + row * static_cast<double>(j);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_text_extents_t ext;
        cairo_text_extents(cr, labels[j].c_str(), &ext);
        cairo_move_to(cr, kLeft - 8 - ext.width - ext.x_bearing, y0 + row / 2 - kGap / 2 - ext.height / 2 - ext.y_bearing);
        cairo_show_text(cr, labels[j].c_str());
        for (std::size_t i = 0; i < series.size(); ++i) {
            const double v = series[i].values[j], y = y0 + kBar * static_cast<double>(i);
            const auto& c = colours[i % 4];
            std::string text = "n/a";
            if (std::isfinite(v)) {
                cairo_set_source_rgb(cr, c[0], c[1], c[2]);
                cairo_rectangle(cr, kLeft, y + 2, span * v / vmax, kBar - 4);
                cairo_fill(cr);
                text = fmt::format("{:.0f} {}", v, unit);
            }
            cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
            cairo_move_to(cr, kLeft + (std::isfinite(v) ? span * v / vmax : 0) + 6, y + kBar - 5);
            cairo_show_text(cr, text.c_str());
        }
    }
    const double legend = kTop + row * static_cast<double>(labels.size()) + 10;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const auto& c = colours[i % 4];
        cairo_set_source_rgb(cr, c[0], c[1], c[2]);
        cairo_rectangle(cr, kLeft, legend + 18 * static_cast<double>(i), 14, 12);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_move_to(cr, kLeft + 20, legend + 18 * static_cast<double>(i) + 11);
        cairo_show_text(cr, series[i].name.c_str());
    }
    cairo_set_font_size(cr, 14);
    text_centered(cr, title, width / 2, kTop / 2);
    const cairo_status_t status = cairo_surface_write_to_png(surface.get(), png.c_str());
    if (status != CAIRO_STATUS_SUCCESS)
        throw std::runtime_error(fmt::format("cannot write the figure to {}: {} (choose a writable path with --figure)",
                                             png.string(), cairo_status_to_string(status)));
}

ImageSummary summarize_png(const std::filesystem::path& png) {
    Surface surface(cairo_image_surface_create_from_png(png.c_str()), cairo_surface_destroy);
    if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS)
        throw std::runtime_error(fmt::format("cannot read the PNG {}: {}", png.string(),
                                             cairo_status_to_string(cairo_surface_status(surface.get()))));
    cairo_surface_flush(surface.get());
    ImageSummary summary{cairo_image_surface_get_width(surface.get()), cairo_image_surface_get_height(surface.get()), 0};
    const int stride = cairo_image_surface_get_stride(surface.get());
    const unsigned char* data = cairo_image_surface_get_data(surface.get());
    std::set<std::uint32_t> colours;
    for (int y = 0; y < summary.height; ++y) {
        const auto* row = reinterpret_cast<const std::uint32_t*>(data + static_cast<std::ptrdiff_t>(y) * stride);
        colours.insert(row, row + summary.width);
    }
    summary.colours = colours.size();
    return summary;
}

void plot_panels(const std::filesystem::path& png, const std::vector<float>& x, const std::vector<Panel>& panels,
                 int width_px, int height_px) {
    for (const auto& p : panels)
        if (p.y.size() != x.size() || x.size() < 2)
            throw std::invalid_argument(fmt::format("plot: panel '{}' has {} y values for {} x values", p.title, p.y.size(), x.size()));
    Surface surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width_px * static_cast<int>(panels.size()), height_px),
                    cairo_surface_destroy);
    Context cr(cairo_create(surface.get()), cairo_destroy);
    cairo_set_source_rgb(cr.get(), 1, 1, 1);
    cairo_paint(cr.get());
    cairo_select_font_face(cr.get(), "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    for (std::size_t i = 0; i < panels.size(); ++i)
        draw_panel(cr.get(), x, panels[i], static_cast<double>(i) * width_px, width_px, height_px);
    const cairo_status_t status = cairo_surface_write_to_png(surface.get(), png.c_str());
    if (status != CAIRO_STATUS_SUCCESS)
        throw std::runtime_error(fmt::format("cannot write the figure to {}: {} (choose a writable path with --figure)",
                                             png.string(), cairo_status_to_string(status)));
}

}  // namespace llmfs
