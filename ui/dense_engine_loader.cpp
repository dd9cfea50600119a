#include "dense_engine_loader.h"

#include <QCoreApplication>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "dense_engine.h"
#include "util/error.h"

#ifndef LINKSCOPE_UI_DENSE_LINKED
#include <dlfcn.h>
#endif

namespace linkscope::ui {
namespace {

namespace fs = std::filesystem;

#ifndef LINKSCOPE_UI_DENSE_LINKED
constexpr const char* kModuleFile = "liblinkscope_ui_dense.so";

/// Where the module may be: $LINKSCOPE_UI_DENSE_MODULE, then <prefix>/lib*/linkscope/ beside the
/// program's bin/, then the program's own folder.
std::vector<fs::path> moduleCandidates() {
    std::vector<fs::path> candidates;
    if (const char* configured = std::getenv("LINKSCOPE_UI_DENSE_MODULE"); configured && *configured)
        candidates.emplace_back(configured);
    std::error_code ec;
    const fs::path folder = fs::read_symlink("/proc/self/exe", ec).parent_path();
    if (!ec && !folder.empty()) {
        for (const char* lib : {"lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"})
            candidates.push_back(folder.parent_path() / lib / "linkscope" / kModuleFile);
        candidates.push_back(folder / kModuleFile);
    }
    return candidates;
}

fs::path installedModule() {
    static const fs::path found = [] {
        for (const fs::path& candidate : moduleCandidates()) {
            std::error_code ec;
            if (fs::is_regular_file(candidate, ec)) return candidate;
        }
        return fs::path();
    }();
    return found;
}

struct Loaded {
    DenseEngine* engine = nullptr;
    std::string problem;
};

Loaded openModule() {
    Loaded loaded;
    const fs::path file = installedModule();
    if (file.empty()) {
        loaded.problem = DenseEngineLoader::missingMessage().toStdString();
        return loaded;
    }
    // Never closed: the engine, the rankers it made and their functions live as long as the
    // process. RTLD_LOCAL: LibTorch's symbols stay out of the program's lookup scope.
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        loaded.problem = "the dense engine (" + file.string() + ") could not be loaded: " + (why ? why : "unknown");
        return loaded;
    }
    using Entry = DenseEngine* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(handle, "linkscope_ui_dense_engine"));
    if (!entry) {
        loaded.problem = "the dense engine (" + file.string() + ") lacks its entry point linkscope_ui_dense_engine";
        return loaded;
    }
    loaded.engine = entry();
    return loaded;
}
#endif

}  // namespace

bool DenseEngineLoader::installed() {
#ifdef LINKSCOPE_UI_DENSE_LINKED
    return true;
#else
    return !installedModule().empty();
#endif
}

DenseEngine& DenseEngineLoader::load() {
#ifdef LINKSCOPE_UI_DENSE_LINKED
    return *linkscope_ui_dense_engine();
#else
    static const Loaded loaded = openModule();  // once, whichever thread comes first
    if (!loaded.engine) throw Error(loaded.problem);
    return *loaded.engine;
#endif
}

QString DenseEngineLoader::missingMessage() {
    return QCoreApplication::translate(
        "DenseEngineLoader",
        "Linking with a trained run and training need the dense engine (LibTorch), which this build of "
        "Linkscope does not have: it links with sparse TF-IDF only");
}

}  // namespace linkscope::ui
