#include "document_pane.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "corpus/corpus.h"
#include "document_view.h"
#include "mention_palette.h"

namespace linkscope::ui {
namespace {

QWidget* makeLegend(QWidget* parent) {
    // Two rows (the states, then the marks), so that the legend fits beside the docks.
    auto* legend = new QWidget(parent);
    auto* rows = new QVBoxLayout(legend);
    rows->setContentsMargins(4, 2, 4, 2);
    rows->setSpacing(2);
    auto* states = new QHBoxLayout;
    for (const MentionState state : {MentionState::Unreviewed, MentionState::Predicted, MentionState::Accepted,
                                     MentionState::Corrected, MentionState::Rejected}) {
        auto* label = new QLabel(mentionStateName(state), legend);
        label->setStyleSheet(
            QStringLiteral("QLabel { background: %1; color: black; padding: 1px 6px; border-radius: 3px; }")
                .arg(mentionColor(state).name()));
        states->addWidget(label);
    }
    states->addStretch();
    auto* marks = new QHBoxLayout;
    marks->addWidget(new QLabel(QObject::tr("<u>composite</u>"), legend));
    auto* abbreviation = new QLabel(QObject::tr("abbreviation (dotted)"), legend);
    abbreviation->setToolTip(
        QObject::tr("A short form the document defines; the tooltip shows the expansion the linkers read"));
    marks->addWidget(abbreviation);
    marks->addStretch();
    rows->addLayout(states);
    rows->addLayout(marks);
    // On a narrow screen the legend is cut rather than the window made wider than the screen.
    legend->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    return legend;
}

}  // namespace

DocumentPane::DocumentPane(QWidget* parent)
    : QWidget(parent), header_(new QLabel(tr("No document selected"), this)), view_(new DocumentView(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    header_->setContentsMargins(6, 4, 6, 0);
    layout->addWidget(header_);
    layout->addWidget(view_, 1);
    layout->addWidget(makeLegend(this));
}

void DocumentPane::setDocument(const Document* document) {
    header_->setText(
        document
            ? tr("PMID %1 · %2 mentions").arg(QString::fromStdString(document->pmid())).arg(document->mentions.size())
            : tr("No document selected"));
}

}  // namespace linkscope::ui
