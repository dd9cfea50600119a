// linkscope_fuzz_seeds FIXTURES SEEDS MODELS: the seeds of the fuzz targets whose inputs are
// best made by the engine's own writers (binary formats, and formats with a writer in core).
// tests/fuzz/make_seeds.py runs it after writing the text fixtures it took from tests/ into
// FIXTURES: pubtator/*.txt (corpora) and kb/*.txt (MEDIC dictionaries). MODELS is models/.
//
// Writes SEEDS/<target>/<name> for: bioc, brat (PMID.txt NUL PMID.ann), sparse_index,
// knn_datastore, project_store, safetensors, tokenizer (vocab.txt NUL tokenizer_config.json NUL
// special_tokens_map.json NUL added_tokens.json), bert_config, decision_log, run_directory
// (run.json NUL preset.json) and resume_tables (parameters, then a checkpoint's table). Not a
// fuzz target: an ordinary program of the fuzz build.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "corpus/bioc_writer.h"
#include "corpus/brat_writer.h"
#include "corpus/link_column.h"
#include "corpus/pubtator_reader.h"
#include "curation/decision_log.h"
#include "encoder/bert_config.h"
#include "encoder/bert_tokenizer.h"
#include "encoder/safetensors.h"
#include "encoder/vocabulary_builder.h"
#include "kb/dictionary_loader.h"
#include "project/datastore_storage.h"
#include "project/project_manifest.h"
#include "project/project_store.h"
#include "retrieval/knn_datastore.h"
#include "retrieval/sparse_index_io.h"
#include "train/checkpoint_tables.h"
#include "train/run_directory.h"
#include "train/training_preset.h"
#include "util/error.h"

namespace fs = std::filesystem;
using namespace linkscope;

namespace {

std::string readWhole(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

void writeWhole(const fs::path& file, const std::string& bytes) {
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw Error("cannot write " + file.string());
}

std::vector<fs::path> filesIn(const fs::path& folder) {
    std::vector<fs::path> files;
    if (fs::is_directory(folder))
        for (const auto& entry : fs::directory_iterator(folder))
            if (entry.is_regular_file()) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

// The parts of a multi-file input, NUL-separated as fuzz_support.h splits them.
std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) out += '\0';
        out += parts[i];
    }
    return out;
}

retrieval::NameDictionary dictionaryOf(const kb::KnowledgeBase& kb) {
    retrieval::NameDictionary dictionary;
    for (kb::EntityIndex e = 0; e < kb.entityCount(); ++e)
        for (const auto name : kb.names(e)) dictionary.push_back({std::string(name), {std::string(kb.primaryId(e))}});
    return dictionary;
}

std::vector<project::Decision> decisionsOn(const Corpus& corpus, std::size_t most) {
    std::vector<project::Decision> decisions;
    const project::DecisionKind kinds[] = {project::DecisionKind::Accept, project::DecisionKind::Correct,
                                           project::DecisionKind::Nil, project::DecisionKind::Reject,
                                           project::DecisionKind::Skip};
    for (const auto& document : corpus.documents())
        for (const auto& mention : document.mentions) {
            if (decisions.size() == most) return decisions;
            project::Decision d;
            d.mention = {"train", document.pmid(), mention.start, mention.end};
            d.mentionText = mention.text;
            d.kind = kinds[decisions.size() % std::size(kinds)];
            d.previousLink = linkColumnOf(mention);
            if (d.kind == project::DecisionKind::Accept) d.newLink = d.previousLink;
            if (d.kind == project::DecisionKind::Correct) d.newLink = "MESH:D009369|MESH:D001943";
            if (d.kind == project::DecisionKind::Nil) d.newLink = "-1";
            d.curator = decisions.size() % 2 ? "ana" : "ben";
            d.timestamp = "2026-11-22T07:30:12.123Z";
            d.id = static_cast<std::int64_t>(decisions.size() + 1);
            decisions.push_back(std::move(d));
        }
    return decisions;
}

retrieval::KnnDatastore datastoreOf(const kb::KnowledgeBase& kb, std::size_t dimension) {
    retrieval::KnnDatastore store(dimension, "fuzz-seed-encoder");
    std::vector<float> vector(dimension);
    const std::size_t keys = std::min<std::size_t>(kb.entityCount(), 6);
    for (std::size_t k = 0; k < keys; ++k) {
        for (std::size_t i = 0; i < dimension; ++i) vector[i] = static_cast<float>((k * 7 + i * 3) % 5) - 1.5f;
        const auto origin = k % 3 == 0
                                ? retrieval::KeyOrigin::Training
                                : (k % 3 == 1 ? retrieval::KeyOrigin::Accepted : retrieval::KeyOrigin::Corrected);
        store.add(vector, kb.primaryId(static_cast<kb::EntityIndex>(k)), origin, "train:" + std::to_string(k));
    }
    if (store.size() > 2) store.remove(2);  // a hole in the key ids
    return store;
}

void writeSafetensors(const fs::path& seeds) {
    using encoder::DType;
    const auto bytesOf = [](const auto& values) {
        return std::span<const std::byte>(reinterpret_cast<const std::byte*>(values.data()),
                                          values.size() * sizeof(values[0]));
    };
    {
        encoder::SafetensorsWriter writer;
        const std::vector<float> weights{0.5f, -1.0f, 2.0f, 0.25f, 3.0f, -0.125f};
        const std::vector<std::int64_t> ids{1, 2, 3};
        const std::vector<std::uint16_t> halves{0x3c00, 0xbc00};  // 1.0, -1.0 in F16 and near in BF16
        const std::vector<std::uint8_t> flags{1, 0, 1, 1};
        writer.add("embeddings.word_embeddings.weight", DType::F32, {2, 3}, bytesOf(weights));
        writer.add("embeddings.position_ids", DType::I64, {1, 3}, bytesOf(ids));
        writer.add("pooler.dense.bias", DType::F16, {2}, bytesOf(halves));
        writer.add("head.bias", DType::BF16, {2}, bytesOf(halves));
        writer.add("mask", DType::Bool, {2, 2}, bytesOf(flags));
        const std::vector<float> scalar{1.0f};
        writer.add("scale", DType::F32, {}, bytesOf(scalar));
        writer.setMetadata("note", "fuzz seed");
        writer.write(seeds / "safetensors" / "mixed.safetensors");
    }
    {
        encoder::SafetensorsWriter writer;
        const std::vector<float> empty;
        writer.add("empty", DType::F32, {0, 4}, bytesOf(empty));
        writer.write(seeds / "safetensors" / "empty-tensor.safetensors");
    }
}

void writeTokenizers(const fs::path& seeds, const std::vector<std::string>& texts) {
    encoder::VocabularyBuilderOptions options;
    options.vocabularySize = 120;
    options.minFrequency = 1;
    const auto vocabulary = encoder::buildWordPieceVocabulary(texts, options);
    const fs::path scratch = fs::temp_directory_path() / ("linkscope-fuzz-seeds-" + std::to_string(::getpid()));
    const auto save = [&](const encoder::BertTokenizer& tokenizer, const std::string& name) {
        const auto folder = scratch / name;
        fs::create_directories(folder);
        tokenizer.save(folder);
        std::vector<std::string> parts;
        std::size_t present = 0;  // the parts up to the last file that exists (a missing file is a missing part)
        for (const char* file :
             {"vocab.txt", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json"}) {
            parts.push_back(fs::exists(folder / file) ? readWhole(folder / file) : std::string());
            if (fs::exists(folder / file)) present = parts.size();
        }
        parts.resize(present);
        writeWhole(seeds / "tokenizer" / name, joined(parts));
        // vocab.txt alone (no JSON files: transformers' defaults).
        writeWhole(seeds / "tokenizer" / (name + "-vocab-only"), parts[0]);
    };
    {
        encoder::BertTokenizer tokenizer(vocabulary, {});
        const std::vector<std::string> markers{"[S]", "[E]", "[START]", "[END]"};
        tokenizer.addTokens(markers);
        save(tokenizer, "uncased-markers");
    }
    {
        encoder::TokenizerConfig config;
        config.doLowerCase = false;
        config.stripAccents = true;
        config.tokenizeChineseChars = false;
        config.modelMaxLength = 64;
        encoder::BertTokenizer tokenizer(vocabulary, config);
        save(tokenizer, "cased-no-cjk");
    }
    std::error_code ignored;
    fs::remove_all(scratch, ignored);
}

void writeBertConfigs(const fs::path& seeds) {
    encoder::BertConfig base;  // bert-base
    base.save(seeds / "bert_config" / "bert-base.json");
    encoder::BertConfig compact;
    compact.vocabSize = 120;
    compact.hiddenSize = 32;
    compact.numHiddenLayers = 2;
    compact.numAttentionHeads = 4;
    compact.intermediateSize = 64;
    compact.maxPositionEmbeddings = 64;
    compact.pooling = encoder::Pooling::Markers;
    compact.projectionDim = 8;
    compact.projectionHead = encoder::ProjectionHead::LayerNorm;
    compact.extraJson = R"({"_name_or_path": "fuzz", "torch_dtype": "float32", "classifier_dropout": null})";
    compact.save(seeds / "bert_config" / "compact-belhd.json");
}

void writeRunDirectories(const fs::path& seeds, const fs::path& models) {
    const fs::path scratch = fs::temp_directory_path() / ("linkscope-fuzz-run-" + std::to_string(::getpid()));
    fs::create_directories(scratch);
    train::RunInfo finished;
    finished.status = "finished";
    finished.preset = "biosyn";
    finished.schedule = "short";
    finished.device = "cpu";
    finished.epochsDone = 3;
    finished.bestEpoch = 2;
    finished.bestDevAccuracy = 0.75;
    finished.untrainedDevAccuracy = 0.25;
    finished.sparseWeight = 1.5;
    finished.seconds = 12.5;
    train::ValidationSummary validation;  // run.json's "validation", read by the same reader
    validation.source = "kb-holdout";
    validation.queries = 193;
    validation.holdoutShare = 0.02;
    validation.eligibleConcepts = 9667;
    validation.sparseAcc1 = 0.8;
    validation.keptAcc1 = 0.75;
    validation.epochAcc1 = {0.5, 0.75, 0.7};
    validation.warnings = {"the kept model links worse than the sparse linker (TF-IDF)"};
    finished.validation = validation;
    train::RunInfo failed = finished;
    failed.status = "failed";
    failed.error = "out of memory";
    failed.collapse = "every mention linked to D009369";
    failed.collapsedValidations = 2;
    std::size_t n = 0;
    for (const auto& file : filesIn(models)) {
        if (file.extension() != ".json") continue;
        train::TrainingPreset preset;
        try {
            preset = train::TrainingPreset::load(file);
        } catch (const Error&) {
            continue;  // the compact encoder's configuration, not a preset
        }
        const train::RunInfo& info = (n++ % 2 == 0) ? finished : failed;
        train::writeRunInfo(scratch, info);
        writeWhole(seeds / "run_directory" / (file.stem().string() + ".run"),
                   joined({readWhole(train::runInfoFile(scratch)), preset.toJson()}));
    }
    std::error_code ignored;
    fs::remove_all(scratch, ignored);
}

// fuzz_resume_tables: 6 bytes of parameters (rows u16, width u8, entries u16, dimension u8),
// then a table as the objectives' saveState writes it.
void writeResumeTables(const fs::path& seeds) {
    const auto write = [&](const std::string& name, std::uint16_t rows, std::uint8_t width, std::uint16_t entries,
                           std::uint8_t dimension, const auto& writeTable) {
        const fs::path table = fs::temp_directory_path() / ("linkscope-fuzz-table-" + std::to_string(::getpid()));
        writeTable(table);
        std::string bytes{static_cast<char>(rows & 0xff),  static_cast<char>(rows >> 8),
                          static_cast<char>(width),        static_cast<char>(entries & 0xff),
                          static_cast<char>(entries >> 8), static_cast<char>(dimension)};
        writeWhole(seeds / "resume_tables" / name, bytes + readWhole(table));
        fs::remove(table);
    };
    // BioSyn's candidates: 3 mentions x 4 candidates among 10 names.
    const std::vector<std::uint32_t> candidates{0, 3, 9, 2, 1, 1, 4, 8, 7, 6, 5, 0};
    write("candidates-3x4", 3, 4, 10, 4, [&](const fs::path& f) { train::writeIdTable(f, candidates, 4); });
    // kNN-BioEL's rows: a positive and two negatives, 2 mentions among 300 names.
    const std::vector<std::uint32_t> rows{299, 0, 17, 42, 255, 256};
    write("contrastive-2x3", 2, 3, 300, 3, [&](const fs::path& f) { train::writeIdTable(f, rows, 3); });
    // Name vectors: 3 names of 4 dimensions (read as ids of width 4 too).
    const std::vector<float> vectors{0.5f, -0.25f, 1.0f, 0.0f, 2.0f, -3.5f, 0.125f, 1e-3f, -1e3f, 7.0f, 0.0f, -0.0f};
    write("names-3x4", 3, 4, 1000, 4, [&](const fs::path& f) { train::writeVectorTable(f, vectors); });
    write("empty", 0, 4, 10, 4, [&](const fs::path& f) { train::writeIdTable(f, std::vector<std::uint32_t>{}, 4); });
}

void writeProject(const fs::path& seeds, const fs::path& fixtures, const fs::path& kbFile, const fs::path& corpusFile,
                  const Corpus& corpus, const kb::KnowledgeBase& kb) {
    const fs::path scratch = fs::temp_directory_path() / ("linkscope-fuzz-project-" + std::to_string(::getpid()));
    std::error_code ignored;
    fs::remove_all(scratch, ignored);
    fs::create_directories(scratch);
    (void)fixtures;
    ProjectManifest manifest;
    manifest.name = "fuzz seed";
    manifest.description = "written by tests/fuzz/seed_writer.cpp";
    manifest.knowledgeBase.path = fs::absolute(kbFile);
    manifest.corpora.push_back({"train", fs::absolute(corpusFile), CorpusFormat::PubTator, {}});
    manifest.corpora.push_back({"test", fs::absolute(corpusFile), CorpusFormat::PubTator, {}});
    const auto file = scratch / "seed.linkscope";
    {
        auto store = project::ProjectStore::create(file, manifest);
        store.putRun({"triplet-run", scratch / "runs" / "triplet", "triplet", ""});
        store.putRun({"model", scratch / "models" / "sapbert", "", ""});
        store.setSetting("fuzz", "value");
        const std::string blob = "blob bytes";
        store.putBlob("fuzz", std::as_bytes(std::span(blob)));
        project::saveDatastore(store, "fuzz", datastoreOf(kb, 4));
        for (auto& decision : decisionsOn(corpus, 8)) {
            decision.id = 0;
            store.record(decision);
        }
        store.undo();
        store.undo();
        store.redo();
    }
    // The -wal is checkpointed into the file when the last connection closes.
    fs::copy_file(file, seeds / "project_store" / "seed.linkscope", fs::copy_options::overwrite_existing);
    fs::remove_all(scratch, ignored);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::cerr << "usage: linkscope_fuzz_seeds FIXTURES SEEDS MODELS\n";
        return 2;
    }
    const fs::path fixtures = argv[1], seeds = argv[2], models = argv[3];
    try {
        for (const char* target : {"bioc", "brat", "sparse_index", "knn_datastore", "project_store", "safetensors",
                                   "tokenizer", "bert_config", "decision_log", "run_directory", "resume_tables"})
            fs::create_directories(seeds / target);

        const auto corpusFiles = filesIn(fixtures / "pubtator");
        const auto kbFiles = filesIn(fixtures / "kb");
        if (corpusFiles.empty() || kbFiles.empty()) throw Error("no fixtures under " + fixtures.string());

        std::vector<std::string> texts;
        std::vector<Corpus> corpora;
        for (const auto& file : corpusFiles) {
            PubTatorOptions options;
            options.lenient = true;
            Corpus corpus = readPubTator(file, options);
            const std::string stem = file.stem().string();
            BioCWriteOptions bioc;
            bioc.date = "20261122";
            writeBioC(corpus, seeds / "bioc" / (stem + ".xml"), bioc);
            const auto bratFolder = fs::temp_directory_path() / ("linkscope-fuzz-brat-" + std::to_string(::getpid()));
            std::error_code ignored;
            fs::remove_all(bratFolder, ignored);
            writeBrat(corpus, bratFolder);
            for (const auto& ann : filesIn(bratFolder)) {
                if (ann.extension() != ".ann") continue;
                auto txt = ann;
                txt.replace_extension(".txt");
                writeWhole(seeds / "brat" / (stem + "-" + ann.stem().string()),
                           joined({readWhole(txt), readWhole(ann)}));
            }
            fs::remove_all(bratFolder, ignored);
            for (const auto& document : corpus.documents()) texts.push_back(document.text());
            const auto decisions = decisionsOn(corpus, 12);
            if (!decisions.empty()) curation::writeDecisionLog(decisions, seeds / "decision_log" / (stem + ".jsonl"));
            corpora.push_back(std::move(corpus));
        }

        std::vector<kb::KnowledgeBase> kbs;
        for (const auto& file : kbFiles) {
            kb::DictionaryOptions options;
            options.lenient = true;
            kb::KnowledgeBase kb = kb::loadDictionary(file, options).kb;
            const auto dictionary = dictionaryOf(kb);
            const std::string stem = file.stem().string();
            retrieval::saveSparseIndex(retrieval::SparseIndex::build(dictionary, retrieval::TfidfSettings::bioSyn()),
                                       seeds / "sparse_index" / (stem + "-biosyn.sparse"));
            retrieval::saveSparseIndex(
                retrieval::SparseIndex::build(dictionary, retrieval::TfidfSettings::leNguyenWords()),
                seeds / "sparse_index" / (stem + "-words.sparse"));
            // The approximate form (version 2), of the first names only: the seed stays under the
            // target's -max_len.
            retrieval::SparseIndexOptions approximate;
            approximate.approximateAbove = 1;
            approximate.approximate.candidates = 8;
            const auto headSize = static_cast<std::ptrdiff_t>(std::min<std::size_t>(40, dictionary.size()));
            const retrieval::NameDictionary head(dictionary.begin(), dictionary.begin() + headSize);
            retrieval::saveSparseIndex(
                retrieval::SparseIndex::build(head, retrieval::TfidfSettings::bioSyn(), approximate),
                seeds / "sparse_index" / (stem + "-approximate.sparse"));
            datastoreOf(kb, 4).save(seeds / "knn_datastore" / (stem + "-dim4.datastore"));
            datastoreOf(kb, 1).save(seeds / "knn_datastore" / (stem + "-dim1.datastore"));
            for (kb::EntityIndex e = 0; e < kb.entityCount(); ++e)
                for (const auto name : kb.names(e)) texts.emplace_back(name);
            kbs.push_back(std::move(kb));
        }
        retrieval::KnnDatastore(8, "empty").save(seeds / "knn_datastore" / "empty-dim8.datastore");

        writeProject(seeds, fixtures, kbFiles.front(), corpusFiles.front(), corpora.front(), kbs.front());
        writeSafetensors(seeds);
        writeTokenizers(seeds, texts);
        writeBertConfigs(seeds);
        writeRunDirectories(seeds, models);
        writeResumeTables(seeds);
    } catch (const std::exception& e) {
        std::cerr << "linkscope_fuzz_seeds: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
