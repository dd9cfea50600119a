#pragma once
// The simulated review's curves as an SVG line plot: accuracy of the whole split against the
// number of decisions, one line per order, and the target accuracy as a dashed line. Plain SVG
// 1.1 like curation_plot.h, for docs/.
#include <span>
#include <string>

#include "curation/review_walk.h"

namespace linkscope::cli {

std::string reviewPlotSvg(std::span<const curation::ReviewWalk> walks, double target, const std::string& title);

}  // namespace linkscope::cli
