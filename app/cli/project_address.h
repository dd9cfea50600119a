#pragma once
// The check of a `--project` (or other project) argument: a project is an existing file or a
// `postgresql://` / `postgres://` URI (core/project/project_store.h), which is not a file and is
// checked when the store connects.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>

#include "project/project_store.h"

namespace linkscope::cli {

inline CLI::Validator projectAddress() {
    return CLI::Validator(
        [](std::string& value) -> std::string {
            if (project::ProjectStore::isServerAddress(value)) return {};
            return CLI::ExistingFile(value);
        },
        "FILE|URI", "PROJECT");
}

}  // namespace linkscope::cli
