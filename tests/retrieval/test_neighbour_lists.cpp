// Kept nearest-key lists (retrieval/neighbour_lists.h) against a new search of the datastore
// after every change: random adds (with exact ties: vectors repeated) and removals, one key or a
// decision's several at once, lists going stale and searched again, the changes each operation
// reports, the preview of a key (withKey), and refused arguments.
#include <QtTest>

#include <algorithm>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "retrieval/knn_datastore.h"
#include "retrieval/neighbour_lists.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::retrieval;

namespace {

constexpr float kTolerance = 1e-6f;  // similarities of the same key: one computation, compared with room

std::vector<std::uint64_t> keysOf(std::span<const DatastoreNeighbor> list) {
    std::vector<std::uint64_t> keys;
    for (const auto& neighbor : list) keys.push_back(neighbor.key);
    return keys;
}

bool sameList(std::span<const DatastoreNeighbor> a, std::span<const DatastoreNeighbor> b) {
    if (keysOf(a) != keysOf(b)) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::abs(a[i].similarity - b[i].similarity) > kTolerance) return false;
    return true;
}

}  // namespace

class TestNeighbourLists : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void followsEveryAddAndRemoval() {
        const std::size_t dimension = 12, queries = 40, k = 3, depth = 6;
        std::mt19937 random(7);
        std::normal_distribution<float> normal;
        const auto draw = [&] {
            std::vector<float> v(dimension);
            for (auto& x : v) x = normal(random);
            return v;
        };
        std::vector<std::vector<float>> pool;  // vectors that come back: exact ties
        for (int i = 0; i < 25; ++i) pool.push_back(draw());
        std::vector<float> queryRows;
        for (std::size_t q = 0; q < queries; ++q) {
            const auto row = q % 5 == 0 ? pool[q % pool.size()] : draw();  // some queries are keys to come
            queryRows.insert(queryRows.end(), row.begin(), row.end());
        }
        const auto query = [&](std::size_t q) {
            return std::span<const float>(queryRows).subspan(q * dimension, dimension);
        };

        KnnDatastore store(dimension, "enc");
        NeighbourLists lists(queries, k, depth);
        for (std::size_t q = 0; q < queries; ++q) QVERIFY(lists.stale(q));
        // Starts empty: every list holds every key (none), and the first keys all enter.
        for (std::size_t q = 0; q < queries; ++q) lists.keep(q, store.search(query(q), depth)[0]);
        QCOMPARE(lists.floor(0), -std::numeric_limits<float>::infinity());

        std::vector<std::vector<std::uint64_t>> groups;  // keys added together (one decision)
        std::size_t staleSeen = 0, reportedByAdd = 0, reportedByRemoval = 0, previews = 0;
        std::uniform_int_distribution<int> percent(0, 99);
        for (int step = 0; step < 600; ++step) {
            std::vector<std::optional<std::vector<DatastoreNeighbor>>> before(queries);  // unset: stale
            for (std::size_t q = 0; q < queries; ++q)
                if (!lists.stale(q)) before[q].emplace(lists.nearest(q).begin(), lists.nearest(q).end());
            std::set<std::size_t> reported;
            if (groups.empty() || percent(random) < 60) {
                // A decision: one to three keys with the same vector (a composite's ids).
                const auto vector = percent(random) < 50 ? pool[random() % pool.size()] : draw();
                const std::size_t ids = 1 + random() % 3;
                std::vector<std::uint64_t> added;
                for (std::size_t i = 0; i < ids; ++i)
                    added.push_back(store.add(vector, "E" + std::to_string(random() % 7), KeyOrigin::Accepted));
                for (const std::uint64_t key : added) {
                    const auto entries = store.asNeighbors(queryRows, key);
                    for (std::size_t q = 0; q < queries; ++q) {
                        if (!lists.stale(q) && added.size() == 1) {
                            // The preview of one key is the list it makes once merged.
                            const auto preview = lists.withKey(q, entries[q]);
                            const std::vector<DatastoreNeighbor> now(lists.nearest(q).begin(), lists.nearest(q).end());
                            const bool changed = lists.merge(q, entries[q]);
                            QCOMPARE(preview.has_value(), changed);
                            if (preview)
                                QVERIFY(sameList(*preview, lists.nearest(q)));
                            else
                                QVERIFY(sameList(now, lists.nearest(q)));
                            ++previews;
                            if (changed) reported.insert(q);
                        } else if (lists.merge(q, entries[q])) {
                            reported.insert(q);
                        }
                    }
                }
                groups.push_back(added);
                reportedByAdd += reported.size();
            } else {
                // An undo: a random earlier decision's keys go.
                const std::size_t g = random() % groups.size();
                for (const std::uint64_t key : groups[g]) QVERIFY(store.remove(key));
                for (const std::size_t q : lists.remove(groups[g])) reported.insert(q);
                groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(g));
                reportedByRemoval += reported.size();
            }
            // Every held list is the datastore's nearest as a new search finds them; a query
            // whose k nearest changed was reported.
            for (std::size_t q = 0; q < queries; ++q) {
                if (lists.stale(q)) {
                    if (before[q]) QVERIFY2(reported.contains(q), "a list that went stale was reported");
                    continue;
                }
                const auto searched = store.search(query(q), depth)[0];
                const std::size_t first = std::min(k, searched.size());
                QVERIFY2(sameList(lists.nearest(q), std::span(searched).first(first)),
                         qPrintable(QStringLiteral("step %1 query %2").arg(step).arg(q)));
                const float kth =
                    searched.size() < k ? -std::numeric_limits<float>::infinity() : searched[k - 1].similarity;
                QVERIFY(std::abs(lists.kth(q) - kth) <= kTolerance || (std::isinf(kth) && std::isinf(lists.kth(q))));
                // A key below the floor cannot enter: the floor is at most the k-th.
                QVERIFY(lists.floor(q) <= lists.kth(q) + kTolerance || std::isinf(lists.kth(q)));
                QVERIFY2(before[q].has_value(), "a held list was held before");
                if (!sameList(*before[q], lists.nearest(q)))
                    QVERIFY2(reported.contains(q), "a changed list was reported");
            }
            // Now and then the stale lists are searched again (a rerank).
            if (step % 10 == 9)
                for (std::size_t q = 0; q < queries; ++q)
                    if (lists.stale(q)) {
                        ++staleSeen;
                        lists.keep(q, store.search(query(q), depth)[0]);
                    }
        }
        qInfo("%zu stale lists searched again, %zu reports by adds, %zu by removals, %zu previews", staleSeen,
              reportedByAdd, reportedByRemoval, previews);
        QVERIFY2(staleSeen > 0, "removals made some lists stale");
        QVERIFY(reportedByAdd > 0 && reportedByRemoval > 0 && previews > 0);
        QVERIFY(lists.memoryBytes() >= queries * depth * sizeof(DatastoreNeighbor));
    }

    void refusesBadArguments() {
        QVERIFY_THROWS_EXCEPTION(Error, NeighbourLists(3, 0, 4));
        QVERIFY_THROWS_EXCEPTION(Error, NeighbourLists(3, 5, 4));
        NeighbourLists lists(2, 1, 2);
        QVERIFY_THROWS_EXCEPTION(Error, (void)lists.nearest(0));  // stale: must be searched first
        QVERIFY_THROWS_EXCEPTION(Error, (void)lists.withKey(1, DatastoreNeighbor{1, 0, 0.5f}));
        QVERIFY(lists.merge(0, {1, 0, 0.5f}));  // a stale list may change: reported
        lists.keep(0, {});
        QCOMPARE(lists.nearest(0).size(), std::size_t{0});
        QVERIFY(lists.merge(0, {1, 0, 0.5f}));
        QCOMPARE(keysOf(lists.nearest(0)), std::vector<std::uint64_t>{1});
        QCOMPARE(lists.remove(std::vector<std::uint64_t>{1}), std::vector<std::size_t>{0});
        QVERIFY(!lists.stale(0));  // it held every key: still exact, now empty
    }
};

QTEST_APPLESS_MAIN(TestNeighbourLists)
#include "test_neighbour_lists.moc"
