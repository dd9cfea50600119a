// PostgresStore: named binary blobs, stored in chunks (blob_chunks) so that a large one streams
// from and to a file a chunk at a time and is never held in memory whole.
#include <algorithm>
#include <fstream>
#include <vector>

#include "project/pg_transaction.h"
#include "project/postgres_store.h"
#include "project/postgres_store_state.h"
#include "util/atomic_file.h"
#include "util/input_file.h"

namespace linkscope::project {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

// Replaces the blob's row (its chunks go with it) by an empty one of `bytes` bytes.
void startBlob(PgConnection& db, std::string_view name, std::uint64_t bytes) {
    db.exec("DELETE FROM blobs WHERE name = $1", {PgParam::text(name)});
    db.exec("INSERT INTO blobs (name, bytes, updated) VALUES ($1, $2, $3)",
            {PgParam::text(name), PgParam::integer(static_cast<std::int64_t>(bytes)), PgParam::text(utcTimestamp())});
}

void putChunk(PgConnection& db, std::string_view name, std::int64_t seq, const void* data, std::size_t size) {
    db.exec("INSERT INTO blob_chunks (name, seq, data) VALUES ($1, $2, $3)",
            {PgParam::text(name), PgParam::integer(seq), PgParam::bytes(data, size)});
}

}  // namespace

void PostgresStore::putBlob(std::string_view name, std::span<const std::byte> data) {
    pgGuarded(state_->address, "store the blob \"" + std::string(name) + "\"", [&] {
        PgConnection& db = state_->connection;
        PgTransaction transaction(db);
        startBlob(db, name, data.size());
        std::int64_t seq = 0;
        for (std::size_t offset = 0; offset < data.size(); offset += kChunkBytes)
            putChunk(db, name, seq++, data.data() + offset, std::min(kChunkBytes, data.size() - offset));
        transaction.commit();
    });
}

std::optional<std::vector<std::byte>> PostgresStore::blob(std::string_view name) const {
    return pgGuarded(
        state_->address, "read the blob \"" + std::string(name) + "\"", [&]() -> std::optional<std::vector<std::byte>> {
            PgConnection& db = state_->connection;
            PgTransaction snapshot(db, "ISOLATION LEVEL REPEATABLE READ, READ ONLY");
            const PgResult row = db.exec("SELECT bytes FROM blobs WHERE name = $1", {PgParam::text(name)});
            if (row.rows() == 0) return std::nullopt;
            const auto bytes = static_cast<std::size_t>(row.integer(0, 0));
            std::vector<std::byte> data;
            data.reserve(bytes);
            const PgResult chunks =
                db.exec("SELECT data FROM blob_chunks WHERE name = $1 ORDER BY seq", {PgParam::text(name)});
            for (int i = 0; i < chunks.rows(); ++i) {
                const auto chunk = chunks.bytes(i, 0);
                data.insert(data.end(), chunk.begin(), chunk.end());
            }
            if (data.size() != bytes)
                throw ParseError(state_->address.string(), 0,
                                 "damaged project: the blob \"" + std::string(name) + "\" holds " +
                                     std::to_string(data.size()) + " bytes, not the " + std::to_string(bytes) +
                                     " it was stored with");
            snapshot.commit();
            return data;
        });
}

std::vector<std::string> PostgresStore::blobNames() const {
    return pgGuarded(state_->address, "read the blob names", [&] {
        std::vector<std::string> names;
        // COLLATE "C": bytewise, as SQLite orders text.
        const PgResult rows = state_->connection.exec("SELECT name FROM blobs ORDER BY name COLLATE \"C\"");
        for (int row = 0; row < rows.rows(); ++row) names.push_back(rows.text(row, 0));
        return names;
    });
}

bool PostgresStore::removeBlob(std::string_view name) {
    return pgGuarded(state_->address, "remove the blob \"" + std::string(name) + "\"", [&] {
        return state_->connection.exec("DELETE FROM blobs WHERE name = $1", {PgParam::text(name)}).affected() > 0;
    });
}

void PostgresStore::putBlobFromFile(std::string_view name, const std::filesystem::path& source) {
    const std::string what = "store " + source.string() + " as the blob \"" + std::string(name) + "\"";
    InputFileStream in = [&] {
        try {
            return InputFileStream(source);  // a FIFO or device is refused, not waited on
        } catch (const Error& e) {
            throw Error(state_->address.string() + ": cannot " + what + ": " + e.what());
        }
    }();
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(source, ec);
    if (!in || ec) throw Error(state_->address.string() + ": cannot " + what + ": the file cannot be read");
    pgGuarded(state_->address, what, [&] {
        // One transaction: readers see the old blob or the whole new one, never a part.
        PgConnection& db = state_->connection;
        PgTransaction transaction(db);
        startBlob(db, name, bytes);
        std::vector<char> chunk(kChunkBytes);
        std::int64_t seq = 0;
        for (std::uint64_t offset = 0; offset < bytes;) {
            const auto size = static_cast<std::size_t>(std::min<std::uint64_t>(kChunkBytes, bytes - offset));
            if (!in.read(chunk.data(), static_cast<std::streamsize>(size)))
                throw Error(state_->address.string() + ": cannot " + what +
                            ": the file ended early (changed while read?)");
            putChunk(db, name, seq++, chunk.data(), size);
            offset += size;
        }
        transaction.commit();
    });
}

bool PostgresStore::writeBlobToFile(std::string_view name, const std::filesystem::path& target) const {
    const std::string what = "write the blob \"" + std::string(name) + "\" to " + target.string();
    return pgGuarded(state_->address, what, [&] {
        PgConnection& db = state_->connection;
        // One snapshot: the row found and the chunks read belong together.
        PgTransaction snapshot(db, "ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        const PgResult row = db.exec("SELECT bytes FROM blobs WHERE name = $1", {PgParam::text(name)});
        if (row.rows() == 0) return false;
        const auto bytes = static_cast<std::uint64_t>(row.integer(0, 0));
        const auto chunks = static_cast<std::int64_t>((bytes + kChunkBytes - 1) / kChunkBytes);
        AtomicFileWriter out(target);
        std::uint64_t written = 0;
        for (std::int64_t seq = 0; seq < chunks; ++seq) {
            const PgResult chunk = db.exec("SELECT data FROM blob_chunks WHERE name = $1 AND seq = $2",
                                           {PgParam::text(name), PgParam::integer(seq)});
            if (chunk.rows() != 1)
                throw ParseError(
                    state_->address.string(), 0,
                    "damaged project: the blob \"" + std::string(name) + "\" lacks its chunk " + std::to_string(seq));
            const auto data = chunk.bytes(0, 0);
            out.stream().write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
            written += data.size();
        }
        if (written != bytes)
            throw ParseError(state_->address.string(), 0,
                             "damaged project: the blob \"" + std::string(name) + "\" holds " +
                                 std::to_string(written) + " bytes, not the " + std::to_string(bytes) +
                                 " it was stored with");
        out.commit();
        snapshot.commit();
        return true;
    });
}

}  // namespace linkscope::project
