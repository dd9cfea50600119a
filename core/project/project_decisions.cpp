// ProjectStore: curation decisions and their undo history. Undo and redo change a stored
// decision's state and never delete it, so the history survives a restart and reads as a log.
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <exception>
#include <functional>
#include <limits>
#include <string_view>

#include "project/decision_checksum.h"
#include "project/project_schema.h"
#include "project/project_store.h"
#include "project/project_store_state.h"

namespace linkscope::project {
namespace {

constexpr const char* kColumns =
    "id, split, document, start, \"end\", mention_text, kind, previous_link, new_link, curator, timestamp, state";
constexpr const char* kColumnsWithChecksum =
    "id, split, document, start, \"end\", mention_text, kind, previous_link, new_link, curator, timestamp, state, "
    "checksum";

constexpr auto kMaxOffset = static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max());

// Ids and links end up as fields of PubTator, BioC and brat lines: a tab or a line break in one
// would split a line of the export (or a decision log) into fields or lines it does not have.
bool hasLineBreakOrTab(std::string_view text) { return text.find_first_of("\t\r\n") != std::string_view::npos; }

std::string describe(const MentionKey& mention) {
    return mention.split + "/" + mention.document + " [" + std::to_string(mention.start) + ", " +
           std::to_string(mention.end) + ")";
}

// Throws Error saying what is wrong with a decision before anything is written; fills in the
// nil link ("-1", the CUI-less id) when it was left empty.
void validate(Decision& decision, const std::filesystem::path& file) {
    const auto refuse = [&](const std::string& why) {
        return Error(file.string() + ": cannot record the decision on " + describe(decision.mention) + ": " + why);
    };
    const MentionKey& mention = decision.mention;
    if (mention.split.empty()) throw refuse("the split is empty");
    if (mention.document.empty()) throw refuse("the document is empty");
    if (mention.end <= mention.start) throw refuse("the mention ends before it starts (end <= start)");
    if (mention.end > kMaxOffset) throw refuse("the offsets are out of range");
    if (hasLineBreakOrTab(mention.document)) throw refuse("the document id holds a tab or a line break");
    if (hasLineBreakOrTab(decision.newLink)) throw refuse("the new link holds a tab or a line break");
    if (hasLineBreakOrTab(decision.previousLink)) throw refuse("the previous link holds a tab or a line break");
    const std::string kind(decisionKindName(decision.kind));
    switch (decision.kind) {
        case DecisionKind::Accept:
        case DecisionKind::Correct:
            if (decision.newLink.empty()) throw refuse("an " + kind + " decision needs the new link");
            break;
        case DecisionKind::Nil:
            if (decision.newLink.empty()) decision.newLink = "-1";
            if (decision.newLink != "-1")
                throw refuse("a nil decision links to \"-1\", not to \"" + decision.newLink + "\"");
            break;
        case DecisionKind::Reject:
        case DecisionKind::Skip:
            // The header's contract: reject and skip give no link; one given is a caller's mix-up.
            if (!decision.newLink.empty())
                throw refuse("a " + kind + " decision gives no new link, but \"" + decision.newLink + "\" was given");
            break;
        default:
            throw refuse("unknown decision kind " + std::to_string(static_cast<int>(decision.kind)));
    }
}

// One row of a SELECT of kColumns. The CHECK constraints keep kinds and states valid; a file
// edited by hand without them still gets an error, not a wrong enum.
Decision readDecision(const SQLite::Statement& row, const std::filesystem::path& file, bool withChecksum) {
    Decision decision;
    decision.id = row.getColumn(0).getInt64();
    const auto damaged = [&](const std::string& why) {
        return ParseError(file.string(), 0, "damaged project: decision " + std::to_string(decision.id) + " " + why);
    };
    decision.mention.split = row.getColumn(1).getString();
    if (const auto problem = splitNameProblem(decision.mention.split)) throw damaged("names a bad split: " + *problem);
    decision.mention.document = row.getColumn(2).getString();
    if (hasLineBreakOrTab(decision.mention.document)) throw damaged("has a document id with a tab or a line break");
    // SQLite keeps a REAL or TEXT in an INTEGER column (type affinity, no STRICT tables before
    // 3.37): 90.5 would pass the CHECKs and be read as 90 by getInt64().
    if (!row.getColumn(3).isInteger() || !row.getColumn(4).isInteger())
        throw damaged("has offsets that are not whole numbers (\"" + row.getColumn(3).getString() + "\", \"" +
                      row.getColumn(4).getString() + "\")");
    const std::int64_t start = row.getColumn(3).getInt64();
    const std::int64_t end = row.getColumn(4).getInt64();
    if (start < 0 || end <= start)
        throw damaged("has the offsets " + std::to_string(start) + "-" + std::to_string(end));
    decision.mention.start = static_cast<std::size_t>(start);
    decision.mention.end = static_cast<std::size_t>(end);
    decision.mentionText = row.getColumn(5).getString();
    const std::string kind = row.getColumn(6).getString();
    const auto parsedKind = parseDecisionKind(kind);
    if (!parsedKind) throw damaged("has the unknown kind \"" + kind + "\"");
    decision.kind = *parsedKind;
    decision.previousLink = row.getColumn(7).getString();
    decision.newLink = row.getColumn(8).getString();
    if (hasLineBreakOrTab(decision.previousLink) || hasLineBreakOrTab(decision.newLink))
        throw damaged("has a link with a tab or a line break");
    decision.curator = row.getColumn(9).getString();
    decision.timestamp = row.getColumn(10).getString();
    const std::string state = row.getColumn(11).getString();
    const auto parsedState = parseDecisionState(state);
    if (!parsedState) throw damaged("has the unknown state \"" + state + "\"");
    decision.state = *parsedState;
    if (withChecksum) {
        // Last, so that a field that cannot be read at all is named as such.
        const SQLite::Column stored = row.getColumn(12);
        const std::string where = "decision " + std::to_string(decision.id) + " (" + describe(decision.mention) + ")";
        if (stored.isNull() || !stored.isInteger())
            throw ParseError(file.string(), 0, "damaged project: " + where + " has no checksum");
        if (const std::int64_t expected = decisionChecksum(decision); stored.getInt64() != expected)
            throw ParseError(file.string(), 0,
                             "damaged project: " + where + " does not match its checksum (stored " +
                                 std::to_string(stored.getInt64()) + ", its fields give " + std::to_string(expected) +
                                 "): a byte of the row changed on disk; restore the file from a copy");
    }
    return decision;
}

// The connection as the helpers below use it (ProjectStore::State is the store's own).
struct Rows {
    SQLite::Database& db;
    const std::filesystem::path& file;
    int& version;  // ProjectStore::State::version
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

bool anyIn(SQLite::Database& db, DecisionState state) {
    SQLite::Statement query(db, "SELECT EXISTS (SELECT 1 FROM decisions WHERE state = ?)");
    query.bind(1, std::string(decisionStateName(state)));
    query.executeStep();
    return query.getColumn(0).getInt() != 0;
}

}  // namespace

Decision ProjectStore::record(Decision decision) {
    validate(decision, state_->file);
    if (decision.timestamp.empty()) decision.timestamp = utcTimestamp();
    std::vector<Decision> one{std::move(decision)};
    guarded(state_->file, "record the decision on " + describe(one.front().mention), [&] {
        insertAll(Rows{state_->db, state_->file, state_->version}, one, {});
    });
    return std::move(one.front());
}

std::vector<Decision> ProjectStore::recordAll(std::vector<Decision> decisions,
                                              const std::function<void(std::size_t)>& beforeEach) {
    const std::string now = utcTimestamp();
    for (Decision& decision : decisions) {
        validate(decision, state_->file);
        if (decision.timestamp.empty()) decision.timestamp = now;
    }
    guarded(state_->file, "record " + std::to_string(decisions.size()) + " decisions", [&] {
        insertAll(Rows{state_->db, state_->file, state_->version}, decisions, beforeEach);
    });
    return decisions;
}

std::optional<Decision> ProjectStore::undo() {
    return guarded(state_->file, "undo the latest decision", [&] {
        return transition(Rows{state_->db, state_->file, state_->version}, DecisionState::Done, DecisionState::Undone,
                          "DESC");
    });
}

std::optional<Decision> ProjectStore::redo() {
    return guarded(state_->file, "redo the undone decision", [&] {
        return transition(Rows{state_->db, state_->file, state_->version}, DecisionState::Undone, DecisionState::Done,
                          "ASC");
    });
}

bool ProjectStore::canUndo() const {
    return guarded(state_->file, "read the decisions", [&] { return anyIn(state_->db, DecisionState::Done); });
}

bool ProjectStore::canRedo() const {
    return guarded(state_->file, "read the decisions", [&] { return anyIn(state_->db, DecisionState::Undone); });
}

std::vector<Decision> ProjectStore::decisions() const {
    return guarded(state_->file, "read the decisions", [&] {
        return selectDecisions(Rows{state_->db, state_->file, state_->version}, "");
    });
}

std::vector<Decision> ProjectStore::doneDecisions() const {
    return guarded(state_->file, "read the decisions", [&] {
        return selectDecisions(Rows{state_->db, state_->file, state_->version}, "WHERE state = 'done'");
    });
}

std::optional<Decision> ProjectStore::currentDecision(const MentionKey& mention) const {
    if (mention.start > kMaxOffset || mention.end > kMaxOffset) return std::nullopt;  // never stored
    return guarded(state_->file, "read the decisions on " + describe(mention), [&]() -> std::optional<Decision> {
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

std::size_t ProjectStore::decisionCount() const {
    return guarded(state_->file, "count the decisions", [&] {
        SQLite::Statement query(state_->db, "SELECT count(*) FROM decisions");
        query.executeStep();
        return static_cast<std::size_t>(query.getColumn(0).getInt64());
    });
}

}  // namespace linkscope::project
