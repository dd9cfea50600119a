#include "simulated_curator.h"

#include <poll.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <type_traits>
#include <utility>

#include "corpus/id_list.h"
#include "eval/gold_agreement.h"
#include "project/project_store.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// How many mentions of the queue one claim asks for first; the whole queue only when all of
// these are taken (each is one look-up on the server, inside its claim lock).
constexpr std::size_t kClaimWindow = 64;
// The longest the curator waits on the server's socket before it looks at the clock again.
constexpr auto kPollSlice = 50ms;
// The pause before the next claim when every free mention is held by someone else.
constexpr auto kClaimRetryPause = 200ms;

std::string joined(std::span<const std::string> ids) {
    std::string link;
    for (const auto& id : ids) {
        if (!link.empty()) link += '|';
        link += id;
    }
    return link;
}

double epochMilliseconds(std::chrono::system_clock::time_point time) {
    return std::chrono::duration<double, std::milli>(time.time_since_epoch()).count();
}

double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Another curator's decision the linker has taken, the queue not yet ranked again with it.
struct PendingRerank {
    ReceivedDecision received;
    std::optional<std::chrono::system_clock::time_point> stamp;  // the decision's timestamp
};

class CuratorWalk {
public:
    CuratorWalk(curation::ReviewLinker& linker, std::span<const curation::ReviewMention> mentions,
                std::span<const ProjectMention> keys, const SimulatedCuratorOptions& options)
        : linker_(linker),
          mentions_(mentions),
          keys_(keys),
          options_(options),
          store_(project::ProjectStore::open(options.project)) {
        const std::size_t n = mentions.size();
        if (linker.size() != n || keys.size() != n)
            throw Error("simulated curator: the linker knows " + std::to_string(linker.size()) +
                        " mentions, the walk " + std::to_string(n) + " and the keys " + std::to_string(keys.size()));
        for (std::size_t i = 0; i < n; ++i) {
            if (mentions[i].gold.empty())
                throw Error("simulated curator: mention " + std::to_string(i) + " of document " + mentions[i].document +
                            " has no gold id");
            index_.emplace(keys[i].key, i);
        }
        linker.reset();
        signals_.resize(n);
        for (std::size_t i = 0; i < n; ++i) signals_[i] = linker.signals(i);
        decided_.assign(n, 0);

        result_.onServer = store_.onServer();
        result_.login = store_.login();
        result_.curator = options.curator.empty() ? result_.login : options.curator;
        if (result_.curator.empty()) throw Error("simulate-curation: --curator NAME is required for a project file");
        result_.mode = std::string(project::teamModeName(store_.teamMode().mode));
        result_.mentions = n;
    }

    SimulatedCuratorResult run() {
        const auto start = Clock::now();
        loadDecided();
        const auto interval =
            options_.rate > 0.0
                ? std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / options_.rate))
                : Clock::duration::zero();
        Clock::time_point nextDecision = start + interval;
        while (options_.limit == 0 || result_.decisions.size() < options_.limit) {
            if (result_.onServer) guarded([&] { catchUp(); });
            const std::vector<std::size_t> order = queueOrder();
            if (order.empty()) break;
            std::optional<std::size_t> pick;
            if (result_.onServer) {
                pick = claimNext(order);
                if (!pick) {
                    if (everyRemainingMentionIsDecided(order)) break;
                    waitUntil(Clock::now() + kClaimRetryPause);
                    continue;
                }
            } else {
                pick = order.front();
            }
            const std::size_t m = *pick;
            const project::Decision decision = decisionOn(m);

            // The curator thinks: the pause the rate asks for, reading the others' decisions.
            waitUntil(nextDecision);
            nextDecision = std::max(nextDecision + interval, Clock::now());
            if (decided_[m]) {
                // Another curator's decision on it arrived meanwhile (their claim had expired):
                // the curator sees it and goes on.
                ++result_.conflicts;
                guarded([&] { store_.releaseClaim(keys_[m].key); });
                continue;
            }
            record(m, decision);
        }
        result_.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        return std::move(result_);
    }

private:
    // What every decision in the project already says (a file: all of them; a server: what this
    // login may read), and, on a server, the LISTEN for what follows.
    void loadDecided() {
        if (!result_.onServer) {
            for (const project::Decision& decision : store_.doneDecisions()) applyDecision(decision, false);
            return;
        }
        guarded([&] {
            store_.listenForChanges();
            const project::LiveChanges changes = store_.changesSince(0);
            for (const project::Decision& decision : changes.decisions) applyDecision(decision, false);
            revision_ = changes.revision;
        });
    }

    // A decision read from the store enters the queue and the linker, as the GUI takes it.
    // This curator's own decisions were applied when they were stored.
    void applyDecision(const project::Decision& decision, bool live) {
        const auto found = index_.find(decision.mention);
        if (found == index_.end()) return;
        const std::size_t i = found->second;
        const bool mine = result_.onServer && decision.login == result_.login && live;
        if (mine) return;
        if (decision.state != project::DecisionState::Done) {
            decided_[i] = 0;  // undone: the queue offers it again
            order_.reset();
            return;
        }
        if (decision.kind == project::DecisionKind::Skip || decided_[i]) return;
        decided_[i] = 1;
        order_.reset();
        if (live) {
            ++result_.seenFromOthers;
            const auto stamp = project::parseUtcTimestamp(decision.timestamp);
            if (stamp)
                result_.visibleMilliseconds.push_back(
                    std::chrono::duration<double, std::milli>(std::chrono::system_clock::now() - *stamp).count());
            // Stamped once the queue is ranked again with it (applyChanges).
            PendingRerank pending;
            pending.received.login = decision.login;
            pending.received.mention = decision.mention;
            pending.stamp = stamp;
            pendingRerank_.push_back(std::move(pending));
        }
        const auto link = project::decidedLink(decision);
        if (!link || link->empty() || *link == "-1") return;
        std::vector<std::string> ids;
        for (const std::string_view id : splitIdList(*link)) ids.emplace_back(id);
        refresh(linker_.decide(i, ids, decision.kind == project::DecisionKind::Accept));
    }

    void refresh(const std::vector<std::size_t>& changed) {
        if (!changed.empty()) order_.reset();
        for (const std::size_t i : changed)
            if (i < signals_.size()) signals_[i] = linker_.signals(i);
    }

    // Reads the changes the server announced since the last look.
    void catchUp() {
        if (!store_.takeChangeNotifications()) return;
        applyChanges(store_.changesSince(revision_));
    }

    void applyChanges(const project::LiveChanges& changes) {
        for (const project::Decision& decision : changes.decisions) applyDecision(decision, true);
        revision_ = std::max(revision_, changes.revision);
        if (pendingRerank_.empty()) return;
        // The linker has taken the decisions; they have moved the queue once it is ranked again.
        queueOrder();
        const double now = epochMilliseconds(std::chrono::system_clock::now());
        for (PendingRerank& pending : pendingRerank_) {
            pending.received.rerankedAtMilliseconds = now;
            if (pending.stamp) pending.received.rerankedMilliseconds = now - epochMilliseconds(*pending.stamp);
            result_.received.push_back(std::move(pending.received));
        }
        pendingRerank_.clear();
    }

    // Connects again, with a pause that grows, until the server answers or reconnectTimeout has
    // passed; returns what changed meanwhile (not yet applied).
    project::LiveChanges reconnect() {
        const auto giveUp = Clock::now() + options_.reconnectTimeout;
        auto pause = std::chrono::milliseconds(50);
        for (;;) {
            try {
                project::LiveChanges changes = store_.reconnect(revision_);
                ++result_.reconnects;
                return changes;
            } catch (const project::StoreDisconnected& e) {
                if (Clock::now() >= giveUp)
                    throw Error("simulate-curation: the server did not come back: " + std::string(e.what()));
                std::this_thread::sleep_for(pause);
                pause = std::min(pause * 2, std::chrono::milliseconds(2000));
            }
        }
    }

    // Runs a store call; when the connection is lost, reconnects, catches up and runs it again.
    template <class Call>
    auto guarded(Call&& call) -> std::invoke_result_t<Call&> {
        for (;;) {
            try {
                return call();
            } catch (const project::StoreDisconnected&) {
                applyChanges(reconnect());
            }
        }
    }

    // The queue as the decisions known so far rank it; ranked again only after one moved it.
    const std::vector<std::size_t>& queueOrder() {
        if (order_) return *order_;
        std::vector<std::size_t> order;
        if (options_.order == curation::ReviewOrderKind::Document) {
            for (std::size_t i = 0; i < decided_.size(); ++i)
                if (!decided_[i]) order.push_back(i);
        } else {
            for (std::size_t i = 0; i < decided_.size(); ++i)
                if (!decided_[i]) signals_[i].reach = linker_.reach(i, decided_, false);
            order = curation::reviewOrder(signals_, decided_, options_.policy);
        }
        order_ = std::move(order);
        return *order_;
    }

    // Claims the first free mention of the queue: within its first kClaimWindow mentions, then
    // anywhere in it.
    std::optional<std::size_t> claimNext(const std::vector<std::size_t>& order) {
        std::vector<project::MentionKey> byGain;
        byGain.reserve(order.size());
        for (const std::size_t i : order) byGain.push_back(keys_[i].key);
        const std::span<const project::MentionKey> all(byGain);
        std::vector<project::MentionKey> claimed =
            guarded([&] { return store_.claimNext(all.first(std::min(all.size(), kClaimWindow)), 1, ttl()); });
        if (claimed.empty() && all.size() > kClaimWindow)
            claimed = guarded([&] { return store_.claimNext(all, 1, ttl()); });
        if (claimed.empty()) return std::nullopt;
        lastRenewal_ = Clock::now();
        return index_.at(claimed.front());
    }

    // No mention left to claim: true when each one this curator has not seen decided holds a
    // decided mention's lasting claim (a decision hidden from it in blind mode), false while
    // some are only claimed by others (their claims may expire).
    bool everyRemainingMentionIsDecided(const std::vector<std::size_t>& remaining) {
        const std::vector<project::Claim> claims = guarded([&] { return store_.claims(); });
        std::set<project::MentionKey> lasting;
        for (const project::Claim& claim : claims)
            if (claim.expires == "infinity") lasting.insert(claim.mention);
        return std::all_of(remaining.begin(), remaining.end(),
                           [&](std::size_t i) { return lasting.contains(keys_[i].key); });
    }

    project::Decision decisionOn(std::size_t m) const {
        const curation::ReviewMention& mention = mentions_[m];
        const std::string& proposal = signals_[m].proposal;
        const bool accept = eval::linkAgreesLeniently(proposal, mention.gold);
        project::Decision decision;
        decision.mention = keys_[m].key;
        decision.mentionText = keys_[m].text;
        decision.kind = accept ? project::DecisionKind::Accept : project::DecisionKind::Correct;
        decision.previousLink = proposal;
        decision.newLink = accept ? proposal : joined(mention.gold);
        decision.curator = result_.curator;
        return decision;
    }

    // Waits until `deadline`, reading the others' decisions as they are announced and renewing
    // the claim in hand.
    void waitUntil(Clock::time_point deadline) {
        if (!result_.onServer) {
            std::this_thread::sleep_until(deadline);
            return;
        }
        const auto renewEvery = std::max<Clock::duration>(ttl() / 3, 1s);
        for (;;) {
            const auto now = Clock::now();
            if (now >= lastRenewal_ + renewEvery) {
                guarded([&] { return store_.renewClaims(ttl()); });
                lastRenewal_ = now;
            }
            guarded([&] { catchUp(); });
            if (now >= deadline) return;
            const auto slice = std::min<Clock::duration>(deadline - now, kPollSlice);
            pollfd socket{store_.changeSocket(), POLLIN, 0};
            const int timeout = static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(slice).count());
            if (socket.fd < 0 || ::poll(&socket, 1, timeout) < 0) std::this_thread::sleep_for(slice);
        }
    }

    void record(std::size_t m, const project::Decision& decision) {
        const auto start = Clock::now();
        try {
            store_.record(decision);
        } catch (const project::DecisionConflict& e) {
            // Another curator was first: take their decision, give up the claim, go on.
            ++result_.conflicts;
            if (e.theirs()) applyDecision(*e.theirs(), false);
            guarded([&] { store_.releaseClaim(keys_[m].key); });
            return;
        } catch (const project::StoreDisconnected&) {
            // Whether the commit happened is in what changed while the connection was down.
            const project::LiveChanges missed = reconnect();
            const bool committed = std::any_of(missed.decisions.begin(), missed.decisions.end(), [&](const auto& d) {
                return d.login == result_.login && d.mention == decision.mention && d.newLink == decision.newLink &&
                       d.state == project::DecisionState::Done;
            });
            applyChanges(missed);
            if (!committed) return;  // not stored: the mention is claimed and decided again
            ++result_.recoveredCommits;
        }
        stored(m, decision, millisecondsSince(start));
    }

    void stored(std::size_t m, const project::Decision& decision, double milliseconds) {
        const double committedAt = epochMilliseconds(std::chrono::system_clock::now());
        decided_[m] = 1;
        order_.reset();
        const bool correction = decision.kind == project::DecisionKind::Correct;
        refresh(linker_.decide(m, mentions_[m].gold, !correction));
        result_.decisions.push_back({decision.mention, decision.newLink, correction, milliseconds, committedAt});
    }

    std::chrono::seconds ttl() const { return options_.claimTimeToLive; }

    curation::ReviewLinker& linker_;
    std::span<const curation::ReviewMention> mentions_;
    std::span<const ProjectMention> keys_;  // the mentions as the project names them
    const SimulatedCuratorOptions& options_;
    project::ProjectStore store_;
    std::map<project::MentionKey, std::size_t> index_;
    std::vector<curation::ReviewSignals> signals_;
    std::vector<std::uint8_t> decided_;
    std::optional<std::vector<std::size_t>> order_;  // the queue, until a decision moves it
    std::vector<PendingRerank> pendingRerank_;       // read live, the queue not yet ranked again
    std::int64_t revision_ = 0;
    Clock::time_point lastRenewal_ = Clock::now();
    SimulatedCuratorResult result_;
};

}  // namespace

std::vector<ProjectMention> projectMentionsOf(std::span<const eval::EvalQuery> queries, const std::string& split) {
    std::vector<ProjectMention> mentions;
    mentions.reserve(queries.size());
    for (const eval::EvalQuery& query : queries)
        mentions.push_back({{split, query.document, query.start, query.end}, query.mention});
    return mentions;
}

SimulatedCuratorResult runSimulatedCurator(curation::ReviewLinker& linker,
                                           std::span<const curation::ReviewMention> mentions,
                                           std::span<const ProjectMention> inProject,
                                           const SimulatedCuratorOptions& options) {
    CuratorWalk walk(linker, mentions, inProject, options);
    return walk.run();
}

}  // namespace linkscope::cli
