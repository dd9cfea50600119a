#pragma once
// A project manifest: a small JSON file naming the corpus files (with their split) and the
// knowledge base of a linking project, with paths relative to the manifest. The demo project is
// one; the SQLite project store of the curation GUI references the same information.
//
//   { "format": "linkscope-project-manifest", "version": 1, "name": "...",
//     "knowledgeBase": { "path": "kb.txt", "format": "medic|ctd|umls", "semanticTypes": "MRSTY.RRF" },
//     "corpora": [ { "split": "train", "path": "train.txt", "format": "pubtator" }, ... ] }
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope {

enum class KbFormat { Medic, Ctd, Umls };
enum class CorpusFormat { PubTator };

struct KbReference {
    std::filesystem::path path;           ///< absolute
    KbFormat format = KbFormat::Medic;
    std::filesystem::path semanticTypes;  ///< UMLS MRSTY.RRF (absolute), empty when not given
};

struct CorpusReference {
    std::string split;                    ///< "train", "dev", "test", or any name
    std::filesystem::path path;           ///< absolute
    CorpusFormat format = CorpusFormat::PubTator;
};

struct ProjectManifest {
    std::filesystem::path file;           ///< the manifest itself
    std::string name;
    std::string description;
    KbReference knowledgeBase;
    std::vector<CorpusReference> corpora;
};

/// Reads and checks a manifest. Throws ParseError naming the file (and the line for JSON syntax
/// errors) when it is not a manifest, a field is missing or of the wrong kind, or a referenced
/// file does not exist.
ProjectManifest readProjectManifest(const std::filesystem::path& file);

/// Why `split` cannot name a split, or nullopt when it can. A split name becomes a file or folder
/// name of exports (SPLIT.pubtator.txt, SPLIT/ for brat), so it must be one path component:
/// 1 to 100 bytes, no '/', '\\', control character or NUL, not "." or "..".
std::optional<std::string> splitNameProblem(std::string_view split);

KbFormat kbFormatFromName(const std::string& name);  ///< throws Error for an unknown name
const char* kbFormatName(KbFormat format) noexcept;

}  // namespace linkscope
