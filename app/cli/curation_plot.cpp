#include "curation_plot.h"
#include "svg_text.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <vector>

namespace linkscope::cli {
namespace {

constexpr double kWidth = 720, kHeight = 420, kLeft = 70, kRight = 190, kTop = 50, kBottom = 60;

const auto escaped = svgEscaped;

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
    const double documents = std::max<double>(1.0, static_cast<double>(simulation.documents));
    const double plotWidth = kWidth - kLeft - kRight, plotHeight = kHeight - kTop - kBottom;
    const auto x = [&](double done) { return kLeft + done / documents * plotWidth; };
    const auto y = [&](double accuracy) { return kTop + (high - accuracy) / (high - low) * plotHeight; };

    std::ostringstream svg;
    svg.setf(std::ios::fixed);
    svg.precision(1);
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
        << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
        << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        << "<text x=\"" << kLeft << "\" y=\"24\" font-size=\"14\">" << escaped(title) << "</text>\n";
    // Axes, ticks and grid.
    svg << "<line x1=\"" << kLeft << "\" y1=\"" << kTop + plotHeight << "\" x2=\"" << kLeft + plotWidth << "\" y2=\""
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
    const std::size_t step = std::max<std::size_t>(1, simulation.documents / 10);
    for (std::size_t done = 0; done <= simulation.documents; done += step)
        svg << "<text x=\"" << x(static_cast<double>(done)) << "\" y=\"" << kTop + plotHeight + 18
            << "\" text-anchor=\"middle\">" << done << "</text>\n";
    svg << "<text x=\"" << kLeft + plotWidth / 2 << "\" y=\"" << kHeight - 16
        << "\" text-anchor=\"middle\">documents curated</text>\n"
        << "<text transform=\"translate(18," << kTop + plotHeight / 2
        << ") rotate(-90)\" text-anchor=\"middle\">Acc@1 of the documents still to come</text>\n";

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
