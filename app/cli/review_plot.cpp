#include "review_plot.h"
#include "svg_plot.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace linkscope::cli {
namespace {

constexpr double kWidth = 720, kHeight = 420, kLeft = 70, kRight = 200, kTop = 50, kBottom = 60;

const char* colourOf(std::size_t walk) {
    static const char* const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
    return colours[walk % 4];
}

}  // namespace

std::string reviewPlotSvg(std::span<const curation::ReviewWalk> walks, double target, const std::string& title) {
    // y from the lowest accuracy (to tenths) to 1; x to the longest walk.
    double low = std::min(1.0, target);
    std::size_t decisions = 1;
    for (const auto& walk : walks)
        for (const auto& step : walk.steps) {
            low = std::min(low, step.accuracy);
            decisions = std::max(decisions, step.decisions);
        }
    low = std::max(0.0, std::floor(low * 10.0 - 0.5) / 10.0);
    const double high = 1.0;
    const SvgPlotFrame frame{kWidth, kHeight, kLeft, kRight, kTop, kBottom, low, high, decisions};
    const double plotWidth = frame.plotWidth();
    const auto x = [&](double done) { return frame.x(done); };
    const auto y = [&](double accuracy) { return frame.y(accuracy); };

    std::ostringstream svg;
    writeSvgPlotFrame(svg, frame, title, "decisions", "accuracy of the whole split");
    svg << "<line x1=\"" << kLeft << "\" y1=\"" << y(target) << "\" x2=\"" << kLeft + plotWidth << "\" y2=\""
        << y(target) << "\" stroke=\"#888\" stroke-dasharray=\"6,4\"/>\n";

    double legendY = kTop + 10;
    for (std::size_t w = 0; w < walks.size(); ++w) {
        const auto& walk = walks[w];
        svg << "<polyline fill=\"none\" stroke=\"" << colourOf(w) << "\" stroke-width=\"2\" points=\"";
        for (const auto& step : walk.steps)
            svg << x(static_cast<double>(step.decisions)) << ',' << y(step.accuracy) << ' ';
        const std::string label = std::string(curation::reviewOrderName(walk.order)) + " order";
        svg << "\"/>\n"
            << "<line x1=\"" << kLeft + plotWidth + 16 << "\" y1=\"" << legendY << "\" x2=\"" << kLeft + plotWidth + 40
            << "\" y2=\"" << legendY << "\" stroke=\"" << colourOf(w) << "\" stroke-width=\"2\"/>\n"
            << "<text x=\"" << kLeft + plotWidth + 46 << "\" y=\"" << legendY + 4 << "\">" << label << "</text>\n";
        const auto reached = walk.decisionsToReach(target);
        svg << "<text x=\"" << kLeft + plotWidth + 46 << "\" y=\"" << legendY + 20 << "\">"
            << (reached ? std::to_string(*reached) + " to reach target" : std::string("target not reached"))
            << "</text>\n";
        legendY += 44;
    }
    svg.precision(2);
    svg << "<text x=\"" << kLeft + plotWidth + 16 << "\" y=\"" << legendY + 4 << "\">dashed: " << target << "</text>\n"
        << "</svg>\n";
    return svg.str();
}

}  // namespace linkscope::cli
