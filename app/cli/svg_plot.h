#pragma once
// What the SVG line plots the CLI writes (curation_plot, review_plot) share: text escaping, and
// the frame of a plot of an accuracy against a count (page, title, axes, the y grid every 0.05
// with its labels, about ten x labels, the axis titles). Plain SVG 1.1, no dependency.
#include <algorithm>
#include <cstddef>
#include <ios>
#include <ostream>
#include <string>

namespace linkscope::cli {

inline std::string svgEscaped(const std::string& text) {
    std::string out;
    for (const char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

/// The page and plot area of a plot, y from `low` to `high`, x from 0 to `xMax`.
struct SvgPlotFrame {
    double width = 720, height = 420, left = 70, right = 190, top = 50, bottom = 60;
    double low = 0.0, high = 1.0;
    std::size_t xMax = 1;

    double plotWidth() const { return width - left - right; }
    double plotHeight() const { return height - top - bottom; }
    double x(double value) const {
        return left + value / static_cast<double>(std::max<std::size_t>(1, xMax)) * plotWidth();
    }
    double y(double value) const { return top + (high - value) / (high - low) * plotHeight(); }
};

/// Opens the <svg> element and writes the frame; leaves `svg` fixed with one decimal. The
/// caller draws its lines and legend, then closes with "</svg>\n".
inline void writeSvgPlotFrame(std::ostream& svg, const SvgPlotFrame& f, const std::string& title,
                              const std::string& xTitle, const std::string& yTitle) {
    svg.setf(std::ios::fixed);
    svg.precision(1);
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << f.width << "\" height=\"" << f.height
        << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
        << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        << "<text x=\"" << f.left << "\" y=\"24\" font-size=\"14\">" << svgEscaped(title) << "</text>\n"
        << "<line x1=\"" << f.left << "\" y1=\"" << f.top + f.plotHeight() << "\" x2=\"" << f.left + f.plotWidth()
        << "\" y2=\"" << f.top + f.plotHeight() << "\" stroke=\"black\"/>\n"
        << "<line x1=\"" << f.left << "\" y1=\"" << f.top << "\" x2=\"" << f.left << "\" y2=\""
        << f.top + f.plotHeight() << "\" stroke=\"black\"/>\n";
    for (double tick = f.low; tick <= f.high + 1e-9; tick += 0.05) {
        svg << "<line x1=\"" << f.left << "\" y1=\"" << f.y(tick) << "\" x2=\"" << f.left + f.plotWidth() << "\" y2=\""
            << f.y(tick) << "\" stroke=\"#ddd\"/>\n";
        svg.precision(2);
        svg << "<text x=\"" << f.left - 8 << "\" y=\"" << f.y(tick) + 4 << "\" text-anchor=\"end\">" << tick
            << "</text>\n";
        svg.precision(1);
    }
    const std::size_t step = std::max<std::size_t>(1, f.xMax / 10);
    for (std::size_t done = 0; done <= f.xMax; done += step)
        svg << "<text x=\"" << f.x(static_cast<double>(done)) << "\" y=\"" << f.top + f.plotHeight() + 18
            << "\" text-anchor=\"middle\">" << done << "</text>\n";
    svg << "<text x=\"" << f.left + f.plotWidth() / 2 << "\" y=\"" << f.height - 16 << "\" text-anchor=\"middle\">"
        << svgEscaped(xTitle) << "</text>\n"
        << "<text transform=\"translate(18," << f.top + f.plotHeight() / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
        << svgEscaped(yTitle) << "</text>\n";
}

}  // namespace linkscope::cli
