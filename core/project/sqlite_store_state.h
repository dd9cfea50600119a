#pragma once
// PRIVATE to the SQLite backend's files (sqlite_store.cpp, sqlite_store_blobs.cpp,
// sqlite_store_decisions.cpp): the open connection behind a SqliteStore, and the wrapper that
// turns SQLite's exceptions into Linkscope errors naming the project file.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "project/sqlite_store.h"
#include "util/error.h"

namespace linkscope::project {

struct SqliteStore::State {
    std::filesystem::path file;    // absolute, lexically normalized
    std::filesystem::path folder;  // file.parent_path(): what stored relative paths start from
    SQLite::Database db;
    // The schema version last seen; a file of an older version is upgraded by the first write
    // of a decision, possibly by another connection, so an older value is read again.
    int version = 0;
};

/// Runs `action`; an SQLite::Exception it throws becomes an Error reading
/// "FILE: cannot WHAT: SQLite's message" (a locked, damaged or full-disk file reaches the user
/// as a sentence that names the file). Linkscope's own errors pass unchanged.
template <typename Action>
decltype(auto) guarded(const std::filesystem::path& file, std::string_view what, Action&& action) {
    try {
        return std::forward<Action>(action)();
    } catch (const SQLite::Exception& e) {
        throw Error(file.string() + ": cannot " + std::string(what) + " (SQLite: " + e.what() + ")");
    }
}

}  // namespace linkscope::project
