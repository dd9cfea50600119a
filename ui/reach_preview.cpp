#include "reach_preview.h"

#include <QLabel>
#include <QListWidget>
#include <QVBoxLayout>

namespace linkscope::ui {

ReachPreview::ReachPreview(QWidget* parent) : QFrame(parent), summary_(new QLabel(this)), list_(new QListWidget(this)) {
    setObjectName(QStringLiteral("reachPreview"));
    setFrameShape(QFrame::StyledPanel);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    summary_->setObjectName(QStringLiteral("reachSummary"));
    summary_->setWordWrap(true);
    list_->setObjectName(QStringLiteral("reachList"));
    list_->setMaximumHeight(list_->fontMetrics().height() * 6);
    layout->addWidget(summary_);
    layout->addWidget(list_);
    connect(list_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        const int row = list_->row(item);
        if (row < 0 || row >= count()) return;
        const project::MentionKey& key = keys_[static_cast<std::size_t>(row)];
        Q_EMIT mentionActivated(QString::fromStdString(key.split), QString::fromStdString(key.document),
                                static_cast<int>(key.start), static_cast<int>(key.end));
    });
    hide();
}

void ReachPreview::showReach(const QString& entity, const std::vector<Entry>& sameText,
                             const std::vector<Entry>& datastore) {
    clear();
    if (entity.isEmpty()) return;
    for (const Entry& entry : sameText) {
        keys_.push_back(entry.key);
        list_->addItem(entry.text);
    }
    for (const Entry& entry : datastore) {
        keys_.push_back(entry.key);
        list_->addItem(tr("kNN · %1").arg(entry.text));
    }
    QString summary = tr("Choosing %1: \"Apply to all\" would change %n other mention(s) with the same text", nullptr,
                         static_cast<int>(sameText.size()))
                          .arg(entity);
    if (!datastore.empty())
        summary += tr("; its key in the run's datastore would change the proposal of %n more", nullptr,
                      static_cast<int>(datastore.size()));
    summary_->setText(summary);
    list_->setVisible(count() > 0);
    show();
}

void ReachPreview::showChanged(const QString& title, const std::vector<Entry>& entries) {
    clear();
    for (const Entry& entry : entries) {
        keys_.push_back(entry.key);
        list_->addItem(entry.text);
    }
    summary_->setText(tr("%1: %n mention(s) now propose another entity", nullptr, count()).arg(title));
    list_->setVisible(count() > 0);
    show();
}

void ReachPreview::clear() {
    keys_.clear();
    list_->clear();
    summary_->clear();
    hide();
}

QString ReachPreview::summary() const { return summary_->text(); }

}  // namespace linkscope::ui
