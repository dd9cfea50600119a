#include "curation_plot.h"
#include "svg_plot.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <vector>

namespace linkscope::cli {
namespace {

constexpr double kWidth = 720, kHeight = 420, kLeft = 70, kRight = 190, kTop = 50, kBottom = 60;

}  // namespace

std::string curationPlotSvg(const curation::CurationSimulation& simulation, const std::string& title) {
    // The y range: the values' range widened to tenths, so small gains stay visible.
    double low = 1.0, high = 0.0;
    for (const auto& step : simulation.steps)
        for (const auto& value : {step.remainingWithFeedback, step.remainingWithout})
            if (value) {
                low = std::min(low, *value);
                high = std::max(high, *value);
            }
    if (low > high) low = 0.0, high = 1.0;
    low = std::max(0.0, std::floor(low * 10.0 - 0.5) / 10.0);
    high = std::min(1.0, std::ceil(high * 10.0 + 0.5) / 10.0);
    const SvgPlotFrame frame{kWidth, kHeight, kLeft, kRight, kTop, kBottom, low, high, simulation.documents};
    const double plotWidth = frame.plotWidth();
    const auto x = [&](double done) { return frame.x(done); };
    const auto y = [&](double accuracy) { return frame.y(accuracy); };

    std::ostringstream svg;
    writeSvgPlotFrame(svg, frame, title, "documents curated", "Acc@1 of the documents still to come");

    const auto series = [&](bool feedback, const char* colour, const char* label, double legendY) {
        svg << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\" points=\"";
        for (const auto& s : simulation.steps) {
            const std::optional<double>& value = feedback ? s.remainingWithFeedback : s.remainingWithout;
            if (value) svg << x(static_cast<double>(s.documentsDone)) << ',' << y(*value) << ' ';
        }
        svg << "\"/>\n"
            << "<line x1=\"" << kLeft + plotWidth + 16 << "\" y1=\"" << legendY << "\" x2=\"" << kLeft + plotWidth + 40
            << "\" y2=\"" << legendY << "\" stroke=\"" << colour << "\" stroke-width=\"2\"/>\n"
            << "<text x=\"" << kLeft + plotWidth + 46 << "\" y=\"" << legendY + 4 << "\">" << label << "</text>\n";
    };
    series(true, "#1f77b4", "with feedback", kTop + 10);
    series(false, "#d62728", "without", kTop + 30);
    svg.precision(4);
    svg << "<text x=\"" << kLeft + plotWidth + 16 << "\" y=\"" << kTop + 64 << "\">Acc@1 as reached:</text>\n"
        << "<text x=\"" << kLeft + plotWidth + 16 << "\" y=\"" << kTop + 82 << "\">" << simulation.accuracyWithFeedback
        << " with</text>\n"
        << "<text x=\"" << kLeft + plotWidth + 16 << "\" y=\"" << kTop + 100 << "\">" << simulation.accuracyWithout
        << " without</text>\n"
        << "<text x=\"" << kLeft + plotWidth + 16 << "\" y=\"" << kTop + 118 << "\">" << simulation.corrections
        << " corrections</text>\n"
        << "</svg>\n";
    return svg.str();
}

}  // namespace linkscope::cli
