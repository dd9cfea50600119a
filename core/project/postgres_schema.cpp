#include "project/postgres_schema.h"

#include <array>

#include "util/error.h"

namespace linkscope::project::pgschema {
namespace {

// The key of the advisory lock that orders migrations (any constant: "lnks" in ASCII).
constexpr const char* kMigrationLock = "SELECT pg_advisory_xact_lock(1819176563)";

// Migration 1: the tables of a project file's schema version 3, in PostgreSQL's types. Kinds and
// states are stored by name and timestamps as ISO 8601 text, as in the file, so that a copy
// between the two keeps every byte. Paths are stored absolute (a server has no project folder).
// A blob is stored in chunks (blob_chunks) so that a large kNN datastore streams in and out in
// pieces and is not bound by one value's limit.
constexpr const char* kMigration1 = R"sql(
CREATE TABLE meta (
    key   text PRIMARY KEY,
    value text NOT NULL);
CREATE TABLE project (
    id          integer PRIMARY KEY CHECK (id = 1),
    name        text NOT NULL,
    description text NOT NULL);
CREATE TABLE knowledge_base (
    id             integer PRIMARY KEY CHECK (id = 1),
    path           text NOT NULL,
    format         text NOT NULL,
    semantic_types text NOT NULL,
    filters        text NOT NULL DEFAULT '');
CREATE TABLE corpora (
    position  bigint PRIMARY KEY,
    split     text NOT NULL,
    path      text NOT NULL,
    format    text NOT NULL,
    pmid_list text NOT NULL DEFAULT '');
CREATE TABLE runs (
    position  bigserial PRIMARY KEY,
    name      text NOT NULL UNIQUE,
    directory text NOT NULL,
    preset    text NOT NULL,
    added     text NOT NULL);
CREATE TABLE settings (
    key   text PRIMARY KEY,
    value text NOT NULL);
CREATE TABLE blobs (
    name    text PRIMARY KEY CHECK (name <> ''),
    bytes   bigint NOT NULL CHECK (bytes >= 0),
    updated text NOT NULL);
CREATE TABLE blob_chunks (
    name text NOT NULL REFERENCES blobs (name) ON DELETE CASCADE,
    seq  integer NOT NULL CHECK (seq >= 0),
    data bytea NOT NULL,
    PRIMARY KEY (name, seq));
CREATE TABLE decisions (
    id            bigint PRIMARY KEY,
    split         text NOT NULL CHECK (split <> ''),
    document      text NOT NULL CHECK (document <> ''),
    start         bigint NOT NULL CHECK (start >= 0),
    "end"         bigint NOT NULL CHECK ("end" > start),
    mention_text  text NOT NULL,
    kind          text NOT NULL CHECK (kind IN ('accept', 'correct', 'reject', 'nil', 'skip')),
    previous_link text NOT NULL,
    new_link      text NOT NULL,
    curator       text NOT NULL,
    timestamp     text NOT NULL,
    state         text NOT NULL CHECK (state IN ('done', 'undone', 'discarded')),
    checksum      bigint NOT NULL);
CREATE INDEX decisions_by_mention ON decisions (split, document, start, "end");
CREATE INDEX decisions_by_state ON decisions (state, id);
INSERT INTO meta (key, value) VALUES ('format', 'linkscope-project');
)sql";

// Migration 2: curators are database roles. Each decision names the login that recorded it
// (current_user, set by the server, not by the client). Three group roles per database, named
// after it so that a grant in one project gives nothing in another: DB_curator records, undoes
// and redoes only its own decisions (row-level security: the server refuses the rest),
// DB_adjudicator may also change anyone's decision's state, DB_reviewer reads everything and
// writes nothing. The owner of the tables (who created the project) is not bound by the
// policies. Creating the roles needs CREATEROLE (or a superuser) once per database.
constexpr const char* kMigration2 = R"sql(
ALTER TABLE decisions ADD COLUMN login text NOT NULL DEFAULT current_user;
DO $roles$
DECLARE
    db text := current_database();
    kind text;
BEGIN
    FOREACH kind IN ARRAY ARRAY['curator', 'adjudicator', 'reviewer'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = db || '_' || kind) THEN
            EXECUTE format('CREATE ROLE %I NOLOGIN', db || '_' || kind);
        END IF;
        EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', db, db || '_' || kind);
        EXECUTE format('GRANT USAGE ON SCHEMA public TO %I', db || '_' || kind);
        EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA public TO %I', db || '_' || kind);
    END LOOP;
    FOREACH kind IN ARRAY ARRAY['curator', 'adjudicator'] LOOP
        EXECUTE format('GRANT INSERT, UPDATE ON decisions TO %I', db || '_' || kind);
        EXECUTE format('GRANT INSERT, UPDATE, DELETE ON runs, settings, blobs, blob_chunks TO %I', db || '_' || kind);
        EXECUTE format('GRANT USAGE ON SEQUENCE runs_position_seq TO %I', db || '_' || kind);
    END LOOP;
    EXECUTE format('CREATE POLICY everyone_reads ON decisions FOR SELECT TO %I, %I, %I USING (true)',
                   db || '_curator', db || '_adjudicator', db || '_reviewer');
    EXECUTE format('CREATE POLICY own_inserts ON decisions FOR INSERT TO %I, %I WITH CHECK (login = current_user)',
                   db || '_curator', db || '_adjudicator');
    EXECUTE format('CREATE POLICY curator_changes_own ON decisions FOR UPDATE TO %I '
                   'USING (login = current_user) WITH CHECK (login = current_user)', db || '_curator');
    EXECUTE format('CREATE POLICY adjudicator_changes_any ON decisions FOR UPDATE TO %I USING (true) WITH CHECK (true)',
                   db || '_adjudicator');
END
$roles$;
ALTER TABLE decisions ENABLE ROW LEVEL SECURITY;
CREATE INDEX decisions_by_login ON decisions (login, state, id);
)sql";

// Migration 3: live clients. Every committed write of decisions (a decision recorded, undone or
// redone) notifies the channel linkscope_decisions, with the writer's login as payload; the
// server folds the notifications of one transaction into one, delivered at its commit. A client
// that LISTENs reads the decisions again when one arrives (ui/team_live_updates.h), so a
// writer that is not Linkscope (psql, a script) is announced as well.
constexpr const char* kMigration3 = R"sql(
CREATE FUNCTION notify_decisions() RETURNS trigger LANGUAGE plpgsql AS $notify$
BEGIN
    PERFORM pg_notify('linkscope_decisions', current_user);
    RETURN NULL;
END
$notify$;
CREATE TRIGGER decisions_notify AFTER INSERT OR UPDATE ON decisions
    FOR EACH STATEMENT EXECUTE FUNCTION notify_decisions();
)sql";

// Migration 4: a team's work (team_work.h). The mode lives in meta (team_mode, overlap_share,
// overlap_seed), which only the owner writes; in blind mode a curator reads only their own
// decisions. Every change of a decision takes the next revision (one sequence; writers hold
// the decisions lock, so revisions follow commit order). A done decision is refused when the
// link in effect on its mention, as its login reads it, is not the one it says it saw
// (previous_link): SQLSTATE LS409, unless the login is an adjudicator or the tables' owner. The
// id of a new decision is the highest of all rows plus one, read by a function that runs as the
// owner, since a blind curator cannot see the others' rows. Claims hand out the review queue:
// each login writes only its own rows, everyone reads all; a decision makes its login's claim
// on the mention lasting.
constexpr const char* kMigration4 = R"sql(
INSERT INTO meta (key, value) VALUES ('team_mode', 'shared') ON CONFLICT (key) DO NOTHING;
CREATE SEQUENCE decision_revisions;
ALTER TABLE decisions ADD COLUMN revision bigint;
UPDATE decisions SET revision = id;
SELECT setval('decision_revisions', coalesce((SELECT max(id) FROM decisions), 0) + 1, false);
ALTER TABLE decisions ALTER COLUMN revision SET NOT NULL;
CREATE INDEX decisions_by_revision ON decisions (revision);
CREATE TABLE claims (
    split    text NOT NULL,
    document text NOT NULL,
    start    bigint NOT NULL,
    "end"    bigint NOT NULL,
    login    text NOT NULL DEFAULT current_user,
    expires  timestamptz NOT NULL,
    PRIMARY KEY (split, document, start, "end", login));
CREATE FUNCTION linkscope_blind() RETURNS boolean LANGUAGE sql STABLE AS
    $f$ SELECT coalesce((SELECT value = 'blind' FROM meta WHERE key = 'team_mode'), false) $f$;
CREATE FUNCTION linkscope_last_decision_id() RETURNS bigint LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public AS $f$ SELECT coalesce(max(id), 0) FROM decisions $f$;
CREATE FUNCTION linkscope_decision_written() RETURNS trigger LANGUAGE plpgsql AS $f$
DECLARE
    latest record;
    seen text;
BEGIN
    NEW.revision := nextval('decision_revisions');
    -- A row in another login's name is row-level security's to refuse, after this trigger.
    IF TG_OP <> 'INSERT' OR NEW.state <> 'done' OR NEW.login IS DISTINCT FROM current_user THEN
        RETURN NEW;
    END IF;
    IF pg_has_role(current_user, current_database() || '_adjudicator', 'MEMBER')
       OR pg_has_role(current_user, (SELECT tableowner FROM pg_tables WHERE schemaname = 'public'
                                     AND tablename = 'decisions'), 'MEMBER') THEN
        RETURN NEW;
    END IF;
    SELECT d.id, d.login, d.curator, d.kind, d.new_link, d.timestamp INTO latest FROM decisions d
     WHERE d.split = NEW.split AND d.document = NEW.document AND d.start = NEW.start AND d."end" = NEW."end"
       AND d.state = 'done' AND d.kind <> 'skip'
     ORDER BY d.id DESC LIMIT 1;
    IF FOUND THEN
        seen := CASE latest.kind WHEN 'reject' THEN '' ELSE latest.new_link END;
        IF seen <> NEW.previous_link THEN
            RAISE EXCEPTION USING ERRCODE = 'LS409',
                MESSAGE = format('the decision was made seeing the link %L, but %s (login %s) decided %L on this '
                                 'mention in between (decision %s, %s)',
                                 NEW.previous_link, latest.curator, latest.login, seen, latest.id, latest.timestamp);
        END IF;
    END IF;
    INSERT INTO claims (split, document, start, "end", login, expires)
         VALUES (NEW.split, NEW.document, NEW.start, NEW."end", current_user, 'infinity')
    ON CONFLICT (split, document, start, "end", login) DO UPDATE SET expires = 'infinity';
    RETURN NEW;
END
$f$;
CREATE TRIGGER decision_written BEFORE INSERT OR UPDATE ON decisions
    FOR EACH ROW EXECUTE FUNCTION linkscope_decision_written();
DO $roles$
DECLARE
    db text := current_database();
BEGIN
    EXECUTE 'DROP POLICY everyone_reads ON decisions';
    EXECUTE format('CREATE POLICY curator_reads ON decisions FOR SELECT TO %I '
                   'USING (login = current_user OR NOT linkscope_blind())', db || '_curator');
    EXECUTE format('CREATE POLICY others_read ON decisions FOR SELECT TO %I, %I USING (true)',
                   db || '_adjudicator', db || '_reviewer');
    EXECUTE format('GRANT SELECT ON claims TO %I, %I, %I', db || '_curator', db || '_adjudicator', db || '_reviewer');
    EXECUTE format('GRANT INSERT, UPDATE, DELETE ON claims TO %I, %I', db || '_curator', db || '_adjudicator');
    EXECUTE format('GRANT USAGE ON SEQUENCE decision_revisions TO %I, %I', db || '_curator', db || '_adjudicator');
    EXECUTE format('CREATE POLICY everyone_reads_claims ON claims FOR SELECT TO %I, %I, %I USING (true)',
                   db || '_curator', db || '_adjudicator', db || '_reviewer');
    EXECUTE format('CREATE POLICY own_claims ON claims FOR ALL TO %I, %I '
                   'USING (login = current_user) WITH CHECK (login = current_user)',
                   db || '_curator', db || '_adjudicator');
END
$roles$;
ALTER TABLE claims ENABLE ROW LEVEL SECURITY;
)sql";

// Migration 5: only an adjudicator records an adjudication. An adjudication is a decision whose
// curator name ends in " (adjudicator)" (curation/adjudication.h); a login that is neither a
// member of DB_adjudicator nor the tables' owner (a superuser is both) may not write such a
// name, as a new decision or by changing a decision's curator. The refusal is
// insufficient_privilege, the SQLSTATE of the server's other refusals by role, so a client
// reports it as one. The trigger's name sorts before decision_written, so a refused row takes no
// revision.
constexpr const char* kMigration5 = R"sql(
CREATE FUNCTION linkscope_adjudication_written() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    IF right(NEW.curator, length(' (adjudicator)')) <> ' (adjudicator)' THEN
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.curator = OLD.curator THEN
        RETURN NEW;
    END IF;
    IF pg_has_role(current_user, current_database() || '_adjudicator', 'MEMBER')
       OR pg_has_role(current_user, (SELECT tableowner FROM pg_tables WHERE schemaname = 'public'
                                     AND tablename = 'decisions'), 'MEMBER') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
        MESSAGE = format('only an adjudicator records an adjudication, and the login %s is not one '
                         '(the curator %L marks an adjudication)', current_user, NEW.curator);
END
$f$;
CREATE TRIGGER adjudication_written BEFORE INSERT OR UPDATE OF curator ON decisions
    FOR EACH ROW EXECUTE FUNCTION linkscope_adjudication_written();
)sql";

// Migration 6: a decision, once recorded, is history. Undo and redo change its state (and the
// checksum, which covers the state; the revision is the server's), nothing else: a login that is
// not the tables' owner (a superuser is one) may not change any other column of a decision, nor
// move its state other than undo (done to undone), redo (undone to done) or a cut redo stack
// (undone to discarded). Row-level security alone lets a curator rewrite their own rows; this
// trigger refuses it with insufficient_privilege, as migration 5 does, so a client reports it as a
// refusal by role. Its name sorts after adjudication_written (whose refusal of a renamed
// adjudication stays the one reported) and before decision_written, so a refused row takes no
// revision and the revision that trigger sets is not seen here as a change.
constexpr const char* kMigration6 = R"sql(
CREATE FUNCTION linkscope_decision_kept() RETURNS trigger LANGUAGE plpgsql AS $f$
DECLARE
    changed text;
BEGIN
    IF pg_has_role(current_user, (SELECT tableowner FROM pg_tables WHERE schemaname = 'public'
                                  AND tablename = 'decisions'), 'MEMBER') THEN
        RETURN NEW;
    END IF;
    SELECT string_agg(n.key, ', ' ORDER BY n.key) INTO changed FROM jsonb_each(to_jsonb(NEW)) n
     WHERE n.key NOT IN ('state', 'checksum') AND n.value IS DISTINCT FROM to_jsonb(OLD) -> n.key;
    IF changed IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
            MESSAGE = format('a recorded decision is kept as it was: the login %s may undo or redo decision %s, '
                             'not change its %s', current_user, OLD.id, changed);
    END IF;
    IF NEW.state <> OLD.state AND (OLD.state, NEW.state) NOT IN
           (('done', 'undone'), ('undone', 'done'), ('undone', 'discarded')) THEN
        RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
            MESSAGE = format('a recorded decision is kept as it was: the login %s may undo or redo decision %s, '
                             'not move it from %s to %s', current_user, OLD.id, OLD.state, NEW.state);
    END IF;
    RETURN NEW;
END
$f$;
CREATE TRIGGER decision_kept BEFORE UPDATE ON decisions
    FOR EACH ROW EXECUTE FUNCTION linkscope_decision_kept();
)sql";

constexpr std::array<const char*, 6> kMigrations{kMigration1, kMigration2, kMigration3,
                                                 kMigration4, kMigration5, kMigration6};

bool hasTable(PgConnection& connection, const char* table) {
    return connection.exec("SELECT to_regclass($1) IS NOT NULL", {PgParam::text(table)}).text(0, 0) == "t";
}

}  // namespace

int latestVersion() noexcept { return static_cast<int>(kMigrations.size()); }

int version(PgConnection& connection) {
    if (!hasTable(connection, "schema_version")) return 0;
    return static_cast<int>(connection.exec("SELECT coalesce(max(version), 0) FROM schema_version").integer(0, 0));
}

bool mayMigrate(PgConnection& connection) {
    return connection.exec("SELECT has_schema_privilege(current_schema(), 'CREATE')").text(0, 0) == "t";
}

bool holdsProject(PgConnection& connection) {
    if (!hasTable(connection, "meta")) return false;
    const PgResult format = connection.exec("SELECT value FROM meta WHERE key = 'format'");
    return format.rows() == 1 && format.text(0, 0) == kFormatName;
}

int migrate(PgConnection& connection, const std::string& address) {
    connection.execScript(kMigrationLock);
    connection.execScript(
        "CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, applied text NOT NULL DEFAULT "
        "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'))");
    const int current = version(connection);
    if (current > latestVersion())
        throw Error(address + ": schema version " + std::to_string(current) + " is newer than this Linkscope (" +
                    std::to_string(latestVersion()) + "): open it with a newer Linkscope");
    for (int next = current + 1; next <= latestVersion(); ++next) {
        connection.execScript(kMigrations[static_cast<std::size_t>(next - 1)]);
        connection.exec("INSERT INTO schema_version (version) VALUES ($1)", {PgParam::integer(next)});
    }
    return latestVersion();
}

}  // namespace linkscope::project::pgschema
