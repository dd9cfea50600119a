#pragma once
// The simulated curation's curve as an SVG line plot: Acc@1 of the documents still to come
// against the documents curated, with and without feedback. Plain SVG 1.1, no dependency: the
// file goes into docs/ and opens in any browser.
#include <string>

#include "curation/simulated_curation.h"

namespace linkscope::cli {

std::string curationPlotSvg(const curation::CurationSimulation& simulation, const std::string& title);

}  // namespace linkscope::cli
