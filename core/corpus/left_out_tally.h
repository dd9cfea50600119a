#pragma once
// What a reader met that a Linkscope document has no place for (an infon, a key, an event),
// counted per kind with the first line where it was seen, so that it is reported once per kind
// as a Diagnostic rather than dropped silently or repeated for every document.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "util/error.h"

namespace linkscope {

class LeftOutTally {
public:
    /// Counts one more of `what` ("annotation infon \"valid\"") seen at `line`.
    void note(const std::string& what, std::size_t line) {
        auto& seen = seen_[what];
        if (seen.count++ == 0) seen.firstLine = line;
    }

    bool empty() const noexcept { return seen_.empty(); }

    /// One Diagnostic per kind, in the order of the kinds' names.
    void appendTo(std::vector<Diagnostic>& diagnostics, const std::string& file) const {
        for (const auto& [what, seen] : seen_)
            diagnostics.push_back(Diagnostic{file, seen.firstLine,
                                             what + " (" + std::to_string(seen.count) +
                                                 " in the file): a Linkscope document has no place for it; kept out"});
    }

    /// The same, as a list of their own.
    std::vector<Diagnostic> diagnostics(const std::string& file) const {
        std::vector<Diagnostic> out;
        appendTo(out, file);
        return out;
    }

private:
    struct Seen {
        std::size_t count = 0;
        std::size_t firstLine = 0;
    };
    std::map<std::string, Seen> seen_;
};

}  // namespace linkscope
