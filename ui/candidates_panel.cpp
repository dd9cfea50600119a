#include "candidates_panel.h"

#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "candidate_model.h"
#include "reach_preview.h"

namespace linkscope::ui {

CandidatesPanel::CandidatesPanel(QWidget* parent)
    : QWidget(parent),
      model_(new CandidateModel(this)),
      table_(new QTableView(this)),
      summary_(new QLabel(this)),
      searchSlot_(new QWidget(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    summary_->setTextFormat(Qt::RichText);
    summary_->setWordWrap(true);
    summary_->setText(tr("No mention selected"));
    summary_->setObjectName(QStringLiteral("mentionSummary"));
    layout->addWidget(summary_);

    table_->setModel(model_);
    table_->setObjectName(QStringLiteral("candidateTable"));
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->setWordWrap(false);
    // Every column as wide as its text, the preferred name included: a stretched name column
    // gets only what the score parts leave, which in a narrow dock cut it to a few letters. The
    // table scrolls sideways instead, and the last column takes any room to spare.
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    // The preferred name before the matched name: what the curator reads first stays in view.
    table_->horizontalHeader()->moveSection(CandidateModel::PreferredNameColumn, CandidateModel::MatchedNameColumn);
    table_->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    layout->addWidget(table_, 1);
    connect(table_, &QTableView::activated, this, [this](const QModelIndex& index) { pick(index.row() + 1); });

    auto* searchLayout = new QHBoxLayout(searchSlot_);
    searchLayout->setContentsMargins(0, 0, 0, 0);
    searchLayout->addWidget(new QLabel(tr("Correct to:"), searchSlot_));
    layout->addWidget(searchSlot_);

    auto* buttons = new QHBoxLayout;
    acceptButton_ = new QPushButton(tr("Accept (Enter)"), this);
    rejectButton_ = new QPushButton(tr("Reject (R)"), this);
    nilButton_ = new QPushButton(tr("NIL (0)"), this);
    skipButton_ = new QPushButton(tr("Skip (S)"), this);
    acceptButton_->setToolTip(tr("Accept the link in effect; 1-9 pick a candidate"));
    rejectButton_->setToolTip(tr("The link is wrong and no entity of the KB is given"));
    nilButton_->setToolTip(tr("The mention names nothing in the knowledge base"));
    skipButton_->setToolTip(tr("Reviewed, left for later"));
    for (QPushButton* button : {acceptButton_, rejectButton_, nilButton_, skipButton_}) {
        button->setFocusPolicy(Qt::NoFocus);  // the keyboard stays in the document view
        buttons->addWidget(button);
    }
    buttons->addStretch();
    layout->addLayout(buttons);

    // "Apply to all identical mentions": the list comes first, the curator then applies it.
    offer_ = new QFrame(this);
    offer_->setObjectName(QStringLiteral("sameSurfaceOffer"));
    offer_->setFrameShape(QFrame::StyledPanel);
    auto* offerLayout = new QVBoxLayout(offer_);
    offerSummary_ = new QLabel(offer_);
    offerSummary_->setWordWrap(true);
    offerList_ = new QListWidget(offer_);
    offerList_->setMaximumHeight(offerList_->fontMetrics().height() * 6);
    auto* offerButtons = new QHBoxLayout;
    auto* apply = new QPushButton(tr("Apply to all"), offer_);
    apply->setObjectName(QStringLiteral("applyToAll"));
    auto* dismiss = new QPushButton(tr("Dismiss"), offer_);
    offerButtons->addWidget(apply);
    offerButtons->addWidget(dismiss);
    offerButtons->addStretch();
    offerLayout->addWidget(offerSummary_);
    offerLayout->addWidget(offerList_);
    offerLayout->addLayout(offerButtons);
    layout->addWidget(offer_);
    offer_->hide();
    // The selected candidate's reach, before anything is stored (filled by the main window).
    // Made after the offer, whose list stays the panel's first QListWidget child.
    reach_ = new ReachPreview(this);
    layout->insertWidget(layout->indexOf(offer_), reach_);
    connect(apply, &QPushButton::clicked, this, [this] {
        clearOffer();
        Q_EMIT applyToAllRequested();
    });
    connect(dismiss, &QPushButton::clicked, this, &CandidatesPanel::clearOffer);
    connect(acceptButton_, &QPushButton::clicked, this, &CandidatesPanel::accept);
    connect(rejectButton_, &QPushButton::clicked, this, &CandidatesPanel::rejectRequested);
    connect(nilButton_, &QPushButton::clicked, this, &CandidatesPanel::nilRequested);
    connect(skipButton_, &QPushButton::clicked, this, &CandidatesPanel::skipRequested);
    setActionsEnabled(false);
}

void CandidatesPanel::setSearchWidget(QWidget* search) {
    search->setParent(searchSlot_);
    searchSlot_->layout()->addWidget(search);
}

void CandidatesPanel::setMentionSummary(const QString& html) { summary_->setText(html); }

void CandidatesPanel::setActionsEnabled(bool enabled) {
    for (QPushButton* button : {acceptButton_, rejectButton_, nilButton_, skipButton_}) button->setEnabled(enabled);
}

bool CandidatesPanel::pick(int rank) {
    const QModelIndex index = model_->index(rank - 1, 0);
    if (!index.isValid() || !acceptButton_->isEnabled()) return false;
    table_->selectRow(rank - 1);
    if (index.data(CandidateModel::IsCurrentRole).toBool())
        Q_EMIT acceptRequested();
    else
        Q_EMIT correctRequested(index.data(CandidateModel::EntityIdRole).toString());
    return true;
}

void CandidatesPanel::offerSameSurface(const QString& summary, const QStringList& mentions) {
    offerSummary_->setText(summary);
    offerList_->clear();
    offerList_->addItems(mentions);
    offer_->show();
}

void CandidatesPanel::clearOffer() {
    offer_->hide();
    offerList_->clear();
}

bool CandidatesPanel::hasOffer() const { return !offer_->isHidden(); }

void CandidatesPanel::accept() {
    if (acceptButton_->isEnabled()) Q_EMIT acceptRequested();
}

}  // namespace linkscope::ui
