#include "review_claims_worker.h"

#include <exception>
#include <span>
#include <utility>

#include "project/project_store.h"

namespace linkscope::ui {

ReviewClaimsWorker::ReviewClaimsWorker(std::string address) : address_(std::move(address)) {}

ReviewClaimsWorker::~ReviewClaimsWorker() = default;

template <class Call>
bool ReviewClaimsWorker::guarded(ClaimsAnswer& answer, const QString& what, Call&& call) {
    try {
        if (!store_) store_ = std::make_unique<project::ProjectStore>(project::ProjectStore::open(address_));
        call(*store_);
        return true;
    } catch (const project::StoreDisconnected& lost) {
        answer.error = tr("%1: %2").arg(what, QString::fromUtf8(lost.what()));
        answer.disconnected = true;
    } catch (const std::exception& error) {
        answer.error = tr("%1: %2").arg(what, QString::fromUtf8(error.what()));
        // A connection that could not be opened is a lost one too: the window reconnects.
        answer.disconnected = !store_;
    }
    if (answer.disconnected) store_.reset();  // the next request connects again
    return false;
}

void ReviewClaimsWorker::readInto(ClaimsAnswer& answer, bool mode) {
    if (mode && !guarded(answer, tr("Cannot read the project's mode"),
                         [&answer](project::ProjectStore& store) { answer.mode = store.teamMode(); }))
        return;
    guarded(answer, tr("Cannot read the claims"),
            [&answer](project::ProjectStore& store) { answer.claims = store.claims(); });
}

void ReviewClaimsWorker::read(std::uint64_t generation) {
    ClaimsAnswer answer{ClaimsAnswer::Request::Read, generation};
    readInto(answer, true);
    Q_EMIT answered(answer);
}

void ReviewClaimsWorker::claimNext(std::uint64_t generation, const std::vector<project::MentionKey>& byGain,
                                   std::chrono::seconds timeToLive) {
    ClaimsAnswer answer{ClaimsAnswer::Request::Claim, generation};
    std::vector<project::MentionKey> claimed;
    const bool done = guarded(answer, tr("No mention could be claimed"), [&](project::ProjectStore& store) {
        claimed = store.claimNext(std::span<const project::MentionKey>(byGain), 1, timeToLive);
    });
    if (!claimed.empty()) answer.claimed = claimed.front();
    if (done) readInto(answer, false);
    Q_EMIT answered(answer);
}

void ReviewClaimsWorker::renew(std::uint64_t generation, bool holding, std::chrono::seconds timeToLive) {
    ClaimsAnswer answer{ClaimsAnswer::Request::Renewal, generation};
    const bool renewed =
        !holding || guarded(answer, tr("Cannot renew the claim"),
                            [timeToLive](project::ProjectStore& store) { store.renewClaims(timeToLive); });
    if (renewed || !answer.disconnected) readInto(answer, true);
    Q_EMIT answered(answer);
}

void ReviewClaimsWorker::release(std::uint64_t generation, const project::MentionKey& key) {
    ClaimsAnswer answer{ClaimsAnswer::Request::Release, generation};
    if (!guarded(answer, tr("Cannot release the claim"),
                 [&key](project::ProjectStore& store) { store.releaseClaim(key); }))
        Q_EMIT answered(answer);
}

void ReviewClaimsWorker::readBack(std::uint64_t generation) {
    ClaimsAnswer answer{ClaimsAnswer::Request::ReadBack, generation};
    guarded(answer, tr("Cannot read the decisions back"),
            [&answer](project::ProjectStore& store) { answer.history = store.decisions(); });
    Q_EMIT answered(answer);
}

void ReviewClaimsWorker::close() { store_.reset(); }

}  // namespace linkscope::ui
