#include "retrieval/datastore_fingerprint.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <vector>

#include "retrieval/knn_datastore.h"
#include "util/fnv1a.h"

namespace linkscope::retrieval {

std::string DatastoreFingerprint::describe() const {
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%016llx", static_cast<unsigned long long>(hash));
    return std::to_string(keys) + (keys == 1 ? " key" : " keys") + ", fingerprint " + hex;
}

DatastoreFingerprint fingerprintOf(const KnnDatastore& datastore) {
    const std::vector<DatastoreKeyInfo> keys = datastore.keys();
    const auto vectors = datastore.keyVectors();
    const std::size_t dimension = datastore.dimension();
    // Storage order changes when a key is removed: the keys are hashed by id.
    std::vector<std::size_t> order(keys.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a].key < keys[b].key; });
    Fnv1a64 hasher;
    hasher.text(datastore.encoderFingerprint());
    hasher.number(dimension);
    for (const std::size_t row : order) {
        const DatastoreKeyInfo& key = keys[row];
        hasher.number(key.key);
        hasher.text(datastore.entities()[key.entity]);
        hasher.number(static_cast<std::uint64_t>(key.origin));
        hasher.text(key.source);
        for (std::size_t i = 0; i < dimension; ++i) {
            std::uint32_t bits = 0;
            std::memcpy(&bits, &vectors[row * dimension + i], sizeof bits);
            hasher.number(bits);
        }
    }
    return {keys.size(), hasher.value()};
}

}  // namespace linkscope::retrieval
