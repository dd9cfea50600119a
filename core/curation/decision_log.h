#pragma once
// The decisions log: curation decisions as JSON Lines, one object per decision, for reading
// alone (a reviewer, a script, another tool) and for reading back:
//
//   {"id":12,"split":"train","document":"10923035","start":22,"end":35,"text":"breast cancer",
//    "kind":"correct","previous":"D001943","new":"MESH:D001943|MESH:D010051",
//    "curator":"ana","timestamp":"2026-11-22T07:30:12.123Z","state":"done"}
//
// Keys as above, always all of them, in that order; "kind" and "state" use the names of
// curation_decision.h. Offsets count characters, as everywhere in Linkscope.
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "project/curation_decision.h"

namespace linkscope::curation {

/// One decision as one line of JSON, without the line break.
std::string formatDecisionLogLine(const project::Decision& decision);

/// Writes one line per decision through AtomicFileWriter; throws Error on failure.
void writeDecisionLog(std::span<const project::Decision> decisions, const std::filesystem::path& path);

/// Reads a log back (plain or .gz). Blank lines are skipped. A line that is not a JSON object,
/// lacks a key, has a value of the wrong type, an unknown kind or state, an end before its
/// start, or an id seen before is a ParseError naming the file and line.
std::vector<project::Decision> readDecisionLog(const std::filesystem::path& path);

}  // namespace linkscope::curation
