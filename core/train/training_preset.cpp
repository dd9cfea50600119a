// Training presets (models/<name>.json), read strictly: every key is checked for its type and
// range and named by its full path in errors, and a key the schema does not know is an error,
// because a misspelt hyper-parameter would otherwise fall back to a default without a word and
// the run would not be the one its preset describes.
#include "train/training_preset.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <set>
#include <utility>

#include "util/error.h"
#include "util/json_file.h"
#include "util/json_object_reader.h"

namespace linkscope::train {
namespace {

using Json = nlohmann::json;
// Written presets keep the schema's order (method first, choices last), as a person reads them.
using OrderedJson = nlohmann::ordered_json;

constexpr NameTable<Method, 8> kMethods{{
    {Method::BioSyn, "biosyn"},
    {Method::Belhd, "belhd"},
    {Method::Triplet, "triplet"},
    {Method::PrototypeSrn, "prototype-srn"},
    {Method::KnnBioel, "knn-bioel"},
    {Method::SelfAlignment, "sapbert"},
    {Method::ContextAlignment, "context-alignment"},
    {Method::MaskedLm, "mlm"},
}};
constexpr NameTable<Similarity, 3> kSimilarities{{
    {Similarity::Dot, "dot"},
    {Similarity::Cosine, "cosine"},
    {Similarity::Euclidean, "euclidean"},
}};
constexpr NameTable<ContextMarkers, 3> kMarkers{{
    {ContextMarkers::None, "none"},
    {ContextMarkers::Belhd, "belhd"},
    {ContextMarkers::LeNguyen, "le-nguyen"},
}};
constexpr NameTable<CandidateSource, 3> kCandidateSources{{
    {CandidateSource::Sparse, "sparse"},
    {CandidateSource::Dense, "dense"},
    {CandidateSource::Both, "both"},
}};
constexpr NameTable<TripletTrainingSet, 2> kTripletTrainingSets{{
    {TripletTrainingSet::Ontology, "O"},
    {TripletTrainingSet::OntologyAndData, "OD"},
}};
constexpr NameTable<PrototypeVariant, 4> kPrototypeVariants{{
    {PrototypeVariant::PrototypeSrn, "prototype-srn"},
    {PrototypeVariant::Prototype, "prototype"},
    {PrototypeVariant::TripletAll, "triplet-all"},
    {PrototypeVariant::TripletDownsampled, "triplet-downsampled"},
}};
constexpr NameTable<encoder::Pooling, 4> kPoolings{{
    {encoder::Pooling::Cls, "cls"},
    {encoder::Pooling::Mean, "mean"},
    {encoder::Pooling::Markers, "markers"},
    {encoder::Pooling::StartEnd, "start-end"},
}};
constexpr std::array<std::string_view, 2> kOptimizers{"adam", "adamw"};

// A schedule name that means `training` itself, so a file may not define it.
constexpr std::string_view kPaperSchedule = "paper";

// BERT inputs hold [CLS] and [SEP] around the text: fewer than 3 tokens leave no room for it.
constexpr std::size_t kMinInputTokens = 3;

// Presets are written by people: errors name a key by its path ("training.epochs"), and a count
// may be written as a whole float (3.0).
constexpr JsonReaderStyle kPresetStyle{JsonReaderStyle::Keys::Dotted, true};

template <typename Enum, std::size_t N>
std::string_view nameIn(const NameTable<Enum, N>& table, Enum value) noexcept {
    for (const auto& [entry, name] : table)
        if (entry == value) return name;
    return "?";
}

std::string joined(const std::vector<std::string>& names) {
    std::string list;
    for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
    return list;
}

/// parseJson, plus the one failure of valid JSON syntax that nlohmann reports as out_of_range
/// rather than parse_error (and parseJson lets through): a number beyond double, such as 1e999.
Json parsePresetJson(const std::string& text, const std::string& file) {
    try {
        return parseJson(text, file);  // a syntax error: ParseError at its line
    } catch (const Json::out_of_range& e) {
        throw ParseError(file, 0, std::string("not valid JSON: ") + e.what());
    }
}

/// nlohmann keeps the last of two equal keys without a word: a second "epochs" that a person
/// did not notice would silently win. Walks the (already valid) text once more to refuse them.
void rejectDuplicateKeys(const std::string& text, const std::string& file) {
    struct Level {
        bool object = false;
        std::string path;  // "training." for the members of "training"
        std::set<std::string> keys;
        std::string lastKey;
    };
    std::vector<Level> levels;
    std::optional<std::string> duplicate;
    const auto childPath = [&levels] {
        if (levels.empty()) return std::string();
        const Level& parent = levels.back();
        return parent.object ? parent.path + parent.lastKey + "." : parent.path;
    };
    const Json::parser_callback_t callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
        checkJsonDepth(depth, file);
        switch (event) {
            case Json::parse_event_t::object_start:
            case Json::parse_event_t::array_start:
                levels.push_back({event == Json::parse_event_t::object_start, childPath(), {}, {}});
                break;
            case Json::parse_event_t::object_end:
            case Json::parse_event_t::array_end:
                if (!levels.empty()) levels.pop_back();
                break;
            case Json::parse_event_t::key:
                if (!levels.empty() && parsed.is_string()) {
                    Level& level = levels.back();
                    level.lastKey = parsed.get<std::string>();
                    if (!level.keys.insert(level.lastKey).second && !duplicate) duplicate = level.path + level.lastKey;
                }
                break;
            case Json::parse_event_t::value:
                break;
        }
        return true;
    };
    [[maybe_unused]] const Json walked = Json::parse(text, callback);
    if (duplicate) throw ParseError(file, 0, "duplicate key \"" + *duplicate + "\"");
}

void readEncoder(JsonObjectReader& encoder, TrainingPreset& preset) {
    encoder.choice("pooling", preset.pooling, kPoolings);
    encoder.size("max_length", preset.maxLength, kMinInputTokens);
    encoder.size("entity_max_length", preset.entityMaxLength, kMinInputTokens);
    encoder.size("projection_dim", preset.projectionDim);
    std::string head(encoder::projectionHeadName(preset.projectionHead));
    encoder.string("projection_head", head);
    if (const auto parsed = encoder::parseProjectionHead(head))
        preset.projectionHead = *parsed;
    else
        encoder.fail("projection_head", "must be one of linear, layernorm, not \"" + head + "\"");
    // Absent or null: names pool as mentions (toJson writes null for that).
    if (const Json* entity = encoder.member("entity_pooling"); entity && !entity->is_null()) {
        encoder::Pooling pooling = preset.pooling;
        encoder.choice("entity_pooling", pooling, kPoolings);
        preset.entityPooling = pooling;
    }
    encoder.choice("similarity", preset.similarity, kSimilarities);
    encoder.choice("markers", preset.markers, kMarkers);
    encoder.boolean("homonym_expansion", preset.homonymExpansion);
    encoder.boolean("mention_alone", preset.mentionAlone);
    encoder.real("mention_context_weight", preset.mentionContextWeight, RealRange::between(0, 1));
    encoder.finish();
}

/// "training" and every schedule: a schedule starts from `training` and overrides what it names.
void readSchedule(JsonObjectReader& reader, Schedule& schedule, bool named) {
    reader.size("epochs", schedule.epochs, 1);
    reader.size("batch_size", schedule.batchSize, 1);
    reader.size("gradient_accumulation", schedule.gradientAccumulation, 1);
    reader.real("learning_rate", schedule.learningRate, RealRange::greaterThan(0));
    reader.real("weight_decay", schedule.weightDecay, RealRange::atLeast(0));
    std::string optimizer = schedule.optimizer;
    reader.string("optimizer", optimizer);
    if (std::find(kOptimizers.begin(), kOptimizers.end(), optimizer) == kOptimizers.end())
        reader.fail("optimizer", "must be one of adam, adamw, not \"" + optimizer + "\"");
    schedule.optimizer = optimizer;
    reader.size("kb_refresh_steps", schedule.kbRefreshSteps);
    reader.size("early_stopping_patience", schedule.earlyStoppingPatience);
    reader.size("max_train_mentions", schedule.maxTrainMentions);
    reader.size("max_dev_mentions", schedule.maxDevMentions);
    if (named) {
        reader.size("max_length", schedule.maxLength, kMinInputTokens);
        reader.boolean("mention_alone", schedule.mentionAlone);
        reader.optional("mention_context_weight", schedule.mentionContextWeight, RealRange::between(0, 1));
        reader.optional("projection_dim", schedule.projectionDim);
        reader.optional("first_stage_weight", schedule.firstStageWeight, RealRange::atLeast(0));
    }
    reader.finish();
}

void readSchedules(JsonObjectReader& top, TrainingPreset& preset) {
    const Json* schedules = top.member("schedules");
    if (!schedules) return;
    if (!schedules->is_object())
        top.fail("schedules",
                 "must be an object of named schedules {\"short\": {...}}, not " + describeJson(*schedules));
    for (const auto& [name, overrides] : schedules->items()) {
        if (name.empty() || name == kPaperSchedule)
            throw ParseError(
                top.file(), 0,
                "schedules: the name \"" + name + "\" is reserved for \"training\" (the paper's schedule)");
        if (!overrides.is_object())
            throw ParseError(
                top.file(), 0,
                "schedules." + name + " must be an object of training keys, not " + describeJson(overrides));
        Schedule schedule = preset.training;
        JsonObjectReader reader(overrides, top.file(), kPresetStyle, "schedules." + name + ".");
        readSchedule(reader, schedule, true);
        preset.schedules.emplace(name, std::move(schedule));
    }
}

void readBioSyn(JsonObjectReader& reader, BioSynSettings& biosyn) {
    reader.size("top_k", biosyn.topK, 1);
    reader.real("dense_ratio", biosyn.denseRatio, RealRange::between(0, 1));
    reader.choice("candidates", biosyn.candidates, kCandidateSources);
    reader.real("sparse_weight", biosyn.sparseWeight, RealRange::any());
    reader.boolean("train_sparse_weight", biosyn.trainSparseWeight);
    reader.real("sparse_weight_learning_rate", biosyn.sparseWeightLearningRate, RealRange::greaterThan(0));
    reader.size("own_candidates", biosyn.ownCandidates);
    reader.size("shared_candidates", biosyn.sharedCandidates);
    reader.finish();
    // With candidate sharing the k candidates of a mention are its own plus the shared ones
    // (BELHD, Appendix E: k = 32 = 16 + 16); any other sum leaves k meaning two things.
    const bool sharing = biosyn.ownCandidates > 0 || biosyn.sharedCandidates > 0;
    if (sharing && biosyn.ownCandidates + biosyn.sharedCandidates != biosyn.topK)
        reader.fail("own_candidates",
                    "+ " + reader.keyName("shared_candidates") + " must equal " + reader.keyName("top_k") +
                        " when candidates are shared (" + std::to_string(biosyn.ownCandidates) + " + " +
                        std::to_string(biosyn.sharedCandidates) + " != " + std::to_string(biosyn.topK) + ")");
}

void readTriplet(JsonObjectReader& reader, TripletSettings& triplet) {
    reader.choice("training_set", triplet.trainingSet, kTripletTrainingSets);
    reader.real("mention_ratio", triplet.mentionRatio, RealRange::greaterThan(0));
    reader.real("sieve_threshold", triplet.sieveThreshold, RealRange::between(-1, 1));  // a cosine similarity
    reader.finish();
}

void readPrototype(JsonObjectReader& reader, PrototypeSettings& prototype) {
    reader.choice("variant", prototype.variant, kPrototypeVariants);
    reader.size("candidates", prototype.candidates, 1);
    reader.choice("candidate_source", prototype.candidateSource, kCandidateSources);
    reader.real("margin", prototype.margin, RealRange::atLeast(0));
    reader.real("radius_init", prototype.radiusInit, RealRange::greaterThan(0));
    reader.real("epsilon", prototype.epsilon, RealRange::atLeast(0));
    reader.real("radius_learning_rate", prototype.radiusLearningRate, RealRange::atLeast(0));  // 0: a fixed radius
    reader.size("max_synonyms", prototype.maxSynonyms);
    reader.real("first_stage_weight", prototype.firstStageWeight, RealRange::atLeast(0));
    reader.finish();
}

void readContrastive(JsonObjectReader& reader, ContrastiveSettings& contrastive) {
    reader.real("temperature", contrastive.temperature, RealRange::greaterThan(0));
    reader.size("hard_negatives", contrastive.hardNegatives);  // 0: in-batch negatives only
    reader.finish();
}

void readSelfAlignment(JsonObjectReader& reader, SelfAlignmentSettings& settings) {
    reader.real("alpha", settings.alpha, RealRange::greaterThan(0));
    reader.real("beta", settings.beta, RealRange::greaterThan(0));
    reader.real("base", settings.base, RealRange::between(-1, 1));  // a cosine similarity
    reader.real("epsilon", settings.epsilon, RealRange::atLeast(0));
    reader.size("max_pairs_per_concept", settings.maxPairsPerConcept);
    reader.boolean("single_name_pairs", settings.singleNamePairs);
    reader.finish();
}

void readMaskedLm(JsonObjectReader& reader, MaskedLmSettings& settings) {
    reader.real("mask_probability", settings.maskProbability, RealRange{0, false, 1, true});
    reader.real("mask_token_share", settings.maskTokenShare, RealRange::between(0, 1));
    reader.real("random_token_share", settings.randomTokenShare, RealRange::between(0, 1));
    // 2 at least: every document held out would leave nothing to train on; 0: none held out.
    reader.size("held_out_every", settings.heldOutEvery);
    if (settings.heldOutEvery == 1) reader.fail("held_out_every", "must be 0 (none held out) or at least 2, not 1");
    if (settings.maskTokenShare + settings.randomTokenShare > 1.0)
        reader.fail("random_token_share", "plus mask_token_share must be at most 1, not " +
                                              std::to_string(settings.maskTokenShare + settings.randomTokenShare));
    reader.finish();
}

OrderedJson scheduleJson(const Schedule& schedule) {
    OrderedJson json{
        {"epochs", schedule.epochs},
        {"batch_size", schedule.batchSize},
        {"gradient_accumulation", schedule.gradientAccumulation},
        {"learning_rate", schedule.learningRate},
        {"weight_decay", schedule.weightDecay},
        {"optimizer", schedule.optimizer},
        {"kb_refresh_steps", schedule.kbRefreshSteps},
        {"early_stopping_patience", schedule.earlyStoppingPatience},
        {"max_train_mentions", schedule.maxTrainMentions},
        {"max_dev_mentions", schedule.maxDevMentions},
    };
    if (schedule.maxLength != 0) json["max_length"] = schedule.maxLength;
    if (schedule.mentionAlone) json["mention_alone"] = true;
    if (schedule.mentionContextWeight) json["mention_context_weight"] = *schedule.mentionContextWeight;
    if (schedule.projectionDim) json["projection_dim"] = *schedule.projectionDim;
    if (schedule.firstStageWeight) json["first_stage_weight"] = *schedule.firstStageWeight;
    return json;
}

/// Whether a JSON file of a models directory is a preset: it has "method". A file that does
/// not parse counts as one, so that asking for it reports its error instead of "no preset".
bool looksLikePreset(const std::filesystem::path& file) {
    try {
        const Json root = parsePresetJson(readTextFile(file), file.string());
        return root.is_object() && root.contains("method");
    } catch (const ParseError&) {
        return true;
    }
}

}  // namespace

std::string_view methodName(Method method) noexcept { return nameIn(kMethods, method); }
std::optional<Method> parseMethod(std::string_view name) noexcept { return parseName(kMethods, name); }
bool linksMentions(Method method) noexcept { return method != Method::SelfAlignment && method != Method::MaskedLm; }
bool validatesOwnData(Method method) noexcept { return method == Method::MaskedLm; }
bool pretrainsEncoder(Method method) noexcept {
    return method == Method::SelfAlignment || method == Method::ContextAlignment;
}

std::string contextStartAdvice(const TrainingPreset& preset, StartKind start) {
    if (preset.markers == ContextMarkers::None || start == StartKind::ContextAligned || start == StartKind::Unknown)
        return {};
    // Reading the mention alone too keeps what a names-only start knows; from random weights
    // there is nothing to keep, and those runs collapsed with it as without it.
    if (preset.mentionAlone && start == StartKind::NamesOnly) return {};
    const std::string method(methodName(preset.method));
    if (start == StartKind::Scratch)
        return method +
               " reads each mention in its sentence. Started from random weights, it collapsed to a few "
               "entities or stayed far below sparse TF-IDF in our runs (docs/results.md). Pretrain an "
               "encoder on the KB first and start from it.";
    return method +
           " reads each mention in its sentence. Started from an encoder that has read names only, pooled "
           "at the markers alone, it collapsed to a few entities or stayed far below sparse TF-IDF in our "
           "runs (docs/results.md). Take a schedule that reads the mention alone too (mention_alone: the "
           "\"short-pretrained\" schedule where the preset has one), or start from an encoder aligned to "
           "mentions in context (train the \"context-alignment\" preset from this one).";
}

std::string_view similarityName(Similarity similarity) noexcept { return nameIn(kSimilarities, similarity); }
std::optional<Similarity> parseSimilarity(std::string_view name) noexcept { return parseName(kSimilarities, name); }

std::string_view markersName(ContextMarkers markers) noexcept { return nameIn(kMarkers, markers); }
std::optional<ContextMarkers> parseMarkers(std::string_view name) noexcept { return parseName(kMarkers, name); }

std::string_view candidateSourceName(CandidateSource source) noexcept { return nameIn(kCandidateSources, source); }
std::optional<CandidateSource> parseCandidateSource(std::string_view name) noexcept {
    return parseName(kCandidateSources, name);
}

std::string_view tripletTrainingSetName(TripletTrainingSet set) noexcept { return nameIn(kTripletTrainingSets, set); }
std::optional<TripletTrainingSet> parseTripletTrainingSet(std::string_view name) noexcept {
    return parseName(kTripletTrainingSets, name);
}

std::string_view prototypeVariantName(PrototypeVariant variant) noexcept { return nameIn(kPrototypeVariants, variant); }
std::optional<PrototypeVariant> parsePrototypeVariant(std::string_view name) noexcept {
    return parseName(kPrototypeVariants, name);
}

const Schedule& TrainingPreset::schedule(std::string_view scheduleName) const {
    if (scheduleName.empty() || scheduleName == kPaperSchedule) return training;
    if (const auto it = schedules.find(std::string(scheduleName)); it != schedules.end()) return it->second;
    std::vector<std::string> available{std::string(kPaperSchedule)};
    for (const auto& [known, unused] : schedules) available.push_back(known);
    throw Error("preset \"" + name + "\" has no schedule \"" + std::string(scheduleName) +
                "\"; available: " + joined(available));
}

TrainingPreset TrainingPreset::scheduled(std::string_view scheduleName) const {
    TrainingPreset preset = *this;
    preset.training = schedule(scheduleName);
    if (preset.training.maxLength != 0) preset.maxLength = preset.training.maxLength;
    preset.training.maxLength = 0;
    if (preset.training.mentionAlone) preset.mentionAlone = true;
    preset.training.mentionAlone = false;
    if (preset.training.mentionContextWeight) preset.mentionContextWeight = *preset.training.mentionContextWeight;
    preset.training.mentionContextWeight.reset();
    if (preset.training.projectionDim) preset.projectionDim = *preset.training.projectionDim;
    preset.training.projectionDim.reset();
    if (preset.training.firstStageWeight) preset.prototype.firstStageWeight = *preset.training.firstStageWeight;
    preset.training.firstStageWeight.reset();
    return preset;
}

TrainingPreset TrainingPreset::load(const std::filesystem::path& file) {
    const std::string source = file.string();
    const std::string text = readTextFile(file);  // missing file, bad UTF-8: ParseError at its line
    const Json root = parsePresetJson(text, source);
    rejectDuplicateKeys(text, source);
    if (!root.is_object())
        throw ParseError(source, 0, "a training preset must be a JSON object, not " + describeJson(root));

    TrainingPreset preset;
    preset.name = file.stem().string();
    JsonObjectReader top(root, source, kPresetStyle);
    if (!top.has("method"))
        throw ParseError(source, 0, "missing required key \"method\" (one of " + nameList(kMethods) + ")");
    top.choice("method", preset.method, kMethods);
    top.string("paper", preset.paper);
    top.string("description", preset.description);
    if (auto encoder = top.object("encoder")) readEncoder(*encoder, preset);
    top.uint64("seed", preset.seed);
    if (auto training = top.object("training")) readSchedule(*training, preset.training, false);
    readSchedules(top, preset);  // after "training": schedules override it
    if (auto biosyn = top.object("biosyn")) readBioSyn(*biosyn, preset.biosyn);
    if (auto triplet = top.object("triplet")) readTriplet(*triplet, preset.triplet);
    if (auto prototype = top.object("prototype")) readPrototype(*prototype, preset.prototype);
    if (auto contrastive = top.object("contrastive")) readContrastive(*contrastive, preset.contrastive);
    if (auto selfAlignment = top.object("self_alignment")) readSelfAlignment(*selfAlignment, preset.selfAlignment);
    if (auto maskedLm = top.object("masked_lm")) readMaskedLm(*maskedLm, preset.maskedLm);
    top.stringList("choices", preset.choices);
    top.finish();
    return preset;
}

std::string TrainingPreset::toJson() const {
    OrderedJson schedulesJson = OrderedJson::object();
    for (const auto& [scheduleName, scheduleValues] : schedules)
        schedulesJson[scheduleName] = scheduleJson(scheduleValues);
    OrderedJson json{
        {"method", methodName(method)},
        {"paper", paper},
        {"description", description},
        {"encoder",
         {
             {"pooling", nameIn(kPoolings, pooling)},
             {"max_length", maxLength},
             {"entity_max_length", entityMaxLength},
             {"projection_dim", projectionDim},
             {"projection_head", encoder::projectionHeadName(projectionHead)},
             {"entity_pooling", entityPooling ? OrderedJson(nameIn(kPoolings, *entityPooling)) : OrderedJson()},
             {"similarity", similarityName(similarity)},
             {"markers", markersName(markers)},
             {"homonym_expansion", homonymExpansion},
             {"mention_alone", mentionAlone},
             {"mention_context_weight", mentionContextWeight},
         }},
        {"seed", seed},
        {"training", scheduleJson(training)},
        {"schedules", schedulesJson},
        {"biosyn",
         {
             {"top_k", biosyn.topK},
             {"dense_ratio", biosyn.denseRatio},
             {"candidates", candidateSourceName(biosyn.candidates)},
             {"sparse_weight", biosyn.sparseWeight},
             {"train_sparse_weight", biosyn.trainSparseWeight},
             {"sparse_weight_learning_rate", biosyn.sparseWeightLearningRate},
             {"own_candidates", biosyn.ownCandidates},
             {"shared_candidates", biosyn.sharedCandidates},
         }},
        {"triplet",
         {
             {"training_set", tripletTrainingSetName(triplet.trainingSet)},
             {"mention_ratio", triplet.mentionRatio},
             {"sieve_threshold", triplet.sieveThreshold},
         }},
        {"prototype",
         {
             {"variant", prototypeVariantName(prototype.variant)},
             {"candidates", prototype.candidates},
             {"candidate_source", candidateSourceName(prototype.candidateSource)},
             {"margin", prototype.margin},
             {"radius_init", prototype.radiusInit},
             {"epsilon", prototype.epsilon},
             {"radius_learning_rate", prototype.radiusLearningRate},
             {"max_synonyms", prototype.maxSynonyms},
             {"first_stage_weight", prototype.firstStageWeight},
         }},
        {"contrastive",
         {
             {"temperature", contrastive.temperature},
             {"hard_negatives", contrastive.hardNegatives},
         }},
        {"self_alignment",
         {
             {"alpha", selfAlignment.alpha},
             {"beta", selfAlignment.beta},
             {"base", selfAlignment.base},
             {"epsilon", selfAlignment.epsilon},
             {"max_pairs_per_concept", selfAlignment.maxPairsPerConcept},
             {"single_name_pairs", selfAlignment.singleNamePairs},
         }},
        {"choices", choices},
    };
    // Only the masked-LM stage reads it: the other presets' files stay as they were.
    if (method == Method::MaskedLm) {
        const OrderedJson masked{
            {"mask_probability", maskedLm.maskProbability},
            {"mask_token_share", maskedLm.maskTokenShare},
            {"random_token_share", maskedLm.randomTokenShare},
            {"held_out_every", maskedLm.heldOutEvery},
        };
        json.erase("choices");  // kept last
        json["masked_lm"] = masked;
        json["choices"] = choices;
    }
    try {
        // nlohmann writes doubles in their shortest form that reads back to the same value, so
        // load(toJson()) == *this holds for every real-valued key.
        return json.dump(2) + "\n";
    } catch (const OrderedJson::type_error& e) {  // a string that is not UTF-8 (set by code, not read)
        throw Error("preset \"" + name + "\" cannot be written as JSON: " + e.what());
    }
}

std::vector<std::filesystem::path> presetFiles(const std::filesystem::path& directory) {
    std::vector<std::filesystem::path> files;
    std::error_code error;
    // A missing or unreadable folder holds no presets (findModelsDirectory tries several).
    for (auto it = std::filesystem::directory_iterator(directory, error);
         !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
        const std::filesystem::path& path = it->path();
        std::error_code typeError;
        if (path.extension() == ".json" && std::filesystem::is_regular_file(path, typeError) && looksLikePreset(path))
            files.push_back(path);
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::optional<std::filesystem::path> findModelsDirectory(const std::vector<std::filesystem::path>& candidates) {
    for (const std::filesystem::path& candidate : candidates)
        if (!candidate.empty() && !presetFiles(candidate).empty()) return candidate;
    return std::nullopt;
}

std::optional<std::filesystem::path> findStandardModelsDirectory(const std::filesystem::path& sourceTree,
                                                                 const std::filesystem::path& installed) {
    std::vector<std::filesystem::path> candidates;
    if (const char* env = std::getenv("LINKSCOPE_MODELS_DIR"); env && *env) candidates.emplace_back(env);
    candidates.push_back(sourceTree);
    std::error_code error;
    const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) candidates.push_back(executable.parent_path().parent_path() / "share" / "linkscope" / "models");
    candidates.push_back(installed);
    return findModelsDirectory(candidates);
}

TrainingPreset findPreset(const std::string& nameOrPath, const std::filesystem::path& modelsDirectory) {
    std::error_code error;
    const std::filesystem::path asPath(nameOrPath);
    if (!nameOrPath.empty() && std::filesystem::is_regular_file(asPath, error)) return TrainingPreset::load(asPath);
    // A bare name ("biosyn", or "biosyn.json" meant as one) is looked up in the models folder.
    if (!nameOrPath.empty() && !modelsDirectory.empty() && asPath.filename() == asPath) {
        const std::string stem = asPath.extension() == ".json" ? asPath.stem().string() : nameOrPath;
        const std::filesystem::path inDirectory = modelsDirectory / (stem + ".json");
        if (std::filesystem::is_regular_file(inDirectory, error)) return TrainingPreset::load(inDirectory);
    }
    std::vector<std::string> available;
    for (const std::filesystem::path& file : presetFiles(modelsDirectory)) available.push_back(file.stem().string());
    throw Error("no preset \"" + nameOrPath + "\" in " +
                (modelsDirectory.empty() ? std::string("(no models folder)") : modelsDirectory.string()) +
                "; available: " + (available.empty() ? std::string("none") : joined(available)));
}

}  // namespace linkscope::train
