#pragma once
// The documents of a loaded project as a table (split, PMID, title, mentions), for the
// Documents dock. It reads the project's corpora in place; nothing is copied.
#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace linkscope {
struct LoadedProject;
class Document;
}

namespace linkscope::ui {

class DocumentListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { SplitColumn, PmidColumn, TitleColumn, MentionsColumn, ColumnCount };
    enum Role { SplitIndexRole = Qt::UserRole + 1, DocumentIndexRole };

    explicit DocumentListModel(QObject* parent = nullptr);
    ~DocumentListModel() override;

    void setProject(std::shared_ptr<const LoadedProject> project);
    /// The document behind a row, or nullptr.
    const Document* documentAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        int split;
        int document;
    };
    std::shared_ptr<const LoadedProject> project_;
    std::vector<Row> rows_;
};

}  // namespace linkscope::ui
