#pragma once
// What every KB loader returns, and the options they share.
#include <cstddef>
#include <vector>

#include "kb/knowledge_base.h"
#include "util/error.h"

namespace linkscope::kb {

struct LoadOptions {
    /// Strict (default): a malformed line throws ParseError naming file and line.
    /// Lenient: the line is skipped and reported as a Diagnostic instead.
    bool lenient = false;
    /// Lines longer than this are always an error (a damaged file, not a vocabulary line;
    /// the longest real lines are a few kilobytes).
    std::size_t maxLineBytes = std::size_t{16} << 20;
};

struct KbLoadResult {
    KnowledgeBase kb;
    /// Non-fatal problems (empty names, duplicate rows, malformed lines in lenient mode, ...).
    std::vector<Diagnostic> diagnostics;
    std::size_t linesRead = 0;      ///< data lines seen (comments and blank lines excluded)
    std::size_t linesFiltered = 0;  ///< data lines left out on purpose by the options (UMLS filters)
};

}  // namespace linkscope::kb
