#include "eval/dictionary.h"

#include <algorithm>
#include <functional>
#include <string_view>
#include <utility>

#include "eval/queries.h"
#include "kb/homonyms.h"
#include "kb/knowledge_base.h"
#include "text/normalizer.h"
#include "util/error.h"
#include "util/parallel.h"

namespace linkscope::eval {

std::shared_ptr<const text::Normalizer> bioSynDictionaryNormalizer() {
    return std::make_shared<const text::Normalizer>(text::bioSynOptions());
}

EvalDictionaryBuilder::EvalDictionaryBuilder(DictionaryOptions options)
    : options_(std::move(options)),
      normalizer_(options_.normalizer ? options_.normalizer : bioSynDictionaryNormalizer()) {}

EvalDictionaryBuilder::~EvalDictionaryBuilder() = default;

void EvalDictionaryBuilder::addKnowledgeBase(const kb::KnowledgeBase& kb) {
    // Normalizing is most of the work on a large KB (7.3 M UMLS names): it runs on
    // every core, a chunk of names at a time, so that only one chunk's normalized strings are
    // held; the names are then added in KB order, so the dictionary does not depend on threads.
    constexpr std::size_t kChunk = 1 << 16;
    std::vector<kb::EntityIndex> entities;
    std::vector<std::string_view> texts;  // views into the KB's (or the expansion's) strings
    std::vector<std::string> names;
    entities.reserve(kChunk);
    texts.reserve(kChunk);
    std::string id;
    const auto flush = [&] {
        names.resize(texts.size());
        const unsigned threads = util::threadCount(0);
        util::runOnThreads(threads, [&](unsigned t) {
            for (std::size_t i = texts.size() * t / threads; i < texts.size() * (t + 1) / threads; ++i)
                normalizer_->normalizeInto(texts[i], names[i]);
        });
        for (std::size_t i = 0; i < texts.size(); ++i) {
            ++dictionary_.statistics.kbPairs;
            id.assign(kb.primaryId(entities[i]));
            if (addNormalized(std::move(names[i]), std::span(&id, 1)) < 0) ++dictionary_.statistics.emptyNamesSkipped;
        }
        entities.clear();
        texts.clear();
    };
    const auto addPair = [&](kb::EntityIndex entity, std::string_view text) {
        entities.push_back(entity);
        texts.push_back(text);
        if (texts.size() == kChunk) flush();
    };
    if (!options_.homonymExpansion) {
        kb.forEachNamePair(
            [&](kb::EntityIndex entity, kb::StringId nameId) { addPair(entity, kb.strings().view(nameId)); });
        flush();
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
    flush();  // while the expansion's strings are alive
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
            case 0:
                ++dictionary_.statistics.mentionsNewNames;
                break;
            case 1:
                ++dictionary_.statistics.mentionsNewIds;
                break;
            case 2:
                break;
            default:
                ++dictionary_.statistics.emptyNamesSkipped;
                break;
        }
    }
}

bool EvalDictionaryBuilder::add(std::string_view name, std::span<const std::string> ids) {
    return addNormalized(normalizer_->normalize(name), ids) >= 0;
}

int EvalDictionaryBuilder::addNormalized(std::string name, std::span<const std::string> ids) {
    if (name.empty() || ids.empty()) return -1;
    auto& entries = dictionary_.entries;
    if ((entries.size() + 1) * 2 > slots_.size()) growSlots();
    const std::size_t slot = slotOf(name);
    const bool inserted = slots_[slot] == kFreeSlot;
    if (inserted) {
        if (entries.size() >= kFreeSlot) throw Error("too many dictionary names: " + std::to_string(entries.size()));
        slots_[slot] = static_cast<std::uint32_t>(entries.size());
        retrieval::DictionaryEntry entry{std::move(name), {}};
        for (const auto& id : ids)
            if (std::find(entry.ids.begin(), entry.ids.end(), id) == entry.ids.end()) entry.ids.push_back(id);
        entries.push_back(std::move(entry));
        return 0;
    }
    auto& entryIds = entries[slots_[slot]].ids;
    bool gained = false;
    for (const auto& id : ids) {
        if (std::find(entryIds.begin(), entryIds.end(), id) != entryIds.end()) continue;
        entryIds.push_back(id);
        gained = true;
    }
    return gained ? 1 : 2;
}

std::size_t EvalDictionaryBuilder::slotOf(std::string_view name) const noexcept {
    const std::size_t mask = slots_.size() - 1;
    std::size_t slot = std::hash<std::string_view>{}(name)&mask;
    while (slots_[slot] != kFreeSlot && dictionary_.entries[slots_[slot]].name != name) slot = (slot + 1) & mask;
    return slot;
}

void EvalDictionaryBuilder::growSlots() {
    slots_.assign(std::max<std::size_t>(1024, slots_.size() * 2), kFreeSlot);
    const auto& entries = dictionary_.entries;
    for (std::size_t i = 0; i < entries.size(); ++i) slots_[slotOf(entries[i].name)] = static_cast<std::uint32_t>(i);
}

EvalDictionary EvalDictionaryBuilder::build() {
    EvalDictionary out = std::move(dictionary_);
    out.statistics.entries = out.entries.size();
    out.statistics.entriesWithSeveralIds = static_cast<std::size_t>(
        std::count_if(out.entries.begin(), out.entries.end(), [](const auto& entry) { return entry.ids.size() > 1; }));
    dictionary_ = {};
    slots_ = {};
    return out;
}

}  // namespace linkscope::eval
