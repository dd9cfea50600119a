#include "kb/umls_loader.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kb/kb_builder.h"
#include "kb/load_support.h"
#include "util/line_reader.h"

namespace linkscope::kb {
namespace {

// MRCONSO.RRF columns.
enum Conso : std::size_t { CUI, LAT, TS, LUI, STT, SUI, ISPREF, AUI, SAUI, SCUI, SDUI, SAB, TTY, CODE, STR, SRL, SUPPRESS, CVF,
                           kConsoFields };
// MRSTY.RRF columns.
enum Sty : std::size_t { STY_CUI, TUI, STN, STY, ATUI, STY_CVF, kStyFields };

constexpr std::uint8_t kNotPreferred = 0xFF;

bool isCui(std::string_view text) noexcept { return text.size() == 8 && text[0] == 'C' && detail::allDigits(text.substr(1)); }

// Splits an RRF row whose every field ends with '|'; false when the count is not `expected`.
bool splitRrf(std::string_view line, std::size_t expected, std::vector<std::string_view>& fields) {
    detail::split(line, '|', fields);
    // "a|b|" splits into {"a", "b", ""}: the empty tail is what the last terminator leaves.
    if (fields.size() != expected + 1 || !fields.back().empty()) return false;
    fields.pop_back();
    return true;
}

std::string fieldCountMessage(std::size_t expected, std::size_t found) {
    return "expected " + std::to_string(expected) + " '|'-terminated fields, found " + std::to_string(found);
}

class UmlsReader {
public:
    UmlsReader(const UmlsOptions& options, KbLoadResult& result) : options_(options), result_(result) {
        if (options_.languages.size() >= kNotPreferred) throw Error("too many UMLS languages to rank");
    }

    void readConcepts(const std::filesystem::path& file) {
        LineReader reader(file, detail::readerOptions(options_));
        detail::LineProblems problems(reader, options_.lenient, result_.diagnostics);
        std::string line;
        std::size_t emptyNames = 0;
        while (problems.next(reader, line)) {
            if (line.empty()) continue;
            ++result_.linesRead;
            if (!splitRrf(line, kConsoFields, fields_)) {
                problems.malformed(fieldCountMessage(kConsoFields, std::count(line.begin(), line.end(), '|')));
                continue;
            }
            if (!isCui(fields_[CUI])) {
                problems.malformed(detail::quoted(fields_[CUI]) + " is not a UMLS CUI");
                continue;
            }
            const auto keep = keepSuppressed(fields_[SUPPRESS]);
            if (!keep) {
                problems.malformed("unknown SUPPRESS value " + detail::quoted(fields_[SUPPRESS]));
                continue;
            }
            const auto language = std::find(options_.languages.begin(), options_.languages.end(), fields_[LAT]);
            if (!*keep || language == options_.languages.end() || !sourceKept(fields_[SAB])) {
                ++result_.linesFiltered;
                continue;
            }
            const auto name = detail::trim(fields_[STR]);
            if (name.empty()) {
                ++emptyNames;
                continue;
            }
            const EntityIndex entity = builder_.entity(fields_[CUI], fields_[CUI]);
            if (entity >= preferredRank_.size()) preferredRank_.resize(entity + 1, kNotPreferred);
            const bool preferredRow = fields_[TS] == "P" && fields_[STT] == "PF" && fields_[ISPREF] == "Y";
            const auto rank = static_cast<std::uint8_t>(language - options_.languages.begin());
            if (preferredRow && rank < preferredRank_[entity]) {
                builder_.setPreferredName(entity, name);
                preferredRank_[entity] = rank;
            } else {
                builder_.addName(entity, name);
            }
        }
        if (emptyNames > 0)
            problems.fileNote(std::to_string(emptyNames) + " row(s) with an empty STR skipped");
    }

    void readSemanticTypes(const std::filesystem::path& file) {
        LineReader reader(file, detail::readerOptions(options_));
        detail::LineProblems problems(reader, options_.lenient, result_.diagnostics);
        std::string line;
        std::size_t unmatched = 0;
        while (problems.next(reader, line)) {
            if (line.empty()) continue;
            ++result_.linesRead;
            if (!splitRrf(line, kStyFields, fields_)) {
                problems.malformed(fieldCountMessage(kStyFields, std::count(line.begin(), line.end(), '|')));
                continue;
            }
            if (!isCui(fields_[STY_CUI])) {
                problems.malformed(detail::quoted(fields_[STY_CUI]) + " is not a UMLS CUI");
                continue;
            }
            if (fields_[TUI].empty() || fields_[STY].empty()) {
                problems.malformed("empty TUI or STY");
                continue;
            }
            const auto entity = builder_.findEntity(fields_[STY_CUI]);
            if (!entity) {
                ++unmatched;
                continue;
            }
            builder_.addSemanticType(*entity, fields_[TUI], fields_[STY]);
        }
        if (unmatched > 0)
            problems.fileNote(std::to_string(unmatched) +
                              " semantic type row(s) name concepts without kept names (filtered out); ignored");
    }

    KnowledgeBase build() { return builder_.build(); }

private:
    std::optional<bool> keepSuppressed(std::string_view value) const noexcept {
        if (value == "N") return true;
        if (value == "O") return options_.keepObsolete;
        if (value == "E") return options_.keepEditorSuppressible;
        if (value == "Y") return options_.keepSourceSuppressible;
        return std::nullopt;
    }

    bool sourceKept(std::string_view sab) const noexcept {
        return options_.sources.empty() ||
               std::find(options_.sources.begin(), options_.sources.end(), sab) != options_.sources.end();
    }

    const UmlsOptions& options_;
    KbLoadResult& result_;
    KnowledgeBaseBuilder builder_;
    std::vector<std::uint8_t> preferredRank_;  // per entity: language rank of its preferred row
    std::vector<std::string_view> fields_;
};

}  // namespace

KbLoadResult loadUmls(const std::filesystem::path& mrconso, const std::optional<std::filesystem::path>& mrsty,
                      const UmlsOptions& options) {
    KbLoadResult result;
    UmlsReader reader(options, result);
    reader.readConcepts(mrconso);
    if (mrsty) reader.readSemanticTypes(*mrsty);
    result.kb = reader.build();
    return result;
}

}  // namespace linkscope::kb
