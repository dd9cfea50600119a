// TurnScheduler: GUI work cut into turns of the event loop (the views taking a project, the
// homonym listing, the raw file view's layout). Each turn runs one step; starting again or
// cancelling drops the rest; a turn queued for a destroyed context is not run.
#include <QCoreApplication>
#include <QObject>
#include <QTest>

#include <memory>

#include "turn_scheduler.h"

using linkscope::ui::TurnScheduler;

namespace {

// Delivers what is queued now and what that queues, a few rounds: enough for any turn queued
// before the call to have run, without waiting on a clock.
void runQueuedTurns(int rounds = 5) {
    for (int i = 0; i < rounds; ++i) QCoreApplication::processEvents();
}

struct Owner : QObject {
    TurnScheduler turns{this};
};

}  // namespace

class TestTurnScheduler : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void runsOneStepPerTurnUntilDone() {
        Owner owner;
        int steps = 0;
        owner.turns.start([&] { return ++steps < 4; });
        QCOMPARE(steps, 1);  // the first turn at once, the rest later
        QVERIFY(owner.turns.running());
        QTRY_VERIFY(!owner.turns.running());
        QCOMPARE(steps, 4);
        runQueuedTurns();
        QCOMPARE(steps, 4);  // nothing after the step said it was done
    }

    void aQueuedFirstTurnWaitsForTheEventLoop() {
        Owner owner;
        int steps = 0;
        owner.turns.start([&] { return ++steps < 2; }, TurnScheduler::FirstTurn::Queued);
        QCOMPARE(steps, 0);
        QVERIFY(owner.turns.running());
        QTRY_VERIFY(!owner.turns.running());
        QCOMPARE(steps, 2);
    }

    void otherEventsComeBetweenTurns() {
        // A turn is queued behind what is already waiting: a posted call gets in between.
        Owner owner;
        int steps = 0;
        int stepsWhenPostedRan = -1;
        owner.turns.start([&] {
            if (++steps == 1)
                QMetaObject::invokeMethod(
                    &owner, [&] { stepsWhenPostedRan = steps; }, Qt::QueuedConnection);
            return steps < 3;
        });
        QTRY_VERIFY(!owner.turns.running());
        QCOMPARE(stepsWhenPostedRan, 1);
        QCOMPARE(steps, 3);
    }

    void startingAgainDropsTheWorkUnderWay() {
        Owner owner;
        int first = 0;
        int second = 0;
        owner.turns.start([&] {
            ++first;
            return true;
        });  // would never finish
        owner.turns.start([&] { return ++second < 3; });
        QTRY_VERIFY(!owner.turns.running());
        runQueuedTurns();
        QCOMPARE(first, 1);
        QCOMPARE(second, 3);
    }

    void cancelStopsIt() {
        Owner owner;
        int steps = 0;
        owner.turns.start([&] {
            ++steps;
            return true;
        });
        owner.turns.cancel();
        QVERIFY(!owner.turns.running());
        runQueuedTurns();
        QCOMPARE(steps, 1);
    }

    void aStepMayStartOtherWork() {
        // The homonym listing's step can lead to a new project being listed, the raw view's
        // last turn to another window: the new work runs, the old one ends with that step.
        Owner owner;
        int old = 0;
        int fresh = 0;
        owner.turns.start([&] {
            ++old;
            owner.turns.start([&] { return ++fresh < 2; }, TurnScheduler::FirstTurn::Queued);
            return true;
        });
        QVERIFY(owner.turns.running());
        QTRY_VERIFY(!owner.turns.running());
        runQueuedTurns();
        QCOMPARE(old, 1);
        QCOMPARE(fresh, 2);
    }

    void aStepMayCancelItself() {
        Owner owner;
        int steps = 0;
        owner.turns.start([&] {
            if (++steps == 2) owner.turns.cancel();
            return true;
        });
        runQueuedTurns();
        QVERIFY(!owner.turns.running());
        QCOMPARE(steps, 2);
    }

    void aDestroyedOwnersTurnsDoNotRun() {
        auto owner = std::make_unique<Owner>();
        int steps = 0;
        owner->turns.start(
            [&] {
                ++steps;
                return true;
            },
            TurnScheduler::FirstTurn::Queued);
        owner.reset();
        runQueuedTurns();
        QCOMPARE(steps, 0);
    }
};

QTEST_GUILESS_MAIN(TestTurnScheduler)
#include "test_turn_scheduler.moc"
