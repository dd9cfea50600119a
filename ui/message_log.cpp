#include "message_log.h"

#include <QBrush>
#include <QHeaderView>
#include <QPalette>
#include <QStringList>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace linkscope::ui {
namespace {

enum Column { CategoryColumn, SourceColumn, TextColumn };

}  // namespace

QString messageCategoryName(MessageCategory category) {
    switch (category) {
        case MessageCategory::Error:
            return MessageLog::tr("error");
        case MessageCategory::Note:
            return MessageLog::tr("note");
        case MessageCategory::Progress:
            return MessageLog::tr("progress");
    }
    return {};
}

MessageLog::MessageLog(QWidget* parent) : QWidget(parent), list_(new QTreeWidget(this)) {
    setObjectName(QStringLiteral("messageLog"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    list_->setObjectName(QStringLiteral("messageList"));
    list_->setRootIsDecorated(false);
    list_->setUniformRowHeights(true);
    list_->setWordWrap(false);
    list_->setHeaderLabels({tr("Kind"), tr("From"), tr("Message")});
    list_->header()->setSectionResizeMode(CategoryColumn, QHeaderView::ResizeToContents);
    list_->header()->setSectionResizeMode(SourceColumn, QHeaderView::ResizeToContents);
    list_->header()->setStretchLastSection(true);
    layout->addWidget(list_);
}

void MessageLog::add(MessageCategory category, const QString& source, const QString& text, const QString& statusHtml) {
    MessageEntry entry{category, source, text};
    const bool replace = category == MessageCategory::Progress && !entries_.empty() &&
                         entries_.back().category == MessageCategory::Progress && entries_.back().source == source;
    QTreeWidgetItem* item = nullptr;
    if (replace) {
        entries_.back() = entry;
        item = list_->topLevelItem(list_->topLevelItemCount() - 1);
    } else {
        entries_.push_back(entry);
        item = new QTreeWidgetItem(list_);
    }
    item->setText(CategoryColumn, messageCategoryName(category));
    item->setText(SourceColumn, source);
    item->setText(TextColumn, text);
    item->setToolTip(TextColumn, text);
    if (category == MessageCategory::Error)
        for (const int column : {CategoryColumn, SourceColumn, TextColumn})
            item->setForeground(column, QBrush(Qt::red));
    list_->scrollToItem(item);
    Q_EMIT added(entry, statusHtml.isEmpty() ? text.toHtmlEscaped() : statusHtml);
}

void MessageLog::clear() {
    entries_.clear();
    list_->clear();
}

QString MessageLog::plainText() const {
    QStringList lines;
    for (const MessageEntry& entry : entries_) lines << entry.text;
    return lines.join(QLatin1Char('\n'));
}

}  // namespace linkscope::ui
