#include "status_line.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>

#include "message_log.h"

namespace linkscope::ui {

StatusLine::StatusLine(MessageLog* log, QStatusBar* bar)
    : QObject(bar),
      label_(new QLabel(bar)),
      progress_(new QProgressBar(bar)),
      cancel_(new QPushButton(tr("Cancel"), bar)) {
    progress_->setMaximumWidth(240);
    progress_->setVisible(false);
    cancel_->setVisible(false);
    // Rich text: the log hands over an escaped line, or one with a link ("list them" after a
    // decision moved proposals).
    label_->setTextFormat(Qt::RichText);
    label_->setTextInteractionFlags(Qt::LinksAccessibleByMouse);
    // A long line is cut, not the window widened to hold it.
    label_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(label_, 1);
    bar->addPermanentWidget(progress_);
    bar->addPermanentWidget(cancel_);
    connect(log, &MessageLog::added, label_,
            [this](const MessageEntry&, const QString& line) { label_->setText(line); });
    connect(label_, &QLabel::linkActivated, this, &StatusLine::linkActivated);
    connect(cancel_, &QPushButton::clicked, this, &StatusLine::cancelRequested);
}

void StatusLine::startTask() {
    progress_->setValue(0);
    progress_->setVisible(true);
    cancel_->setVisible(true);
}

void StatusLine::setProgress(int percent) { progress_->setValue(percent); }

void StatusLine::finishTask() {
    progress_->setVisible(false);
    cancel_->setVisible(false);
}

}  // namespace linkscope::ui
