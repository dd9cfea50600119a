#include "pretrained_encoders.h"

#include <algorithm>
#include <exception>
#include <string>
#include <system_error>

#include "project/project_store.h"
#include "train/run_directory.h"
#include "train/training_preset.h"

namespace linkscope::ui {

namespace fs = std::filesystem;

std::vector<PretrainedEncoder> findPretrainedEncoders(const project::ProjectStore* store, const fs::path& runsFolder) {
    std::vector<PretrainedEncoder> found;
    const auto consider = [&found](const fs::path& directory) {
        std::error_code error;
        if (!train::isRunDirectory(directory) || !fs::exists(train::modelDirectory(directory) / "config.json", error))
            return;
        bool context = false;
        try {
            const auto info = train::readRunInfo(directory);
            if (info.status != "finished") return;
            const train::Method method = train::loadRunPreset(directory, info).method;
            if (!train::pretrainsEncoder(method)) return;
            context = method == train::Method::ContextAlignment;
        } catch (const std::exception&) {
            return;
        }
        const fs::path absolute = fs::absolute(directory, error).lexically_normal();
        for (const auto& known : found)
            if (known.directory == absolute) return;
        found.push_back({absolute, fs::last_write_time(train::runInfoFile(directory), error), context});
    };
    if (store) {
        try {
            for (const auto& run : store->runs()) consider(run.directory);
        } catch (const std::exception&) {
            // an unreadable store lists no runs; the folder's are still offered
        }
    }
    std::error_code error;
    if (!runsFolder.empty())
        for (auto it = fs::directory_iterator(runsFolder, error); !error && it != fs::directory_iterator();
             it.increment(error))
            if (it->path().filename().string().rfind("sapbert-", 0) == 0) consider(it->path());
    std::sort(found.begin(), found.end(),
              [](const PretrainedEncoder& a, const PretrainedEncoder& b) { return a.written > b.written; });
    return found;
}

}  // namespace linkscope::ui
