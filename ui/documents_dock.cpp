#include "documents_dock.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QStringList>
#include <QTableView>
#include <QVBoxLayout>

#include <set>

#include "corpus/corpus.h"
#include "curation_session.h"
#include "document_filter_model.h"
#include "document_list_model.h"
#include "document_review.h"
#include "project/loaded_project.h"
#include "review_claims.h"
#include "review_queue_order.h"

namespace linkscope::ui {

DocumentsDock::DocumentsDock(CurationSession* session, QWidget* parent)
    : QDockWidget(tr("Documents"), parent),
      session_(session),
      decisions_(session->decisions()),
      rankers_(session->rankers()) {
    setObjectName(QStringLiteral("documentsDock"));
    auto* panel = new QWidget(this);
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(2, 2, 2, 2);
    search_ = new QLineEdit(panel);
    search_->setObjectName(QStringLiteral("documentFilter"));
    search_->installEventFilter(this);  // Enter belongs to the filter, not to "accept"
    search_->setPlaceholderText(tr("Filter by PMID or title"));
    search_->setClearButtonEnabled(true);
    documents_ = new DocumentListModel(this);
    filter_ = new DocumentFilterModel(this);
    filter_->setSourceModel(documents_);
    filter_->setSortRole(Qt::DisplayRole);
    reviewFilter_ = new QComboBox(panel);
    reviewFilter_->setObjectName(QStringLiteral("reviewFilter"));
    reviewFilter_->addItem(tr("All documents"), static_cast<int>(DocumentFilterModel::Review::All));
    reviewFilter_->addItem(tr("Unreviewed mentions"), static_cast<int>(DocumentFilterModel::Review::Unreviewed));
    reviewFilter_->addItem(tr("Disagreements with gold"), static_cast<int>(DocumentFilterModel::Review::Disagreements));
    reviewFilter_->addItem(tr("Low confidence"), static_cast<int>(DocumentFilterModel::Review::LowConfidence));
    reviewFilter_->addItem(tr("Worth reviewing (queue order)"),
                           static_cast<int>(DocumentFilterModel::Review::WorthReviewing));
    reviewFilter_->setToolTip(
        tr("Show the documents with unreviewed mentions, with a link in effect that differs from "
           "the gold, or with an unreviewed mention the ranker is unsure of"));
    reviewProgress_ = new QLabel(panel);
    reviewProgress_->setObjectName(QStringLiteral("reviewProgress"));
    reviewProgress_->setWordWrap(true);
    table_ = new QTableView(panel);
    table_->setObjectName(QStringLiteral("documentTable"));
    table_->setModel(filter_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setSortingEnabled(true);
    table_->sortByColumn(-1, Qt::AscendingOrder);
    table_->verticalHeader()->hide();
    table_->setWordWrap(false);
    table_->setTextElideMode(Qt::ElideRight);
    QHeaderView* header = table_->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    // Sized from the first rows only: measuring every document of a corpus (review figures
    // included) after every decision stalls the GUI thread.
    header->setResizeContentsPrecision(64);
    header->setSectionResizeMode(DocumentListModel::TitleColumn, QHeaderView::Stretch);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    auto* filters = new QHBoxLayout;
    filters->addWidget(search_, 1);
    filters->addWidget(reviewFilter_);
    layout->addLayout(filters);
    layout->addWidget(table_, 1);
    layout->addWidget(reviewProgress_);
    setWidget(panel);

    connect(search_, &QLineEdit::textChanged, filter_, &QSortFilterProxyModel::setFilterFixedString);
    connect(reviewFilter_, &QComboBox::currentIndexChanged, this, [this] {
        filter_->setReviewFilter(static_cast<DocumentFilterModel::Review>(reviewFilter_->currentData().toInt()));
        refreshReviewQueue();
    });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { selectRow(current); });

    // The review figures follow the curation: proposals arrive a batch of documents at a time,
    // and only the documents a decision or a re-ranking reached are computed again.
    connect(rankers_, &RankerHost::proposalsReady, this, [this] { refreshReview(); });
    connect(rankers_, &RankerHost::proposalsRanked, this,
            [this](const std::vector<project::MentionKey>& mentions) { refreshReview(mentions); });
    connect(rankers_, &RankerHost::proposalsComplete, this, [this] {
        showReviewProgress();
        refreshReviewQueue();
    });
    connect(rankers_, &RankerHost::rankingsChanged, this,
            [this](const std::vector<project::MentionKey>& reranked) { refreshReview(reranked); });
    connect(decisions_, &DecisionLog::decisionChanged, this,
            [this](const project::MentionKey& key) { refreshReview(std::vector<project::MentionKey>{key}); });
    connect(decisions_, &DecisionLog::decisionsReloaded, this, [this] { refreshReview(); });
    // A team project: other curators' claims move the queue and the documents' notes.
    connect(session_->claims(), &ReviewClaims::claimsChanged, this, [this] { refreshReview(); });
}

DocumentsDock::~DocumentsDock() = default;

void DocumentsDock::setProject(std::shared_ptr<const LoadedProject> project) {
    project_ = std::move(project);
    documents_->setProject(project_);
    documents_->setReviewFunction([this](const std::string& split, const Document& document) {
        const DocumentReview review = reviewDocument(*decisions_, *rankers_, split, document);
        return DocumentListModel::Review{review.mentions,
                                         review.reviewed,
                                         review.disagreements,
                                         review.lowConfidence,
                                         review.decidedBy,
                                         session_->claims()->documentNote(split, document.pmid()),
                                         session_->claims()->overlapDocument(document.pmid())};
    });
}

bool DocumentsDock::eventFilter(QObject* watched, QEvent* event) {
    // A window shortcut on Enter (accept the link) would take the key from a text field, which
    // QLineEdit does not claim: claim it for the field.
    if (watched == search_ && event->type() == QEvent::ShortcutOverride) {
        const int key = static_cast<QKeyEvent*>(event)->key();
        if (key == Qt::Key_Return || key == Qt::Key_Enter) {
            event->accept();
            return true;
        }
    }
    return QDockWidget::eventFilter(watched, event);
}

std::string DocumentsDock::splitOfRow(int sourceRow) const {
    const int split = documents_->data(documents_->index(sourceRow, 0), DocumentListModel::SplitIndexRole).toInt();
    return project_->splits[static_cast<std::size_t>(split)].split;
}

void DocumentsDock::selectRow(const QModelIndex& proxyIndex) {
    const QModelIndex source = filter_->mapToSource(proxyIndex);
    const Document* document = documents_->documentAt(source.row());
    if (document) filter_->setPinnedRow(source.row());
    if (!document || !project_) {
        Q_EMIT documentSelected(nullptr, {});
        return;
    }
    Q_EMIT documentSelected(document, splitOfRow(source.row()));
}

bool DocumentsDock::selectFirst() {
    if (documents_->rowCount() == 0) return false;
    table_->selectRow(0);
    return true;
}

const Document* DocumentsDock::selectDocument(const std::string& split, const std::string& pmid) {
    if (!project_) return nullptr;
    for (int row = 0; row < filter_->rowCount(); ++row) {
        const int sourceRow = filter_->mapToSource(filter_->index(row, 0)).row();
        const Document* document = documents_->documentAt(sourceRow);
        if (!document || document->pmid() != pmid || splitOfRow(sourceRow) != split) continue;
        table_->selectRow(row);
        return document;
    }
    return nullptr;
}

void DocumentsDock::showAllDocuments() {
    search_->clear();
    reviewFilter_->setCurrentIndex(0);
}

void DocumentsDock::refreshReview(const std::vector<project::MentionKey>& changed) {
    // Once per document: a decision often reaches several mentions of one abstract.
    std::set<std::pair<std::string, std::string>> distinct;
    for (const project::MentionKey& key : changed) distinct.emplace(key.split, key.document);
    documents_->refreshReview({distinct.begin(), distinct.end()});
    showReviewProgress();
    refreshReviewQueue();
}

void DocumentsDock::refreshReview() {
    documents_->refreshReview();
    showReviewProgress();
    refreshReviewQueue();
}

void DocumentsDock::showReviewProgress() {
    // From the decisions alone: summing every document's review figures ranks nothing but is
    // still too long for the GUI thread after every decision (benchmarks/review_queue).
    QStringList parts;
    if (project_)
        for (const SplitCorpus& split : project_->splits) {
            std::size_t mentions = 0;
            for (const Document& document : split.corpus.documents()) mentions += document.mentions.size();
            parts << tr("%1: %2/%3 reviewed")
                         .arg(QString::fromStdString(split.split))
                         .arg(decisions_->reviewedIn(split.split))
                         .arg(mentions);
        }
    reviewProgress_->setText(parts.join(QStringLiteral(" · ")));
}

void DocumentsDock::refreshReviewQueue() {
    // Only while the filter shows it: the queue is a pass over every mention of the project.
    if (filter_->reviewFilter() != DocumentFilterModel::Review::WorthReviewing) return;
    reviewPriorities_ = documentPriorities(reviewQueueOf(*session_));
    filter_->setPriorityFunction([this](int sourceRow) {
        const Document* document = documents_->documentAt(sourceRow);
        if (!document || !project_) return 0.0;
        const auto found = reviewPriorities_.find({splitOfRow(sourceRow), document->pmid()});
        return found == reviewPriorities_.end() ? 0.0 : found->second;
    });
}

}  // namespace linkscope::ui
