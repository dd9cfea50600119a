#pragma once
// Comparing homonym figures with those of a naive count (test_kb_homonyms on random KBs,
// test_kb_data on the real vocabularies).
#include <QtTest/QtTest>

#include "kb/homonyms.h"

namespace linkscope::test {

/// QCOMPAREs the figures that need names only: no species, no count of expanded pairs.
inline void compareNameHomonymFigures(const kb::HomonymStatistics& got, const kb::HomonymStatistics& want) {
    QCOMPARE(got.entities, want.entities);
    QCOMPARE(got.pairs, want.pairs);
    QCOMPARE(got.distinctNames, want.distinctNames);
    QCOMPARE(got.homonymNames, want.homonymNames);
    QCOMPARE(got.homonymPairs, want.homonymPairs);
    QCOMPARE(got.preferredNamePairs, want.preferredNamePairs);
    QCOMPARE(got.otherNamePairs, want.otherNamePairs);
    QCOMPARE(got.unexpandablePairs, want.unexpandablePairs);
    QCOMPARE(got.failedPairs, want.failedPairs);
    QCOMPARE(got.remainingDuplicateNames, want.remainingDuplicateNames);
}

}  // namespace linkscope::test
