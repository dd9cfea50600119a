#pragma once
// The suites' way to wait for a team project's claims (ui/review_claims.h), whose statements run
// on a worker and are answered on the GUI thread: each helper asks, then turns the event loop
// until the answer has been taken (never a fixed pause).
#include <QObject>
#include <QTest>

#include <optional>
#include <vector>

#include "project/curation_decision.h"
#include "review_claims.h"
#include "review_queue_order.h"

namespace linkscope::test {

/// How long a helper waits for an answer.
inline constexpr int kClaimsAnswerWithin = 15000;

/// Asks for the next mention of `queue` and waits for the answer: the mention claimed (or, for a
/// reviewer, the first one no one holds), nullopt when none was or no answer came.
inline std::optional<project::MentionKey> claimNextAndWait(ui::ReviewClaims& claims,
                                                           const std::vector<ui::QueuedMention>& queue) {
    bool answered = false;
    std::optional<project::MentionKey> claimed;
    const QMetaObject::Connection connection = QObject::connect(
        &claims, &ui::ReviewClaims::nextAnswered, [&](const std::optional<ui::QueuedMention>& entry, int) {
            answered = true;
            if (entry) claimed = entry->key;
        });
    if (claims.claimNext(queue) && !QTest::qWaitFor([&answered] { return answered; }, kClaimsAnswerWithin))
        claimed.reset();  // no answer in time: nothing claimed, as far as the caller can tell
    QObject::disconnect(connection);
    return claimed;
}

/// Asks for a renewal (the timer's work: the claim held renewed, the mode and the others' claims
/// read) and waits until every request asked has been answered; false when none came in time.
inline bool renewAndWait(ui::ReviewClaims& claims) {
    claims.renew();
    return QTest::qWaitFor([&claims] { return !claims.busy(); }, kClaimsAnswerWithin);
}

}  // namespace linkscope::test
