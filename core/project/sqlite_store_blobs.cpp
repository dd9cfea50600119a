// SqliteStore: named binary blobs, whole (putBlob / blob) or streamed from and to files through
// SQLite's incremental blob I/O (putBlobFromFile / writeBlobToFile), which never holds a large
// blob in memory.
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>

#include <algorithm>
#include <climits>
#include <fstream>
#include <memory>
#include <vector>

#include "project/sqlite_store.h"
#include "project/sqlite_store_state.h"
#include "util/atomic_file.h"
#include "util/input_file.h"

namespace linkscope::project {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

struct BlobCloser {
    void operator()(sqlite3_blob* blob) const noexcept { sqlite3_blob_close(blob); }
};
using BlobHandle = std::unique_ptr<sqlite3_blob, BlobCloser>;

BlobHandle openBlob(SQLite::Database& db, std::int64_t rowid, bool writable) {
    sqlite3_blob* blob = nullptr;
    const int rc = sqlite3_blob_open(db.getHandle(), "main", "blobs", "data", rowid, writable ? 1 : 0, &blob);
    BlobHandle handle(blob);  // sqlite3_blob_open may hand back a handle even on failure
    if (rc != SQLITE_OK) throw SQLite::Exception(db.getHandle(), rc);
    return handle;
}

// The largest value SQLite accepts in this connection (SQLITE_MAX_LENGTH, 10^9 by default), and
// what zeroblob() and the blob API can address (an int).
std::uint64_t maxBlobBytes(SQLite::Database& db) {
    const int limit = sqlite3_limit(db.getHandle(), SQLITE_LIMIT_LENGTH, -1);
    return static_cast<std::uint64_t>(std::min(limit, INT_MAX));
}

void checkBlobName(const std::filesystem::path& file, std::string_view name) {
    if (name.empty()) throw Error(file.string() + ": a blob needs a name");
}

void checkBlobSize(SQLite::Database& db, const std::filesystem::path& file, std::string_view name,
                   std::uint64_t bytes) {
    if (const auto limit = maxBlobBytes(db); bytes > limit)
        throw Error(file.string() + ": cannot store the blob \"" + std::string(name) + "\": " + std::to_string(bytes) +
                    " bytes, over SQLite's limit of " + std::to_string(limit) + " bytes for one value");
}

}  // namespace

void SqliteStore::putBlob(std::string_view name, std::span<const std::byte> data) {
    checkBlobName(state_->file, name);
    checkBlobSize(state_->db, state_->file, name, data.size());
    guarded(state_->file, "store the blob \"" + std::string(name) + "\"", [&] {
        SQLite::Statement upsert(state_->db,
                                 "INSERT INTO blobs (name, data, updated) VALUES (?, ?, ?) "
                                 "ON CONFLICT (name) DO UPDATE SET data = excluded.data, updated = excluded.updated");
        upsert.bind(1, std::string(name));
        // A null pointer would bind NULL: an empty blob needs an address, any address.
        static constexpr std::byte kNothing{};
        upsert.bindNoCopy(2, data.empty() ? &kNothing : data.data(), static_cast<int>(data.size()));
        upsert.bind(3, utcTimestamp());
        upsert.exec();
    });
}

std::optional<std::vector<std::byte>> SqliteStore::blob(std::string_view name) const {
    return guarded(state_->file, "read the blob \"" + std::string(name) + "\"",
                   [&]() -> std::optional<std::vector<std::byte>> {
                       SQLite::Statement query(state_->db, "SELECT data FROM blobs WHERE name = ?");
                       query.bind(1, std::string(name));
                       if (!query.executeStep()) return std::nullopt;
                       const SQLite::Column data = query.getColumn(0);
                       const auto* bytes = static_cast<const std::byte*>(data.getBlob());
                       const auto size = static_cast<std::size_t>(data.getBytes());
                       if (size == 0) return std::vector<std::byte>{};
                       return std::vector<std::byte>(bytes, bytes + size);
                   });
}

std::vector<std::string> SqliteStore::blobNames() const {
    return guarded(state_->file, "read the blob names", [&] {
        std::vector<std::string> names;
        SQLite::Statement query(state_->db, "SELECT name FROM blobs ORDER BY name");
        while (query.executeStep()) names.push_back(query.getColumn(0).getString());
        return names;
    });
}

bool SqliteStore::removeBlob(std::string_view name) {
    return guarded(state_->file, "remove the blob \"" + std::string(name) + "\"", [&] {
        SQLite::Statement remove(state_->db, "DELETE FROM blobs WHERE name = ?");
        remove.bind(1, std::string(name));
        return remove.exec() > 0;
    });
}

void SqliteStore::putBlobFromFile(std::string_view name, const std::filesystem::path& source) {
    checkBlobName(state_->file, name);
    const std::string what = "store " + source.string() + " as the blob \"" + std::string(name) + "\"";
    InputFileStream in = [&] {
        try {
            return InputFileStream(source);  // a FIFO or device is refused, not waited on
        } catch (const Error& e) {
            throw Error(state_->file.string() + ": cannot " + what + ": " + e.what());
        }
    }();
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(source, ec);
    if (!in || ec) throw Error(state_->file.string() + ": cannot " + what + ": the file cannot be read");
    checkBlobSize(state_->db, state_->file, name, bytes);

    guarded(state_->file, what, [&] {
        // One transaction: readers see the old blob or the whole new one, never a part.
        SQLite::Transaction transaction(state_->db, SQLite::TransactionBehavior::IMMEDIATE);
        SQLite::Statement remove(state_->db, "DELETE FROM blobs WHERE name = ?");
        remove.bind(1, std::string(name));
        remove.exec();
        SQLite::Statement insert(state_->db, "INSERT INTO blobs (name, data, updated) VALUES (?, zeroblob(?), ?)");
        insert.bind(1, std::string(name));
        insert.bind(2, static_cast<std::int64_t>(bytes));
        insert.bind(3, utcTimestamp());
        insert.exec();
        {
            const BlobHandle blob = openBlob(state_->db, state_->db.getLastInsertRowid(), true);
            std::vector<char> chunk(kChunkBytes);
            for (std::uint64_t offset = 0; offset < bytes;) {
                const auto size = static_cast<std::size_t>(std::min<std::uint64_t>(kChunkBytes, bytes - offset));
                if (!in.read(chunk.data(), static_cast<std::streamsize>(size)))
                    throw Error(state_->file.string() + ": cannot " + what +
                                ": the file ended early (changed while read?)");
                const int rc =
                    sqlite3_blob_write(blob.get(), chunk.data(), static_cast<int>(size), static_cast<int>(offset));
                if (rc != SQLITE_OK) throw SQLite::Exception(state_->db.getHandle(), rc);
                offset += size;
            }
        }
        transaction.commit();
    });
}

bool SqliteStore::writeBlobToFile(std::string_view name, const std::filesystem::path& target) const {
    const std::string what = "write the blob \"" + std::string(name) + "\" to " + target.string();
    return guarded(state_->file, what, [&] {
        // A read transaction: the row found and the bytes read belong to the same snapshot.
        SQLite::Transaction transaction(state_->db);
        std::int64_t rowid = 0;
        std::uint64_t bytes = 0;
        {
            SQLite::Statement query(state_->db, "SELECT rowid, length(data) FROM blobs WHERE name = ?");
            query.bind(1, std::string(name));
            if (!query.executeStep()) return false;
            rowid = query.getColumn(0).getInt64();
            bytes = static_cast<std::uint64_t>(query.getColumn(1).getInt64());
        }
        AtomicFileWriter out(target);
        {
            const BlobHandle blob = openBlob(state_->db, rowid, false);
            std::vector<char> chunk(kChunkBytes);
            for (std::uint64_t offset = 0; offset < bytes;) {
                const auto size = static_cast<std::size_t>(std::min<std::uint64_t>(kChunkBytes, bytes - offset));
                const int rc =
                    sqlite3_blob_read(blob.get(), chunk.data(), static_cast<int>(size), static_cast<int>(offset));
                if (rc != SQLITE_OK) throw SQLite::Exception(state_->db.getHandle(), rc);
                out.stream().write(chunk.data(), static_cast<std::streamsize>(size));
                offset += size;
            }
        }
        out.commit();
        transaction.commit();
        return true;
    });
}

}  // namespace linkscope::project
