// A kNN datastore's fingerprint follows its content: the same keys give the same fingerprint
// whatever order they are stored in; a key added, removed or moved, or another encoder, gives
// another.
#include <QtTest>

#include <vector>

#include "retrieval/datastore_fingerprint.h"
#include "retrieval/knn_datastore.h"

using namespace linkscope::retrieval;

class TestDatastoreFingerprint : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void followsTheContent() {
        KnnDatastore a(3, "enc-A");
        a.add(std::vector<float>{1, 0, 0}, "MESH:D1", KeyOrigin::Training, "train:1");
        const auto second = a.add(std::vector<float>{0, 1, 0}, "MESH:D2", KeyOrigin::Accepted, "d1");
        const DatastoreFingerprint two = fingerprintOf(a);
        QCOMPARE(two.keys, std::uint64_t{2});
        QVERIFY(two.describe().starts_with("2 keys, fingerprint 0x"));

        KnnDatastore same(3, "enc-A");
        same.add(std::vector<float>{1, 0, 0}, "MESH:D1", KeyOrigin::Training, "train:1");
        same.add(std::vector<float>{0, 1, 0}, "MESH:D2", KeyOrigin::Accepted, "d1");
        QCOMPARE(fingerprintOf(same), two);

        KnnDatastore moved(3, "enc-A");
        moved.add(std::vector<float>{1, 0, 0}, "MESH:D1", KeyOrigin::Training, "train:1");
        moved.add(std::vector<float>{0, 0, 1}, "MESH:D2", KeyOrigin::Accepted, "d1");
        QCOMPARE(fingerprintOf(moved).keys, two.keys);
        QVERIFY(fingerprintOf(moved).hash != two.hash);  // same count, another vector

        KnnDatastore otherEncoder(3, "enc-B");
        otherEncoder.add(std::vector<float>{1, 0, 0}, "MESH:D1", KeyOrigin::Training, "train:1");
        otherEncoder.add(std::vector<float>{0, 1, 0}, "MESH:D2", KeyOrigin::Accepted, "d1");
        QVERIFY(fingerprintOf(otherEncoder).hash != two.hash);

        // Removing a key moves the last row into its place: storage order does not count.
        const auto third = a.add(std::vector<float>{0, 0, 1}, "MESH:D3", KeyOrigin::Corrected, "d2");
        const DatastoreFingerprint three = fingerprintOf(a);
        QVERIFY(three.hash != two.hash);
        QVERIFY(a.remove(third));
        QCOMPARE(fingerprintOf(a), two);
        QVERIFY(a.remove(second));
        QVERIFY(fingerprintOf(a).hash != two.hash);
    }
};

QTEST_GUILESS_MAIN(TestDatastoreFingerprint)
#include "test_datastore_fingerprint.moc"
