#pragma once
// The kNN datastore (retrieval/knn_datastore.h) kept inside the project file, as a blob, so that
// the project stays one file a user can copy: the keys built from the training mentions and the
// curators' decisions travel with the decisions that made them.
#include <optional>
#include <string>
#include <string_view>

#include "project/project_store.h"
#include "retrieval/knn_datastore.h"

namespace linkscope::project {

/// The blob a datastore is kept in: "knn-datastore/<name>" (so that datastores, one per encoder
/// for instance, never collide with the project's other blobs).
std::string datastoreBlobName(std::string_view name);

/// The name a model's datastore of training mentions is kept under: "training-" and the FNV-1a
/// hash of the encoder's fingerprint, so that a retrained model (another fingerprint) gets its
/// own datastore instead of a refusal.
std::string trainingDatastoreName(std::string_view encoderFingerprint);

/// Stores (or replaces) a datastore under `name`, in one transaction, in KnnDatastore's own
/// checksummed binary format. Throws Error for an empty name or when it cannot be written.
void saveDatastore(ProjectStore& project, std::string_view name, const retrieval::KnnDatastore& datastore);

/// The datastore stored under `name`; nullopt when there is none. Throws ParseError naming the
/// project file and the datastore when the blob is damaged, and Error (naming both encoders)
/// when `expectedFingerprint` is not empty and differs from the one it was built with: its
/// keys must then be re-encoded, i.e. the datastore rebuilt.
std::optional<retrieval::KnnDatastore> loadDatastore(const ProjectStore& project, std::string_view name,
                                                     const std::string& expectedFingerprint);

}  // namespace linkscope::project
