#include "adjudication_dialog.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <iterator>
#include <set>

#include "corpus/concept_id.h"
#include "corpus/corpus.h"
#include "curation/adjudication.h"
#include "curation_session.h"
#include "decision_log.h"
#include "disagreement_model.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "ranker_host.h"
#include "review_claims.h"
#include "util/error.h"

namespace linkscope::ui {
namespace {

QString text(const std::string& value) { return QString::fromStdString(value); }

QString figure(const std::optional<double>& value) {
    return value ? QString::number(*value, 'f', 3) : QStringLiteral("–");
}

}  // namespace

AdjudicationDialog::AdjudicationDialog(CurationSession* session, QWidget* parent)
    : QDialog(parent),
      decisions_(session->decisions()),
      rankers_(session->rankers()),
      claims_(session->claims()),
      live_(session->live()),
      curatorA_(new QComboBox(this)),
      curatorB_(new QComboBox(this)),
      splitFilter_(new QComboBox(this)),
      typeFilter_(new QComboBox(this)),
      summary_(new QLabel(this)),
      agreement_(new QTableWidget(this)),
      table_(new QTableView(this)),
      model_(new DisagreementModel(this)),
      takeA_(new QPushButton(tr("Take A"), this)),
      takeB_(new QPushButton(tr("Take B"), this)),
      other_(new QLineEdit(this)),
      takeOther_(new QPushButton(tr("Link to"), this)),
      status_(new QLabel(this)) {
    setWindowTitle(tr("Adjudicate Disagreements"));
    setObjectName(QStringLiteral("adjudicationDialog"));
    resize(980, 640);

    auto* curators = new QHBoxLayout;
    curators->addWidget(new QLabel(tr("Curator A:"), this));
    curators->addWidget(curatorA_, 1);
    curators->addWidget(new QLabel(tr("Curator B:"), this));
    curators->addWidget(curatorB_, 1);

    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    agreement_->setColumnCount(7);
    agreement_->setHorizontalHeaderLabels({tr("Both decided"), tr("Agreed"), tr("Observed"), tr("Expected"),
                                           tr("Cohen's κ"), tr("Only A"), tr("Only B")});
    agreement_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    agreement_->setSelectionMode(QAbstractItemView::NoSelection);
    agreement_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    agreement_->setMaximumHeight(180);

    auto* filters = new QHBoxLayout;
    filters->addWidget(new QLabel(tr("Split:"), this));
    filters->addWidget(splitFilter_, 1);
    filters->addWidget(new QLabel(tr("Type:"), this));
    filters->addWidget(typeFilter_, 1);

    table_->setModel(model_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->verticalHeader()->hide();

    other_->setPlaceholderText(tr("Another entity, e.g. MESH:D006816 (| for a composite)"));
    auto* picks = new QHBoxLayout;
    picks->addWidget(takeA_);
    picks->addWidget(takeB_);
    picks->addSpacing(12);
    picks->addWidget(other_, 1);
    picks->addWidget(takeOther_);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(curators);
    layout->addWidget(summary_);
    layout->addWidget(agreement_);
    layout->addLayout(filters);
    layout->addWidget(table_, 1);
    layout->addLayout(picks);
    layout->addWidget(status_);

    const auto curatorsChanged = [this] {
        if (refreshing_) return;
        updateFigures();
    };
    connect(curatorA_, &QComboBox::currentIndexChanged, this, curatorsChanged);
    connect(curatorB_, &QComboBox::currentIndexChanged, this, curatorsChanged);
    connect(splitFilter_, &QComboBox::currentIndexChanged, this, [this] {
        if (!refreshing_) applyFilter();
    });
    connect(typeFilter_, &QComboBox::currentIndexChanged, this, [this] {
        if (!refreshing_) applyFilter();
    });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                updateButtons();
                if (!current.isValid()) return;
                const project::MentionKey& key = model_->row(current.row()).disagreement.mention;
                Q_EMIT mentionActivated(text(key.split), text(key.document), static_cast<int>(key.start),
                                        static_cast<int>(key.end));
            });
    connect(takeA_, &QPushButton::clicked, this, [this] { takeA(); });
    connect(takeB_, &QPushButton::clicked, this, [this] { takeB(); });
    connect(takeOther_, &QPushButton::clicked, this, [this] { takeOther(other_->text()); });
    connect(other_, &QLineEdit::returnPressed, this, [this] { takeOther(other_->text()); });
    // Any decision (an adjudication here, a curator's in the main window, undo, a merge) may
    // change the figures and the rows: read once per turn of the event loop, however many
    // decisions changed in it ("apply to all" records dozens).
    const auto scheduleRefresh = [this] {
        if (!isVisible() || refreshQueued_) return;
        refreshQueued_ = true;
        QTimer::singleShot(0, this, [this] {
            refreshQueued_ = false;
            if (isVisible()) refresh();
        });
    };
    connect(decisions_, &DecisionLog::decisionChanged, this, scheduleRefresh);
    connect(decisions_, &DecisionLog::decisionsReloaded, this, scheduleRefresh);
    // A team project: the connection back (what was decided meanwhile) and a change of mode.
    connect(decisions_, &DecisionLog::readOnlyChanged, this, scheduleRefresh);
    connect(claims_, &ReviewClaims::claimsChanged, this, scheduleRefresh);
    // The log's refusal of a pick, in its words, for the status line.
    connect(decisions_, &DecisionLog::errorOccurred, this, [this](const QString& message) { lastRefusal_ = message; });
    model_->setProposalFunction([this](const project::MentionKey& key) {
        const auto proposal = rankers_->proposal(key);
        return proposal ? proposal->entity : std::string();
    });
    updateButtons();
}

void AdjudicationDialog::showEvent(QShowEvent* event) {
    QDialog::showEvent(event);
    refresh();
}

void AdjudicationDialog::refresh() {
    // A team project whose connection is lost: its store belongs to the reconnection, and the
    // figures stay those last read until the window is live again.
    if (decisions_->isOpen() && live_->state() == TeamLiveUpdates::State::Lost) {
        status_->setText(tr("%1. The figures are those read before.").arg(decisions_->readOnlyReason()));
        updateButtons();
        return;
    }
    done_.clear();
    if (decisions_->isOpen()) {
        try {
            // On a server: the decisions in effect as this login may read them (in blind mode a
            // curator's own only), read now, not a copy kept from before.
            done_ = decisions_->store()->doneDecisions();
        } catch (const std::exception& error) {
            status_->setText(tr("Cannot read the decisions: %1").arg(QString::fromUtf8(error.what())));
        }
    }
    const LoadedProject* project = decisions_->isOpen() ? decisions_->project() : nullptr;
    if (project != typedProject_) {
        typedProject_ = project;
        types_ = project ? curation::mentionTypesOf(project->splits) : curation::MentionTypeFn{};
        model_->setProject(project);
        refreshing_ = true;
        fillFilters();
        refreshing_ = false;
    }
    refreshing_ = true;
    fillCurators(curation::curatorsOf(done_));
    refreshing_ = false;
    updateFigures();
}

void AdjudicationDialog::fillCurators(const std::vector<std::string>& curators) {
    const QString a = curatorA_->currentText();
    const QString b = curatorB_->currentText();
    curatorA_->clear();
    curatorB_->clear();
    for (const auto& name : curators) {
        curatorA_->addItem(text(name));
        curatorB_->addItem(text(name));
    }
    // Keep the pair chosen; otherwise the first two curators.
    const int keptA = curatorA_->findText(a);
    const int keptB = curatorB_->findText(b);
    curatorA_->setCurrentIndex(keptA >= 0 ? keptA : (curators.empty() ? -1 : 0));
    curatorB_->setCurrentIndex(keptB >= 0 ? keptB : (curators.size() > 1 ? 1 : -1));
}

void AdjudicationDialog::fillFilters() {
    splitFilter_->clear();
    typeFilter_->clear();
    splitFilter_->addItem(tr("All splits"), QString());
    typeFilter_->addItem(tr("All types"), QString());
    if (!typedProject_) return;
    std::set<std::string> types;
    for (const SplitCorpus& split : typedProject_->splits) {
        splitFilter_->addItem(text(split.split), text(split.split));
        for (const Document& document : split.corpus.documents())
            for (const Mention& mention : document.mentions) types.insert(mention.type);
    }
    for (const auto& type : types) typeFilter_->addItem(text(type), text(type));
}

void AdjudicationDialog::updateFigures() {
    const std::string a = curatorA_->currentText().toStdString();
    const std::string b = curatorB_->currentText().toStdString();
    report_ = {};
    agreement_->setRowCount(0);
    takeA_->setText(a.empty() ? tr("Take A") : tr("Take %1's").arg(text(a)));
    takeB_->setText(b.empty() ? tr("Take B") : tr("Take %1's").arg(text(b)));
    if (a.empty() || b.empty() || a == b) {
        if (!claims_->active())
            summary_->setText(
                tr("Merge another curator's project file (File > Merge Another Curator's Project) and choose two "
                   "curators to compare: this file has decisions by %n curator(s).",
                   nullptr, curatorA_->count()));
        else if (claims_->blind() && curatorA_->count() < 2)
            summary_->setText(tr("%1 The project is blind: your login reads its own decisions only, until "
                                 "adjudication; an adjudicator's or a reviewer's login reads every curator's.")
                                  .arg(liveText()));
        else
            summary_->setText(tr("%1 Choose two curators to compare: the project has decisions by %n curator(s).",
                                 nullptr, curatorA_->count())
                                  .arg(liveText()));
        model_->setDecisions(done_, {}, {});
        updateButtons();
        return;
    }
    try {
        const auto of = [](const std::string& name) {
            return [name](const project::Decision& d) { return d.curator == name; };
        };
        // Blind mode: kappa on the overlap, the documents given to two curators on purpose.
        std::vector<project::Decision> measured;
        if (claims_->blind())
            std::copy_if(done_.begin(), done_.end(), std::back_inserter(measured),
                         [this](const project::Decision& d) { return claims_->overlapDocument(d.mention.document); });
        const std::vector<project::Decision>& on = claims_->blind() ? measured : done_;
        report_ = curation::measureAgreement(curation::categoriesInEffect(on, of(a)),
                                             curation::categoriesInEffect(on, of(b)), types_);
    } catch (const std::exception& error) {
        status_->setText(tr("Cannot measure the agreement: %1").arg(QString::fromUtf8(error.what())));
    }
    const auto addRow = [this](const QString& scope, const curation::AgreementFigures& f) {
        const int row = agreement_->rowCount();
        agreement_->insertRow(row);
        agreement_->setVerticalHeaderItem(row, new QTableWidgetItem(scope));
        const QStringList cells{QString::number(f.both), QString::number(f.agreed), figure(f.observed),
                                figure(f.expected),      figure(f.kappa),           QString::number(f.onlyA),
                                QString::number(f.onlyB)};
        for (int column = 0; column < cells.size(); ++column) {
            auto* item = new QTableWidgetItem(cells[column]);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (column == KappaColumn && !f.kappa) item->setToolTip(text(f.undefinedReason));
            agreement_->setItem(row, column, item);
        }
    };
    addRow(tr("overall"), report_.overall);
    for (const auto& [name, figures] : report_.perSplit) addRow(tr("split %1").arg(text(name)), figures);
    for (const auto& [name, figures] : report_.perType) addRow(tr("type %1").arg(text(name)), figures);

    // The selected mention stays selected when the rows are rebuilt (after a pick).
    const QModelIndex current = table_->currentIndex();
    std::optional<project::MentionKey> selected;
    if (current.isValid()) selected = model_->row(current.row()).disagreement.mention;
    model_->setDecisions(done_, a, b);
    applyFilter();
    if (selected)
        if (const int row = model_->rowOf(*selected); row >= 0) {
            const QSignalBlocker blocker(table_->selectionModel());  // not a new activation
            table_->selectRow(row);
            table_->setCurrentIndex(model_->index(row, 0));
        }
    const auto& o = report_.overall;
    QString summary =
        tr("%1 and %2 both decided %3 mention(s) and agree on %4: Cohen's κ %5%6. %7 disagreement(s), %8 open.")
            .arg(text(a), text(b))
            .arg(o.both)
            .arg(o.agreed)
            .arg(figure(o.kappa), o.kappa ? QString() : QStringLiteral(" (%1)").arg(text(o.undefinedReason)))
            .arg(model_->rowCount())
            .arg(model_->openCount());
    if (claims_->active())
        summary = liveText() + QLatin1Char(' ') + summary +
                  (claims_->blind() ? tr(" The figures count the overlap documents only.") : QString());
    summary_->setText(summary);
    updateButtons();
}

void AdjudicationDialog::applyFilter() {
    model_->setFilter(splitFilter_->currentData().toString().toStdString(),
                      typeFilter_->currentData().toString().toStdString());
    updateButtons();
}

void AdjudicationDialog::updateButtons() {
    const bool selected = table_->currentIndex().isValid();
    takeA_->setEnabled(selected);
    takeB_->setEnabled(selected);
    takeOther_->setEnabled(selected);
}

QString AdjudicationDialog::summaryText() const { return summary_->text(); }

QString AdjudicationDialog::liveText() const {
    return tr("Live from the team project, as %1 (%2).").arg(decisions_->login(), claims_->modeText());
}

QString AdjudicationDialog::roleRefusal() const {
    if (!decisions_->onServer()) return {};
    // While the connection is lost the log's store is the reconnection's, and the log refuses.
    if (live_->state() == TeamLiveUpdates::State::Lost) return decisions_->readOnlyReason();
    if (live_->state() != TeamLiveUpdates::State::Live)
        return tr("Refused: the window is still connecting to the server. Nothing was changed.");
    // The role as the server said it at the last connection (team_live_updates.h).
    const std::optional<project::TeamRole> role = live_->role();
    // The project's owner (no team role) and an adjudicator adjudicate; the server refuses a
    // reviewer's write itself, and a curator's adjudication is not theirs to record.
    if (role == project::TeamRole::Curator)
        return tr("Refused: your login %1 is a curator in this project; only an adjudicator records adjudications. "
                  "Nothing was changed.")
            .arg(decisions_->login());
    if (role == project::TeamRole::Reviewer)
        return tr("Refused: your login %1 is a reviewer in this project and reads without writing. Nothing was "
                  "changed.")
            .arg(decisions_->login());
    return {};
}
QString AdjudicationDialog::statusText() const { return status_->text(); }

bool AdjudicationDialog::take(const std::string& curator) {
    const QModelIndex current = table_->currentIndex();
    if (!current.isValid()) {
        status_->setText(tr("Select a disagreement first"));
        return false;
    }
    const auto& byCurator = model_->row(current.row()).disagreement.byCurator;
    const auto found = byCurator.find(curator);
    if (found == byCurator.end()) return false;
    return pick(found->second.kind, found->second.newLink);
}

bool AdjudicationDialog::takeA() { return take(model_->curatorA()); }
bool AdjudicationDialog::takeB() { return take(model_->curatorB()); }

bool AdjudicationDialog::takeOther(const QString& ids) {
    ConceptIdList parsed;
    try {
        parsed = parseConceptIdList(ids.trimmed().toStdString());
    } catch (const Error& error) {
        status_->setText(tr("Not a list of entity ids: %1").arg(QString::fromUtf8(error.what())));
        return false;
    }
    if (parsed.ids.empty()) {
        status_->setText(tr("Type an entity id (or use Take A / Take B for a NIL or a rejection)"));
        return false;
    }
    std::string link;
    for (const auto& id : parsed.ids) link += (link.empty() ? "" : "|") + id;
    return pick(project::DecisionKind::Correct, link);
}

bool AdjudicationDialog::pick(project::DecisionKind kind, const std::string& link) {
    // The rows point into the project they were read from: another one opened since makes them stale.
    if (!decisions_->isOpen() || decisions_->project() != typedProject_) {
        refresh();
        status_->setText(tr("The project changed: the disagreements were read again"));
        return false;
    }
    const QModelIndex current = table_->currentIndex();
    if (!current.isValid()) {
        status_->setText(tr("Select a disagreement first"));
        return false;
    }
    const DisagreementModel::Row& row = model_->row(current.row());
    if (!row.mention) {
        status_->setText(tr("The mention is not in the project's corpus (any more): it cannot be adjudicated here"));
        return false;
    }
    const project::MentionKey key = row.disagreement.mention;
    // Accept when the link is already the one in effect, as the candidates panel decides.
    if (kind == project::DecisionKind::Accept || kind == project::DecisionKind::Correct)
        kind = decisions_->linkInEffect(key, *row.mention) == link ? project::DecisionKind::Accept
                                                                   : project::DecisionKind::Correct;
    const Mention& mention = *row.mention;
    if (const QString refusal = roleRefusal(); !refusal.isEmpty()) {
        status_->setText(refusal);
        return false;
    }
    lastRefusal_.clear();
    if (!decisions_->adjudicate(key, mention, kind, link)) {
        // The view stays as it was: nothing was stored, nothing is shown as adjudicated.
        status_->setText(lastRefusal_.isEmpty() ? tr("The adjudication was not stored")
                                                : tr("The adjudication was not stored. %1").arg(lastRefusal_));
        return false;
    }
    refresh();  // the pick shows at once, not a turn later
    status_->setText(
        tr("Adjudicated “%1”: %2")
            .arg(text(mention.text), link.empty() ? text(std::string(project::decisionKindName(kind))) : text(link)));
    return true;
}

}  // namespace linkscope::ui
