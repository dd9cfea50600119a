#include "kb/ctd_loader.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "corpus/concept_id.h"
#include "kb/kb_builder.h"
#include "kb/load_support.h"
#include "util/line_reader.h"

namespace linkscope::kb {
namespace {

using detail::trim;

constexpr std::size_t kAbsent = ~std::size_t{0};

// Where the columns the KB needs are, by their header names.
struct Columns {
    CtdKind kind = CtdKind::Auto;
    std::size_t count = 0;
    std::size_t name = kAbsent;
    std::size_t id = kAbsent;
    std::size_t alternativeIds = kAbsent;  // AltDiseaseIDs
    std::size_t casNumber = kAbsent;       // CasRN
    std::size_t synonyms = kAbsent;
    std::size_t slimMappings = kAbsent;
};

const char* kindName(CtdKind kind) { return kind == CtdKind::Chemicals ? "chemicals" : "diseases"; }

std::vector<std::string> standardHeader(CtdKind kind) {
    if (kind == CtdKind::Chemicals)
        return {"ChemicalName", "ChemicalID",        "CasRN",   "Definition", "ParentIDs",
                "TreeNumbers",  "ParentTreeNumbers", "Synonyms"};
    return {"DiseaseName", "DiseaseID",         "AltDiseaseIDs", "Definition",  "ParentIDs",
            "TreeNumbers", "ParentTreeNumbers", "Synonyms",      "SlimMappings"};
}

// Maps header names to columns; the error names what is wrong, empty when fine.
Columns mapColumns(const std::vector<std::string>& header, std::string& error) {
    Columns columns;
    columns.count = header.size();
    for (std::size_t i = 0; i < header.size(); ++i) {
        const std::string& name = header[i];
        std::size_t* slot = nullptr;
        if (name == "DiseaseName" || name == "ChemicalName")
            slot = &columns.name;
        else if (name == "DiseaseID" || name == "ChemicalID")
            slot = &columns.id;
        else if (name == "AltDiseaseIDs")
            slot = &columns.alternativeIds;
        else if (name == "CasRN")
            slot = &columns.casNumber;
        else if (name == "Synonyms")
            slot = &columns.synonyms;
        else if (name == "SlimMappings")
            slot = &columns.slimMappings;
        if (!slot) continue;  // Definition, ParentIDs, tree numbers: not part of the KB model
        if (*slot != kAbsent) {
            error = "column \"" + name + "\" appears twice in the header";
            return columns;
        }
        *slot = i;
        if (name == "DiseaseID") columns.kind = CtdKind::Diseases;
        if (name == "ChemicalID") columns.kind = CtdKind::Chemicals;
    }
    if (columns.kind == CtdKind::Auto || columns.name == kAbsent) {
        error = "header names neither DiseaseName/DiseaseID nor ChemicalName/ChemicalID columns";
        return columns;
    }
    const bool diseaseName = header[columns.name] == "DiseaseName";
    if (diseaseName != (columns.kind == CtdKind::Diseases)) error = "header mixes disease and chemical columns";
    return columns;
}

std::vector<std::string> headerNames(std::string_view commentLine) {
    std::string_view text = commentLine.substr(1);  // without '#'
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    std::vector<std::string_view> parts;
    detail::split(text, '\t', parts);
    std::vector<std::string> names;
    for (const auto part : parts) names.emplace_back(trim(part));
    return names;
}

class CtdReader {
public:
    CtdReader(const std::filesystem::path& file, const CtdOptions& options, CtdLoadResult& result)
        : options_(options),
          result_(result),
          reader_(file, detail::readerOptions(options)),
          problems_(reader_, options.lenient, result.diagnostics) {}

    void read() {
        std::string line;
        bool expectHeader = false;
        while (problems_.next(reader_, line)) {
            if (!line.empty() && line.front() == '#') {
                if (expectHeader) {
                    readHeader(line);
                    expectHeader = false;
                } else if (trim(std::string_view(line).substr(1)) == "Fields:") {
                    expectHeader = true;
                }
                continue;
            }
            if (expectHeader) reader_.fail("expected the comment line naming the columns after \"# Fields:\"");
            if (trim(line).empty()) continue;
            ++result_.linesRead;
            if (!columns_) assumeStandardColumns();
            readRow(line);
        }
        if (expectHeader) reader_.fail("file ends after \"# Fields:\" without the column names");
        if (!columns_) {
            // An empty file, or comments only: there is nothing to load, but say so.
            problems_.fileNote("no CTD rows found");
            result_.kind = options_.kind;
        }
        result_.kb = builder_.build();
    }

private:
    void readHeader(const std::string& line) {
        std::string error;
        Columns columns = mapColumns(headerNames(line), error);
        if (!error.empty()) reader_.fail(error);
        if (options_.kind != CtdKind::Auto && options_.kind != columns.kind)
            reader_.fail(std::string("expected a CTD ") + kindName(options_.kind) + " file, the header names " +
                         kindName(columns.kind) + " columns");
        result_.kind = columns.kind;
        columns_ = columns;
    }

    void assumeStandardColumns() {
        if (options_.kind == CtdKind::Auto)
            reader_.fail(
                "no \"# Fields:\" header before the first row: cannot tell the columns (give the kind, "
                "diseases or chemicals, to read a header-less file in CTD's standard column order)");
        std::string error;
        columns_ = mapColumns(standardHeader(options_.kind), error);
        result_.kind = options_.kind;
        problems_.note(std::string("no \"# Fields:\" header: assuming CTD's standard ") + kindName(options_.kind) +
                       " columns");
    }

    void readRow(const std::string& line) {
        detail::split(line, '\t', fields_);
        if (fields_.size() != columns_->count) {
            problems_.malformed("expected " + std::to_string(columns_->count) + " tab-separated columns, found " +
                                std::to_string(fields_.size()));
            return;
        }
        const auto name = trim(fields_[columns_->name]);
        const auto id = canonicalConceptId(fields_[columns_->id]);
        if (!id) {
            problems_.malformed("empty identifier column");
            return;
        }
        if (name.empty()) {
            problems_.malformed("empty name column");
            return;
        }
        if (builder_.findEntity(*id)) problems_.note("identifier " + *id + " appears on an earlier row; rows merged");
        const EntityIndex entity = builder_.entity(*id);
        if (builder_.hasPreferredName(entity))
            builder_.addName(entity, name);
        else
            builder_.setPreferredName(entity, name);

        forEachListItem(columns_->synonyms, "synonym",
                        [&](std::string_view synonym) { builder_.addName(entity, synonym); });
        forEachListItem(columns_->alternativeIds, "alternative id", [&](std::string_view alt) {
            if (const auto canonical = canonicalConceptId(alt))
                builder_.addAlternativeId(entity, *canonical);
            else
                problems_.note("alternative id " + detail::quoted(alt) + " is no identifier; skipped");
        });
        if (columns_->casNumber != kAbsent) {
            if (const auto cas = trim(fields_[columns_->casNumber]); !cas.empty())
                builder_.addAlternativeId(entity, "CAS:" + std::string(cas));
        }
        forEachListItem(columns_->slimMappings, "slim mapping",
                        [&](std::string_view slim) { builder_.addSemanticType(entity, "", slim); });
    }

    // Calls f for every non-empty item of a '|'-separated column; empty items (a stray bar) are
    // reported, not silently dropped.
    template <class F>
    void forEachListItem(std::size_t column, const char* what, F f) {
        if (column == kAbsent) return;
        const auto text = trim(fields_[column]);
        if (text.empty()) return;
        detail::split(text, '|', items_);
        std::size_t empty = 0;
        for (const auto item : items_) {
            const auto value = trim(item);
            if (value.empty())
                ++empty;
            else
                f(value);
        }
        if (empty > 0) problems_.note(std::to_string(empty) + " empty " + what + "(s) skipped");
    }

    const CtdOptions& options_;
    CtdLoadResult& result_;
    LineReader reader_;
    detail::LineProblems problems_;
    KnowledgeBaseBuilder builder_;
    std::optional<Columns> columns_;
    std::vector<std::string_view> fields_;
    std::vector<std::string_view> items_;
};

}  // namespace

CtdLoadResult loadCtd(const std::filesystem::path& file, const CtdOptions& options) {
    CtdLoadResult result;
    CtdReader(file, options, result).read();
    return result;
}

}  // namespace linkscope::kb
