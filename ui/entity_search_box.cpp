#include "entity_search_box.h"

#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include "entity_search_model.h"

namespace linkscope::ui {

EntitySearchBox::EntitySearchBox(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);

    edit_ = new QLineEdit(this);
    edit_->setObjectName(QStringLiteral("entitySearchField"));
    edit_->setPlaceholderText(tr("Search the knowledge base: name, synonym or id (D009369)…"));
    edit_->setClearButtonEnabled(true);
    edit_->installEventFilter(this);

    model_ = new EntitySearchModel(this);
    view_ = new QTreeView(this);
    view_->setObjectName(QStringLiteral("entitySearchResults"));
    view_->setModel(model_);
    view_->setRootIsDecorated(false);
    view_->setUniformRowHeights(true);
    view_->setAllColumnsShowFocus(true);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view_->header()->setStretchLastSection(true);
    view_->installEventFilter(this);

    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("entitySearchStatus"));
    status_->setEnabled(false);  // drawn in the disabled colour: secondary information

    layout->addWidget(edit_);
    layout->addWidget(view_, 1);
    layout->addWidget(status_);
    setFocusProxy(edit_);

    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(120);
    connect(debounce_, &QTimer::timeout, this, &EntitySearchBox::runSearch);
    connect(edit_, &QLineEdit::textChanged, this, &EntitySearchBox::onTextEdited);
    connect(view_, &QAbstractItemView::doubleClicked, this,
            [this](const QModelIndex& index) { chooseRow(index.row()); });
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        if (current.isValid()) Q_EMIT currentEntityChanged(model_->canonicalIdAt(current.row()));
    });
    setIndex(nullptr);
}

EntitySearchBox::~EntitySearchBox() = default;

void EntitySearchBox::setIndex(std::shared_ptr<const kb::EntitySearchIndex> index) {
    const bool ready = index != nullptr;
    model_->setIndex(std::move(index));
    edit_->setEnabled(ready);
    view_->setEnabled(ready);
    status_->setText(ready ? QString() : tr("No knowledge base indexed"));
    if (ready) runSearch();
}

QString EntitySearchBox::query() const { return edit_->text(); }

QString EntitySearchBox::currentId() const {
    const QModelIndex current = view_->currentIndex();
    return current.isValid() ? model_->canonicalIdAt(current.row()) : QString();
}

void EntitySearchBox::onTextEdited() {
    if (lastSearchMs_ > kSlowSearchMs)
        debounce_->start();
    else
        runSearch();
}

void EntitySearchBox::runSearch() {
    debounce_->stop();
    if (!model_->searchIndex()) return;
    lastSearchMs_ = model_->search(edit_->text());
    const int rows = model_->rowCount();
    if (rows > 0) view_->setCurrentIndex(model_->index(0, 0));
    for (int c = 0; c < EntitySearchModel::SemanticTypesColumn; ++c) view_->resizeColumnToContents(c);
    if (edit_->text().trimmed().isEmpty())
        status_->clear();
    else if (rows == 0)
        status_->setText(tr("No entity found"));
    else
        status_->setText(tr("%n entities shown (%1 ms)", nullptr, rows).arg(QLocale().toString(lastSearchMs_, 'f', 1)));
}

void EntitySearchBox::chooseRow(int row) {
    const QString id = model_->canonicalIdAt(row);
    if (!id.isEmpty()) Q_EMIT entityChosen(id);
}

bool EntitySearchBox::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::ShortcutOverride && (watched == edit_ || watched == view_)) {
        // Enter chooses here: claim it before a window shortcut on Enter (the curation keys'
        // "accept") takes it, and the same for the keys that type or navigate in the list.
        const auto* key = static_cast<QKeyEvent*>(event);
        const int code = key->key();
        if (code == Qt::Key_Return || code == Qt::Key_Enter || code == Qt::Key_Escape ||
            (watched == view_ && !key->text().isEmpty())) {
            event->accept();
            return true;
        }
        return QWidget::eventFilter(watched, event);
    }
    if (event->type() != QEvent::KeyPress) return QWidget::eventFilter(watched, event);
    const auto* key = static_cast<QKeyEvent*>(event);
    if (watched == edit_) {
        switch (key->key()) {
            case Qt::Key_Down:
            case Qt::Key_PageDown:
                if (debounce_->isActive()) runSearch();
                if (model_->rowCount() == 0) return false;
                view_->setFocus(Qt::OtherFocusReason);
                if (!view_->currentIndex().isValid()) view_->setCurrentIndex(model_->index(0, 0));
                return true;
            case Qt::Key_Return:
            case Qt::Key_Enter:
                if (debounce_->isActive()) runSearch();
                chooseRow(view_->currentIndex().isValid() ? view_->currentIndex().row() : 0);
                return true;
            case Qt::Key_Escape:
                if (edit_->text().isEmpty()) return false;
                edit_->clear();
                return true;
            default:
                return false;
        }
    }
    if (watched == view_) {
        switch (key->key()) {
            case Qt::Key_Return:
            case Qt::Key_Enter:
                chooseRow(view_->currentIndex().row());
                return true;
            case Qt::Key_Up:
                if (view_->currentIndex().row() <= 0) {
                    edit_->setFocus(Qt::OtherFocusReason);
                    return true;
                }
                return false;
            case Qt::Key_Escape:
                edit_->setFocus(Qt::OtherFocusReason);
                return true;
            default:
                return false;
        }
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace linkscope::ui
