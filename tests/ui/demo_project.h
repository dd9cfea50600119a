#pragma once
// The demo project of resources/demo, loaded as the GUI suites open it, and the settings a suite
// keeps in its own folder (so that no suite reads or writes the user's settings or runs folder).
#include <QCoreApplication>
#include <QString>
#include <QTemporaryDir>
#include <QtGlobal>

#include <filesystem>
#include <memory>

#include "project/loaded_project.h"
#include "project/project_manifest.h"

namespace linkscope::test {

/// resources/demo/demo-project.json, loaded whole.
inline std::shared_ptr<const LoadedProject> loadDemoProject() {
    const std::filesystem::path manifest =
        std::filesystem::path(LINKSCOPE_SOURCE_DIR) / "resources" / "demo" / "demo-project.json";
    return std::make_shared<const LoadedProject>(loadProject(readProjectManifest(manifest)));
}

/// The suite's settings and data (the default runs folder among them) in `folder`.
inline void keepSettingsIn(const QTemporaryDir& folder) {
    QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
    qputenv("XDG_DATA_HOME", folder.path().toUtf8());
}

}  // namespace linkscope::test
