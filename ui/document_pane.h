#pragma once
// The middle of the main window: a line naming the shown document, the document view, and the
// legend of the mention colours and marks under it.
#include <QWidget>

class QLabel;

namespace linkscope {
class Document;
}

namespace linkscope::ui {

class DocumentView;

class DocumentPane : public QWidget {
    Q_OBJECT
public:
    explicit DocumentPane(QWidget* parent = nullptr);

    DocumentView* view() const { return view_; }
    /// The line above the view: the document's PMID and mention count, or that none is shown.
    void setDocument(const Document* document);

private:
    QLabel* header_;
    DocumentView* view_;
};

}  // namespace linkscope::ui
