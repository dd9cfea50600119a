// PostgresStore: curation decisions and their undo history. As in the file, undo and redo change
// a stored decision's state and never delete it. Each login has its own undo history: undo, redo
// and the redo stack a new decision cuts are the decisions of the login that asks (the column
// login, set by the server); one login's clients share one history, as with a file. Every write of decisions first takes a lock on
// the decisions table that orders writers (readers are not blocked): the ids, the redo stack and
// the latest done decision are then read and written by one client at a time.
#include <algorithm>

#include "project/decision_checksum.h"
#include "project/decision_rows.h"
#include "project/pg_transaction.h"
#include "project/postgres_store.h"
#include "project/postgres_store_state.h"

namespace linkscope::project {
namespace {

constexpr const char* kColumns =
    "id, split, document, start, \"end\", mention_text, kind, previous_link, new_link, curator, timestamp, state, "
    "checksum, login";
constexpr const char* kOrderWriters = "LOCK TABLE decisions IN SHARE ROW EXCLUSIVE MODE";

Decision readDecision(const PgResult& rows, int row, const std::filesystem::path& address) {
    StoredDecisionRow stored;
    stored.id = rows.integer(row, 0);
    stored.split = rows.text(row, 1);
    stored.document = rows.text(row, 2);
    stored.start = rows.integer(row, 3);
    stored.end = rows.integer(row, 4);
    stored.mentionText = rows.text(row, 5);
    stored.kind = rows.text(row, 6);
    stored.previousLink = rows.text(row, 7);
    stored.newLink = rows.text(row, 8);
    stored.curator = rows.text(row, 9);
    stored.timestamp = rows.text(row, 10);
    stored.state = rows.text(row, 11);
    if (!rows.isNull(row, 12)) stored.checksum = rows.integer(row, 12);
    Decision decision = checkedDecision(stored, address.string(), true);
    decision.login = rows.text(row, 13);  // set by the server, outside the checksum
    return decision;
}

std::vector<Decision> readAll(const PgResult& rows, const std::filesystem::path& address) {
    std::vector<Decision> decisions;
    decisions.reserve(static_cast<std::size_t>(rows.rows()));
    for (int row = 0; row < rows.rows(); ++row) decisions.push_back(readDecision(rows, row, address));
    return decisions;
}

void writeState(PgConnection& db, const Decision& decision) {
    db.exec("UPDATE decisions SET state = $1, checksum = $2 WHERE id = $3",
            {PgParam::text(decisionStateName(decision.state)), PgParam::integer(decisionChecksum(decision)),
             PgParam::integer(decision.id)});
}

void insertRow(PgConnection& db, const Decision& decision) {
    db.exec(
        "INSERT INTO decisions (id, split, document, start, \"end\", mention_text, kind, previous_link, new_link, "
        "curator, timestamp, state, checksum) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
        {PgParam::integer(decision.id), PgParam::text(decision.mention.split), PgParam::text(decision.mention.document),
         PgParam::integer(static_cast<std::int64_t>(decision.mention.start)),
         PgParam::integer(static_cast<std::int64_t>(decision.mention.end)), PgParam::text(decision.mentionText),
         PgParam::text(decisionKindName(decision.kind)), PgParam::text(decision.previousLink),
         PgParam::text(decision.newLink), PgParam::text(decision.curator), PgParam::text(decision.timestamp),
         PgParam::text(decisionStateName(decision.state)), PgParam::integer(decisionChecksum(decision))});
}

// Moves the first decision in `from` (by `order` of id) to `to`, in one committed transaction.
std::optional<Decision> transition(PgConnection& db, const std::filesystem::path& address, DecisionState from,
                                   DecisionState to, const char* order) {
    PgTransaction transaction(db);
    db.execScript(kOrderWriters);
    const PgResult rows =
        db.exec(std::string("SELECT ") + kColumns +
                    " FROM decisions WHERE state = $1 AND login = current_user ORDER BY id " + order + " LIMIT 1",
                {PgParam::text(decisionStateName(from))});
    if (rows.rows() == 0) return std::nullopt;
    Decision decision = readDecision(rows, 0, address);
    decision.state = to;
    writeState(db, decision);
    transaction.commit();
    return decision;
}

}  // namespace

void PostgresStore::insertDone(std::vector<Decision>& decisions, const std::function<void(std::size_t)>& beforeEach) {
    const std::string what = decisions.size() == 1
                                 ? "record the decision on " + describeMention(decisions.front().mention)
                                 : "record " + std::to_string(decisions.size()) + " decisions";
    std::size_t at = 0;  // the decision being written, named by a refusal of the race check
    try {
        insertDoneGuarded(decisions, beforeEach, what, at);
    } catch (const DecisionConflict& e) {
        // The transaction is rolled back: the decision in effect now is read for the curator.
        const Decision& refused = decisions[at];
        std::optional<Decision> theirs;
        try {
            theirs = currentDecision(refused.mention);
        } catch (const Error&) {
            // The refusal stands alone when the other decision cannot be read.
        }
        throw DecisionConflict(e.what(), refused, std::move(theirs));
    }
}

void PostgresStore::insertDoneGuarded(std::vector<Decision>& decisions,
                                      const std::function<void(std::size_t)>& beforeEach, const std::string& what,
                                      std::size_t& at) {
    pgGuarded(state_->address, what, [&] {
        PgConnection& db = state_->connection;
        PgTransaction transaction(db);
        db.execScript(kOrderWriters);
        // A new decision cuts the redo stack (QUndoStack does the same); the cut ones stay as history.
        const PgResult undone = db.exec(std::string("SELECT ") + kColumns +
                                        " FROM decisions WHERE state = 'undone' AND login = current_user ORDER BY id");
        for (Decision& cut : readAll(undone, state_->address)) {
            cut.state = DecisionState::Discarded;
            writeState(db, cut);
        }
        // Of all rows, also those row-level security hides from this login (the blind mode).
        std::int64_t id = db.exec("SELECT linkscope_last_decision_id()").integer(0, 0);
        for (std::size_t i = 0; i < decisions.size(); ++i) {
            at = i;
            if (beforeEach) beforeEach(i);
            Decision& decision = decisions[i];
            decision.id = ++id;  // chosen here because the checksum covers it
            decision.state = DecisionState::Done;
            insertRow(db, decision);
        }
        transaction.commit();
    });
}

std::optional<Decision> PostgresStore::undoLatest() {
    return pgGuarded(state_->address, "undo the latest decision", [&] {
        return transition(state_->connection, state_->address, DecisionState::Done, DecisionState::Undone, "DESC");
    });
}

std::optional<Decision> PostgresStore::redoEarliest() {
    return pgGuarded(state_->address, "redo the undone decision", [&] {
        return transition(state_->connection, state_->address, DecisionState::Undone, DecisionState::Done, "ASC");
    });
}

bool PostgresStore::anyIn(DecisionState state) const {
    return pgGuarded(state_->address, "read the decisions", [&] {
        return state_->connection
                   .exec("SELECT EXISTS (SELECT 1 FROM decisions WHERE state = $1 AND login = current_user)",
                         {PgParam::text(decisionStateName(state))})
                   .text(0, 0) == "t";
    });
}

std::vector<Decision> PostgresStore::decisions(std::optional<DecisionState> only) const {
    return pgGuarded(state_->address, "read the decisions", [&] {
        PgConnection& db = state_->connection;
        if (!only)
            return readAll(db.exec(std::string("SELECT ") + kColumns + " FROM decisions ORDER BY id"), state_->address);
        return readAll(db.exec(std::string("SELECT ") + kColumns + " FROM decisions WHERE state = $1 ORDER BY id",
                               {PgParam::text(decisionStateName(*only))}),
                       state_->address);
    });
}

std::optional<Decision> PostgresStore::currentDecision(const MentionKey& mention) const {
    if (mention.start > kMaxStoredOffset || mention.end > kMaxStoredOffset) return std::nullopt;  // never stored
    return pgGuarded(state_->address, "read the decisions on " + describeMention(mention),
                     [&]() -> std::optional<Decision> {
                         const PgResult rows = state_->connection.exec(
                             std::string("SELECT ") + kColumns +
                                 " FROM decisions WHERE split = $1 AND document = $2 AND start = $3 AND \"end\" = $4 "
                                 "AND state = 'done' ORDER BY id DESC LIMIT 1",
                             {PgParam::text(mention.split), PgParam::text(mention.document),
                              PgParam::integer(static_cast<std::int64_t>(mention.start)),
                              PgParam::integer(static_cast<std::int64_t>(mention.end))});
                         if (rows.rows() == 0) return std::nullopt;
                         return readDecision(rows, 0, state_->address);
                     });
}

std::size_t PostgresStore::decisionCount() const {
    return pgGuarded(state_->address, "count the decisions", [&] {
        return static_cast<std::size_t>(state_->connection.exec("SELECT count(*) FROM decisions").integer(0, 0));
    });
}

void PostgresStore::importHistory(const std::vector<Decision>& history) {
    if (history.empty()) return;
    pgGuarded(state_->address, "store " + std::to_string(history.size()) + " decisions of a copied history", [&] {
        PgConnection& db = state_->connection;
        PgTransaction transaction(db);
        db.execScript(kOrderWriters);
        if (db.exec("SELECT count(*) FROM decisions").integer(0, 0) != 0)
            throw Error(state_->address.string() +
                        ": cannot copy a decision history into a project that has decisions");
        for (const Decision& decision : history) insertRow(db, decision);
        transaction.commit();
    });
}

LiveChanges PostgresStore::changesSince(std::int64_t revision) const {
    return pgGuarded(state_->address, "read the changes since revision " + std::to_string(revision), [&] {
        PgConnection& db = state_->connection;
        // One snapshot for the rows and the highest revision, so that nothing falls between them.
        PgTransaction transaction(db, "ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        LiveChanges changes;
        changes.revision =
            std::max(revision, db.exec("SELECT coalesce(max(revision), 0) FROM decisions").integer(0, 0));
        changes.decisions =
            readAll(db.exec(std::string("SELECT ") + kColumns + " FROM decisions WHERE revision > $1 ORDER BY revision",
                            {PgParam::integer(revision)}),
                    state_->address);
        transaction.commit();
        return changes;
    });
}

}  // namespace linkscope::project
