#pragma once
// The Linkscope main window: documents dock, document view, knowledge-base summary and a
// diagnostics log, with dock layout kept across sessions (QSettings).
#include <QMainWindow>

#include <memory>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::ui {

class DocumentListModel;
class DocumentView;
class KnowledgeBaseSummary;
class ProjectLoader;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Starts loading a project manifest in the background.
    void openProject(const QString& manifestPath);
    const LoadedProject* project() const { return project_.get(); }
    DocumentListModel* documentModel() const { return documents_; }
    DocumentView* documentView() const { return view_; }

Q_SIGNALS:
    void projectLoaded();
    void projectFailed(const QString& message);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void createDocks();
    void showProject(std::shared_ptr<const LoadedProject> project);
    void showDocumentAt(const QModelIndex& proxyIndex);
    void showLoadProgress(const QString& stage, int percent);
    void finishLoading();
    void restoreLayout();
    void chooseProject();

    std::shared_ptr<const LoadedProject> project_;
    ProjectLoader* loader_ = nullptr;
    DocumentListModel* documents_ = nullptr;
    QSortFilterProxyModel* documentFilter_ = nullptr;
    QTableView* documentTable_ = nullptr;
    QLineEdit* documentSearch_ = nullptr;
    DocumentView* view_ = nullptr;
    QLabel* documentHeader_ = nullptr;
    KnowledgeBaseSummary* kbSummary_ = nullptr;
    QPlainTextEdit* diagnostics_ = nullptr;
    QProgressBar* progressBar_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QLabel* statusLabel_ = nullptr;
};

}  // namespace linkscope::ui
