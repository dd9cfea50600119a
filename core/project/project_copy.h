#pragma once
// Copies a whole project from one store to another, in either direction between a project file
// and a server database (or file to file, server to server): the manifest, the runs in their
// order, the settings, every blob (the kNN datastores, streamed through a temporary file), and
// the decision history as it is (ids, states, curators, timestamps), so that both export the
// same bytes.
//
// The source is checked in full first (ProjectStore::checkIntegrity). A file target is written
// under a temporary name beside it and renamed into place once complete: a failure leaves no
// file. A server target must be an empty database; after a failure it holds a partial copy,
// and the error says so.
#include <filesystem>

namespace linkscope::project {

struct CopySummary {
    std::size_t runs = 0;
    std::size_t settings = 0;
    std::size_t blobs = 0;
    std::size_t decisions = 0;
};

/// Throws Error naming the store at fault.
CopySummary copyProject(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace linkscope::project
