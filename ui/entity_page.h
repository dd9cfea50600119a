#pragma once
// One entity of the knowledge base as a page: preferred name, id, alternative ids, semantic
// types, synonyms, every name with its homonym-expanded form (marking the names that were
// homonyms, with links to the other entities sharing them), and the corpus mentions linked to
// the entity in every split. Links:
//   entity:<canonical id>                         shows that entity here (entityActivated too)
//   mention:<split>/<pmid>/<start>/<end>          emits mentionActivated (offsets in characters)
// (split and PMID percent-encoded; a path, not a "//host", because URL hosts are lower-cased).
#include <QString>
#include <QStringList>
#include <QTextBrowser>
#include <QUrl>

#include <memory>
#include <optional>

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::ui {

class EntityPage : public QTextBrowser {
    Q_OBJECT
public:
    /// Mentions listed per entity at most; a count says how many more there are.
    static constexpr int kMaxListedMentions = 500;

    explicit EntityPage(QWidget* parent = nullptr);
    ~EntityPage() override;

    void setProject(std::shared_ptr<const LoadedProject> project);
    /// Shows the entity with this id (primary or alternative, any spelling the KB accepts);
    /// returns false (and shows a message) when the KB has no such entity.
    bool showEntity(const QString& id);
    /// The canonical primary id of the entity shown, or empty.
    QString currentId() const { return currentId_; }

    /// What the page shows, as data, for tests and accessibility.
    struct Contents {
        QString id;
        QString preferredName;
        QStringList alternativeIds;
        QStringList synonyms;
        QStringList expandedNames;  ///< one per name: the expanded form, equal to the name when unchanged
        QStringList homonymNames;   ///< the entity's names that are homonyms (original spelling)
        int linkedMentions = 0;     ///< in all splits
        QStringList mentionLinks;   ///< the mention: URLs listed, in order
    };
    const Contents& contents() const { return contents_; }

    /// The mention: URL of a mention (also accepted by activateLink()).
    static QUrl mentionUrl(const QString& split, const QString& pmid, int start, int end);
    /// Follows a link as a click would.
    void activateLink(const QUrl& url);

Q_SIGNALS:
    void mentionActivated(const QString& split, const QString& pmid, int start, int end);
    void entityActivated(const QString& canonicalId);

private:
    void showMessage(const QString& text);

    std::shared_ptr<const LoadedProject> project_;
    QString currentId_;
    Contents contents_;
};

}  // namespace linkscope::ui
