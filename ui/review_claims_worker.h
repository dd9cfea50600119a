#pragma once
// The statements of a team project's review claims (core/project/team_work.h), on a thread of
// their own and a connection of their own, so that neither an F8 press nor a renewal waits for
// the server in the GUI's event loop (see benchmarks/ui_stall with a team project).
//
// ReviewClaimsWorker lives on a QThread that ReviewClaims owns. ReviewClaims asks through queued
// calls (QMetaObject::invokeMethod with Qt::QueuedConnection), which the worker runs one at a time
// in the order they were asked, on one connection: a release asked before a claim is done before
// it. Each request that reads is answered by the queued signal answered() on the GUI thread; a
// release is answered only when it fails. The decisions a switch to blind mode leaves this login
// are read here too (readBack), for DecisionLog::readBackFrom on the GUI thread.
//
// The connection is opened with the first request and dropped when the server is found gone
// (the answer then says disconnected); the next request opens a new one. The log's store and the
// live updates' connections are never used here.
#include <QMetaType>
#include <QObject>
#include <QString>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "project/curation_decision.h"
#include "project/team_work.h"

namespace linkscope::project {
class ProjectStore;
}

namespace linkscope::ui {

/// What a request to the claims' worker brought back.
struct ClaimsAnswer {
    enum class Request {
        Read,      ///< the mode and the claims (when the project opens)
        Claim,     ///< the next free mention claimed, then the claims read
        Renewal,   ///< the claims held renewed, then the mode and the claims read
        Release,   ///< a claim released (answered only when it failed)
        ReadBack,  ///< every decision this login may read (after a switch to blind mode)
    };
    Request request = Request::Read;
    /// Which start() of ReviewClaims asked: an answer to an earlier one is dropped.
    std::uint64_t generation = 0;
    /// Claim: the mention claimed (nullopt: none was free, or the claim failed).
    std::optional<project::MentionKey> claimed;
    /// What was read (nullopt: not read, the request failed before).
    std::optional<project::TeamModeSettings> mode;
    std::optional<std::vector<project::Claim>> claims;
    /// ReadBack: every decision this login may read, in id order (ProjectStore::decisions()).
    std::optional<std::vector<project::Decision>> history;
    /// Why the request failed ("" when it did not); `disconnected` when the server is gone.
    QString error;
    bool disconnected = false;
};

class ReviewClaimsWorker : public QObject {
    Q_OBJECT
public:
    /// `address`: the project's store (with the connect_timeout it was opened with).
    explicit ReviewClaimsWorker(std::string address);
    ~ReviewClaimsWorker() override;

    // Each runs on the worker's thread (asked through queued calls).
    void read(std::uint64_t generation);
    void claimNext(std::uint64_t generation, const std::vector<project::MentionKey>& byGain,
                   std::chrono::seconds timeToLive);
    void renew(std::uint64_t generation, bool holding, std::chrono::seconds timeToLive);
    void release(std::uint64_t generation, const project::MentionKey& key);
    void readBack(std::uint64_t generation);
    /// Closes the connection (the project is closed).
    void close();

Q_SIGNALS:
    void answered(const linkscope::ui::ClaimsAnswer& answer);

private:
    /// Runs `call` on the connection (opened first when there is none); false, with the
    /// answer's error set after `what`, when it fails.
    template <class Call>
    bool guarded(ClaimsAnswer& answer, const QString& what, Call&& call);
    void readInto(ClaimsAnswer& answer, bool mode);

    std::string address_;
    std::unique_ptr<project::ProjectStore> store_;
};

}  // namespace linkscope::ui

Q_DECLARE_METATYPE(linkscope::ui::ClaimsAnswer)
