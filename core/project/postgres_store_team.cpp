// PostgresStore: a team's work (team_work.h): the project's mode, claims on mentions, and the
// connection's state (alive, reconnect, notifications of changes). The changes since a revision
// are read in postgres_store_decisions.cpp, with the other reads of decisions.
#include <cstdio>

#include "project/decision_rows.h"
#include "project/pg_transaction.h"
#include "project/postgres_store.h"
#include "project/postgres_store_state.h"

namespace linkscope::project {
namespace {

constexpr const char* kOrderClaims = "LOCK TABLE claims IN SHARE ROW EXCLUSIVE MODE";

std::vector<PgParam> mentionParams(const MentionKey& mention) {
    return {PgParam::text(mention.split), PgParam::text(mention.document),
            PgParam::integer(static_cast<std::int64_t>(mention.start)),
            PgParam::integer(static_cast<std::int64_t>(mention.end))};
}

std::string shareText(double share) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", share);
    return text;
}

// The session's settings, for a new connection and after a reconnect.
void prepareSession(PgConnection& db, bool listening) {
    // A decision shown as saved must be on the server's disk, whatever the server's default.
    db.execScript("SET synchronous_commit = on");
    if (listening) db.execScript(std::string("LISTEN ") + kChangeChannel);
}

}  // namespace

std::optional<TeamRole> PostgresStore::teamRole() const {
    return pgGuarded(state_->address, "read this login's role in the project", [&]() -> std::optional<TeamRole> {
        // The owner of the tables and a superuser are not bound by the policies: no team role.
        const PgResult rows = state_->connection.exec(
            "SELECT CASE WHEN (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) "
            "OR pg_get_userbyid((SELECT relowner FROM pg_class WHERE oid = 'decisions'::regclass)) = current_user "
            "THEN '' "
            "WHEN pg_has_role(current_user, current_database() || '_adjudicator', 'USAGE') THEN 'adjudicator' "
            "WHEN pg_has_role(current_user, current_database() || '_curator', 'USAGE') THEN 'curator' "
            "WHEN pg_has_role(current_user, current_database() || '_reviewer', 'USAGE') THEN 'reviewer' "
            "ELSE '' END");
        return parseTeamRole(rows.text(0, 0));
    });
}

TeamModeSettings PostgresStore::teamMode() const {
    return pgGuarded(state_->address, "read the project's mode", [&] {
        TeamModeSettings settings;
        const PgResult rows = state_->connection.exec(
            "SELECT key, value FROM meta WHERE key IN ('team_mode', 'overlap_share', 'overlap_seed')");
        for (int row = 0; row < rows.rows(); ++row) {
            const std::string key = rows.text(row, 0);
            const std::string value = rows.text(row, 1);
            try {
                if (key == "team_mode") {
                    const auto mode = parseTeamMode(value);
                    if (!mode) throw std::runtime_error("unknown mode \"" + value + "\"");
                    settings.mode = *mode;
                } else if (key == "overlap_share") {
                    settings.overlapShare = std::stod(value);
                } else {
                    settings.overlapSeed = std::stoull(value);
                }
            } catch (const std::logic_error&) {
                throw std::runtime_error("the meta value " + key + " is \"" + value + "\"");
            }
        }
        return settings;
    });
}

void PostgresStore::setTeamMode(const TeamModeSettings& settings) {
    pgGuarded(state_->address, "set the project's mode to " + std::string(teamModeName(settings.mode)), [&] {
        PgConnection& db = state_->connection;
        PgTransaction transaction(db);
        const std::pair<const char*, std::string> values[] = {{"team_mode", std::string(teamModeName(settings.mode))},
                                                              {"overlap_share", shareText(settings.overlapShare)},
                                                              {"overlap_seed", std::to_string(settings.overlapSeed)}};
        for (const auto& [key, value] : values)
            db.exec(
                "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = "
                "excluded.value",
                {PgParam::text(key), PgParam::text(value)});
        transaction.commit();
    });
}

std::vector<MentionKey> PostgresStore::claimNext(std::span<const MentionKey> byGain, std::size_t count,
                                                 std::chrono::seconds timeToLive) {
    const TeamModeSettings settings = teamMode();
    return pgGuarded(state_->address, "claim mentions to review", [&] {
        PgConnection& db = state_->connection;
        std::vector<MentionKey> claimed;
        PgTransaction transaction(db);
        db.execScript(kOrderClaims);  // one claimer at a time: two never take one mention's last place
        for (const MentionKey& mention : byGain) {
            if (claimed.size() >= count) break;
            if (mention.start > kMaxStoredOffset || mention.end > kMaxStoredOffset) continue;
            const PgResult held = db.exec(
                "SELECT count(*) FILTER (WHERE login <> current_user), bool_or(login = current_user), "
                "bool_or(login = current_user AND expires = 'infinity') FROM claims "
                "WHERE split = $1 AND document = $2 AND start = $3 AND \"end\" = $4 AND expires > now()",
                mentionParams(mention));
            if (held.text(0, 2) == "t") continue;  // decided by this login already
            const bool mine = held.text(0, 1) == "t";
            if (!mine && held.integer(0, 0) >= claimCapacity(settings, mention.document)) continue;
            std::vector<PgParam> params = mentionParams(mention);
            params.push_back(PgParam::integer(timeToLive.count()));
            db.exec(
                "INSERT INTO claims (split, document, start, \"end\", expires) VALUES ($1, $2, $3, $4, now() + "
                "make_interval(secs => $5)) ON CONFLICT (split, document, start, \"end\", login) DO UPDATE SET "
                "expires = excluded.expires",
                params);
            claimed.push_back(mention);
        }
        transaction.commit();
        return claimed;
    });
}

std::size_t PostgresStore::renewClaims(std::chrono::seconds timeToLive) {
    return pgGuarded(state_->address, "renew the claims", [&] {
        // A claim that expired may have been taken by another curator since: it is not renewed.
        return state_->connection
            .exec(
                "UPDATE claims SET expires = now() + make_interval(secs => $1) WHERE login = current_user AND "
                "expires > now() AND expires <> 'infinity'",
                {PgParam::integer(timeToLive.count())})
            .affected();
    });
}

bool PostgresStore::releaseClaim(const MentionKey& mention) {
    if (mention.start > kMaxStoredOffset || mention.end > kMaxStoredOffset) return false;
    return pgGuarded(state_->address, "release the claim on " + describeMention(mention), [&] {
        return state_->connection
                   .exec(
                       "DELETE FROM claims WHERE split = $1 AND document = $2 AND start = $3 AND \"end\" = $4 AND "
                       "login = current_user AND expires <> 'infinity'",
                       mentionParams(mention))
                   .affected() > 0;
    });
}

std::vector<Claim> PostgresStore::claims() const {
    return pgGuarded(state_->address, "read the claims", [&] {
        std::vector<Claim> claims;
        const PgResult rows = state_->connection.exec(
            "SELECT split, document, start, \"end\", login, CASE WHEN expires = 'infinity' THEN 'infinity' ELSE "
            "to_char(expires AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') END FROM claims "
            "WHERE expires > now() ORDER BY split, document, start, \"end\", login");
        for (int row = 0; row < rows.rows(); ++row) {
            Claim claim;
            claim.mention = {rows.text(row, 0), rows.text(row, 1), static_cast<std::size_t>(rows.integer(row, 2)),
                             static_cast<std::size_t>(rows.integer(row, 3))};
            claim.login = rows.text(row, 4);
            claim.expires = rows.text(row, 5);
            claims.push_back(std::move(claim));
        }
        return claims;
    });
}

bool PostgresStore::connected() const { return state_->connection.alive(); }

void PostgresStore::reconnect() {
    pgGuarded(state_->address, "reconnect to the server", [&] {
        state_->connection.reset();
        prepareSession(state_->connection, state_->listening);
    });
}

void PostgresStore::listenForChanges() {
    pgGuarded(state_->address, "listen for the team's changes", [&] {
        state_->connection.execScript(std::string("LISTEN ") + kChangeChannel);
        state_->listening = true;
    });
}

int PostgresStore::changeSocket() const { return state_->connection.socket(); }

bool PostgresStore::takeChangeNotifications() {
    return pgGuarded(state_->address, "read the server's notifications",
                     [&] { return !state_->connection.takeNotifications(kChangeChannel).empty(); });
}

}  // namespace linkscope::project
