#include "project/datastore_storage.h"

#include <cstdint>
#include <cstdio>
#include <random>
#include <system_error>

#include "util/error.h"

namespace linkscope::project {
namespace {

// KnnDatastore reads and writes files (with seeks, a size check and a checksum), so the blob
// passes through a file of its own in the temporary folder, removed on every path out.
class TemporaryFile {
public:
    TemporaryFile() {
        std::random_device device;
        const auto random = (static_cast<std::uint64_t>(device()) << 32) | device();
        path_ = std::filesystem::temp_directory_path() / ("linkscope-knn-datastore-" + std::to_string(random) + ".bin");
    }
    ~TemporaryFile() {
        std::error_code ignored;
        std::filesystem::remove(path_, ignored);
    }
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;

    const std::filesystem::path& path() const noexcept { return path_; }

private:
    std::filesystem::path path_;
};

// The temporary file's name means nothing to a user: errors name the project and the datastore.
std::string renamed(std::string message, const std::filesystem::path& temporary, const std::string& label) {
    const std::string name = temporary.string();
    for (auto at = message.find(name); at != std::string::npos; at = message.find(name, at + label.size()))
        message.replace(at, name.size(), label);
    return message;
}

std::string checkedName(const ProjectStore& project, std::string_view name) {
    if (name.empty()) throw Error(project.file().string() + ": a kNN datastore needs a name");
    return datastoreBlobName(name);
}

}  // namespace

std::string datastoreBlobName(std::string_view name) { return "knn-datastore/" + std::string(name); }

std::string trainingDatastoreName(std::string_view encoderFingerprint) {
    std::uint64_t hash = 0xcbf29ce484222325ull;
    for (const unsigned char c : encoderFingerprint) hash = (hash ^ c) * 0x100000001b3ull;
    char name[40];
    std::snprintf(name, sizeof name, "training-%016llx", static_cast<unsigned long long>(hash));
    return name;
}

void saveDatastore(ProjectStore& project, std::string_view name, const retrieval::KnnDatastore& datastore) {
    const std::string blob = checkedName(project, name);
    const TemporaryFile temporary;
    datastore.save(temporary.path());
    project.putBlobFromFile(blob, temporary.path());
}

std::optional<retrieval::KnnDatastore> loadDatastore(const ProjectStore& project, std::string_view name,
                                                     const std::string& expectedFingerprint) {
    const std::string blob = checkedName(project, name);
    const TemporaryFile temporary;
    if (!project.writeBlobToFile(blob, temporary.path())) return std::nullopt;
    const std::string label = project.file().string() + " (blob \"" + blob + "\")";
    try {
        return retrieval::KnnDatastore::load(temporary.path(), expectedFingerprint);
    } catch (const ParseError& e) {
        throw ParseError(
            project.file().string(), 0,
            "kNN datastore \"" + std::string(name) + "\": " + renamed(e.message(), temporary.path(), label));
    } catch (const Error& e) {
        throw Error(renamed(e.what(), temporary.path(), label));
    }
}

}  // namespace linkscope::project
