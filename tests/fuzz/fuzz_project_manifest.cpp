// readProjectManifest (project/project_manifest.h), then loadProject (project/loaded_project.h)
// on what it names: a manifest in a folder that holds small valid files of every format it can
// point at (kb.txt, c.txt, the demo's names, MRCONSO.RRF, MRSTY.RRF, CTD_diseases.tsv, and a
// sub-folder), so that the manifest's choices of path, format and split drive the loaders.
//
// Manifests are a few hundred bytes; 16 KiB, 1 GiB of RSS, no allocation of 256 MiB, 10 s.
// fuzz-options: -max_len=16384 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: json.dict
#include "fuzz_support.h"
#include "project/loaded_project.h"
#include "project/project_manifest.h"

using namespace linkscope;

namespace {
const std::filesystem::path& projectFolder() {
    static const std::filesystem::path folder = [] {
        const auto f = fuzz::freshFolder("project");
        const std::string kb = "D1||Name|Other name\nD2|D3||Second\n";
        const std::string corpus = "1|t|Name here.\n1|a|Second.\n1\t0\t4\tName\tDisease\tD1\n";
        for (const char* name : {"kb.txt", "demo-kb.txt"}) fuzz::writeFile(f / name, kb);
        for (const char* name : {"c.txt", "demo-train.txt", "demo-test.txt", "train.txt", "test.txt"})
            fuzz::writeFile(f / name, corpus);
        fuzz::writeFile(
            f / "MRCONSO.RRF",
            "C0000001|ENG|P|L0000001|PF|S0000001|Y|A0000001||M0000001|D000001|MSH|PT|D000001|Name|0|N|256|\n");
        fuzz::writeFile(f / "MRSTY.RRF", "C0000001|T047|B2.2.1.2.1|Disease or Syndrome|AT00000001|256|\n");
        fuzz::writeFile(f / "CTD_diseases.tsv",
                        "# Fields:\n# DiseaseName\tDiseaseID\tAltDiseaseIDs\tDefinition\tParentIDs\tTreeNumbers\t"
                        "ParentTreeNumbers\tSynonyms\tSlimMappings\n#\nName\tMESH:D1\t\t\t\t\t\tOther name\t\n");
        std::filesystem::create_directories(f / "sub");
        return f;
    }();
    return folder;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto file = projectFolder() / "m.json";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("readProjectManifest / loadProject", [&] {
        const ProjectManifest manifest = readProjectManifest(file);
        loadProject(manifest);
    });
    return 0;
}
