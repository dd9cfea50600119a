#pragma once
// What identifies the content of a kNN datastore, for `link`'s fingerprint and shard manifests:
// two datastores with the same keys (id, entity, origin, source, vector) made by the same encoder
// have the same fingerprint, whatever order the keys are stored in; one key added, removed or
// changed gives another.
#include <cstdint>
#include <string>

namespace linkscope::retrieval {

class KnnDatastore;

struct DatastoreFingerprint {
    std::uint64_t keys = 0;
    std::uint64_t hash = 0;  ///< FNV-1a 64 (util/fnv1a.h) over the encoder's fingerprint and the keys by id

    bool operator==(const DatastoreFingerprint&) const = default;
    /// "1,204 keys, fingerprint 0x1234abcd5678ef90"
    std::string describe() const;
};

DatastoreFingerprint fingerprintOf(const KnnDatastore& datastore);

}  // namespace linkscope::retrieval
