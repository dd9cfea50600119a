#include "eval/linking_difficulty.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "corpus/corpus.h"
#include "eval/dictionary.h"
#include "eval/error_categories.h"
#include "eval/evaluate.h"
#include "kb/knowledge_base.h"
#include "text/normalizer.h"
#include "util/error.h"

namespace linkscope::eval {
namespace {

enum Property : std::size_t {
    ChemicalAdjacent,
    AbbreviationExpanded,
    Seen,
    Unseen,
    OneWord,
    TwoWords,
    ThreeWords,
    FourOrMoreWords
};
constexpr std::size_t kPropertyCount = 8;

std::string propertyName(std::size_t p) {
    static const char* const names[kPropertyCount] = {"chemical-adjacent",
                                                      "abbreviation expanded",
                                                      "seen in training",
                                                      "unseen in training",
                                                      "1 word",
                                                      "2 words",
                                                      "3 words",
                                                      "4+ words"};
    return names[p];
}

// The distinct query texts of a group, and of its mentions linked wrongly.
struct GroupTexts {
    std::unordered_set<std::string> all;
    std::unordered_set<std::string> wrong;
};

std::string joinWords(std::span<const std::string> words) {
    std::string out;
    for (const std::string& w : words) {
        if (!out.empty()) out += ' ';
        out += w;
    }
    return out;
}

bool isDrugHarmWord(std::string_view w) {
    return w.find("toxic") != std::string_view::npos || w.find("induced") != std::string_view::npos ||
           w.starts_with("poison") || w.starts_with("overdos") || w.starts_with("addict") || w.starts_with("abuse");
}

// Chemical names as word sequences, looked up by every contiguous run of a mention's words.
class ChemicalLexicon {
public:
    ChemicalLexicon(std::span<const std::string> names, std::size_t minLength) {
        for (const std::string& name : names) {
            const std::vector<std::string> words = comparisonWords(name);
            std::size_t letters = 0;
            for (const std::string& w : words) letters += w.size();
            if (words.empty() || letters < minLength) continue;
            maxWords_ = std::max(maxWords_, words.size());
            names_.insert(joinWords(words));
        }
    }

    bool adjacent(std::span<const std::string> words) const {
        if (std::any_of(words.begin(), words.end(), [](const std::string& w) { return isDrugHarmWord(w); }))
            return true;
        for (std::size_t n = 1; n <= std::min(maxWords_, words.size()); ++n)
            for (std::size_t i = 0; i + n <= words.size(); ++i)
                if (names_.contains(joinWords(words.subspan(i, n)))) return true;
        return false;
    }

private:
    std::unordered_set<std::string> names_;
    std::size_t maxWords_ = 0;
};

// The KB's entities by normalized name, as the evaluation dictionary normalizes its KB names.
std::unordered_map<std::string, std::vector<kb::EntityIndex>> entitiesByNormalizedName(const kb::KnowledgeBase& kb) {
    const auto normalizer = bioSynDictionaryNormalizer();
    std::unordered_map<std::string, std::vector<kb::EntityIndex>> byName;
    kb.forEachNamePair([&](kb::EntityIndex e, auto name) {
        std::string key = normalizer->normalize(kb.strings().view(name));
        if (key.empty()) return;
        auto& entities = byName[std::move(key)];
        if (std::find(entities.begin(), entities.end(), e) == entities.end()) entities.push_back(e);
    });
    return byName;
}

std::string outcomeKey(std::string_view document, std::size_t start, std::size_t end) {
    return std::string(document) + '\t' + std::to_string(start) + '\t' + std::to_string(end);
}

}  // namespace

std::string difficultyClassName(DifficultyClass c) {
    switch (c) {
        case DifficultyClass::CuiLess:
            return "cui-less";
        case DifficultyClass::UnknownId:
            return "unknown id";
        case DifficultyClass::Composite:
            return "composite";
        case DifficultyClass::GoldName:
            return "gold name";
        case DifficultyClass::SharedName:
            return "shared name";
        case DifficultyClass::OtherName:
            return "other's name";
        case DifficultyClass::NoKbName:
            return "no KB name";
    }
    return "unknown";
}

LinkingDifficulty profileLinkingDifficulty(const Corpus& corpus, const kb::KnowledgeBase& kb,
                                           const DifficultyOptions& options) {
    QueryOptions queryOptions = options.queries;
    queryOptions.dropUnknownIds = false;
    const QuerySet set = buildQueries(corpus, kb, queryOptions);

    LinkingDifficulty out;
    for (std::size_t c = 0; c < kDifficultyClassCount; ++c)
        out.classes.push_back({difficultyClassName(static_cast<DifficultyClass>(c))});
    for (std::size_t p = 0; p < kPropertyCount; ++p) out.properties.push_back({propertyName(p)});
    out.mentions = set.statistics.mentions - set.statistics.filteredByType;
    out.classes[static_cast<std::size_t>(DifficultyClass::CuiLess)].mentions = set.statistics.cuiLessDropped;

    std::unordered_map<std::string, const MentionOutcome*> outcomes;
    if (options.outcomes) {
        out.hasOutcomes = true;
        out.outcomes = options.outcomes->mentions.size();
        for (const MentionOutcome& m : options.outcomes->mentions)
            outcomes.emplace(outcomeKey(m.document, m.start, m.end), &m);
    }
    std::size_t matched = 0;
    std::vector<GroupTexts> classTexts(kDifficultyClassCount);
    std::vector<GroupTexts> propertyTexts(kPropertyCount);
    GroupTexts allTexts;

    const auto byName = entitiesByNormalizedName(kb);
    const ChemicalLexicon chemicals(options.chemicalNames, options.minChemicalNameLength);

    for (const EvalQuery& query : set.queries) {
        DifficultyClass c = DifficultyClass::NoKbName;
        std::vector<kb::EntityIndex> gold;
        bool unknown = false;
        for (const std::string& id : query.goldIds) {
            if (const auto e = kb.findEntity(id))
                gold.push_back(*e);
            else
                unknown = true;
        }
        if (unknown) {
            c = DifficultyClass::UnknownId;
        } else if (query.composite) {
            c = DifficultyClass::Composite;
        } else if (!query.parts.empty()) {
            if (const auto it = byName.find(query.parts.front()); it != byName.end()) {
                const auto isGold = [&gold](kb::EntityIndex e) {
                    return std::find(gold.begin(), gold.end(), e) != gold.end();
                };
                const bool anyGold = std::any_of(it->second.begin(), it->second.end(), isGold);
                const bool anyOther = !std::all_of(it->second.begin(), it->second.end(), isGold);
                c = anyGold ? (anyOther ? DifficultyClass::SharedName : DifficultyClass::GoldName)
                            : DifficultyClass::OtherName;
            }
        }

        std::vector<std::string> words;
        try {
            words = comparisonWords(query.mention);
        } catch (const Error& e) {
            throw ParseError(query.sourceFile, query.sourceLine, "mention \"" + query.mention + "\": " + e.what());
        }
        std::vector<std::size_t> properties;
        if (chemicals.adjacent(words)) properties.push_back(ChemicalAdjacent);
        if (query.abbreviationExpanded) properties.push_back(AbbreviationExpanded);
        properties.push_back(OneWord + std::min<std::size_t>(std::max<std::size_t>(words.size(), 1), 4) - 1);

        const MentionOutcome* outcome = nullptr;
        if (const auto it = outcomes.find(outcomeKey(query.document, query.start, query.end)); it != outcomes.end()) {
            outcome = it->second;
            ++matched;
            if (outcome->seen) properties.push_back(*outcome->seen ? Seen : Unseen);
        }
        std::string text;
        for (const std::string& part : query.parts) text += (text.empty() ? "" : "|") + part;
        const auto count = [&](DifficultyGroup& group, GroupTexts& texts) {
            ++group.mentions;
            group.words += words.size();
            texts.all.insert(text);
            if (!outcome) return;
            ++group.withOutcome;
            if (outcome->correctAt(1))
                ++group.correctAt1;
            else
                texts.wrong.insert(text);
        };
        allTexts.all.insert(text);
        if (outcome && !outcome->correctAt(1)) allTexts.wrong.insert(text);
        count(out.classes[static_cast<std::size_t>(c)], classTexts[static_cast<std::size_t>(c)]);
        for (const std::size_t p : properties) count(out.properties[p], propertyTexts[p]);
    }
    out.outcomesUnmatched = out.outcomes - std::min(out.outcomes, matched);
    out.distinctTexts = allTexts.all.size();
    out.distinctWrongTexts = allTexts.wrong.size();
    for (std::size_t c = 0; c < kDifficultyClassCount; ++c) {
        out.classes[c].distinctTexts = classTexts[c].all.size();
        out.classes[c].distinctWrongTexts = classTexts[c].wrong.size();
    }
    for (std::size_t p = 0; p < kPropertyCount; ++p) {
        out.properties[p].distinctTexts = propertyTexts[p].all.size();
        out.properties[p].distinctWrongTexts = propertyTexts[p].wrong.size();
    }
    return out;
}

}  // namespace linkscope::eval
