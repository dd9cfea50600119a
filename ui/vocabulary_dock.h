#pragma once
// The Vocabulary dock: the knowledge base's size figures, the BELHD homonym table, and every
// homonym with the expanded name each of its entities received.
#include <QString>
#include <QStringList>
#include <QWidget>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "background_job.h"
#include "turn_scheduler.h"

class QLabel;
class QTreeWidget;

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::ui {

class VocabularyDock : public QWidget {
    Q_OBJECT
public:
    explicit VocabularyDock(QWidget* parent = nullptr);
    void setProject(const std::shared_ptr<const LoadedProject>& project);
    /// The homonym names listed (for tests and accessibility); at most 2,000 plus a "more" row.
    QStringList homonymNames() const;
    /// The figures as shown ("Counting …" until the worker has counted them).
    QString figuresText() const;

private:
    /// Lists the next few hundred homonym names (one turn of listing_); true while more remain.
    bool listHomonyms();
    std::shared_ptr<const LoadedProject> project_;  ///< only while its homonyms are being listed
    std::size_t nextPair_ = 0;
    std::string_view currentName_;  ///< the last listed name (a view into project_'s KB)
    int listedNames_ = 0;
    TurnScheduler listing_{this};  ///< lists the homonyms a few hundred names a turn
    /// Counts the figures: a pass over every entity, name and id, too long for the GUI thread
    /// with a UMLS-size KB (benchmarks/ui_stall).
    BackgroundJob figuresJob_;
    QLabel* figures_ = nullptr;
    QTreeWidget* homonyms_ = nullptr;
};

}  // namespace linkscope::ui
