#pragma once
// The knowledge-base dock: size figures, the BELHD homonym table, and every homonym with the
// expanded name each of its entities received.
#include <QStringList>
#include <QWidget>

#include <memory>

class QLabel;
class QTreeWidget;

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::ui {

class KnowledgeBaseSummary : public QWidget {
    Q_OBJECT
public:
    explicit KnowledgeBaseSummary(QWidget* parent = nullptr);
    void setProject(const std::shared_ptr<const LoadedProject>& project);
    /// The homonym names listed (for tests and accessibility); at most 2,000 plus a "more" row.
    QStringList homonymNames() const;

private:
    QLabel* figures_ = nullptr;
    QTreeWidget* homonyms_ = nullptr;
};

}  // namespace linkscope::ui
