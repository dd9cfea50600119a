#include "review_plot.h"
#include "svg_text.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace linkscope::cli {
namespace {

constexpr double kWidth = 720, kHeight = 420, kLeft = 70, kRight = 200, kTop = 50, kBottom = 60;

const auto escaped = svgEscaped;

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
    const double plotWidth = kWidth - kLeft - kRight, plotHeight = kHeight - kTop - kBottom;
    const auto x = [&](double done) { return kLeft + done / static_cast<double>(decisions) * plotWidth; };
    const auto y = [&](double accuracy) { return kTop + (high - accuracy) / (high - low) * plotHeight; };

    std::ostringstream svg;
    svg.setf(std::ios::fixed);
    svg.precision(1);
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
        << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
        << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        << "<text x=\"" << kLeft << "\" y=\"24\" font-size=\"14\">" << escaped(title) << "</text>\n"
        << "<line x1=\"" << kLeft << "\" y1=\"" << kTop + plotHeight << "\" x2=\"" << kLeft + plotWidth << "\" y2=\""
        << kTop + plotHeight << "\" stroke=\"black\"/>\n"
        << "<line x1=\"" << kLeft << "\" y1=\"" << kTop << "\" x2=\"" << kLeft << "\" y2=\"" << kTop + plotHeight
        << "\" stroke=\"black\"/>\n";
    for (double tick = low; tick <= high + 1e-9; tick += 0.05) {
        svg << "<line x1=\"" << kLeft << "\" y1=\"" << y(tick) << "\" x2=\"" << kLeft + plotWidth << "\" y2=\"" << y(tick)
            << "\" stroke=\"#ddd\"/>\n";
        svg.precision(2);
        svg << "<text x=\"" << kLeft - 8 << "\" y=\"" << y(tick) + 4 << "\" text-anchor=\"end\">" << tick << "</text>\n";
        svg.precision(1);
    }
    const std::size_t tickStep = std::max<std::size_t>(1, decisions / 10);
    for (std::size_t done = 0; done <= decisions; done += tickStep)
        svg << "<text x=\"" << x(static_cast<double>(done)) << "\" y=\"" << kTop + plotHeight + 18
            << "\" text-anchor=\"middle\">" << done << "</text>\n";
    svg << "<text x=\"" << kLeft + plotWidth / 2 << "\" y=\"" << kHeight - 16 << "\" text-anchor=\"middle\">decisions</text>\n"
        << "<text transform=\"translate(18," << kTop + plotHeight / 2
        << ") rotate(-90)\" text-anchor=\"middle\">accuracy of the whole split</text>\n"
        << "<line x1=\"" << kLeft << "\" y1=\"" << y(target) << "\" x2=\"" << kLeft + plotWidth << "\" y2=\"" << y(target)
        << "\" stroke=\"#888\" stroke-dasharray=\"6,4\"/>\n";

    double legendY = kTop + 10;
    for (std::size_t w = 0; w < walks.size(); ++w) {
        const auto& walk = walks[w];
        svg << "<polyline fill=\"none\" stroke=\"" << colourOf(w) << "\" stroke-width=\"2\" points=\"";
        for (const auto& step : walk.steps) svg << x(static_cast<double>(step.decisions)) << ',' << y(step.accuracy) << ' ';
        const std::string label = std::string(curation::reviewOrderName(walk.order)) + " order";
        svg << "\"/>\n"
            << "<line x1=\"" << kLeft + plotWidth + 16 << "\" y1=\"" << legendY << "\" x2=\"" << kLeft + plotWidth + 40
            << "\" y2=\"" << legendY << "\" stroke=\"" << colourOf(w) << "\" stroke-width=\"2\"/>\n"
            << "<text x=\"" << kLeft + plotWidth + 46 << "\" y=\"" << legendY + 4 << "\">" << label << "</text>\n";
        const auto reached = walk.decisionsToReach(target);
        svg << "<text x=\"" << kLeft + plotWidth + 46 << "\" y=\"" << legendY + 20 << "\">"
            << (reached ? std::to_string(*reached) + " to reach target" : std::string("target not reached")) << "</text>\n";
        legendY += 44;
    }
    svg.precision(2);
    svg << "<text x=\"" << kLeft + plotWidth + 16 << "\" y=\"" << legendY + 4 << "\">dashed: " << target << "</text>\n"
        << "</svg>\n";
    return svg.str();
}

}  // namespace linkscope::cli
