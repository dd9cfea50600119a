#include "project/project_copy.h"

#include <unistd.h>
#include <random>
#include <system_error>

#include "project/project_store.h"
#include "util/error.h"

namespace linkscope::project {
namespace {

CopySummary copyInto(const ProjectStore& source, ProjectStore& target, const std::filesystem::path& scratch) {
    CopySummary summary;
    for (const RunReference& run : source.runs()) {
        target.putRun(run);
        ++summary.runs;
    }
    for (const auto& [key, value] : source.settings()) {
        target.setSetting(key, value);
        ++summary.settings;
    }
    for (const std::string& name : source.blobNames()) {
        if (!source.writeBlobToFile(name, scratch)) continue;  // removed meanwhile
        target.putBlobFromFile(name, scratch);
        ++summary.blobs;
    }
    const auto history = source.decisions();
    target.importHistory(history);
    target.setTeamMode(source.teamMode());
    summary.decisions = history.size();
    return summary;
}

// A file in the temporary folder that blobs pass through, removed at the end of the copy.
std::filesystem::path scratchPath() {
    std::random_device random;
    return std::filesystem::temp_directory_path() /
           ("linkscope-project-copy-" + std::to_string(::getpid()) + "-" + std::to_string(random()));
}

}  // namespace

CopySummary copyProject(const std::filesystem::path& from, const std::filesystem::path& to) {
    const auto source = ProjectStore::open(from, OpenCheck::Full);
    (void)source.checkIntegrity();
    const ProjectManifest manifest = source.manifest();
    const std::filesystem::path scratch = scratchPath();
    struct RemoveScratch {
        const std::filesystem::path& path;
        ~RemoveScratch() {
            std::error_code ignored;
            std::filesystem::remove(path, ignored);
        }
    } removeScratch{scratch};
    if (ProjectStore::isServerAddress(to.native())) {
        auto target = ProjectStore::create(to, manifest);
        try {
            return copyInto(source, target, scratch);
        } catch (const Error& e) {
            throw Error(std::string(e.what()) + "; " + to.string() +
                        " now holds a partial copy: drop its tables (or the database) before copying again");
        }
    }
    const auto file = std::filesystem::absolute(to).lexically_normal();
    std::error_code ec;
    if (std::filesystem::exists(file, ec))
        throw Error(file.string() + ": cannot copy the project there: the file already exists");
    const auto partial = std::filesystem::path(file.string() + ".partial");
    std::filesystem::remove(partial, ec);
    try {
        CopySummary summary;
        {
            auto target = ProjectStore::create(partial, manifest);
            summary = copyInto(source, target, scratch);
        }
        // Closed: SQLite has checkpointed its WAL into the file; a WAL left behind moves with it.
        for (const char* suffix : {"-wal", "-shm"})
            if (std::filesystem::exists(partial.string() + suffix))
                std::filesystem::rename(partial.string() + suffix, file.string() + suffix);
        std::filesystem::rename(partial, file);
        return summary;
    } catch (...) {
        for (const char* suffix : {"", "-wal", "-shm", "-journal"})
            std::filesystem::remove(std::filesystem::path(partial.string() + suffix), ec);
        throw;
    }
}

}  // namespace linkscope::project
