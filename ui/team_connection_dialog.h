#pragma once
// File > Open Team Project…: the address of a project on a PostgreSQL server, as libpq's
// connection URI, put together from its parts (host, port, database, user, sslmode) or typed
// whole, with the team projects opened before. A password is never asked for nor kept: libpq
// reads it from ~/.pgpass, the file PGPASSFILE names, or a connection service file; an address
// that holds one is refused. The recent addresses are kept in QSettings (team/recentProjects),
// never with a password.
#include <QDialog>
#include <QString>
#include <QStringList>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QSpinBox;

namespace linkscope::ui {

class TeamConnectionDialog : public QDialog {
    Q_OBJECT
public:
    explicit TeamConnectionDialog(QWidget* parent = nullptr);

    /// The address to open (the URI field).
    QString address() const;
    void setAddress(const QString& address);

    /// postgresql://user@host:port/database?sslmode=MODE from its parts; an empty part is left
    /// out (libpq's defaults and PG* variables apply), a host that is a folder (a Unix socket)
    /// goes in the host parameter.
    static QString composeAddress(const QString& host, int port, const QString& database, const QString& user,
                                  const QString& sslMode);
    /// Why an address cannot be opened from here (not a postgresql:// URI, or one holding a
    /// password); empty when it can.
    static QString addressProblem(const QString& address);
    /// The team projects opened before, most recent first.
    static QStringList recentAddresses();
    /// Puts an address first among the recent ones (nothing for one addressProblem refuses).
    static void rememberAddress(const QString& address);

private:
    void composeFromParts();
    void checkAddress();

    QLineEdit* host_;
    QSpinBox* port_;
    QLineEdit* database_;
    QLineEdit* user_;
    QComboBox* sslMode_;
    QLineEdit* address_;
    QLabel* problem_;
    QListWidget* recent_;
    QDialogButtonBox* buttons_;
};

}  // namespace linkscope::ui
