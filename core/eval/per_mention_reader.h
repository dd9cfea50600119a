#pragma once
// Reading back a per-mention file written by writePerMention (report.h), so that two saved runs
// can be compared later (compare.h) without ranking again.
#include <filesystem>

#include "eval/evaluate.h"

namespace linkscope::eval {

/// The mention outcomes of a per-mention file (document, offsets, rank and strict rank of each
/// mention, in file order); the other EvalResult fields stay empty. Throws ParseError naming the
/// file and line for a line that is not JSON or lacks a field, and for an empty file.
EvalResult readPerMention(const std::filesystem::path& file);

}  // namespace linkscope::eval
