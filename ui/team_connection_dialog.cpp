#include "team_connection_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QUrl>
#include <QUrlQuery>
#include <QVBoxLayout>

namespace linkscope::ui {
namespace {

const QString kRecentKey = QStringLiteral("team/recentProjects");
constexpr int kRecentKept = 8;

QString encoded(const QString& part) { return QString::fromLatin1(QUrl::toPercentEncoding(part)); }

}  // namespace

TeamConnectionDialog::TeamConnectionDialog(QWidget* parent)
    : QDialog(parent),
      host_(new QLineEdit(this)),
      port_(new QSpinBox(this)),
      database_(new QLineEdit(this)),
      user_(new QLineEdit(this)),
      sslMode_(new QComboBox(this)),
      address_(new QLineEdit(this)),
      problem_(new QLabel(this)),
      recent_(new QListWidget(this)),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this)) {
    setWindowTitle(tr("Open Team Project"));
    setObjectName(QStringLiteral("teamConnectionDialog"));
    host_->setPlaceholderText(tr("db.example.org, or a socket folder"));
    port_->setRange(0, 65535);
    port_->setSpecialValueText(tr("default"));
    database_->setPlaceholderText(tr("the project's database"));
    user_->setPlaceholderText(tr("your login (default: PGUSER, else your user name)"));
    // libpq's modes; "prefer" is libpq's default, which may connect without encryption.
    for (const char* mode : {"prefer", "require", "verify-ca", "verify-full", "allow", "disable"})
        sslMode_->addItem(QString::fromLatin1(mode));
    address_->setObjectName(QStringLiteral("teamAddress"));
    address_->setPlaceholderText(QStringLiteral("postgresql://ann@db.example.org/ncbi_team?sslmode=verify-full"));
    problem_->setWordWrap(true);
    problem_->setStyleSheet(QStringLiteral("color:#a00"));

    auto* form = new QFormLayout;
    form->addRow(tr("&Host:"), host_);
    form->addRow(tr("&Port:"), port_);
    form->addRow(tr("&Database:"), database_);
    form->addRow(tr("&User:"), user_);
    form->addRow(tr("&Encryption (sslmode):"), sslMode_);
    form->addRow(tr("&Address:"), address_);

    auto* passwords =
        new QLabel(tr("Linkscope never asks for your password nor stores it. libpq reads it from <tt>~/.pgpass</tt> "
                      "(mode 0600), from the file <tt>PGPASSFILE</tt> names, or from a connection service file "
                      "(<tt>service=…</tt>). An address that holds a password is refused."),
                   this);
    passwords->setWordWrap(true);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(problem_);
    layout->addWidget(passwords);
    layout->addWidget(new QLabel(tr("Recent team projects:"), this));
    layout->addWidget(recent_);
    layout->addWidget(buttons_);

    recent_->addItems(recentAddresses());
    for (QLineEdit* part : {host_, database_, user_})
        connect(part, &QLineEdit::textEdited, this, &TeamConnectionDialog::composeFromParts);
    connect(port_, &QSpinBox::valueChanged, this, &TeamConnectionDialog::composeFromParts);
    connect(sslMode_, &QComboBox::currentIndexChanged, this, &TeamConnectionDialog::composeFromParts);
    connect(address_, &QLineEdit::textChanged, this, &TeamConnectionDialog::checkAddress);
    connect(recent_, &QListWidget::currentTextChanged, this, &TeamConnectionDialog::setAddress);
    connect(recent_, &QListWidget::itemDoubleClicked, this, [this] {
        if (addressProblem(address()).isEmpty()) accept();
    });
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    checkAddress();
}

QString TeamConnectionDialog::address() const { return address_->text().trimmed(); }

void TeamConnectionDialog::setAddress(const QString& address) { address_->setText(address); }

QString TeamConnectionDialog::composeAddress(const QString& host, int port, const QString& database,
                                             const QString& user, const QString& sslMode) {
    QString address = QStringLiteral("postgresql://");
    if (!user.isEmpty()) address += encoded(user) + QLatin1Char('@');
    const bool socketFolder = host.startsWith(QLatin1Char('/'));
    if (!host.isEmpty() && !socketFolder) address += encoded(host);
    if (port > 0) address += QLatin1Char(':') + QString::number(port);
    address += QLatin1Char('/') + encoded(database);
    QStringList parameters;
    if (socketFolder) parameters << QStringLiteral("host=") + encoded(host);
    if (!sslMode.isEmpty() && sslMode != QLatin1String("prefer")) parameters << QStringLiteral("sslmode=") + sslMode;
    if (!parameters.isEmpty()) address += QLatin1Char('?') + parameters.join(QLatin1Char('&'));
    return address;
}

QString TeamConnectionDialog::addressProblem(const QString& address) {
    if (address.isEmpty()) return tr("Give the server's address, or its parts above.");
    if (!address.startsWith(QLatin1String("postgresql://")) && !address.startsWith(QLatin1String("postgres://")))
        return tr("A team project's address begins with postgresql:// (libpq's connection URI).");
    const QUrl url(address);
    if (!url.password().isEmpty() || QUrlQuery(url).hasQueryItem(QStringLiteral("password")))
        return tr(
            "The address holds a password, which Linkscope never takes nor stores: leave it out and put it "
            "in ~/.pgpass instead.");
    return {};
}

QStringList TeamConnectionDialog::recentAddresses() {
    QStringList recent;
    for (const QString& address : QSettings().value(kRecentKey).toStringList())
        if (addressProblem(address).isEmpty()) recent << address;  // a hand-edited setting stays harmless
    return recent;
}

void TeamConnectionDialog::rememberAddress(const QString& address) {
    if (!addressProblem(address).isEmpty()) return;
    QStringList recent = recentAddresses();
    recent.removeAll(address);
    recent.prepend(address);
    while (recent.size() > kRecentKept) recent.removeLast();
    QSettings().setValue(kRecentKey, recent);
}

void TeamConnectionDialog::composeFromParts() {
    address_->setText(composeAddress(host_->text().trimmed(), port_->value(), database_->text().trimmed(),
                                     user_->text().trimmed(), sslMode_->currentText()));
}

void TeamConnectionDialog::checkAddress() {
    const QString problem = addressProblem(address());
    problem_->setText(problem);
    problem_->setVisible(!problem.isEmpty() && !address().isEmpty());
    buttons_->button(QDialogButtonBox::Open)->setEnabled(problem.isEmpty());
}

}  // namespace linkscope::ui
