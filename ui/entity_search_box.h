#pragma once
// A search field with its result list: finds any entity of the knowledge base as the user
// types (name, synonym, homonym-expanded name or id) and emits the chosen entity's id.
// Keyboard: Down moves from the field into the list, Up on the first row goes back, Enter (in
// the field: on the current or first hit) or a double-click chooses, Escape clears the field.
//
// The search runs on the GUI thread at each key stroke: it stays well within the GUI thread's
// budget on MEDIC (benchmarks/kb_search). Only when a search took long (a KB of UMLS size, a
// slow machine) are the following ones coalesced by a short timer, so that typing never stalls
// behind a queue of searches.
#include <QWidget>

#include <memory>

class QLabel;
class QLineEdit;
class QTimer;
class QTreeView;

namespace linkscope::kb {
class EntitySearchIndex;
}

namespace linkscope::ui {

class EntitySearchModel;

class EntitySearchBox : public QWidget {
    Q_OBJECT
public:
    explicit EntitySearchBox(QWidget* parent = nullptr);
    ~EntitySearchBox() override;

    /// The index to search (null: the box is disabled until one is given).
    void setIndex(std::shared_ptr<const kb::EntitySearchIndex> index);
    QString query() const;
    /// The canonical id of the current hit (empty when there is none).
    QString currentId() const;

    QLineEdit* lineEdit() const { return edit_; }
    QTreeView* resultView() const { return view_; }
    EntitySearchModel* model() const { return model_; }
    /// Searches slower than this (ms) make the following ones wait for a pause in typing.
    static constexpr double kSlowSearchMs = 40.0;

Q_SIGNALS:
    /// Enter or double-click on a hit.
    void entityChosen(const QString& canonicalId);
    /// The current hit changed (keyboard or mouse), for a preview.
    void currentEntityChanged(const QString& canonicalId);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void onTextEdited();
    void runSearch();
    void chooseRow(int row);

    QLineEdit* edit_ = nullptr;
    QTreeView* view_ = nullptr;
    QLabel* status_ = nullptr;
    EntitySearchModel* model_ = nullptr;
    QTimer* debounce_ = nullptr;
    double lastSearchMs_ = 0;
};

}  // namespace linkscope::ui
