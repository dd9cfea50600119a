#include "project/pg_connection.h"

#include <poll.h>

#include <memory>

#include "util/error.h"

namespace linkscope::project {
namespace {

std::string trimmed(const char* message) {
    std::string text = message == nullptr ? "" : message;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

// Wraps a statement's result; throws PgFailure with the server's message and SQLSTATE unless
// the statement succeeded (or when libpq has no result: the connection is lost or out of memory).
PgResult checked(PGconn* conn, PGresult* raw) {
    PgResult result(raw);
    // A lost connection reads as connection_failure whatever the server managed to say.
    if (PQstatus(conn) == CONNECTION_BAD) throw PgFailure(trimmed(PQerrorMessage(conn)), kConnectionLost);
    if (raw == nullptr) throw PgFailure(trimmed(PQerrorMessage(conn)), "");
    const ExecStatusType status = PQresultStatus(raw);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        const char* state = PQresultErrorField(raw, PG_DIAG_SQLSTATE);
        throw PgFailure(trimmed(PQresultErrorMessage(raw)), state == nullptr ? "" : state);
    }
    return result;
}

}  // namespace

void refusePasswordIn(const std::string& conninfo) {
    char* error = nullptr;
    PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
    const std::unique_ptr<char, decltype(&PQfreemem)> errorText(error, &PQfreemem);
    if (options == nullptr)
        throw Error("the project address is not a valid PostgreSQL connection URI (libpq: " + trimmed(error) + ")");
    const std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> owned(options, &PQconninfoFree);
    for (const PQconninfoOption* option = options; option->keyword != nullptr; ++option)
        if (std::string_view(option->keyword) == "password" && option->val != nullptr && option->val[0] != '\0')
            // The address is not repeated: it holds the password.
            throw Error(
                "the project address holds a password, which Linkscope never takes on its command line nor "
                "stores: give the address without it and put the password in ~/.pgpass (or the file PGPASSFILE "
                "names), or use a connection service file (PGSERVICEFILE, service=...)");
}

PgConnection::PgConnection(const std::string& conninfo) : conn_(PQconnectdb(conninfo.c_str())) {
    if (!conn_) throw PgFailure("libpq could not allocate a connection", "");
    if (PQstatus(conn_.get()) != CONNECTION_OK) throw PgFailure(trimmed(PQerrorMessage(conn_.get())), "");
}

PgConnection::~PgConnection() = default;

PgResult PgConnection::exec(std::string_view sql, const std::vector<PgParam>& params) {
    std::vector<const char*> values;
    std::vector<int> lengths;
    std::vector<int> formats;
    values.reserve(params.size());
    for (const PgParam& param : params) {
        values.push_back(param.null ? nullptr : param.value.data());
        lengths.push_back(static_cast<int>(param.value.size()));
        formats.push_back(param.binary ? 1 : 0);
    }
    const std::string statement(sql);
    return checked(conn_.get(), PQexecParams(conn_.get(), statement.c_str(), static_cast<int>(params.size()), nullptr,
                                             values.data(), lengths.data(), formats.data(), 0));
}

void PgConnection::execScript(std::string_view sql) {
    const std::string script(sql);
    (void)checked(conn_.get(), PQexec(conn_.get(), script.c_str()));
}

bool PgConnection::encrypted() const noexcept { return PQsslInUse(conn_.get()) != 0; }

bool PgConnection::alive() noexcept {
    // Reads what the socket holds without blocking: a server that went away shows as end of file.
    if (PQstatus(conn_.get()) != CONNECTION_OK) return false;
    if (PQconsumeInput(conn_.get()) != 1 || PQstatus(conn_.get()) != CONNECTION_OK) return false;
    // A server that went away may have said so first ("terminating connection"): libpq holds
    // the message unparsed and the status stays OK, but the socket shows the hang-up.
    pollfd watched{PQsocket(conn_.get()), POLLIN | POLLRDHUP, 0};
    const int ready = ::poll(&watched, 1, 0);
    return !(ready == 1 && (watched.revents & (POLLHUP | POLLRDHUP | POLLERR)) != 0);
}

void PgConnection::reset() {
    PQreset(conn_.get());
    if (PQstatus(conn_.get()) != CONNECTION_OK) throw PgFailure(trimmed(PQerrorMessage(conn_.get())), kConnectionLost);
}

int PgConnection::socket() const noexcept { return PQsocket(conn_.get()); }

std::vector<std::string> PgConnection::takeNotifications(std::string_view channel) {
    std::vector<std::string> payloads;
    if (PQconsumeInput(conn_.get()) != 1)
        throw PgFailure(trimmed(PQerrorMessage(conn_.get())),
                        PQstatus(conn_.get()) == CONNECTION_BAD ? kConnectionLost : "");
    while (PGnotify* raw = PQnotifies(conn_.get())) {
        const std::unique_ptr<PGnotify, decltype(&PQfreemem)> notice(raw, &PQfreemem);
        if (channel == notice->relname) payloads.emplace_back(notice->extra == nullptr ? "" : notice->extra);
    }
    return payloads;
}

std::string PgConnection::user() const {
    const char* name = PQuser(conn_.get());
    return name == nullptr ? std::string() : std::string(name);
}

}  // namespace linkscope::project
