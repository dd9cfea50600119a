#pragma once
// A PostgreSQL server of the test's own: `initdb` into a temporary folder, `postgres` listening on
// a Unix socket in that folder only (listen_addresses='', no TCP), trust authentication for the
// superuser "postgres" (nobody else can reach the socket: the folder is 0700). When the test
// runs as root, the server runs as the `postgres` account (PostgreSQL refuses root) through
// runuser, and the folder is handed to that account.
//
// The server is always stopped: by the destructor, and, should the test process die first (a
// crash, SIGKILL), by a watchdog shell that waits for the test's pid to go away and then stops
// the server and removes the folder. Nothing in it depends on a server the test did not start.
//
// No program the fixture starts (initdb, pg_ctl and the server it starts, psql, the watchdog)
// inherits a descriptor of the test beyond standard input, output and error: the server and the
// watchdog outlive the test by a moment, and a copy of a pipe's write end in them would keep a
// reader of that pipe (whoever runs the test, a child's output the test reads) waiting.
//
// Fast by default: fsync=off, which loses nothing unless the machine itself stops. A test of
// durability (a server killed with SIGKILL) starts it with Durability::Full.
#include <QDir>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>

namespace linkscope::test {

class PostgresServer {
public:
    enum class Durability { Fast, Full };

    PostgresServer() = default;
    PostgresServer(const PostgresServer&) = delete;
    PostgresServer& operator=(const PostgresServer&) = delete;
    ~PostgresServer() { stop(); }

    /// The folder of PostgreSQL's server programs (initdb, pg_ctl, pg_isready, createdb); empty
    /// when initdb is not installed. LINKSCOPE_PG_BIN overrides the search.
    static QString binFolder() {
        const QString given = qEnvironmentVariable("LINKSCOPE_PG_BIN");
        if (!given.isEmpty()) return QFileInfo::exists(given + "/initdb") ? given : QString();
        QStringList candidates;
        const QDir versions(QStringLiteral("/usr/lib/postgresql"));
        for (const QString& version :
             versions.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed))
            candidates << versions.filePath(version + "/bin");
        const QString onPath = QStandardPaths::findExecutable(QStringLiteral("initdb"));
        if (!onPath.isEmpty()) candidates << QFileInfo(onPath).canonicalPath();
        for (const QString& folder : candidates)
            if (QFileInfo::exists(folder + "/initdb") && QFileInfo::exists(folder + "/pg_ctl")) return folder;
        return {};
    }

    /// Starts the server; false, with why() saying why, when it cannot (skipReason() is set
    /// instead where PostgreSQL is not installed: the test skips).
    bool start(Durability durability = Durability::Fast) {
        bin_ = binFolder();
        if (bin_.isEmpty()) {
            skipReason_ = QStringLiteral("PostgreSQL's initdb is not installed (apt-get install postgresql)");
            return false;
        }
        asPostgres_ = ::geteuid() == 0;
        dir_ = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/linkscope-pg-XXXXXX"));
        if (!dir_->isValid()) return fail(QStringLiteral("cannot make a temporary folder"));
        if (asPostgres_ && !run(QStringLiteral("chown"), {QStringLiteral("postgres:"), dir_->path()}))
            return fail(QStringLiteral("cannot hand the folder to the postgres account: ") + output_);
        if (!runServerTool(QStringLiteral("initdb"),
                           {QStringLiteral("-D"), dataFolder(), QStringLiteral("-U"), QStringLiteral("postgres"),
                            QStringLiteral("--auth=trust"), QStringLiteral("--no-sync"), QStringLiteral("-E"),
                            QStringLiteral("UTF8"), QStringLiteral("--locale=C")}))
            return fail(QStringLiteral("initdb failed: ") + output_);
        QString options = QStringLiteral("-k %1 -c listen_addresses='' -c max_connections=60").arg(dir_->path());
        if (durability == Durability::Fast)
            options += QStringLiteral(" -c fsync=off -c full_page_writes=off -c synchronous_commit=off");
        options_ = options;
        if (!runServerTool(QStringLiteral("pg_ctl"),
                           {QStringLiteral("-D"), dataFolder(), QStringLiteral("-l"), dir_->filePath("server.log"),
                            QStringLiteral("-o"), options, QStringLiteral("-w"), QStringLiteral("-t"),
                            QStringLiteral("30"), QStringLiteral("start")}))
            return fail(QStringLiteral("pg_ctl start failed: ") + output_ + log());
        running_ = true;
        startWatchdog();
        if (!runServerTool(QStringLiteral("pg_isready"),
                           {QStringLiteral("-h"), dir_->path(), QStringLiteral("-t"), QStringLiteral("20")}))
            return fail(QStringLiteral("the server does not answer: ") + output_ + log());
        return true;
    }

    bool running() const { return running_; }
    const QString& skipReason() const { return skipReason_; }
    const QString& why() const { return why_; }

    /// The socket folder, libpq's host for a Unix socket.
    QString socketFolder() const { return dir_ ? dir_->path() : QString(); }

    /// A new, empty database; its libpq URI (no password: the socket trusts the superuser).
    /// Empty, with why() set, when createdb fails.
    std::string newDatabase() {
        static std::atomic<int> counter{0};
        const QString name = QStringLiteral("linkscope_%1_%2").arg(::getpid()).arg(counter++);
        if (!runServerTool(QStringLiteral("createdb"), {QStringLiteral("-h"), dir_->path(), QStringLiteral("-U"),
                                                        QStringLiteral("postgres"), name})) {
            why_ = QStringLiteral("createdb failed: ") + output_;
            return {};
        }
        return uriOf(name.toStdString());
    }

    std::string uriOf(const std::string& database, const std::string& user = "postgres") const {
        return "postgresql:///" + database + "?host=" + socketFolder().toStdString() + "&user=" + user;
    }

    /// Runs SQL as `user` (the superuser by default) in `database` (psql, unaligned rows without
    /// headers); false, with why() set, when it fails. output() holds what psql printed.
    bool sql(const std::string& database, const QString& statements, const QString& user = QStringLiteral("postgres")) {
        if (!runServerTool(QStringLiteral("psql"),
                           {QStringLiteral("-h"), dir_->path(), QStringLiteral("-U"), user, QStringLiteral("-d"),
                            QString::fromStdString(database), QStringLiteral("-v"), QStringLiteral("ON_ERROR_STOP=1"),
                            QStringLiteral("-At"), QStringLiteral("-c"), statements})) {
            why_ = QStringLiteral("psql failed: ") + output_;
            return false;
        }
        return true;
    }
    const QString& output() const { return output_; }

    /// The database a URI of uriOf() names.
    static std::string databaseOf(const std::string& uri) {
        const std::string prefix = "postgresql:///";
        return uri.substr(prefix.size(), uri.find('?') - prefix.size());
    }

    /// Kills the server and every process of it with SIGKILL (as a power cut or an OOM kill would
    /// end it: nothing is flushed), then starts it again on the same folder; false, with why()
    /// set, when the restart fails. The server recovers from its WAL.
    bool killAndRestart() {
        QFile pidFile(dataFolder() + QStringLiteral("/postmaster.pid"));
        if (!pidFile.open(QIODevice::ReadOnly)) return fail(QStringLiteral("no postmaster.pid"));
        const pid_t pid = static_cast<pid_t>(pidFile.readLine().trimmed().toLongLong());
        pidFile.close();
        if (pid <= 0) return fail(QStringLiteral("postmaster.pid names no process"));
        // pg_ctl starts the server in a session of its own: its process group is the server.
        ::kill(-pid, SIGKILL);
        for (int i = 0; i < 100 && ::kill(pid, 0) == 0; ++i) ::usleep(50000);
        running_ = false;
        if (!runServerTool(QStringLiteral("pg_ctl"),
                           {QStringLiteral("-D"), dataFolder(), QStringLiteral("-l"), dir_->filePath("server.log"),
                            QStringLiteral("-o"), options_, QStringLiteral("-w"), QStringLiteral("-t"),
                            QStringLiteral("30"), QStringLiteral("start")}))
            return fail(QStringLiteral("pg_ctl start after the kill failed: ") + output_ + log());
        running_ = true;
        return true;
    }

    void stop() {
        if (!running_) return;
        running_ = false;
        runServerTool(QStringLiteral("pg_ctl"),
                      {QStringLiteral("-D"), dataFolder(), QStringLiteral("-m"), QStringLiteral("immediate"),
                       QStringLiteral("-w"), QStringLiteral("stop")});
    }

private:
    QString dataFolder() const { return dir_->filePath(QStringLiteral("data")); }

    QString log() const {
        QFile file(dir_->filePath(QStringLiteral("server.log")));
        return file.open(QIODevice::ReadOnly) ? QStringLiteral("\nserver log:\n") + QString::fromUtf8(file.readAll())
                                              : QString();
    }

    bool fail(const QString& why) {
        why_ = why;
        stop();
        return false;
    }

    // What a child runs between fork and exec: every descriptor from 3 up marked close-on-exec
    // (Qt's own descriptors already are, and standard input, output and error are in place by
    // then). Only async-signal-safe calls; the bound of the fallback is taken before the fork.
    static std::function<void()> inheritNoDescriptors(bool newSession = false) {
        rlimit limit{};
        const int bound = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
                              ? static_cast<int>(std::min<rlim_t>(limit.rlim_cur, rlim_t{1} << 20))
                              : 1 << 16;
        return [bound, newSession] {
            if (newSession) ::setsid();
#ifdef CLOSE_RANGE_CLOEXEC
            if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
#endif
            for (int fd = 3; fd < bound; ++fd)
                if (const int flags = ::fcntl(fd, F_GETFD); flags >= 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
        };
    }

    bool run(const QString& program, const QStringList& arguments) {
        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.setStandardInputFile(QProcess::nullDevice());
        process.setChildProcessModifier(inheritNoDescriptors());
        process.start(program, arguments);
        const bool finished = process.waitForFinished(60000);
        output_ = QString::fromUtf8(process.readAll());
        if (!finished) {
            process.kill();
            process.waitForFinished();
            output_ += QStringLiteral(" (timed out)");
            return false;
        }
        return process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
    }

    // A server program, as the postgres account when the test runs as root.
    bool runServerTool(const QString& tool, const QStringList& arguments) {
        const QString program = bin_ + QLatin1Char('/') + tool;
        if (!asPostgres_) return run(program, arguments);
        return run(
            QStringLiteral("runuser"),
            QStringList{QStringLiteral("-u"), QStringLiteral("postgres"), QStringLiteral("--"), program} + arguments);
    }

    // Stops the server and removes its folder once this process is gone, however it ended. The
    // shell runs in a session of its own (a signal to the test's process group leaves it) and
    // puts the watchdog in the background: QProcess::startDetached does not run a child process
    // modifier, so the shell is started and waited for here, and the watchdog outlives it.
    void startWatchdog() {
        const QString stopCommand = (asPostgres_ ? QStringLiteral("runuser -u postgres -- ") : QString()) +
                                    QStringLiteral("'%1/pg_ctl' -D '%2' -m immediate stop").arg(bin_, dataFolder());
        const QString script = QStringLiteral("while kill -0 %1 2>/dev/null; do sleep 0.5; done; %2; rm -rf '%3'")
                                   .arg(::getpid())
                                   .arg(stopCommand, dir_->path());
        QProcess shell;
        shell.setProgram(QStringLiteral("sh"));
        shell.setArguments({QStringLiteral("-c"), QStringLiteral("(%1) &").arg(script)});
        shell.setStandardInputFile(QProcess::nullDevice());
        shell.setStandardOutputFile(QProcess::nullDevice());
        shell.setStandardErrorFile(QProcess::nullDevice());
        shell.setChildProcessModifier(inheritNoDescriptors(true));
        shell.start();
        shell.waitForFinished(10000);
    }

    QString bin_;
    QString options_;  // the server's options, for a restart
    bool asPostgres_ = false;
    std::unique_ptr<QTemporaryDir> dir_;
    bool running_ = false;
    QString output_;
    QString skipReason_;
    QString why_;
};

}  // namespace linkscope::test
