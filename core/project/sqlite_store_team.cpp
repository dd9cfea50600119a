// SqliteStore: the team mode of a project file, kept in its meta table (keys team_mode,
// overlap_share, overlap_seed; absent: shared), so that a copy to a server and back keeps it.
// A file's other team methods are StoreBackend's refusals: a file has no team.
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <cstdio>
#include <stdexcept>

#include "project/sqlite_store.h"
#include "project/sqlite_store_state.h"

namespace linkscope::project {

TeamModeSettings SqliteStore::teamMode() const {
    return guarded(state_->file, "read the project's mode", [&] {
        TeamModeSettings settings;
        SQLite::Statement query(state_->db,
                                "SELECT key, value FROM meta WHERE key IN ('team_mode', 'overlap_share', "
                                "'overlap_seed')");
        while (query.executeStep()) {
            const std::string key = query.getColumn(0).getString();
            const std::string value = query.getColumn(1).getString();
            try {
                if (key == "team_mode") {
                    const auto mode = parseTeamMode(value);
                    if (!mode) throw std::invalid_argument(value);
                    settings.mode = *mode;
                } else if (key == "overlap_share") {
                    settings.overlapShare = std::stod(value);
                } else {
                    settings.overlapSeed = std::stoull(value);
                }
            } catch (const std::logic_error&) {
                throw ParseError(state_->file.string(), 0,
                                 "damaged project: the meta value " + key + " is \"" + value + "\"");
            }
        }
        return settings;
    });
}

void SqliteStore::setTeamMode(const TeamModeSettings& settings) {
    guarded(state_->file, "set the project's mode", [&] {
        char share[32];
        std::snprintf(share, sizeof share, "%.17g", settings.overlapShare);
        SQLite::Transaction transaction(state_->db);
        const std::pair<const char*, std::string> values[] = {{"team_mode", std::string(teamModeName(settings.mode))},
                                                              {"overlap_share", share},
                                                              {"overlap_seed", std::to_string(settings.overlapSeed)}};
        for (const auto& [key, value] : values) {
            SQLite::Statement write(state_->db, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
            write.bind(1, key);
            write.bind(2, value);
            write.exec();
        }
        transaction.commit();
    });
}

}  // namespace linkscope::project
