#include "eval/dictionary.h"

#include <algorithm>
#include <utility>

#include "eval/queries.h"
#include "kb/homonyms.h"
#include "kb/knowledge_base.h"
#include "text/normalizer.h"

namespace linkscope::eval {

std::shared_ptr<const text::Normalizer> bioSynDictionaryNormalizer() {
    return std::make_shared<const text::Normalizer>(text::bioSynOptions());
}

EvalDictionaryBuilder::EvalDictionaryBuilder(DictionaryOptions options)
    : options_(std::move(options)),
      normalizer_(options_.normalizer ? options_.normalizer : bioSynDictionaryNormalizer()) {}

EvalDictionaryBuilder::~EvalDictionaryBuilder() = default;

void EvalDictionaryBuilder::addKnowledgeBase(const kb::KnowledgeBase& kb) {
    std::string name;
    std::string id;
    const auto addPair = [&](kb::EntityIndex entity, std::string_view text) {
        ++dictionary_.statistics.kbPairs;
        normalizer_->normalizeInto(text, name);
        id.assign(kb.primaryId(entity));
        if (addNormalized(name, std::span(&id, 1)) < 0) ++dictionary_.statistics.emptyNamesSkipped;
    };
    if (!options_.homonymExpansion) {
        kb.forEachNamePair([&](kb::EntityIndex entity, kb::StringId nameId) { addPair(entity, kb.strings().view(nameId)); });
        return;
    }
    // Homonyms are detected on what the linker compares: the normalized names.
    kb::HomonymOptions homonymOptions;
    homonymOptions.normalizer = [this](std::string_view text) { return normalizer_->normalize(text); };
    const kb::HomonymExpansion expansion = kb::expandHomonyms(kb, homonymOptions);
    expansion.forEach([&](const kb::ExpandedName& pair) {
        dictionary_.statistics.kbPairsExpanded += pair.expanded != pair.original ? 1 : 0;
        addPair(pair.entity, pair.expanded);
    });
}

void EvalDictionaryBuilder::addMentions(std::span<const EvalQuery> queries) {
    std::string joined;
    for (const EvalQuery& query : queries) {
        ++dictionary_.statistics.mentionsAdded;
        joined.clear();
        for (const auto& part : query.parts) {
            if (!joined.empty()) joined += ' ';
            joined += part;
        }
        switch (addNormalized(normalizer_->normalize(joined), query.goldIds)) {
            case 0: ++dictionary_.statistics.mentionsNewNames; break;
            case 1: ++dictionary_.statistics.mentionsNewIds; break;
            case 2: break;
            default: ++dictionary_.statistics.emptyNamesSkipped; break;
        }
    }
}

bool EvalDictionaryBuilder::add(std::string_view name, std::span<const std::string> ids) {
    return addNormalized(normalizer_->normalize(name), ids) >= 0;
}

int EvalDictionaryBuilder::addNormalized(std::string name, std::span<const std::string> ids) {
    if (name.empty() || ids.empty()) return -1;
    auto& entries = dictionary_.entries;
    const auto [at, inserted] = index_.try_emplace(name, entries.size());
    if (inserted) {
        retrieval::DictionaryEntry entry{std::move(name), {}};
        for (const auto& id : ids)
            if (std::find(entry.ids.begin(), entry.ids.end(), id) == entry.ids.end()) entry.ids.push_back(id);
        entries.push_back(std::move(entry));
        return 0;
    }
    auto& entryIds = entries[at->second].ids;
    bool gained = false;
    for (const auto& id : ids) {
        if (std::find(entryIds.begin(), entryIds.end(), id) != entryIds.end()) continue;
        entryIds.push_back(id);
        gained = true;
    }
    return gained ? 1 : 2;
}

EvalDictionary EvalDictionaryBuilder::build() {
    EvalDictionary out = std::move(dictionary_);
    out.statistics.entries = out.entries.size();
    out.statistics.entriesWithSeveralIds = static_cast<std::size_t>(
        std::count_if(out.entries.begin(), out.entries.end(), [](const auto& entry) { return entry.ids.size() > 1; }));
    dictionary_ = {};
    index_.clear();
    return out;
}

}  // namespace linkscope::eval
