#pragma once
// kNN-BioEL's datastore (Lin et al. 2024, §2.3): (key, value) pairs where the key is a mention
// embedding made by the active encoder and the value the entity it was linked to. It is built
// from the training mentions and grows live with every link a curator accepts or corrects (and
// shrinks again on undo), so that a decision changes the next prediction at once. Searched by
// cosine similarity (the paper's g), exactly, over one contiguous row-major array of unit
// vectors. It is also the training-data ("D") search target of Xu & Bethard's sieves, whose -C
// strategies search per-entity averaged concept vectors (conceptVectors()). The store:
// knn_datastore.cpp; its search: knn_datastore_search.cpp; its file: knn_datastore_io.cpp.
//
// Thread safety: const member functions may run concurrently with each other; a mutation (add,
// addBatch, remove, assignment) needs external synchronization against every other call.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace linkscope::retrieval {

/// Where a key came from: the training set, or a curator's decision on a prediction.
enum class KeyOrigin : std::uint8_t { Training, Accepted, Corrected };
std::string_view keyOriginName(KeyOrigin origin) noexcept;  ///< "training", "accepted", "corrected"

/// One search result.
struct DatastoreNeighbor {
    std::uint64_t key = 0;     ///< the key's id
    std::uint32_t entity = 0;  ///< index into KnnDatastore::entities()
    float similarity = 0.0f;   ///< cosine in [-1, 1] (within float rounding)
};

/// The datastore's order of neighbours: higher similarity first, then the lower (older) key id.
/// A total order over distinct keys, so a query's k nearest are one well-defined list.
bool neighborRanksBefore(const DatastoreNeighbor& a, const DatastoreNeighbor& b) noexcept;

/// Merges `candidate` into a query's k nearest, nearest[0, count) in neighborRanksBefore order
/// with k = nearest.size(): inserted in place when it ranks before the k-th (or count < k), the
/// last one dropped when the list was full. Returns the place it took, nothing when it did not
/// enter. A list search() gave, merged with the key added since (its entry from
/// KnnDatastore::asNeighbors), is exactly what a new search() gives: the new k nearest are among
/// the old ones and the new key.
std::optional<std::size_t> mergeNeighbor(std::span<DatastoreNeighbor> nearest, std::size_t& count,
                                         const DatastoreNeighbor& candidate) noexcept;

/// What the datastore knows of one key besides its vector.
struct DatastoreKeyInfo {
    std::uint64_t key = 0;
    std::uint32_t entity = 0;
    KeyOrigin origin = KeyOrigin::Training;
    std::string source;

    bool operator==(const DatastoreKeyInfo&) const = default;
};

class KnnDatastore {
public:
    /// dimension > 0 (Error otherwise); encoderFingerprint identifies the encoder that makes
    /// the keys (saved, checked on load).
    KnnDatastore(std::size_t dimension, std::string encoderFingerprint);

    /// Adds one key (amortized O(dimension); when the arrays are full they double, which copies
    /// them once); the vector is L2-normalized on the way in (Error for a vector of the wrong
    /// size, a zero or non-finite one, or an empty entity id). `entity` is stored as given: pass
    /// canonical concept ids ("MESH:D012878") so that one concept is one entity. `source`: free
    /// text saying where the key came from ("train:PMID:start-end", a decision id).
    /// Returns the new key id: ids start at 1, increase monotonically and are never reused, also
    /// across save/load (0 is never an id).
    std::uint64_t add(std::span<const float> vector, std::string_view entity, KeyOrigin origin,
                      std::string_view source = {});
    /// Many at once: entities.size() rows of dimension() values; `sources` empty or one per row.
    /// Returns their ids in order. All rows are checked before any is added: on Error the store
    /// is unchanged.
    std::vector<std::uint64_t> addBatch(std::span<const float> vectors, std::span<const std::string> entities,
                                        KeyOrigin origin, std::span<const std::string> sources = {});
    /// Room for `keys` keys in all without growing the arrays: a store built from many training
    /// keys would otherwise copy all of them when the first key is added after (a copy of every
    /// key vector, on the GUI thread). Never shrinks.
    void reserve(std::size_t keys);
    /// Removes a key (undo); false when there is no such key. O(dimension): the last row moves
    /// into the freed one, so storage order (keyVectors(), keys()) changes.
    bool remove(std::uint64_t key);

    bool contains(std::uint64_t key) const noexcept;
    std::optional<DatastoreKeyInfo> info(std::uint64_t key) const;
    std::size_t size() const noexcept { return keyIds_.size(); }
    std::size_t dimension() const noexcept { return dimension_; }
    const std::string& encoderFingerprint() const noexcept { return fingerprint_; }
    /// The id the next added key will get.
    std::uint64_t nextKeyId() const noexcept { return nextKeyId_; }

    /// Interned entity ids, by entity index (an entity stays interned after its last key is
    /// removed, so indexes held by callers stay valid).
    std::span<const std::string> entities() const noexcept { return entities_; }
    std::optional<std::uint32_t> findEntity(std::string_view id) const;
    /// Number of live keys of an entity index (0 for an index that is not interned).
    std::size_t keyCount(std::uint32_t entity) const noexcept;

    /// The k most similar keys per query (queries row-major, queries.size() / dimension() of
    /// them; normalized here, raw vectors are fine), best first, ties by key id ascending;
    /// fewer when the store is smaller, none when k is 0. Exact: one pass over every key, so a
    /// call reads size() x dimension() floats and is bound by memory bandwidth
    /// (benchmarks/knn_datastore). A batch of 8 queries or more is scored by matrix
    /// products (util/inner_products.h), and only the rows that can still enter a query's top k
    /// are scored again by the dot product one query uses: a batch gives each query the
    /// neighbours and similarities it gets alone, several times faster per query.
    /// Throws Error when queries.size() is not a multiple of dimension() or a query is zero or
    /// holds a value that is not finite (its cosine is undefined).
    std::vector<std::vector<DatastoreNeighbor>> search(std::span<const float> queries, std::size_t k) const;

    /// One key as search() would list it for each query (queries as for search()): its id, its
    /// entity and the similarity search() computes, bit for bit (the same normalization, dot
    /// product and clamp), so that a caller holding queries' k nearest can merge a key added
    /// since (mergeNeighbor) instead of searching again. O(queries x dimension). Error for an
    /// unknown key and for queries search() refuses.
    std::vector<DatastoreNeighbor> asNeighbors(std::span<const float> queries, std::uint64_t key) const;

    /// Xu & Bethard's concept vectors: for each entity with at least one key (ascending entity
    /// index), the mean of its normalized key vectors, normalized again (summed in key-id order
    /// in double precision, so the result does not depend on the order of adds and removes).
    /// Keys that cancel out exactly leave a zero vector. Row-major, entities.size() rows.
    struct ConceptVectors {
        std::vector<std::uint32_t> entities;
        std::vector<float> vectors;
    };
    ConceptVectors conceptVectors() const;

    /// The normalized key vectors in storage order, size() x dimension() (for building OD
    /// search spaces). Invalidated by any mutation.
    std::span<const float> keyVectors() const noexcept { return vectors_; }
    /// The infos of the keys, in the same order as keyVectors().
    std::vector<DatastoreKeyInfo> keys() const;

    /// Writes a binary file atomically (AtomicFileWriter): magic "LSKNNDS1", version, sizes,
    /// fingerprint, next key id, entity table, keys (id, entity, origin, source), vectors
    /// (float32 LE), CRC-32 of everything before it. Layout: knn_datastore_io.cpp.
    void save(const std::filesystem::path& file) const;
    /// Throws ParseError naming the file (and what is wrong) when it is damaged, truncated or
    /// not a datastore; Error naming the file and both encoders when expectedFingerprint is
    /// non-empty and differs from the saved one (the keys must be re-encoded: rebuild).
    static KnnDatastore load(const std::filesystem::path& file, const std::string& expectedFingerprint = {});

private:
    struct StringHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
    };

    std::uint32_t internEntity(std::string_view id);
    void append(const float* normalized, std::uint32_t entity, KeyOrigin origin, std::string_view source,
                std::uint64_t id);

    std::size_t dimension_;
    std::string fingerprint_;
    std::uint64_t nextKeyId_ = 1;

    // One row per live key, all in the same (storage) order.
    std::vector<float> vectors_;  // row-major unit vectors
    std::vector<std::uint64_t> keyIds_;
    std::vector<std::uint32_t> keyEntities_;
    std::vector<KeyOrigin> keyOrigins_;
    std::vector<std::string> keySources_;
    std::unordered_map<std::uint64_t, std::size_t> rowOfKey_;

    std::vector<std::string> entities_;
    std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>> entityIndex_;
    std::vector<std::size_t> entityKeyCounts_;  // live keys per entity index
};

}  // namespace linkscope::retrieval
