#include "train/run_recovery.h"

#include <system_error>

#include "train/run_directory.h"
#include "train/run_files.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace linkscope::train {
namespace {

namespace fs = std::filesystem;

bool present(const fs::path& path) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(path, ec));
}

// `copy` becomes `target` (whatever partial `target` there was is removed first).
void takeBack(const fs::path& copy, const fs::path& target) {
    std::error_code ec;
    fs::remove_all(target, ec);
    if (ec) throw Error(target.string() + ": cannot remove the incomplete folder: " + ec.message());
    fs::rename(copy, target, ec);
    if (ec) throw Error(copy.string() + ": cannot be made " + target.filename().string() + " again: " + ec.message());
    syncFolder(target.parent_path());
}

}  // namespace

void recoverInterruptedSwaps(const fs::path& run) {
    refuseLinksInRun(run);
    const fs::path checkpoint = checkpointDirectory(run);
    if (!present(checkpoint / "state.json")) {
        for (const fs::path& copy : {fs::path(checkpoint).concat(".new"), fs::path(checkpoint).concat(".old")}) {
            if (!present(copy / "state.json")) continue;
            takeBack(copy, checkpoint);
            break;
        }
    }
    const fs::path model = modelDirectory(run);
    const fs::path oldModel = fs::path(model).concat(".old");
    if (!present(model) && present(oldModel / "config.json")) takeBack(oldModel, model);
}

}  // namespace linkscope::train
