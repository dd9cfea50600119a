#include "team_project_open.h"

#include <QCoreApplication>
#include <QUrl>
#include <QUrlQuery>

#include <cstdlib>

#include "background_job.h"
#include "project/project_store.h"
#include "util/error.h"

namespace linkscope::ui {

std::string withConnectTimeout(const std::string& address) {
    const QString given = QString::fromStdString(address);
    const QUrlQuery query(QUrl(given).query());
    const char* fromEnvironment = std::getenv("PGCONNECT_TIMEOUT");
    if (query.hasQueryItem(QStringLiteral("connect_timeout")) || query.hasQueryItem(QStringLiteral("service")) ||
        (fromEnvironment != nullptr && fromEnvironment[0] != '\0'))
        return address;
    const char separator = given.contains(QLatin1Char('?')) ? '&' : '?';
    return address + separator + "connect_timeout=" + std::to_string(kDefaultConnectTimeoutSeconds);
}

QString serverOf(const QString& address) {
    const QUrl url(address);
    QString host = url.host();
    const QUrlQuery query(url.query());
    if (host.isEmpty()) host = query.queryItemValue(QStringLiteral("host"), QUrl::FullyDecoded);
    if (host.isEmpty() && query.hasQueryItem(QStringLiteral("service")))
        return QCoreApplication::translate("TeamProjectOpen", "the service %1")
            .arg(query.queryItemValue(QStringLiteral("service")));
    if (host.isEmpty()) return QCoreApplication::translate("TeamProjectOpen", "the server on this computer");
    if (host.startsWith(QLatin1Char('/')))
        return QCoreApplication::translate("TeamProjectOpen", "the server's socket in %1").arg(host);
    return url.port() > 0 ? QStringLiteral("%1:%2").arg(host).arg(url.port()) : host;
}

OpenedTeamStore connectToTeamProject(const std::string& address, const JobContext& context) {
    const QString server = serverOf(QString::fromStdString(address));
    // Above 0: Qt passes on a progress text only with a value above the last one.
    context.reportProgress(1, QCoreApplication::translate("TeamProjectOpen", "Connecting to %1…").arg(server));
    OpenedTeamStore opened;
    try {
        opened.store =
            std::make_unique<project::ProjectStore>(project::ProjectStore::open(withConnectTimeout(address)));
    } catch (const std::exception& error) {
        // libpq's own words, without the store's frame around them (the address and the action).
        QString reason = QString::fromUtf8(error.what());
        const QString frame = QStringLiteral("(PostgreSQL: ");
        if (const qsizetype at = reason.indexOf(frame); at >= 0 && reason.endsWith(QLatin1Char(')')))
            reason = reason.mid(at + frame.size()).chopped(1);
        throw Error(QCoreApplication::translate("TeamProjectOpen", "Could not connect to %1: %2")
                        .arg(server, reason)
                        .toStdString());
    }
    context.checkCancelled();
    return opened;
}

void readTeamHistory(OpenedTeamStore& opened) { opened.history = opened.store->decisions(); }

}  // namespace linkscope::ui
