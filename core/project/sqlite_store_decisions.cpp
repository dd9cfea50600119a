// SqliteStore: curation decisions and their undo history. Undo and redo change a stored
// decision's state and never delete it, so the history survives a restart and reads as a log.
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <exception>
#include <functional>
#include <limits>
#include <string_view>

#include "project/decision_checksum.h"
#include "project/decision_rows.h"
#include "project/project_schema.h"
#include "project/sqlite_store.h"
#include "project/sqlite_store_state.h"

namespace linkscope::project {
namespace {

constexpr const char* kColumns =
    "id, split, document, start, \"end\", mention_text, kind, previous_link, new_link, curator, timestamp, state";
constexpr const char* kColumnsWithChecksum =
    "id, split, document, start, \"end\", mention_text, kind, previous_link, new_link, curator, timestamp, state, "
    "checksum";

// One row of a SELECT of kColumns. The CHECK constraints keep kinds and states valid; a file
// edited by hand without them still gets an error, not a wrong enum.
Decision readDecision(const SQLite::Statement& row, const std::filesystem::path& file, bool withChecksum) {
    StoredDecisionRow stored;
    stored.id = row.getColumn(0).getInt64();
    // SQLite keeps a REAL or TEXT in an INTEGER column (type affinity, no STRICT tables before
    // 3.37): 90.5 would pass the CHECKs and be read as 90 by getInt64().
    if (!row.getColumn(3).isInteger() || !row.getColumn(4).isInteger())
        throw ParseError(file.string(), 0,
                         "damaged project: decision " + std::to_string(stored.id) +
                             " has offsets that are not whole numbers (\"" + row.getColumn(3).getString() + "\", \"" +
                             row.getColumn(4).getString() + "\")");
    stored.split = row.getColumn(1).getString();
    stored.document = row.getColumn(2).getString();
    stored.start = row.getColumn(3).getInt64();
    stored.end = row.getColumn(4).getInt64();
    stored.mentionText = row.getColumn(5).getString();
    stored.kind = row.getColumn(6).getString();
    stored.previousLink = row.getColumn(7).getString();
    stored.newLink = row.getColumn(8).getString();
    stored.curator = row.getColumn(9).getString();
    stored.timestamp = row.getColumn(10).getString();
    stored.state = row.getColumn(11).getString();
    if (withChecksum) {
        const SQLite::Column checksum = row.getColumn(12);
        if (!checksum.isNull() && checksum.isInteger()) stored.checksum = checksum.getInt64();
    }
    return checkedDecision(stored, file.string(), withChecksum);
}

// The connection as the helpers below use it (SqliteStore::State is the store's own).
struct Rows {
    SQLite::Database& db;
    const std::filesystem::path& file;
    int& version;  // SqliteStore::State::version
};

// Whether this file's rows carry a checksum. A file of an older version may have been upgraded
// by another connection since this one looked; a version never goes down.
bool checksummed(Rows state) {
    if (state.version < schema::kChecksumVersion) state.version = schema::version(state.db);
    return state.version >= schema::kChecksumVersion;
}

const char* columnsOf(bool withChecksum) { return withChecksum ? kColumnsWithChecksum : kColumns; }

// Writes a decision's state together with its row's new checksum.
void writeState(SQLite::Database& db, const Decision& decision) {
    SQLite::Statement update(db, "UPDATE decisions SET state = ?, checksum = ? WHERE id = ?");
    update.bind(1, std::string(decisionStateName(decision.state)));
    update.bind(2, decisionChecksum(decision));
    update.bind(3, decision.id);
    update.exec();
}

// In a write transaction, before a decision is written: upgrades a file of an older version
// (project_schema.h), checksumming every existing row after reading and checking it. Returns
// the version the file has once the transaction commits.
int upgradeForWriting(Rows state) {
    const int version = schema::version(state.db);
    if (version >= schema::kVersion) return version;
    std::vector<Decision> rows;
    {
        SQLite::Statement query(state.db, std::string("SELECT ") + kColumns + " FROM decisions ORDER BY id");
        while (query.executeStep()) rows.push_back(readDecision(query, state.file, false));
    }
    schema::upgradeTables(state.db, version);
    SQLite::Statement update(state.db, "UPDATE decisions SET checksum = ? WHERE id = ?");
    for (const Decision& decision : rows) {
        update.bind(1, decisionChecksum(decision));
        update.bind(2, decision.id);
        update.exec();
        update.reset();
    }
    return schema::kVersion;
}

std::vector<Decision> selectDecisions(Rows state, const std::string& where) {
    const bool withChecksum = checksummed(state);
    SQLite::Statement query(
        state.db, std::string("SELECT ") + columnsOf(withChecksum) + " FROM decisions " + where + " ORDER BY id");
    std::vector<Decision> decisions;
    while (query.executeStep()) decisions.push_back(readDecision(query, state.file, withChecksum));
    return decisions;
}

// Records `decisions` (validated) in one IMMEDIATE transaction; see ProjectStore::recordAll.
void insertAll(Rows state, std::vector<Decision>& decisions, const std::function<void(std::size_t)>& beforeEach) {
    if (decisions.empty()) return;
    // An upgrade rolled back leaves the file at its old version: look again at the next use.
    struct ForgetVersionOnFailure {
        int& version;
        int uncaught = std::uncaught_exceptions();
        ~ForgetVersionOnFailure() {
            if (std::uncaught_exceptions() > uncaught) version = 0;
        }
    } forget{state.version};
    SQLite::Transaction transaction(state.db, SQLite::TransactionBehavior::IMMEDIATE);
    const int version = upgradeForWriting(state);
    // A new decision cuts the redo stack (QUndoStack does the same); the cut ones stay as history.
    for (Decision& undone : selectDecisions(state, "WHERE state = 'undone'")) {
        undone.state = DecisionState::Discarded;
        writeState(state.db, undone);
    }
    std::int64_t id = 0;
    {
        SQLite::Statement last(state.db, "SELECT coalesce(max(id), 0) FROM decisions");
        last.executeStep();
        id = last.getColumn(0).getInt64();
    }
    // The id is chosen here (as SQLite would: the largest plus one) because the checksum covers it.
    SQLite::Statement insert(state.db,
                             "INSERT INTO decisions (id, split, document, start, \"end\", mention_text, kind, "
                             "previous_link, new_link, curator, timestamp, state, checksum) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'done', ?)");
    for (std::size_t i = 0; i < decisions.size(); ++i) {
        if (beforeEach) beforeEach(i);
        Decision& decision = decisions[i];
        decision.id = ++id;
        decision.state = DecisionState::Done;
        insert.bind(1, decision.id);
        insert.bind(2, decision.mention.split);
        insert.bind(3, decision.mention.document);
        insert.bind(4, static_cast<std::int64_t>(decision.mention.start));
        insert.bind(5, static_cast<std::int64_t>(decision.mention.end));
        insert.bind(6, decision.mentionText);
        insert.bind(7, std::string(decisionKindName(decision.kind)));
        insert.bind(8, decision.previousLink);
        insert.bind(9, decision.newLink);
        insert.bind(10, decision.curator);
        insert.bind(11, decision.timestamp);
        insert.bind(12, decisionChecksum(decision));
        insert.exec();
        insert.reset();
    }
    transaction.commit();
    state.version = version;
}

// Moves the first decision in `from` (by `order` of id) to `to`, in one committed transaction.
std::optional<Decision> transition(Rows state, DecisionState from, DecisionState to, const char* order) {
    SQLite::Transaction transaction(state.db, SQLite::TransactionBehavior::IMMEDIATE);
    const int version = upgradeForWriting(state);
    Decision decision;
    {
        SQLite::Statement query(state.db, std::string("SELECT ") + kColumnsWithChecksum +
                                              " FROM decisions WHERE state = ? ORDER BY id " + order + " LIMIT 1");
        query.bind(1, std::string(decisionStateName(from)));
        if (!query.executeStep()) return std::nullopt;
        decision = readDecision(query, state.file, true);
    }
    decision.state = to;
    writeState(state.db, decision);
    transaction.commit();
    state.version = version;
    return decision;
}

bool anyInState(SQLite::Database& db, DecisionState state) {
    SQLite::Statement query(db, "SELECT EXISTS (SELECT 1 FROM decisions WHERE state = ?)");
    query.bind(1, std::string(decisionStateName(state)));
    query.executeStep();
    return query.getColumn(0).getInt() != 0;
}

}  // namespace

void SqliteStore::insertDone(std::vector<Decision>& decisions, const std::function<void(std::size_t)>& beforeEach) {
    const std::string what = decisions.size() == 1
                                 ? "record the decision on " + describeMention(decisions.front().mention)
                                 : "record " + std::to_string(decisions.size()) + " decisions";
    guarded(state_->file, what, [&] {
        insertAll(Rows{state_->db, state_->file, state_->version}, decisions, beforeEach);
    });
}

std::optional<Decision> SqliteStore::undoLatest() {
    return guarded(state_->file, "undo the latest decision", [&] {
        return transition(Rows{state_->db, state_->file, state_->version}, DecisionState::Done, DecisionState::Undone,
                          "DESC");
    });
}

std::optional<Decision> SqliteStore::redoEarliest() {
    return guarded(state_->file, "redo the undone decision", [&] {
        return transition(Rows{state_->db, state_->file, state_->version}, DecisionState::Undone, DecisionState::Done,
                          "ASC");
    });
}

bool SqliteStore::anyIn(DecisionState state) const {
    return guarded(state_->file, "read the decisions", [&] { return anyInState(state_->db, state); });
}

std::vector<Decision> SqliteStore::decisions(std::optional<DecisionState> only) const {
    return guarded(state_->file, "read the decisions", [&] {
        const std::string where = only ? "WHERE state = '" + std::string(decisionStateName(*only)) + "'" : "";
        return selectDecisions(Rows{state_->db, state_->file, state_->version}, where);
    });
}

std::optional<Decision> SqliteStore::currentDecision(const MentionKey& mention) const {
    if (mention.start > kMaxStoredOffset || mention.end > kMaxStoredOffset) return std::nullopt;  // never stored
    return guarded(state_->file, "read the decisions on " + describeMention(mention), [&]() -> std::optional<Decision> {
        const bool withChecksum = checksummed(Rows{state_->db, state_->file, state_->version});
        SQLite::Statement query(state_->db, std::string("SELECT ") + columnsOf(withChecksum) +
                                                " FROM decisions WHERE split = ? AND document = ? AND start = ? AND "
                                                "\"end\" = ? AND state = 'done' ORDER BY id DESC LIMIT 1");
        query.bind(1, mention.split);
        query.bind(2, mention.document);
        query.bind(3, static_cast<std::int64_t>(mention.start));
        query.bind(4, static_cast<std::int64_t>(mention.end));
        if (!query.executeStep()) return std::nullopt;
        return readDecision(query, state_->file, withChecksum);
    });
}

std::size_t SqliteStore::decisionCount() const {
    return guarded(state_->file, "count the decisions", [&] {
        SQLite::Statement query(state_->db, "SELECT count(*) FROM decisions");
        query.executeStep();
        return static_cast<std::size_t>(query.getColumn(0).getInt64());
    });
}

void SqliteStore::importHistory(const std::vector<Decision>& history) {
    if (history.empty()) return;
    guarded(state_->file, "store " + std::to_string(history.size()) + " decisions of a copied history", [&] {
        SQLite::Transaction transaction(state_->db, SQLite::TransactionBehavior::IMMEDIATE);
        const int version = upgradeForWriting(Rows{state_->db, state_->file, state_->version});
        {
            SQLite::Statement count(state_->db, "SELECT count(*) FROM decisions");
            count.executeStep();
            if (count.getColumn(0).getInt64() != 0)
                throw Error(state_->file.string() +
                            ": cannot copy a decision history into a project that has decisions");
        }
        SQLite::Statement insert(state_->db,
                                 "INSERT INTO decisions (id, split, document, start, \"end\", mention_text, kind, "
                                 "previous_link, new_link, curator, timestamp, state, checksum) "
                                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        for (const Decision& decision : history) {
            insert.bind(1, decision.id);
            insert.bind(2, decision.mention.split);
            insert.bind(3, decision.mention.document);
            insert.bind(4, static_cast<std::int64_t>(decision.mention.start));
            insert.bind(5, static_cast<std::int64_t>(decision.mention.end));
            insert.bind(6, decision.mentionText);
            insert.bind(7, std::string(decisionKindName(decision.kind)));
            insert.bind(8, decision.previousLink);
            insert.bind(9, decision.newLink);
            insert.bind(10, decision.curator);
            insert.bind(11, decision.timestamp);
            insert.bind(12, std::string(decisionStateName(decision.state)));
            insert.bind(13, decisionChecksum(decision));
            insert.exec();
            insert.reset();
        }
        transaction.commit();
        state_->version = version;
    });
}

}  // namespace linkscope::project
