#pragma once
// Opening a project on a server off the GUI thread. A connection to a remote or unreachable
// server can take as long as libpq's connect_timeout (or, without one, the system's TCP timeout),
// and reading every decision of a large project takes a while too: both run on the project
// loader's worker (project_loader.h), and the window takes the connected store and the history
// read there (DecisionLog::open) without a statement of its own on the GUI thread.
#include <QString>

#include <memory>
#include <string>
#include <vector>

#include "project/curation_decision.h"
#include "project/project_store.h"

namespace linkscope::ui {

class JobContext;

/// A project on a server, connected, with its decisions as read right after.
struct OpenedTeamStore {
    std::unique_ptr<project::ProjectStore> store;
    std::vector<project::Decision> history;  ///< every decision, whatever its state, in id order
};

/// The seconds a connection attempt may take when the address names no connect_timeout (nor a
/// connection service, nor the PGCONNECT_TIMEOUT variable, which libpq reads itself).
inline constexpr int kDefaultConnectTimeoutSeconds = 10;

/// The address as it is when it bounds the connection attempt already (connect_timeout in it, a
/// service, PGCONNECT_TIMEOUT set); else with connect_timeout=kDefaultConnectTimeoutSeconds.
std::string withConnectTimeout(const std::string& address);

/// The server an address names, for the user ("db.example.org", "the socket in /run/pg", "this
/// computer").
QString serverOf(const QString& address);

/// On a worker: connects to the server (its progress text says to whom), then reads the history
/// of decisions. Throws Error with libpq's own words when the server cannot be reached or the
/// project cannot be read.
OpenedTeamStore connectToTeamProject(const std::string& address, const JobContext& context);

/// Reads the decisions again into `opened` (after the project's corpora were loaded, so that the
/// window starts from the latest ones).
void readTeamHistory(OpenedTeamStore& opened);

}  // namespace linkscope::ui
