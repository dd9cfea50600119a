#include "kb/umls_loader.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kb/kb_builder.h"
#include "kb/load_support.h"
#include "kb/umls_reserve.h"
#include "util/line_reader.h"

namespace linkscope::kb {
namespace {

// MRCONSO.RRF columns.
enum Conso : std::size_t {
    CUI,
    LAT,
    TS,
    LUI,
    STT,
    SUI,
    ISPREF,
    AUI,
    SAUI,
    SCUI,
    SDUI,
    SAB,
    TTY,
    CODE,
    STR,
    SRL,
    SUPPRESS,
    CVF,
    kConsoFields
};
// MRSTY.RRF columns.
enum Sty : std::size_t { STY_CUI, TUI, STN, STY, ATUI, STY_CVF, kStyFields };

constexpr std::uint8_t kNotPreferred = 0xFF;

bool isCui(std::string_view text) noexcept {
    return text.size() == 8 && text[0] == 'C' && detail::allDigits(text.substr(1));
}

// The number of a CUI that isCui() accepted: C0000000 .. C9999999.
std::size_t cuiNumber(std::string_view cui) noexcept {
    std::size_t number = 0;
    std::from_chars(cui.data() + 1, cui.data() + cui.size(), number);
    return number;
}

// A is B or lies under B in the semantic type tree: B's tree number is a dotted prefix of A's
// (T047 Disease or Syndrome, B2.2.1.2.1, lies under T038 Biologic Function, B2.2.1).
bool underTreeNumber(std::string_view stn, std::string_view ancestor) noexcept {
    return stn == ancestor ||
           (stn.size() > ancestor.size() && stn.starts_with(ancestor) && stn[ancestor.size()] == '.');
}

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
        std::string lastCui;
        EntityIndex lastEntity = 0;
        // The first rows size the builder for the rest (kb/umls_reserve.h).
        detail::ConsoSample sample;
        bool sampling = true;
        while (problems.next(reader, line)) {
            if (line.empty()) continue;
            if (sampling && sample.rowsRead == detail::kConsoSampleRows) {
                reserveFor(sample, file, reader.compressed());
                sampling = false;
            }
            ++result_.linesRead;
            if (sampling) {
                ++sample.rowsRead;
                sample.bytesRead += line.size() + 1;
            }
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
            if (!*keep || language == options_.languages.end() || !sourceKept(fields_[SAB]) ||
                !typeKept(fields_[CUI])) {
                ++result_.linesFiltered;
                continue;
            }
            const auto name = detail::trim(fields_[STR]);
            if (name.empty()) {
                ++emptyNames;
                continue;
            }
            // MRCONSO lists a concept's rows together: the last row's entity saves a lookup.
            if (fields_[CUI] != lastCui) {
                lastEntity = entityOf(fields_[CUI]);
                lastCui.assign(fields_[CUI]);
            }
            const EntityIndex entity = lastEntity;
            if (entity >= preferredRank_.size()) {
                preferredRank_.resize(entity + 1, kNotPreferred);
                if (sampling) ++sample.conceptsKept;
            }
            if (sampling) {
                ++sample.rowsKept;
                sample.nameBytes += name.size();
            }
            const bool preferredRow = fields_[TS] == "P" && fields_[STT] == "PF" && fields_[ISPREF] == "Y";
            const auto rank = static_cast<std::uint8_t>(language - options_.languages.begin());
            if (preferredRow && rank < preferredRank_[entity]) {
                builder_.setPreferredName(entity, name);
                preferredRank_[entity] = rank;
            } else {
                builder_.addName(entity, name);
            }
        }
        if (emptyNames > 0) problems.fileNote(std::to_string(emptyNames) + " row(s) with an empty STR skipped");
    }

    /// Splits an MRSTY row into fields_; false, the problem reported, for a malformed row.
    bool styRow(detail::LineProblems& problems, const std::string& line) {
        if (!splitRrf(line, kStyFields, fields_)) {
            problems.malformed(fieldCountMessage(kStyFields, std::count(line.begin(), line.end(), '|')));
            return false;
        }
        if (!isCui(fields_[STY_CUI])) {
            problems.malformed(detail::quoted(fields_[STY_CUI]) + " is not a UMLS CUI");
            return false;
        }
        if (fields_[TUI].empty() || fields_[STY].empty()) {
            problems.malformed("empty TUI or STY");
            return false;
        }
        return true;
    }

    void readSemanticTypes(const std::filesystem::path& file) {
        LineReader reader(file, detail::readerOptions(options_));
        detail::LineProblems problems(reader, options_.lenient, result_.diagnostics);
        std::string line;
        std::size_t unmatched = 0;
        while (problems.next(reader, line)) {
            if (line.empty()) continue;
            ++result_.linesRead;
            if (!styRow(problems, line)) continue;
            const auto entity = findCui(fields_[STY_CUI]);
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

    /// Reads MRSTY for the semantic-type filter: every row's tree number STN gives the hierarchy,
    /// and a concept is kept when one of its types lies under a filter type.
    void readTypeFilter(const std::filesystem::path& file) {
        LineReader reader(file, detail::readerOptions(options_));
        detail::LineProblems problems(reader, options_.lenient, result_.diagnostics);
        std::map<std::string, std::string, std::less<>> treeNumber;     // TUI -> STN
        std::vector<std::pair<std::size_t, std::string>> conceptTypes;  // (CUI number, TUI)
        std::string line;
        while (problems.next(reader, line)) {
            if (line.empty()) continue;
            if (!styRow(problems, line)) continue;
            treeNumber.try_emplace(std::string(fields_[TUI]), fields_[STN]);
            conceptTypes.emplace_back(cuiNumber(fields_[STY_CUI]), fields_[TUI]);
        }
        // The filter's types as tree numbers; a type MRSTY never names matches itself only.
        std::vector<std::string> ancestors;
        std::string unknown;
        for (const auto& tui : options_.semanticTypes) {
            const auto it = treeNumber.find(tui);
            if (it == treeNumber.end()) {
                unknown += (unknown.empty() ? "" : ", ") + tui;
            } else if (!it->second.empty()) {
                ancestors.push_back(it->second);
            }
        }
        if (!unknown.empty())
            problems.fileNote("semantic type(s) of the filter that no row names (no concept kept for them): " +
                              unknown);
        std::map<std::string, bool, std::less<>> selected;  // TUI -> kept
        for (const auto& [tui, stn] : treeNumber)
            selected[tui] = std::find(options_.semanticTypes.begin(), options_.semanticTypes.end(), tui) !=
                                options_.semanticTypes.end() ||
                            std::any_of(ancestors.begin(), ancestors.end(), [&stn](const std::string& a) {
                                return !stn.empty() && underTreeNumber(stn, a);
                            });
        keptConcepts_.assign(10'000'000, false);
        for (const auto& [cui, tui] : conceptTypes)
            if (selected.at(tui)) keptConcepts_[cui] = true;
        typeFilterActive_ = true;
    }

    KnowledgeBase build() { return builder_.build(); }

private:
    /// Room in the builder for the rows the file holds, estimated from its size and its first
    /// rows (kb/umls_reserve.h). Filters that drop rows later in the file than in its first rows
    /// make it an overestimate: a larger table (which build() shrinks to growth's size) and an
    /// untouched text reserve.
    void reserveFor(const detail::ConsoSample& sample, const std::filesystem::path& file, bool compressed) {
        std::error_code error;
        const std::uintmax_t size = std::filesystem::file_size(file, error);
        if (error) return;
        const detail::ReserveEstimate estimate = detail::estimateReserve(sample, size, compressed);
        builder_.reserve(estimate.entities, estimate.names, estimate.nameBytes);
        preferredRank_.reserve(estimate.entities);
    }

    std::optional<bool> keepSuppressed(std::string_view value) const noexcept {
        if (value == "N") return true;
        if (value == "O") return options_.keepObsolete;
        if (value == "E") return options_.keepEditorSuppressible;
        if (value == "Y") return options_.keepSourceSuppressible;
        return std::nullopt;
    }

    bool typeKept(std::string_view cui) const noexcept { return !typeFilterActive_ || keptConcepts_[cuiNumber(cui)]; }

    // The entity of a CUI (one isCui() accepted), created on first sight. The CUI's number
    // indexes entityOfCui_: a row whose concept was seen rows before costs one array read, not
    // a look-up in the builder's hash table of strings (3 to 5 cache misses each at UMLS size).
    // The last-row shortcut above covers a file sorted by CUI; this covers MRSTY, which names
    // every concept again, and files whose rows of a concept are apart (the scale generator's, a
    // hand-made one): there the look-ups were a large share of the loader's CPU time in a
    // profile of benchmarks/kb_memory, whose rows of a concept lie apart.
    EntityIndex entityOf(std::string_view cui) {
        EntityIndex& entity = entityOfCui_.slot(cuiNumber(cui));
        if (entity == kNoEntity) entity = builder_.addEntity(cui, cui);
        return entity;
    }
    std::optional<EntityIndex> findCui(std::string_view cui) const noexcept {
        const EntityIndex entity = entityOfCui_.find(cuiNumber(cui));
        if (entity == kNoEntity) return std::nullopt;
        return entity;
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
    bool typeFilterActive_ = false;
    std::vector<bool> keptConcepts_;  // by CUI number, when the semantic-type filter is active
    static constexpr EntityIndex kNoEntity = ~EntityIndex{0};

    // Entities by CUI number (C0000000 .. C9999999), in pages of 4,096 allocated on first use: a
    // full MRCONSO fills most pages (about 22 MB for CUIs up to C5xxxxxx), a small file one page
    // (16 KB) per stretch of CUIs it names. A single array would make a one-row file holding
    // C9999999 allocate and clear 40 MB.
    class CuiIndex {
    public:
        EntityIndex find(std::size_t number) const noexcept {
            const auto& page = pages_[number >> kPageBits];
            return page ? page[number & (kPageSize - 1)] : kNoEntity;
        }
        EntityIndex& slot(std::size_t number) {
            auto& page = pages_[number >> kPageBits];
            if (!page) {
                page = std::make_unique<EntityIndex[]>(kPageSize);
                std::fill_n(page.get(), kPageSize, kNoEntity);
            }
            return page[number & (kPageSize - 1)];
        }

    private:
        static constexpr std::size_t kPageBits = 12;
        static constexpr std::size_t kPageSize = std::size_t{1} << kPageBits;
        static constexpr std::size_t kCuiNumbers = 10'000'000;
        std::vector<std::unique_ptr<EntityIndex[]>> pages_ =
            std::vector<std::unique_ptr<EntityIndex[]>>((kCuiNumbers >> kPageBits) + 1);
    };
    CuiIndex entityOfCui_;
};

}  // namespace

KbLoadResult loadUmls(const std::filesystem::path& mrconso, const std::optional<std::filesystem::path>& mrsty,
                      const UmlsOptions& options) {
    KbLoadResult result;
    UmlsReader reader(options, result);
    if (!options.semanticTypes.empty()) {
        if (!mrsty)
            throw Error(mrconso.string() +
                        ": a semantic-type filter needs the semantic types, MRSTY.RRF (--mrsty, or "
                        "\"semanticTypes\" in a manifest)");
        reader.readTypeFilter(*mrsty);
    }
    reader.readConcepts(mrconso);
    if (mrsty) reader.readSemanticTypes(*mrsty);
    result.kb = reader.build();
    return result;
}

}  // namespace linkscope::kb
