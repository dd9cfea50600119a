#include "evaluation_run.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <unordered_set>

#include "dense_engine.h"
#include "dense_engine_loader.h"
#include "eval/dictionary.h"
#include "eval/homonym_affected.h"
#include "eval/per_mention_reader.h"
#include "eval/queries.h"
#include "project/loaded_project.h"
#include "project_eval_data.h"
#include "retrieval/sparse_index.h"
#include "retrieval/tfidf_settings.h"
#include "text/abbreviations.h"
#include "util/error.h"
#include "util/line_reader.h"

namespace linkscope::ui {
namespace {

const Corpus* corpusOf(const LoadedProject& project, std::string_view split) {
    for (const auto& s : project.splits)
        if (s.split == split) return &s.corpus;
    return nullptr;
}

std::string splitOfDocument(const LoadedProject* project, const std::string& pmid) {
    if (!project) return {};
    for (const auto& s : project->splits)
        if (s.corpus.contains(pmid)) return s.split;
    return {};
}

// The short forms a document defines, found once per document (text = title + "\n" + abstract,
// as buildQueries reads it).
class ShortFormCache {
public:
    std::span<const std::string> of(const Corpus* corpus, const std::string& pmid) {
        auto [it, inserted] = cache_.try_emplace(pmid);
        if (inserted && corpus) {
            if (const Document* document = corpus->find(pmid)) {
                try {
                    for (auto& definition : text::findAbbreviations(document->title + "\n" + document->abstract))
                        it->second.push_back(std::move(definition.shortForm));
                } catch (const Error&) {
                    // not UTF-8: the readers never produce it; the mention simply has no definitions
                }
            }
        }
        return it->second;
    }

private:
    std::map<std::string, std::vector<std::string>> cache_;
};

// Metric groups of a run whose ranks were read back: all, per type, seen / unseen.
void addGroups(EvaluationRun& run, const std::vector<std::optional<bool>>& seen,
               const std::vector<std::vector<std::size_t>>& goldRanks) {
    eval::EvalResult& result = run.result;
    const std::size_t depth = result.depth;
    result.all = eval::GroupMetrics(depth);
    const bool anySeen = std::any_of(seen.begin(), seen.end(), [](const auto& s) { return s.has_value(); });
    if (anySeen) {
        result.seen = eval::GroupMetrics(depth);
        result.unseen = eval::GroupMetrics(depth);
    }
    for (std::size_t i = 0; i < result.mentions.size(); ++i) {
        const auto& m = result.mentions[i];
        result.all.add(m.rank, m.strictRank, goldRanks[i]);
        auto [group, inserted] = result.byType.try_emplace(run.mentions[i].type, depth);
        group->second.add(m.rank, m.strictRank, goldRanks[i]);
        if (anySeen && seen[i].has_value())
            (*seen[i] ? *result.seen : *result.unseen).add(m.rank, m.strictRank, goldRanks[i]);
    }
}

std::string jsonString(const QJsonObject& object, const char* key) {
    return object.value(QLatin1String(key)).toString().toStdString();
}

std::vector<std::string> jsonStrings(const QJsonValue& value) {
    std::vector<std::string> out;
    for (const QJsonValue& item : value.toArray()) out.push_back(item.toString().toStdString());
    return out;
}

}  // namespace

std::vector<std::string> evaluableSplits(const LoadedProject& project) {
    std::vector<std::string> out;
    for (const auto& s : project.splits)
        if (s.split != "train" && std::find(out.begin(), out.end(), s.split) == out.end()) out.push_back(s.split);
    return out;
}

namespace {

ProjectEvalData buildProjectEvalData(const LoadedProject& project, const std::string& split, bool homonymExpansion,
                                     const ProgressSink& progress) {
    if (!project.kb) throw Error("the project has no knowledge base");
    ProjectEvalData data;
    data.evaluated = corpusOf(project, split);
    if (!data.evaluated) throw Error("the project has no split \"" + split + "\"");
    data.train = split == "train" ? nullptr : corpusOf(project, "train");
    const Corpus* dev = split == "test" ? corpusOf(project, "dev") : nullptr;
    const kb::KnowledgeBase& kb = *project.kb;

    progress("Building the dictionary", 0.0);
    eval::QueryOptions queryOptions;
    queryOptions.normalizer = eval::bioSynQueryNormalizer();
    eval::DictionaryOptions dictionaryOptions;
    dictionaryOptions.homonymExpansion = homonymExpansion;
    eval::EvalDictionaryBuilder builder(dictionaryOptions);
    builder.addKnowledgeBase(kb);
    data.kbEntries = builder.size();
    progress.checkCancelled();
    if (data.train) {
        data.trainQueries = eval::buildQueries(*data.train, kb, queryOptions);
        builder.addMentions(data.trainQueries.queries);
        data.trainingIds = eval::goldIdSet(data.trainQueries.queries);
    }
    if (dev) builder.addMentions(eval::buildQueries(*dev, kb, queryOptions).queries);
    data.dictionary = builder.build().entries;
    data.queries = eval::buildQueries(*data.evaluated, kb, queryOptions);
    eval::markHomonymAffected(data.queries.queries, kb);
    progress.checkCancelled();
    return data;
}

// The evaluation options both sources share; progress maps evaluate()'s onto [from, 1].
eval::EvalOptions projectEvalOptions(const ProjectEvalData& data, const ProgressSink& progress, double from) {
    eval::EvalOptions options;
    options.k = eval::kMinimumDepth;
    options.trainingIds = data.trainingIds;
    options.batchSize = 512;  // cancel within a fraction of a second
    options.progress.cancelled = progress.cancelled;
    options.progress.report = [progress, from](std::string_view stage, double fraction) {
        progress(stage, from + (1.0 - from) * fraction);
    };
    return options;
}

// The error list's rows of an evaluated split.
EvaluationRun finishRun(QString name, const LoadedProject& project, const std::string& split,
                        const ProjectEvalData& data, eval::EvalResult result, const ProgressSink& progress) {
    EvaluationRun run;
    run.name = std::move(name);
    run.result = std::move(result);
    run.curveDepth = run.result.depth;
    ShortFormCache shortForms;
    const std::unordered_set<std::string>* trainingIds = data.trainingIds ? &*data.trainingIds : nullptr;
    run.mentions.reserve(data.queries.queries.size());
    for (std::size_t i = 0; i < data.queries.queries.size(); ++i) {
        const eval::EvalQuery& query = data.queries.queries[i];
        const eval::MentionOutcome& outcome = run.result.mentions[i];
        EvaluatedMention row;
        row.split = split;
        row.document = query.document;
        row.start = query.start;
        row.end = query.end;
        row.mention = query.mention;
        row.type = query.type;
        row.gold = query.goldIds;
        row.rank = outcome.rank;
        row.strictRank = outcome.strictRank;
        row.homonymAffected = query.homonymAffected;
        row.abbreviationExpanded = query.abbreviationExpanded;
        const retrieval::DictionaryEntry* top = nullptr;
        for (const eval::PartOutcome& part : outcome.parts) {
            if (part.candidates.empty()) continue;
            const retrieval::DictionaryEntry& entry = data.dictionary[part.candidates.front().entry];
            if (!top) top = &entry;
            row.predictedName += (row.predictedName.empty() ? "" : " | ") + entry.name;
            for (const std::string& id : entry.ids)
                if (std::find(row.predictedIds.begin(), row.predictedIds.end(), id) == row.predictedIds.end())
                    row.predictedIds.push_back(id);
        }
        eval::MentionOutcomeFacts facts;
        facts.mention = query.mention;
        facts.goldIds = query.goldIds;
        if (top) {
            facts.predictedName = top->name;
            facts.predictedIds = top->ids;
        }
        facts.correct = outcome.correctAt(1);
        facts.documentShortForms = shortForms.of(data.evaluated, query.document);
        facts.abbreviationExpanded = query.abbreviationExpanded;
        facts.trainingIds = trainingIds;
        row.categories = eval::categorizeMention(facts, project.kb.get());
        run.mentions.push_back(std::move(row));
        if (i % 1024 == 0) progress.checkCancelled();
    }
    progress("Done", 1.0);
    return run;
}

}  // namespace

EvaluationRun evaluateProjectSparse(const LoadedProject& project, const SparseEvaluationOptions& options,
                                    const ProgressSink& progress) {
    const ProjectEvalData data = buildProjectEvalData(project, options.split, options.homonymExpansion, progress);
    progress("Indexing the dictionary", 0.1);
    const retrieval::SparseIndex index =
        retrieval::SparseIndex::build(data.dictionary, retrieval::TfidfSettings::bioSyn());
    progress.checkCancelled();
    const eval::RankFn rank = [&index](std::span<const std::string> texts, std::size_t k) {
        return index.search(texts, k);
    };
    eval::EvalResult result =
        eval::evaluate(data.queries, data.dictionary, rank, projectEvalOptions(data, progress, 0.15));
    return finishRun(QStringLiteral("sparse on %1").arg(QString::fromStdString(options.split)), project, options.split,
                     data, std::move(result), progress);
}

EvaluationRun evaluateProjectRun(const LoadedProject& project, const RunEvaluationOptions& options,
                                 const ProgressSink& progress) {
    if (!DenseEngineLoader::installed())
        throw Error(
            "this build has no LibTorch: a trained run cannot be evaluated here (linkscope-cli eval --run on a "
            "machine with LibTorch writes a per-mention file the dock reads)");
    // The first run of the process loads LibTorch here, on the worker.
    progress("Loading the dense engine (LibTorch)", 0.0);
    DenseEngine& engine = DenseEngineLoader::load();
    progress("Loading the model", 0.0);
    const std::unique_ptr<RunEvaluator> evaluator = engine.loadRunEvaluator(options.run, options.cpuOnly);
    // The dictionary the method was trained for: BELHD's expanded names when its preset says so.
    const ProjectEvalData data = buildProjectEvalData(
        project, options.split, options.homonymExpansion || evaluator->homonymExpansion(), progress);
    eval::EvalResult result =
        evaluator->evaluate(project, data, options.knn, projectEvalOptions(data, progress, 0.6), progress);
    const QString name =
        QStringLiteral("%1%2 on %3")
            .arg(QString::fromStdString(options.run.filename().string()),
                 options.knn ? QStringLiteral(" + kNN") : QString(), QString::fromStdString(options.split));
    return finishRun(name, project, options.split, data, std::move(result), progress);
}

EvaluationRun loadPerMentionRun(const std::filesystem::path& file, const LoadedProject* project) {
    EvaluationRun run;
    run.name = QString::fromStdString(file.filename().string());
    run.result = eval::readPerMention(file);  // ranks, and the checks of every line

    // The rest of each line. readPerMention has accepted every non-empty line as JSON with the
    // rank fields, so only the optional fields are read here, leniently.
    std::vector<std::optional<bool>> seen;
    std::vector<std::vector<std::size_t>> goldRanks;
    std::size_t maxRank = 0;
    std::size_t savedPredictions = 0;
    ShortFormCache shortForms;
    const kb::KnowledgeBase* kb = project ? project->kb.get() : nullptr;
    LineReader reader(file);
    std::string line;
    std::size_t index = 0;
    while (reader.next(line)) {
        if (line.empty()) continue;
        if (index >= run.result.mentions.size()) reader.fail("the file changed while it was read");
        const QJsonObject object = QJsonDocument::fromJson(QByteArray::fromStdString(line)).object();
        const eval::MentionOutcome& outcome = run.result.mentions[index];
        EvaluatedMention row;
        row.document = outcome.document;
        row.start = outcome.start;
        row.end = outcome.end;
        row.rank = outcome.rank;
        row.strictRank = outcome.strictRank;
        row.split = splitOfDocument(project, row.document);
        row.mention = jsonString(object, "mention");
        row.type = jsonString(object, "type");
        row.gold = jsonStrings(object.value(QLatin1String("gold")));
        maxRank = std::max({maxRank, outcome.rank, outcome.strictRank});

        // Per gold id, the first rank at which a part's saved predictions name it.
        std::vector<std::size_t> ranks(row.gold.size(), 0);
        std::string topName;
        std::vector<std::string> topIds;
        for (const QJsonValue& partValue : object.value(QLatin1String("parts")).toArray()) {
            const QJsonArray predictions = partValue.toObject().value(QLatin1String("predictions")).toArray();
            savedPredictions = std::max(savedPredictions, static_cast<std::size_t>(predictions.size()));
            for (qsizetype p = 0; p < predictions.size(); ++p) {
                const QJsonObject prediction = predictions[p].toObject();
                const std::vector<std::string> ids = jsonStrings(prediction.value(QLatin1String("ids")));
                if (p == 0) {
                    const std::string name = jsonString(prediction, "name");
                    if (topIds.empty()) {
                        topName = name;
                        topIds = ids;
                    }
                    row.predictedName += (row.predictedName.empty() ? "" : " | ") + name;
                    for (const std::string& id : ids)
                        if (std::find(row.predictedIds.begin(), row.predictedIds.end(), id) == row.predictedIds.end())
                            row.predictedIds.push_back(id);
                }
                // The best rank over the parts, as evaluate() merges them.
                const auto rank = static_cast<std::size_t>(p) + 1;
                for (std::size_t g = 0; g < row.gold.size(); ++g)
                    if ((ranks[g] == 0 || rank < ranks[g]) &&
                        std::find(ids.begin(), ids.end(), row.gold[g]) != ids.end())
                        ranks[g] = rank;
            }
        }
        const QJsonValue seenValue = object.value(QLatin1String("seen"));
        seen.push_back(seenValue.isBool() ? std::optional<bool>(seenValue.toBool()) : std::nullopt);
        goldRanks.push_back(std::move(ranks));

        eval::MentionOutcomeFacts facts;
        facts.mention = row.mention;
        facts.goldIds = row.gold;
        facts.predictedName = topName;
        facts.predictedIds = topIds;
        facts.correct = outcome.correctAt(1);
        facts.documentShortForms =
            shortForms.of(project && !row.split.empty() ? corpusOf(*project, row.split) : nullptr, row.document);
        facts.abbreviationExpanded = object.value(QLatin1String("abbreviation_expanded")).toBool();
        facts.seen = seen.back();
        row.abbreviationExpanded = facts.abbreviationExpanded;
        if (const QJsonValue homonym = object.value(QLatin1String("homonym_affected")); homonym.isBool())
            row.homonymAffected = homonym.toBool();
        row.categories = eval::categorizeMention(facts, kb);
        run.mentions.push_back(std::move(row));
        ++index;
    }
    if (index != run.result.mentions.size()) throw ParseError(file.string(), 0, "the file changed while it was read");
    run.result.depth = std::max(eval::kMinimumDepth, maxRank);
    run.curveDepth = std::min(savedPredictions, run.result.depth);
    addGroups(run, seen, goldRanks);
    return run;
}

}  // namespace linkscope::ui
