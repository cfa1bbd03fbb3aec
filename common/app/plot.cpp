#include "llmfs/app/plot.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <set>
#include <stdexcept>

#include <cstdlib>
#include <system_error>

#include <unistd.h>

#include <cairo.h>
#include <cairo-pdf.h>
#include <fmt/format.h>

namespace llmfs {

std::filesystem::path default_output_path(const std::string& file_name) {
    namespace fs = std::filesystem;
    const char* env = std::getenv("LLMFS_FIGURE_DIR");
    if (env == nullptr || *env == '\0') return file_name;  // the current folder
    std::error_code ec;
    fs::create_directories(env, ec);
    if (ec) throw std::runtime_error(std::string("cannot create the folder ") + env + " for figures (LLMFS_FIGURE_DIR): " +
                                     ec.message() + "; set it to a writable folder, or give the figure's path");
    return fs::path(env) / file_name;
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

namespace {

// One axis of a line chart: data range (log10 of it on a log axis) padded 5% as matplotlib does.
struct Axis {
    bool log;
    double lo, hi;
    double map(double v) const { return ((log ? std::log10(v) : v) - lo) / (hi - lo); }
};

Axis make_axis(bool log, const std::vector<double>& values) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double v : values) {
        const double t = log ? std::log10(v) : v;
        lo = std::min(lo, t);
        hi = std::max(hi, t);
    }
    if (!(hi > lo)) hi = lo + 1, lo -= 1;
    const double pad = 0.05 * (hi - lo);
    return {log, lo - pad, hi + pad};
}

// Tick positions (in data units) and whether each is major (labelled).
std::vector<std::pair<double, bool>> ticks(const Axis& a) {
    std::vector<std::pair<double, bool>> out;
    if (a.log) {
        for (int k = static_cast<int>(std::floor(a.lo)); k <= static_cast<int>(std::ceil(a.hi)); ++k)
            for (int m = 1; m <= 9; ++m) {
                const double t = std::log10(m) + k;
                if (t >= a.lo && t <= a.hi) out.emplace_back(m * std::pow(10.0, k), m == 1);
            }
        return out;
    }
    const double step = tick_step(a.lo, a.hi);
    for (double t = std::ceil(a.lo / step) * step; t <= a.hi + 1e-9 * step; t += step) out.emplace_back(std::abs(t) < 1e-12 * step ? 0.0 : t, true);
    return out;
}

// "10" with the exponent raised, or a plain number
void tick_label(cairo_t* cr, const Axis& a, double v, double x, double y, bool below) {
    if (!a.log) {
        const std::string s = std::abs(v) >= 1e6 ? fmt::format("{:.0e}", v) : fmt::format("{:g}", v);
        if (below) text_centered(cr, s, x, y);
        else {
            cairo_text_extents_t ext;
            cairo_text_extents(cr, s.c_str(), &ext);
            cairo_move_to(cr, x - ext.width - ext.x_bearing, y - ext.height / 2 - ext.y_bearing);
            cairo_show_text(cr, s.c_str());
        }
        return;
    }
    const std::string base = "10", exponent = fmt::format("{:.0f}", std::log10(v));
    cairo_text_extents_t b, e;
    cairo_text_extents(cr, base.c_str(), &b);
    cairo_set_font_size(cr, 8);
    cairo_text_extents(cr, exponent.c_str(), &e);
    cairo_set_font_size(cr, 11);
    const double width = b.x_advance + e.x_advance;
    const double x0 = below ? x - width / 2 : x - width;
    const double y0 = below ? y + b.height / 2 : y + b.height / 2;
    cairo_move_to(cr, x0, y0);
    cairo_show_text(cr, base.c_str());
    cairo_set_font_size(cr, 8);
    cairo_move_to(cr, x0 + b.x_advance, y0 - b.height * 0.55);
    cairo_show_text(cr, exponent.c_str());
    cairo_set_font_size(cr, 11);
}

void marker_at(cairo_t* cr, char marker, double x, double y) {
    if (marker == 'o') {
        cairo_new_sub_path(cr);
        cairo_arc(cr, x, y, 3.5, 0, 2 * M_PI);
        cairo_fill(cr);
    } else if (marker == 's') {
        cairo_rectangle(cr, x - 3.2, y - 3.2, 6.4, 6.4);
        cairo_fill(cr);
    }
}

void set_style(cairo_t* cr, const std::array<double, 3>& rgb, bool dashed, bool dotted) {
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_set_line_width(cr, 1.5);
    const double dash[] = {5.5, 2.4}, dot[] = {1.5, 2.5};
    if (dashed) cairo_set_dash(cr, dash, 2, 0);
    else if (dotted) cairo_set_dash(cr, dot, 2, 0);
    else cairo_set_dash(cr, nullptr, 0, 0);
}

bool is_pdf(const std::filesystem::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".pdf";
}

}  // namespace

void plot_lines(const std::filesystem::path& path, const LineChart& chart) {
    std::vector<double> xs, ys;
    for (const auto& s : chart.series) {
        if (s.x.size() != s.y.size() || s.x.empty())
            throw std::invalid_argument(fmt::format("plot: series '{}' has {} x and {} y values", s.label, s.x.size(), s.y.size()));
        xs.insert(xs.end(), s.x.begin(), s.x.end());
        ys.insert(ys.end(), s.y.begin(), s.y.end());
    }
    for (const auto& h : chart.hlines) ys.push_back(h.y);
    for (double v : xs)
        if (chart.log_x && !(v > 0)) throw std::invalid_argument(fmt::format("plot: x = {} on a log axis", v));
    for (double v : ys)
        if (chart.log_y && !(v > 0)) throw std::invalid_argument(fmt::format("plot: y = {} on a log axis", v));
    if (xs.empty()) throw std::invalid_argument("plot: nothing to draw");
    const Axis ax = make_axis(chart.log_x, xs), ay = make_axis(chart.log_y, ys);

    // A PDF when the name ends in .pdf (the scripts' plt.savefig("....pdf"); a pixel is a point), else a PNG.
    const bool pdf = is_pdf(path);
    Surface surface(pdf ? cairo_pdf_surface_create(path.c_str(), chart.width_px, chart.height_px)
                        : cairo_image_surface_create(CAIRO_FORMAT_ARGB32, chart.width_px, chart.height_px),
                    cairo_surface_destroy);
    Context ctx(cairo_create(surface.get()), cairo_destroy);
    cairo_t* cr = ctx.get();
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_scale(cr, chart.scale, chart.scale);  // drawn at 100 dpi, enlarged
    const double W = chart.width_px / chart.scale, H = chart.height_px / chart.scale;
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

    std::vector<std::string> title_lines;
    for (std::size_t start = 0;;) {
        const auto nl = chart.title.find('\n', start);
        title_lines.push_back(chart.title.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
        if (nl == std::string::npos) break;
        start = nl + 1;
    }
    if (chart.title.empty()) title_lines.clear();
    const double line_h = chart.title_size * 1.35;
    const bool twin = !chart.top_x.empty();
    const double left = 75, right = W - 20, bottom = H - 50;
    const double top = 14 + line_h * static_cast<double>(title_lines.size()) + 6 + (twin ? 40 : 0);
    auto px = [&](double v) { return left + ax.map(v) * (right - left); };
    auto py = [&](double v) { return bottom - ay.map(v) * (bottom - top); };

    cairo_set_font_size(cr, 11);
    for (const auto& [t, major] : ticks(ax)) {
        if (chart.grid) {
            cairo_set_source_rgb(cr, 0.69, 0.69, 0.69);
            cairo_set_line_width(cr, major ? 0.8 : 0.5);
            cairo_move_to(cr, px(t), top);
            cairo_line_to(cr, px(t), bottom);
            cairo_stroke(cr);
        }
        cairo_set_source_rgb(cr, 0, 0, 0);
        if (major) tick_label(cr, ax, t, px(t), bottom + 14, true);
    }
    if (twin) {  // the top axis: its tick labels above the frame, no grid of its own
        const Axis at = make_axis(false, chart.top_x);
        for (const auto& [t, major] : ticks(at)) {
            const double x = left + at.map(t) * (right - left);
            cairo_set_line_width(cr, 0.8);
            cairo_move_to(cr, x, top);
            cairo_line_to(cr, x, top - 4);
            cairo_stroke(cr);
            if (major) tick_label(cr, at, t, x, top - 12, true);
        }
        cairo_set_font_size(cr, 12);
        text_centered(cr, chart.top_xlabel, (left + right) / 2, top - 30);
        cairo_set_font_size(cr, 11);
    }
    for (const auto& [t, major] : ticks(ay)) {
        if (chart.grid) {
            cairo_set_source_rgb(cr, 0.69, 0.69, 0.69);
            cairo_set_line_width(cr, major ? 0.8 : 0.5);
            cairo_move_to(cr, left, py(t));
            cairo_line_to(cr, right, py(t));
            cairo_stroke(cr);
        }
        cairo_set_source_rgb(cr, 0, 0, 0);
        if (major) tick_label(cr, ay, t, left - 6, py(t), false);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 0.8);
    cairo_rectangle(cr, left, top, right - left, bottom - top);
    cairo_stroke(cr);

    cairo_save(cr);
    cairo_rectangle(cr, left, top, right - left, bottom - top);
    cairo_clip(cr);
    for (const auto& h : chart.hlines) {
        set_style(cr, h.rgb, false, h.dotted);
        cairo_move_to(cr, left, py(h.y));
        cairo_line_to(cr, right, py(h.y));
        cairo_stroke(cr);
    }
    for (const auto& s : chart.series) {
        set_style(cr, s.rgb, s.dashed, false);
        for (std::size_t i = 0; i < s.x.size(); ++i)
            i == 0 ? cairo_move_to(cr, px(s.x[i]), py(s.y[i])) : cairo_line_to(cr, px(s.x[i]), py(s.y[i]));
        cairo_stroke(cr);
        for (std::size_t i = 0; i < s.x.size(); ++i) marker_at(cr, s.marker, px(s.x[i]), py(s.y[i]));
    }
    cairo_restore(cr);
    cairo_set_dash(cr, nullptr, 0, 0);

    // legend, upper left: a line sample (with its marker) and the label per entry
    struct Entry {
        std::string label;
        std::array<double, 3> rgb;
        bool dashed, dotted;
        char marker;
    };
    std::vector<Entry> entries;
    for (const auto& s : chart.series) entries.push_back({s.label, s.rgb, s.dashed, false, s.marker});
    for (const auto& h : chart.hlines) entries.push_back({h.label, h.rgb, false, h.dotted, 0});
    if (!entries.empty()) {
        cairo_set_font_size(cr, 11);
        double text_w = 0;
        for (const auto& e : entries) {
            cairo_text_extents_t ext;
            cairo_text_extents(cr, e.label.c_str(), &ext);
            text_w = std::max(text_w, ext.x_advance);
        }
        const double row = 19, box_w = 44 + text_w, box_h = row * static_cast<double>(entries.size()) + 8;
        // the corner whose box covers the fewest points: upper left, upper right, lower left, lower right
        double box_x = left + 8, box_y = top + 8;
        std::size_t fewest = std::numeric_limits<std::size_t>::max();
        for (int corner = 0; corner < 4; ++corner) {
            if (chart.legend_upper_right && corner != 1) continue;
            const double bx = corner % 2 ? right - 8 - box_w : left + 8, by = corner < 2 ? top + 8 : bottom - 8 - box_h;
            std::size_t covered = 0;
            for (const auto& s : chart.series)
                for (std::size_t i = 0; i < s.x.size(); ++i) {
                    const double x = px(s.x[i]), y = py(s.y[i]);
                    covered += x >= bx && x <= bx + box_w && y >= by && y <= by + box_h;
                }
            for (const auto& h : chart.hlines) covered += py(h.y) >= by && py(h.y) <= by + box_h ? 10 : 0;
            if (covered < fewest) fewest = covered, box_x = bx, box_y = by;
        }
        cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
        cairo_rectangle(cr, box_x, box_y, box_w, box_h);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 0.8, 0.8, 0.8);
        cairo_set_line_width(cr, 0.8);
        cairo_stroke(cr);
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const auto& e = entries[i];
            const double y = box_y + 4 + row * (static_cast<double>(i) + 0.5);
            set_style(cr, e.rgb, e.dashed, e.dotted);
            cairo_move_to(cr, box_x + 6, y);
            cairo_line_to(cr, box_x + 32, y);
            cairo_stroke(cr);
            cairo_set_dash(cr, nullptr, 0, 0);
            marker_at(cr, e.marker, box_x + 19, y);
            cairo_set_source_rgb(cr, 0, 0, 0);
            cairo_text_extents_t ext;
            cairo_text_extents(cr, e.label.c_str(), &ext);
            cairo_move_to(cr, box_x + 38, y - ext.height / 2 - ext.y_bearing);
            cairo_show_text(cr, e.label.c_str());
        }
    }

    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_font_size(cr, chart.title_size);
    for (std::size_t i = 0; i < title_lines.size(); ++i)
        text_centered(cr, title_lines[i], (left + right) / 2, 10 + line_h * (static_cast<double>(i) + 0.5));
    cairo_set_font_size(cr, 12);
    text_centered(cr, chart.xlabel, (left + right) / 2, H - 16);
    cairo_save(cr);
    cairo_translate(cr, 16, (top + bottom) / 2);
    cairo_rotate(cr, -M_PI / 2);
    text_centered(cr, chart.ylabel, 0, 0);
    cairo_restore(cr);

    if (pdf) cairo_surface_finish(surface.get());  // writes the file
    const cairo_status_t status = pdf ? cairo_surface_status(surface.get()) : cairo_surface_write_to_png(surface.get(), path.c_str());
    if (status != CAIRO_STATUS_SUCCESS)
        throw std::runtime_error(fmt::format("cannot write the figure to {}: {} (choose a writable path)", path.string(),
                                             cairo_status_to_string(status)));
}

namespace {

// torch.linspace(0, end, n)
std::vector<double> linspace_to(double end, std::size_t n) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = n == 1 ? 0.0 : end * static_cast<double>(i) / static_cast<double>(n - 1);
    return v;
}

// Two curves against epochs with a second x axis on top, written beside `path` (a name of this
// process's own with path's extension, so two programs writing the same figure never share a
// partial file and a .pdf is drawn as a PDF) and renamed over it.
void plot_train_val(const std::filesystem::path& path, LineChart chart, std::size_t num_epochs, const std::string& label,
                    const std::vector<double>& train_values, const std::vector<double>& val_values) {
    const std::vector<double> epochs_seen = linspace_to(static_cast<double>(num_epochs), train_values.size());
    chart.series.push_back({"Training " + label, epochs_seen, train_values, kC0});
    LineSeries val{"Validation " + label, epochs_seen, val_values, kC1};
    val.dashed = true;  // linestyle="-." drawn dashed
    chart.series.push_back(val);
    chart.xlabel = "Epochs";
    // loss-plot.partial-PID.pdf: the kind of file (plot_lines reads it from the extension) kept
    const std::filesystem::path partial =
        path.parent_path() / fmt::format("{}.partial-{}{}", path.stem().string(), ::getpid(), path.extension().string());
    try {
        plot_lines(partial, chart);
    } catch (...) {
        std::error_code ec;
        std::filesystem::remove(partial, ec);
        throw;
    }
    std::error_code ec;
    std::filesystem::rename(partial, path, ec);
    if (ec) {
        std::error_code ignored;
        std::filesystem::remove(partial, ignored);
        throw std::runtime_error(fmt::format("cannot write the figure to {}: {}", path.string(), ec.message()));
    }
}

}  // namespace

void plot_losses(const std::filesystem::path& path, std::size_t num_epochs, const std::vector<double>& train_losses,
                 const std::vector<double>& val_losses, const std::vector<std::size_t>& tokens_seen) {
    LineChart chart;
    chart.ylabel = "Loss";
    chart.legend_upper_right = true;
    chart.top_xlabel = "Tokens seen";  // ax2 = ax1.twiny(); ax2.plot(tokens_seen, train_losses, alpha=0)
    chart.top_x.assign(tokens_seen.begin(), tokens_seen.end());
    plot_train_val(path, std::move(chart), num_epochs, "loss", train_losses, val_losses);
}

void plot_values(const std::filesystem::path& path, std::size_t num_epochs, std::size_t examples_seen,
                 const std::vector<double>& train_values, const std::vector<double>& val_values, const std::string& label) {
    if (train_values.size() != val_values.size())
        throw std::invalid_argument(fmt::format("plot_values: {} training values but {} validation values", train_values.size(), val_values.size()));
    LineChart chart;
    chart.ylabel = label;  // label.capitalize()
    if (!chart.ylabel.empty()) chart.ylabel[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(chart.ylabel[0])));
    chart.width_px = 500;  // figsize=(5, 3)
    chart.grid = false;    // no ax1.grid() call
    chart.height_px = 300;
    chart.top_xlabel = "Examples seen";  // ax2.plot(examples_seen, train_values, alpha=0)
    chart.top_x = linspace_to(static_cast<double>(examples_seen), train_values.size());
    plot_train_val(path, std::move(chart), num_epochs, label, train_values, val_values);
}

}  // namespace llmfs
