#pragma once
// A training preset: one method of one paper with that paper's hyper-parameters as defaults
// (models/<name>.json), plus named shorter schedules for machines without a GPU. The trainer
// reads everything it does from here, so what a run did is what its preset (copied into the run
// directory) says. Torch-free: the GUI lists presets and shows their settings.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "encoder/bert_config.h"

namespace linkscope::train {

/// The five linking methods, and the self-alignment pretraining that gives them a starting
/// point when no pretrained checkpoint can be had; each maps to one objective of the trainer.
enum class Method {
    BioSyn,        ///< Sung et al. 2020: marginal likelihood over iteratively retrieved candidates
    Belhd,         ///< Garda & Leser 2024: BioSyn's objective on the homonym-expanded KB, in context
    Triplet,       ///< Xu & Bethard 2021: batch-hard soft-margin triplets, sieve search
    PrototypeSrn,  ///< Le & Nguyen 2023: prototype triplet loss with soft-radius clustering
    KnnBioel,      ///< Lin et al. 2024: InfoNCE with in-batch and dynamic hard negatives
    /// Liu et al. 2021 (SapBERT): multi-similarity loss over pairs of synonyms of the KBs, no
    /// corpus mentions; it pretrains the encoder the five methods then fine-tune.
    SelfAlignment,
    /// Teaches an encoder pretrained on names alone to read a training mention in its sentence,
    /// pooled at its markers, as it reads the mention alone with [CLS]; no gold ids are read.
    /// A second pretraining stage for the methods that read mentions in context (BELHD,
    /// prototype-srn); ours, not a paper's (context_alignment_objective.cpp says why).
    ContextAlignment,
    /// BERT's masked-language-model objective (Devlin et al. 2019) on the corpora's titles and
    /// abstracts: the optional stage before the self-alignment, so that the encoder has read
    /// running biomedical text before it learns from names. No gold ids are read.
    MaskedLm,
};
/// "biosyn", "belhd", "triplet", "prototype-srn", "knn-bioel", "sapbert", "context-alignment", "mlm"
std::string_view methodName(Method method) noexcept;
std::optional<Method> parseMethod(std::string_view name) noexcept;
/// True for the methods that train on corpus mentions (all but the self-alignment and
/// masked-LM pretraining).
bool linksMentions(Method method) noexcept;
/// True for a stage that validates on its own held-out data instead of linking dev mentions
/// (the masked-LM stage: masked-token accuracy on held-out documents).
bool validatesOwnData(Method method) noexcept;
/// True for the stages that make a starting encoder for the methods (self-alignment, context
/// alignment): the Training dock offers their finished runs as starts.
bool pretrainsEncoder(Method method) noexcept;

/// How mention and candidate vectors are compared, in training and at inference.
enum class Similarity { Dot, Cosine, Euclidean };                 ///< Euclidean: score = -distance
std::string_view similarityName(Similarity similarity) noexcept;  ///< "dot", "cosine", "euclidean"
std::optional<Similarity> parseSimilarity(std::string_view name) noexcept;

/// What the mention encoder reads.
enum class ContextMarkers {
    None,      ///< the normalized mention alone (BioSyn, triplet, kNN-BioEL)
    Belhd,     ///< "left [S] mention [E] right" in its sentence (BELHD)
    LeNguyen,  ///< "left [START] mention [END] right" (Le & Nguyen)
};
std::string_view markersName(ContextMarkers markers) noexcept;  ///< "none", "belhd", "le-nguyen"
std::optional<ContextMarkers> parseMarkers(std::string_view name) noexcept;

/// Where candidates come from (BioSyn's iterative retrieval; Le & Nguyen's first stage).
enum class CandidateSource { Sparse, Dense, Both };                     ///< Both: BioSyn's dense ratio alpha
std::string_view candidateSourceName(CandidateSource source) noexcept;  ///< "sparse", "dense", "both"
std::optional<CandidateSource> parseCandidateSource(std::string_view name) noexcept;

/// Xu & Bethard's training sets: ontology synonyms only, or ontology plus corpus mentions.
enum class TripletTrainingSet { Ontology, OntologyAndData };               ///< "O", "OD"
std::string_view tripletTrainingSetName(TripletTrainingSet set) noexcept;  ///< "O", "OD"
std::optional<TripletTrainingSet> parseTripletTrainingSet(std::string_view name) noexcept;

/// Le & Nguyen's Table 3 rows: the full method and its baselines.
enum class PrototypeVariant {
    PrototypeSrn,        ///< "prototype-srn": prototypes of soft-radius clusters (the method)
    Prototype,           ///< "prototype": one prototype per (document, entity), no SRN
    TripletAll,          ///< "triplet-all": a triplet per mention
    TripletDownsampled,  ///< "triplet-downsampled": one mention per (document, entity) drawn
};
std::string_view prototypeVariantName(PrototypeVariant variant) noexcept;
std::optional<PrototypeVariant> parsePrototypeVariant(std::string_view name) noexcept;

/// The knobs every method has. Values not given in a schedule come from the preset's "training".
struct Schedule {
    std::size_t epochs = 1;
    std::size_t batchSize = 16;            ///< mentions (or names, for Train:O) per step
    std::size_t gradientAccumulation = 1;  ///< steps whose gradients are summed before an update
    double learningRate = 1e-5;
    double weightDecay = 0.0;
    std::string optimizer = "adamw";  ///< "adam" or "adamw" (decoupled weight decay)
    /// Re-encode the KB (and refresh dense candidates / hard negatives) every this many optimizer
    /// steps; 0: at the start of every epoch (BioSyn, BELHD, kNN-BioEL).
    std::size_t kbRefreshSteps = 0;
    /// Stop when dev Acc@1 has not improved for this many epochs; 0: never stop early.
    std::size_t earlyStoppingPatience = 0;
    /// Use at most this many training mentions (the first ones of a seeded shuffle); 0: all.
    std::size_t maxTrainMentions = 0;
    /// Validate on at most this many dev mentions (the first ones); 0: all.
    std::size_t maxDevMentions = 0;
    /// A named schedule's own encoder.max_length (the context window of a method that reads
    /// mentions in their sentence); 0: the preset's. Only named schedules may set it, since the
    /// paper's schedule is the paper's window; scheduled() applies it.
    std::size_t maxLength = 0;
    /// A named schedule may turn on the encoder's mention_alone (a small encoder's help for
    /// marker pooling, TrainingPreset::mentionAlone); scheduled() applies it.
    bool mentionAlone = false;
    /// A named schedule's own encoder.mention_context_weight; unset: the preset's.
    std::optional<double> mentionContextWeight;
    /// A named schedule's own encoder.projection_dim (0: no head); unset: the preset's.
    std::optional<std::size_t> projectionDim;
    /// A named schedule's own prototype.first_stage_weight; unset: the preset's.
    std::optional<double> firstStageWeight;

    friend bool operator==(const Schedule&, const Schedule&) = default;
};

struct BioSynSettings {
    std::size_t topK = 20;                               ///< candidates per mention
    double denseRatio = 0.5;                             ///< alpha: share of the k from dense retrieval
    CandidateSource candidates = CandidateSource::Both;  ///< BELHD: Dense
    double sparseWeight = 1.0;                           ///< lambda's initial value; 0 with Dense (no sparse score)
    bool trainSparseWeight = true;                       ///< lambda is a learned parameter
    double sparseWeightLearningRate = 0.01;              ///< lambda's own step (BioSyn's code: 0.01, no weight decay)
    /// BELHD's candidate sharing: each mention's own top `ownCandidates` plus `sharedCandidates`
    /// taken from the other mentions of its document; 0/0: off.
    std::size_t ownCandidates = 0;
    std::size_t sharedCandidates = 0;

    friend bool operator==(const BioSynSettings&, const BioSynSettings&) = default;
};

struct TripletSettings {
    TripletTrainingSet trainingSet = TripletTrainingSet::OntologyAndData;
    double mentionRatio = 1.0 / 3.0;  ///< Train:OD: |D| / |O|, corpus mentions repeated to reach it
    double sieveThreshold = 0.95;     ///< the D-T sieve's similarity threshold at inference

    friend bool operator==(const TripletSettings&, const TripletSettings&) = default;
};

struct PrototypeSettings {
    PrototypeVariant variant = PrototypeVariant::PrototypeSrn;
    std::size_t candidates = 64;  ///< first-stage k
    CandidateSource candidateSource = CandidateSource::Sparse;
    double margin = 1.6;       ///< 1.2 MedMentions, 1.6 BC5CDR
    double radiusInit = 11.0;  ///< lambda, the learnable soft radius
    double epsilon = 1.0;
    double radiusLearningRate = 0.01;  ///< the radius' own learning rate (0.005-0.01)
    std::size_t maxSynonyms = 0;       ///< synonyms in the entity text "[CLS] type [SEP] s1 [SEP] s2"; 0: all that fit
    /// Linking: the re-ranker's score plus this weight times the first stage's (the sparse or
    /// dense cosine that brought the candidate); 0: the re-ranker alone, as the paper ranks.
    double firstStageWeight = 0.0;

    friend bool operator==(const PrototypeSettings&, const PrototypeSettings&) = default;
};

struct ContrastiveSettings {
    double temperature = 0.01;      ///< tau
    std::size_t hardNegatives = 4;  ///< p, retrieved from the whole KB with the current model

    friend bool operator==(const ContrastiveSettings&, const ContrastiveSettings&) = default;
};

/// SapBERT's self-alignment pretraining (Liu et al. 2021, §2): multi-similarity loss (eq. 1) on
/// the cosine similarities of a batch of synonym pairs, over the pairs that online hard-pair
/// mining keeps (a positive whose similarity is below the anchor's hardest negative's plus
/// epsilon, a negative whose similarity is above the anchor's hardest positive's minus epsilon).
struct SelfAlignmentSettings {
    double alpha = 2.0;    ///< scale of the positive term
    double beta = 50.0;    ///< scale of the negative term
    double base = 0.5;     ///< lambda: the similarity the two terms are centred on
    double epsilon = 0.2;  ///< the miner's margin
    /// Pairs drawn per concept from all pairs of its distinct names (seeded); 0: all pairs.
    std::size_t maxPairsPerConcept = 50;
    /// A concept with one name gives the pair (name, name): dropout makes the two views differ,
    /// and without it the concept would never be a negative of the others.
    bool singleNamePairs = true;

    friend bool operator==(const SelfAlignmentSettings&, const SelfAlignmentSettings&) = default;
};

/// BERT's masking (Devlin et al. 2019, section 3.1): of the real tokens of a text (not [CLS],
/// [SEP] or an added marker), maskProbability are predicted; of those, maskTokenShare are replaced
/// by [MASK], randomTokenShare by a random vocabulary token, the rest left as they are.
struct MaskedLmSettings {
    double maskProbability = 0.15;
    double maskTokenShare = 0.8;
    double randomTokenShare = 0.1;
    /// One document in every heldOutEvery is held out: the validation after each epoch predicts
    /// its masked tokens (masked with the preset's seed, the same positions every epoch).
    std::size_t heldOutEvery = 20;

    friend bool operator==(const MaskedLmSettings&, const MaskedLmSettings&) = default;
};

struct TrainingPreset {
    std::string name;  ///< the file's stem ("biosyn")
    Method method = Method::BioSyn;
    std::string paper;  ///< the citation
    std::string description;

    // The encoder as the method uses it.
    encoder::Pooling pooling = encoder::Pooling::Cls;
    std::size_t maxLength = 25;        ///< tokens of a mention input
    std::size_t entityMaxLength = 25;  ///< tokens of a KB name / entity input
    std::size_t projectionDim = 0;     ///< projection head size (BELHD: 128); 0: none
    encoder::ProjectionHead projectionHead =
        encoder::ProjectionHead::Linear;  ///< BELHD: LayerNorm -> Linear -> LayerNorm
    /// How KB names are pooled; unset: as mentions (`pooling`). BELHD's code encodes the plain name
    /// with [CLS] while the mention is pooled at its [S]/[E] markers in the sentence.
    std::optional<encoder::Pooling> entityPooling;
    Similarity similarity = Similarity::Dot;
    ContextMarkers markers = ContextMarkers::None;
    bool homonymExpansion = false;  ///< train and search on BELHD's homonym-expanded KB
    /// Marker pooling (markers, start-end) averaged with the [CLS] vector of the marked words read
    /// alone (encoder::BertConfig::mentionAlone): not in the papers; for the compact encoder, which
    /// reads a mention inside its sentence worse than alone. Saved in the model's config.json.
    bool mentionAlone = false;
    /// With mentionAlone: the marker pooling's weight in that mean (the words alone weigh the
    /// rest); 0.5 is the plain mean (encoder::BertConfig::mentionContextWeight).
    double mentionContextWeight = 0.5;
    std::uint64_t seed = 42;

    Schedule training;  ///< the paper's schedule ("training")
    /// Named overrides of `training` ("schedules": {"short": {...}}), e.g. the documented short
    /// schedule for a 2-core CPU; each holds the full schedule after the override is applied.
    std::map<std::string, Schedule> schedules;

    BioSynSettings biosyn;  ///< BioSyn and BELHD
    TripletSettings triplet;
    PrototypeSettings prototype;
    ContrastiveSettings contrastive;
    SelfAlignmentSettings selfAlignment;
    MaskedLmSettings maskedLm;  ///< "masked_lm", written for the masked-LM stage only

    /// Where the paper leaves a detail open or we deviate, and what we chose (shown by the CLI
    /// and the GUI, and recorded in every run).
    std::vector<std::string> choices;

    /// How names are pooled: entityPooling, else pooling.
    encoder::Pooling namePooling() const noexcept { return entityPooling.value_or(pooling); }
    /// The markers a KB name is wrapped in: the mention's, unless names are pooled without them
    /// ([CLS] or mean pooling of the plain name).
    ContextMarkers nameMarkers() const noexcept {
        const auto p = namePooling();
        return p == encoder::Pooling::Cls || p == encoder::Pooling::Mean ? ContextMarkers::None : markers;
    }

    /// The schedule of that name ("" or "paper": `training`); Error listing the names otherwise.
    const Schedule& schedule(std::string_view name) const;
    /// The preset as that schedule runs it: `training` is the schedule, and a schedule's own
    /// max_length replaces maxLength (left 0 in `training`, so toJson() reads back), and its
    /// mention_alone turns mentionAlone on (left false in `training`), its
    /// mention_context_weight, projection_dim and first_stage_weight replace the preset's (left
    /// unset in `training`). What a run
    /// trains with and saves as its preset.json.
    TrainingPreset scheduled(std::string_view name) const;

    /// Reads a preset file (schema in models/README.md). Throws ParseError naming the file (and
    /// the line for a JSON syntax error) for a missing key, an unknown key, a wrong type or a
    /// value out of range, naming the key ("training.batch_size must be at least 1").
    static TrainingPreset load(const std::filesystem::path& file);
    /// The preset as JSON text in the same schema: load(save(p)) == p (the run directory keeps one).
    std::string toJson() const;

    friend bool operator==(const TrainingPreset&, const TrainingPreset&) = default;
};

/// The preset files of a directory (models/), sorted by name; files that are not presets (the
/// compact encoder's configuration) are recognised by their missing "method" and skipped.
std::vector<std::filesystem::path> presetFiles(const std::filesystem::path& directory);

/// The first of `candidates` that holds a preset (the CLI passes $LINKSCOPE_MODELS_DIR, the
/// source tree and the install prefix, in that order). nullopt when none does.
std::optional<std::filesystem::path> findModelsDirectory(const std::vector<std::filesystem::path>& candidates);

/// Where the CLI and the GUI look for the presets, in order: $LINKSCOPE_MODELS_DIR, `sourceTree`
/// (a build that is not installed), beside the running executable
/// (<prefix>/share/linkscope/models), `installed` (the configured prefix); either path may be
/// empty. The first that holds a preset, nullopt when none does.
std::optional<std::filesystem::path> findStandardModelsDirectory(const std::filesystem::path& sourceTree,
                                                                 const std::filesystem::path& installed);

/// A preset by name from a directory, or from a path when `nameOrPath` names a file. Error
/// listing the available names when there is none.
TrainingPreset findPreset(const std::string& nameOrPath, const std::filesystem::path& modelsDirectory);

/// What a method starts from, as far as it matters for a method that reads mentions in context.
enum class StartKind {
    Scratch,         ///< the compact encoder from random weights
    NamesOnly,       ///< an encoder pretrained on KB names alone (a self-alignment run)
    ContextAligned,  ///< a self-alignment run after the context alignment
    Unknown,         ///< any other checkpoint
};
/// In plain words, why `preset` (as its schedule runs it: scheduled()) should not start from
/// `start`: for a method that reads each mention in its sentence (markers), a start that has
/// read nothing, or names only with the mention pooled at the markers alone, collapsed or stayed
/// far below sparse TF-IDF in docs/results.md's runs. Empty when the start suits it.
std::string contextStartAdvice(const TrainingPreset& preset, StartKind start);

}  // namespace linkscope::train
