// The training losses on tensors small enough to compute by hand (each expected value is derived
// in the comment above it), their gradients (one SGD step lowers the loss, signs where they are
// obvious), the edge cases the papers leave to the implementation, and bad shapes.
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <set>

#include "test_data.h"
#include "train/losses.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::train;

namespace {

constexpr double kTolerance = 1e-5;

double valueOf(const torch::Tensor& tensor) { return tensor.item<double>(); }

bool near(double actual, double expected) { return std::abs(actual - expected) < kTolerance; }

#define LINKSCOPE_COMPARE_NEAR(actual, expected)                                                                \
    do {                                                                                                        \
        const double a_ = (actual), e_ = (expected);                                                            \
        QVERIFY2(near(a_, e_), qPrintable(QStringLiteral("%1 != %2").arg(a_, 0, 'g', 10).arg(e_, 0, 'g', 10))); \
    } while (false)

torch::Tensor leaf(const torch::Tensor& values) { return values.clone().set_requires_grad(true); }

double softplus(double x) { return std::log1p(std::exp(x)); }

/// The loss after one plain gradient step on `parameter` (which must have its grad from the
/// loss just computed): a smaller value means the gradient points downhill.
template <typename LossOf>
double lossAfterStep(const torch::Tensor& parameter, LossOf lossOf, double learningRate = 0.1) {
    torch::NoGradGuard noGrad;
    const auto stepped = parameter - learningRate * parameter.grad();
    return valueOf(lossOf(stepped));
}

torch::Tensor noHardNegatives(std::int64_t batch, std::int64_t dimension) {
    return torch::zeros({batch, 0, dimension}, torch::kDouble);
}

}  // namespace

class TestTrainLosses : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // ---- BioSyn marginal likelihood ---------------------------------------------------------
    void marginalLikelihoodMatchesHandComputation() {
        // Row 0: all scores 0, P = 1/4 each, two positives: marginal 1/2, -log = ln 2.
        // Row 1: e^(ln 3) = 3 and three e^0 = 1: sum 6, the positive has P = 1/6: ln 6.
        // Row 2: no positive, dropped. Loss = (ln 2 + ln 6) / 2 = ln(12) / 2 = 1.2424533.
        const auto scores =
            torch::tensor({{0.0, 0.0, 0.0, 0.0}, {std::log(3.0), 0.0, 0.0, 0.0}, {5.0, 1.0, 2.0, 3.0}}, torch::kDouble);
        const auto positives =
            torch::tensor({{true, true, false, false}, {false, true, false, false}, {false, false, false, false}});
        LINKSCOPE_COMPARE_NEAR(valueOf(marginalLikelihoodLoss(scores, positives)), std::log(12.0) / 2.0);
        // float32 gives the same value.
        LINKSCOPE_COMPARE_NEAR(valueOf(marginalLikelihoodLoss(scores.to(torch::kFloat), positives)),
                               std::log(12.0) / 2.0);
    }

    void marginalLikelihoodClampsTheMarginalAt1e9() {
        // P(positive) = 1 / (1 + e^30) = 9.4e-14 < 1e-9: BioSyn's clamp makes the loss
        // -ln(1e-9) = 9 ln 10 = 20.7232658, and a clamped row gives no gradient.
        const auto scores = leaf(torch::tensor({{0.0, 30.0}}, torch::kDouble));
        const auto loss = marginalLikelihoodLoss(scores, torch::tensor({{true, false}}));
        LINKSCOPE_COMPARE_NEAR(valueOf(loss), 9.0 * std::log(10.0));
        loss.backward();
        QCOMPARE(valueOf(scores.grad().abs().sum()), 0.0);
    }

    void marginalLikelihoodWithoutAnyPositiveIsZero() {
        const auto scores = leaf(torch::tensor({{1.0, 2.0}, {3.0, 4.0}}, torch::kDouble));
        const auto loss = marginalLikelihoodLoss(scores, torch::zeros({2, 2}, torch::kBool));
        QCOMPARE(valueOf(loss), 0.0);
        loss.backward();  // still on the graph: zero gradients, no NaN
        QCOMPARE(valueOf(scores.grad().abs().sum()), 0.0);
        // An empty batch too.
        QCOMPARE(valueOf(marginalLikelihoodLoss(torch::zeros({0, 3}), torch::zeros({0, 3}, torch::kBool))), 0.0);
    }

    void marginalLikelihoodGradientRaisesThePositives() {
        const auto positives = torch::tensor({{true, false, false}, {false, false, false}});
        const auto lossOf = [&](const torch::Tensor& s) { return marginalLikelihoodLoss(s, positives); };
        const auto scores = leaf(torch::tensor({{0.0, 1.0, 2.0}, {1.0, 0.0, 0.0}}, torch::kDouble));
        const auto loss = lossOf(scores);
        loss.backward();
        const auto grad = scores.grad();
        // d(-log P_0)/ds_0 = P_0 - 1 < 0, d/ds_j = P_j > 0: descent raises the positive.
        QVERIFY(valueOf(grad[0][0]) < 0.0);
        QVERIFY(valueOf(grad[0][1]) > 0.0);
        QVERIFY(valueOf(grad[0][2]) > 0.0);
        QCOMPARE(valueOf(grad[1].abs().sum()), 0.0);  // the dropped row
        QVERIFY(lossAfterStep(scores, lossOf) < valueOf(loss));
    }

    void marginalLikelihoodRejectsBadInput() {
        const auto scores = torch::zeros({2, 3});
        QVERIFY_THROWS_EXCEPTION(Error, marginalLikelihoodLoss(torch::zeros({3}), torch::zeros({3}, torch::kBool)));
        QVERIFY_THROWS_EXCEPTION(Error, marginalLikelihoodLoss(scores, torch::zeros({2, 4}, torch::kBool)));
        QVERIFY_THROWS_EXCEPTION(Error, marginalLikelihoodLoss(scores, torch::zeros({2, 3}, torch::kLong)));
        QVERIFY_THROWS_EXCEPTION(
            Error, marginalLikelihoodLoss(torch::zeros({2, 3}, torch::kLong), torch::zeros({2, 3}, torch::kBool)));
        QVERIFY_THROWS_EXCEPTION(Error, marginalLikelihoodLoss(torch::Tensor(), torch::zeros({2, 3}, torch::kBool)));
    }

    // ---- Xu & Bethard batch-hard soft-margin triplet ------------------------------------------
    void batchHardMatchesHandComputation() {
        // Label 0: a=(0,0), b=(0,3), e=(0,6); label 1: c=(4,0), d=(4,3).
        // Distances: ab 3, ae 6, be 3, ac 4, ad 5, bc 5, bd 4, ec sqrt(52)=7.21, ed 5, cd 3.
        //   a: hardest positive max(3, 6) = 6, hardest negative min(4, 5) = 4  -> softplus(2)
        //   b: max(3, 3) = 3, min(5, 4) = 4                                     -> softplus(-1)
        //   e: max(6, 3) = 6, min(7.21, 5) = 5                                  -> softplus(1)
        //   c: positive d at 3, min(4, 5, 7.21) = 4                             -> softplus(-1)
        //   d: positive c at 3, min(5, 4, 5) = 4                                -> softplus(-1)
        // Mean = (2.1269280 + 1.3132617 + 3 * 0.3132617) / 5 = 0.8759949.
        const auto embeddings =
            torch::tensor({{0.0, 0.0}, {0.0, 3.0}, {0.0, 6.0}, {4.0, 0.0}, {4.0, 3.0}}, torch::kDouble);
        const auto labels = torch::tensor({0, 0, 0, 1, 1}, torch::kLong);
        const double expected = (softplus(2.0) + softplus(1.0) + 3.0 * softplus(-1.0)) / 5.0;
        LINKSCOPE_COMPARE_NEAR(valueOf(batchHardSoftMarginLoss(embeddings, labels)), expected);
        LINKSCOPE_COMPARE_NEAR(valueOf(batchHardSoftMarginLoss(embeddings.to(torch::kFloat), labels)), expected);
    }

    void batchHardLeavesOutAnchorsWithoutPositiveOrNegative() {
        // A far singleton of label 2 has no positive (not an anchor) and is nobody's nearest
        // negative: the loss is unchanged.
        const auto embeddings =
            torch::tensor({{0.0, 0.0}, {0.0, 3.0}, {0.0, 6.0}, {4.0, 0.0}, {4.0, 3.0}, {100.0, 100.0}}, torch::kDouble);
        const auto labels = torch::tensor({0, 0, 0, 1, 1, 2}, torch::kLong);
        const double expected = (softplus(2.0) + softplus(1.0) + 3.0 * softplus(-1.0)) / 5.0;
        LINKSCOPE_COMPARE_NEAR(valueOf(batchHardSoftMarginLoss(embeddings, labels)), expected);

        // One concept only: no anchor has a negative, the loss is 0 and backward gives zeros.
        const auto same = leaf(torch::tensor({{0.0, 0.0}, {1.0, 1.0}}, torch::kDouble));
        const auto loss = batchHardSoftMarginLoss(same, torch::tensor({5, 5}, torch::kLong));
        QCOMPARE(valueOf(loss), 0.0);
        loss.backward();
        QCOMPARE(valueOf(same.grad().abs().sum()), 0.0);
        // All singletons: no positive anywhere.
        QCOMPARE(valueOf(batchHardSoftMarginLoss(torch::eye(3), torch::tensor({0, 1, 2}, torch::kLong))), 0.0);
    }

    void batchHardGradientIsFiniteAndDescends() {
        // Rows 0 and 1 coincide (distance 0, where sqrt has no finite derivative).
        const auto labels = torch::tensor({0, 0, 1, 1}, torch::kLong);
        const auto lossOf = [&](const torch::Tensor& x) { return batchHardSoftMarginLoss(x, labels); };
        const auto embeddings = leaf(torch::tensor({{1.0, 1.0}, {1.0, 1.0}, {1.5, 1.0}, {3.0, 0.0}}, torch::kDouble));
        const auto loss = lossOf(embeddings);
        loss.backward();
        QVERIFY(torch::isfinite(embeddings.grad()).all().item<bool>());
        QVERIFY(valueOf(embeddings.grad().abs().sum()) > 0.0);
        QVERIFY(lossAfterStep(embeddings, lossOf) < valueOf(loss));
    }

    void batchHardRejectsBadInput() {
        const auto embeddings = torch::zeros({3, 2});
        QVERIFY_THROWS_EXCEPTION(Error, batchHardSoftMarginLoss(torch::zeros({3}), torch::zeros({3}, torch::kLong)));
        QVERIFY_THROWS_EXCEPTION(Error, batchHardSoftMarginLoss(embeddings, torch::zeros({4}, torch::kLong)));
        QVERIFY_THROWS_EXCEPTION(Error, batchHardSoftMarginLoss(embeddings, torch::zeros({3}, torch::kInt)));
        QVERIFY_THROWS_EXCEPTION(Error, batchHardSoftMarginLoss(embeddings, torch::zeros({3, 1}, torch::kLong)));
    }

    // ---- kNN-BioEL InfoNCE --------------------------------------------------------------------
    void infoNceMatchesHandComputation() {
        // Lengths differ on purpose (cosine ignores them). m0 = (2,0), m1 = (0,3);
        // e0 = (5,0), e1 = (0,0.5): s(m0,e0) = 1, s(m0,e1) = 0, s(m1,e0) = 0, s(m1,e1) = 1.
        // Hard negatives h0 = (3,4) for m0 and h1 = (4,3) for m1: cosine 0.6 each.
        // tau = 1: loss_i = -log(e / (e + 1 + e^0.6)) = log(1 + e^-1 + e^-0.4) = 0.7120668, both rows.
        const auto mentions = torch::tensor({{2.0, 0.0}, {0.0, 3.0}}, torch::kDouble);
        const auto entities = torch::tensor({{5.0, 0.0}, {0.0, 0.5}}, torch::kDouble);
        const auto hard = torch::tensor({{{3.0, 4.0}}, {{4.0, 3.0}}}, torch::kDouble);
        LINKSCOPE_COMPARE_NEAR(valueOf(infoNceLoss(mentions, entities, hard, 1.0)),
                               std::log(1.0 + std::exp(-1.0) + std::exp(-0.4)));
    }

    void infoNceWithoutHardNegativesUsesTheTemperature() {
        // P = 0, tau = 0.5: logits 2 (positive) and 0: loss = log(1 + e^-2) = 0.1269280.
        const auto mentions = torch::tensor({{1.0, 0.0}, {0.0, 1.0}}, torch::kDouble);
        LINKSCOPE_COMPARE_NEAR(valueOf(infoNceLoss(mentions, mentions, noHardNegatives(2, 2), 0.5)),
                               std::log1p(std::exp(-2.0)));
        // tau = 0.01 (the paper's): logits 100 and 0, loss = log(1 + e^-100), about 0.
        LINKSCOPE_COMPARE_NEAR(valueOf(infoNceLoss(mentions, mentions, noHardNegatives(2, 2), 0.01)), 0.0);
        // Empty batch: 0.
        QCOMPARE(valueOf(infoNceLoss(torch::zeros({0, 2}, torch::kDouble), torch::zeros({0, 2}, torch::kDouble),
                                     noHardNegatives(0, 2), 1.0)),
                 0.0);
    }

    void infoNceMasksOtherMentionsOfTheSameEntity() {
        // m0 = m2 = (1,0), m1 = (0,1); entities likewise, ids 7, 8, 7 (m0 and m2 share theirs).
        // Unmasked, row 0: logits 1, 0, 1 -> -log(e / (2e + 1)) = log(2 + e^-1); row 2 alike;
        // row 1: 0, 1, 0 -> log(1 + 2e^-1). Masked: row 0 loses column 2 -> log(1 + e^-1).
        const auto unit = torch::tensor({{1.0, 0.0}, {0.0, 1.0}, {1.0, 0.0}}, torch::kDouble);
        const auto ids = torch::tensor({7, 8, 7}, torch::kLong);
        const double row1 = std::log(1.0 + 2.0 * std::exp(-1.0));
        LINKSCOPE_COMPARE_NEAR(valueOf(infoNceLoss(unit, unit, noHardNegatives(3, 2), 1.0)),
                               (2.0 * std::log(2.0 + std::exp(-1.0)) + row1) / 3.0);
        LINKSCOPE_COMPARE_NEAR(valueOf(infoNceLoss(unit, unit, noHardNegatives(3, 2), 1.0, ids)),
                               (2.0 * std::log(1.0 + std::exp(-1.0)) + row1) / 3.0);
    }

    void infoNceGradientDescends() {
        const auto entities = torch::tensor({{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}}, torch::kDouble);
        const auto hard = torch::tensor({{{0.9, 0.1, 0.0}}, {{0.0, 0.8, 0.3}}, {{0.5, 0.0, 0.5}}}, torch::kDouble);
        const auto lossOf = [&](const torch::Tensor& m) { return infoNceLoss(m, entities, hard, 0.5); };
        const auto mentions = leaf(torch::tensor({{0.5, 0.5, 0.1}, {0.2, 0.6, 0.6}, {0.4, 0.3, 0.5}}, torch::kDouble));
        const auto loss = lossOf(mentions);
        loss.backward();
        QVERIFY(torch::isfinite(mentions.grad()).all().item<bool>());
        QVERIFY(lossAfterStep(mentions, lossOf) < valueOf(loss));
    }

    void infoNceRejectsBadInput() {
        const auto m = torch::zeros({2, 3});
        const auto h = torch::zeros({2, 1, 3});
        QVERIFY_THROWS_EXCEPTION(Error, infoNceLoss(m, torch::zeros({3, 3}), h, 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, infoNceLoss(m, m, torch::zeros({2, 3}), 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, infoNceLoss(m, m, torch::zeros({2, 1, 4}), 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, infoNceLoss(m, m, torch::zeros({3, 1, 3}), 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, infoNceLoss(m, m.to(torch::kDouble), h, 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, infoNceLoss(m, m, h, 0.0));
        QVERIFY_THROWS_EXCEPTION(Error, infoNceLoss(m, m, h, -1.0));
        QVERIFY_THROWS_EXCEPTION(Error, infoNceLoss(m, m, h, 1.0, torch::zeros({3}, torch::kLong)));
        QVERIFY_THROWS_EXCEPTION(Error, infoNceLoss(m, m, h, 1.0, torch::zeros({2}, torch::kFloat)));
    }

    // ---- Le & Nguyen prototype-based triplet --------------------------------------------------
    void prototypeTripletMatchesHandComputation() {
        // Cluster 0: (0,0) and (2,0) -> prototype (1,0); e+ = (1,3) at 3, e- = (1,1) at 1:
        //   max(0, 3 - 1 + 1) = 3 (the squared distances of eq. 1 would give 9 - 1 + 1 = 9).
        // Cluster 1: (0,2), (0,4), (0,6) -> (0,4); e+ = (0,5) at 1, e- = (0,0) at 4:
        //   max(0, 1 - 4 + 1) = 0. Mean over the clusters = 1.5.
        const auto mentions =
            torch::tensor({{0.0, 2.0}, {0.0, 0.0}, {0.0, 4.0}, {2.0, 0.0}, {0.0, 6.0}}, torch::kDouble);
        const auto clusterOf = torch::tensor({1, 0, 1, 0, 1}, torch::kLong);
        const auto positive = torch::tensor({{1.0, 3.0}, {0.0, 5.0}}, torch::kDouble);
        const auto negative = torch::tensor({{1.0, 1.0}, {0.0, 0.0}}, torch::kDouble);
        LINKSCOPE_COMPARE_NEAR(valueOf(prototypeTripletLoss(mentions, clusterOf, positive, negative, 1.0)), 1.5);
    }

    void prototypeTripletIsZeroWhenTheMarginHolds() {
        // Cluster 1 of the example alone: 1 - 4 + 1 < 0 -> 0, and no gradient.
        const auto mentions = leaf(torch::tensor({{0.0, 2.0}, {0.0, 4.0}, {0.0, 6.0}}, torch::kDouble));
        const auto loss =
            prototypeTripletLoss(mentions, torch::zeros({3}, torch::kLong), torch::tensor({{0.0, 5.0}}, torch::kDouble),
                                 torch::tensor({{0.0, 0.0}}, torch::kDouble), 1.0);
        QCOMPARE(valueOf(loss), 0.0);
        loss.backward();
        QCOMPARE(valueOf(mentions.grad().abs().sum()), 0.0);
        // With margin 3.5 it no longer holds: 1 - 4 + 3.5 = 0.5.
        LINKSCOPE_COMPARE_NEAR(valueOf(prototypeTripletLoss(mentions.detach(), torch::zeros({3}, torch::kLong),
                                                            torch::tensor({{0.0, 5.0}}, torch::kDouble),
                                                            torch::tensor({{0.0, 0.0}}, torch::kDouble), 3.5)),
                               0.5);
    }

    void prototypeTripletGradientMovesEveryMention() {
        const auto clusterOf = torch::tensor({0, 0, 1}, torch::kLong);
        // e+ and e- not on one ray from the prototype (1,0), which would cancel its gradient.
        const auto positive = torch::tensor({{1.0, 3.0}, {2.0, 2.0}}, torch::kDouble);
        const auto negative = torch::tensor({{2.0, 0.0}, {0.0, 0.0}}, torch::kDouble);
        const auto lossOf = [&](const torch::Tensor& m) {
            return prototypeTripletLoss(m, clusterOf, positive, negative, 1.0);
        };
        const auto mentions = leaf(torch::tensor({{0.0, 0.0}, {2.0, 0.0}, {0.5, 0.5}}, torch::kDouble));
        const auto loss = lossOf(mentions);
        loss.backward();
        const auto grad = mentions.grad();
        // Both mentions of cluster 0 share the prototype's gradient, halved.
        QVERIFY(torch::allclose(grad[0], grad[1]));
        QVERIFY(valueOf(grad[0].abs().sum()) > 0.0);
        QVERIFY(valueOf(grad[2].abs().sum()) > 0.0);
        QVERIFY(lossAfterStep(mentions, lossOf) < valueOf(loss));
    }

    void prototypeTripletRejectsBadInput() {
        const auto m = torch::zeros({3, 2});
        const auto e = torch::zeros({2, 2});
        const auto ok = torch::tensor({0, 1, 1}, torch::kLong);
        QVERIFY_THROWS_EXCEPTION(Error, prototypeTripletLoss(m, torch::tensor({0, 0, 0}, torch::kLong), e, e, 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, prototypeTripletLoss(m, torch::tensor({0, 2, 1}, torch::kLong), e, e, 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, prototypeTripletLoss(m, torch::tensor({0, -1, 1}, torch::kLong), e, e, 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, prototypeTripletLoss(m, torch::tensor({0, 1}, torch::kLong), e, e, 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, prototypeTripletLoss(m, ok.to(torch::kInt), e, e, 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, prototypeTripletLoss(m, ok, torch::zeros({2, 3}), e, 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, prototypeTripletLoss(m, ok, e, torch::zeros({3, 2}), 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, prototypeTripletLoss(m, ok, e, e, -0.5));
        QVERIFY_THROWS_EXCEPTION(Error, prototypeTripletLoss(m, ok, e, e, std::numeric_limits<double>::quiet_NaN()));
    }

    // ---- Le & Nguyen soft-radius neighbour clustering (Algorithm 1) ---------------------------
    void softRadiusClusterFollowsAlgorithm1() {
        // Anchor m0 = (0,0); m1 = (3,0) at 3, m2 = (0,4) at 4, m3 = (10,0) at 10.
        // lambda = 3.5, epsilon = 1: threshold 4.5 -> {m0, m1, m2}, r = 4,
        // L = (3.5 - 4)^2 = 0.25, dL/dlambda = 2 (3.5 - 4) = -1.
        const auto mentions = leaf(torch::tensor({{0.0, 0.0}, {3.0, 0.0}, {0.0, 4.0}, {10.0, 0.0}}, torch::kDouble));
        const auto lambda = leaf(torch::tensor(3.5, torch::kDouble));
        const auto cluster = softRadiusCluster(mentions, 0, lambda, 1.0);
        QCOMPARE(cluster.anchor, std::int64_t{0});
        QVERIFY(torch::equal(cluster.members, torch::tensor({true, true, true, false})));
        QCOMPARE(cluster.radius, 4.0);
        LINKSCOPE_COMPARE_NEAR(valueOf(cluster.radiusLoss), 0.25);
        cluster.radiusLoss.backward();
        LINKSCOPE_COMPARE_NEAR(valueOf(lambda.grad()), -1.0);
        QVERIFY(!mentions.grad().defined());  // the radius' loss moves lambda only
        // One step on lambda brings it towards r: lambda 3.6, (3.6 - 4)^2 = 0.16.
        const auto stepped = (lambda.detach() - 0.1 * lambda.grad()).set_requires_grad(true);
        LINKSCOPE_COMPARE_NEAR(valueOf(softRadiusCluster(mentions, 0, stepped, 1.0).radiusLoss), 0.16);
    }

    void softRadiusClusterBoundaryAndLoneAnchor() {
        const auto mentions = torch::tensor({{0.0, 0.0}, {3.0, 0.0}, {0.0, 4.0}, {10.0, 0.0}}, torch::kDouble);
        // lambda + epsilon = 4 exactly: m2 at distance 4 is in (line 6 compares with <=).
        const auto boundary = softRadiusCluster(mentions, 0, torch::tensor(3.0, torch::kDouble), 1.0);
        QVERIFY(torch::equal(boundary.members, torch::tensor({true, true, true, false})));
        QCOMPARE(boundary.radius, 4.0);
        // Around m3 (distances 10, 7, sqrt(116), 0) nothing is within 4.5: a cluster of the
        // anchor alone, r = 0, L = 3.5^2 = 12.25.
        const auto lone = softRadiusCluster(mentions, 3, torch::tensor(3.5, torch::kDouble), 1.0);
        QVERIFY(torch::equal(lone.members, torch::tensor({false, false, false, true})));
        QCOMPARE(lone.radius, 0.0);
        LINKSCOPE_COMPARE_NEAR(valueOf(lone.radiusLoss), 12.25);
        // A radius driven below -epsilon still keeps the anchor in its own cluster.
        const auto negative = softRadiusCluster(mentions, 1, torch::tensor(-5.0, torch::kDouble), 1.0);
        QVERIFY(torch::equal(negative.members, torch::tensor({false, true, false, false})));
    }

    void softRadiusClusterDrawsTheAnchorFromTheSeed() {
        const auto mentions = torch::tensor({{0.0, 0.0}, {3.0, 0.0}, {0.0, 4.0}, {10.0, 0.0}}, torch::kDouble);
        const auto lambda = torch::tensor(3.5, torch::kDouble);
        std::mt19937_64 first(42), second(42);
        std::set<std::int64_t> anchors;
        for (int draw = 0; draw < 200; ++draw) {
            const auto a = softRadiusCluster(mentions, first, lambda, 1.0);
            const auto b = softRadiusCluster(mentions, second, lambda, 1.0);
            QCOMPARE(a.anchor, b.anchor);  // a seed gives the same anchors
            QVERIFY(a.anchor >= 0 && a.anchor < 4);
            // The drawn anchor's cluster is the one formed around it explicitly.
            QVERIFY(torch::equal(a.members, softRadiusCluster(mentions, a.anchor, lambda, 1.0).members));
            anchors.insert(a.anchor);
        }
        QCOMPARE(anchors.size(), std::size_t{4});  // every mention can be drawn
    }

    void softRadiusClusterRejectsBadInput() {
        const auto mentions = torch::zeros({3, 2}, torch::kDouble);
        const auto lambda = torch::tensor(1.0, torch::kDouble);
        std::mt19937_64 rng(1);
        QVERIFY_THROWS_EXCEPTION(Error, softRadiusCluster(torch::zeros({0, 2}), 0, lambda, 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, softRadiusCluster(torch::zeros({0, 2}), rng, lambda, 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, softRadiusCluster(torch::zeros({3}), 0, lambda, 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, softRadiusCluster(mentions, 3, lambda, 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, softRadiusCluster(mentions, -1, lambda, 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, softRadiusCluster(mentions, 0, torch::ones({2}), 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, softRadiusCluster(mentions, 0, torch::tensor(1, torch::kLong), 1.0));
        QVERIFY_THROWS_EXCEPTION(Error, softRadiusCluster(mentions, 0, lambda, -1.0));
        QVERIFY_THROWS_EXCEPTION(
            Error, softRadiusCluster(mentions, 0, torch::tensor(std::numeric_limits<double>::infinity()), 1.0));
    }

    // ---- SapBERT's multi-similarity loss with hard-pair mining ----------------------------------
    // Unit vectors at cosines S01 = 0.8, S02 = 0.6, S03 = 0, S12 = 0.96, S13 = 0.6, S23 = 0.8;
    // labels 0 0 1 1; alpha 2, beta 50, base 0.5, epsilon 0.25. Mining: anchor 0 keeps its
    // positive (0.8 - 0.25 < 0.6, its hardest negative) and negative 2 only (0.6 + 0.25 > 0.8;
    // 0 + 0.25 is not); anchor 1 keeps its positive and both negatives (0.96 and 0.6, each plus
    // 0.25 above 0.8). Anchors 3 and 2 mirror 0 and 1.
    void multiSimilarityByHand() {
        const auto embeddings =
            leaf(torch::tensor({1.0, 0.0, 0.8, 0.6, 0.6, 0.8, 0.0, 1.0}, torch::kDouble).reshape({4, 2}));
        const auto labels = torch::tensor({0, 0, 1, 1}, torch::kLong);
        const double anchor0 = 0.5 * std::log1p(std::exp(-2.0 * 0.3)) + std::log1p(std::exp(50.0 * 0.1)) / 50.0;
        const double anchor1 = 0.5 * std::log1p(std::exp(-2.0 * 0.3)) +
                               std::log(1.0 + std::exp(50.0 * 0.46) + std::exp(50.0 * 0.1)) / 50.0;
        const auto loss = multiSimilarityLoss(embeddings, labels, 2.0, 50.0, 0.5, 0.25);
        LINKSCOPE_COMPARE_NEAR(valueOf(loss), (2 * anchor0 + 2 * anchor1) / 4);
        // Scale does not matter (cosines), and one gradient step lowers the loss.
        LINKSCOPE_COMPARE_NEAR(valueOf(multiSimilarityLoss(embeddings * 3.0, labels, 2.0, 50.0, 0.5, 0.25)),
                               valueOf(loss));
        loss.backward();
        QVERIFY(torch::isfinite(embeddings.grad()).all().item<bool>());
        QVERIFY(lossAfterStep(embeddings, [&](const torch::Tensor& stepped) {
                    return multiSimilarityLoss(stepped, labels, 2.0, 50.0, 0.5, 0.25);
                }) < valueOf(loss));
    }

    // A batch whose positives are all nearer than every negative by more than epsilon has no
    // hard pair: the loss is 0 (and still backward()-able). So is a batch without positives.
    void multiSimilarityIgnoresEasyPairs() {
        const auto easy = leaf(torch::tensor({1.0, 0.0, 1.0, 0.01, 0.0, 1.0, 0.01, 1.0}).reshape({4, 2}));
        const auto loss = multiSimilarityLoss(easy, torch::tensor({0, 0, 1, 1}, torch::kLong), 2.0, 50.0, 0.5, 0.2);
        LINKSCOPE_COMPARE_NEAR(valueOf(loss), 0.0);
        loss.backward();
        QVERIFY(easy.grad().defined());
        const auto alone = multiSimilarityLoss(easy, torch::tensor({0, 1, 2, 3}, torch::kLong), 2.0, 50.0, 0.5, 0.2);
        LINKSCOPE_COMPARE_NEAR(valueOf(alone), 0.0);
        // A large beta does not overflow: similarities near 1 against base 0.5 with beta 1000.
        const auto close = torch::tensor({1.0, 0.0, 1.0, 0.001, 0.999, 0.0, 1.0, 0.002}).reshape({4, 2});
        QVERIFY(std::isfinite(
            valueOf(multiSimilarityLoss(close, torch::tensor({0, 1, 0, 1}, torch::kLong), 2.0, 1000.0, 0.5, 0.2))));
    }

    void multiSimilarityRejectsBadInput() {
        const auto embeddings = torch::zeros({3, 2});
        const auto labels = torch::zeros({3}, torch::kLong);
        QVERIFY_THROWS_EXCEPTION(Error, multiSimilarityLoss(torch::zeros({3}), labels, 2, 50, 0.5, 0.2));
        QVERIFY_THROWS_EXCEPTION(Error,
                                 multiSimilarityLoss(embeddings, torch::zeros({4}, torch::kLong), 2, 50, 0.5, 0.2));
        QVERIFY_THROWS_EXCEPTION(Error, multiSimilarityLoss(embeddings, torch::zeros({3}), 2, 50, 0.5, 0.2));
        QVERIFY_THROWS_EXCEPTION(Error, multiSimilarityLoss(embeddings, labels, 0, 50, 0.5, 0.2));
        QVERIFY_THROWS_EXCEPTION(Error, multiSimilarityLoss(embeddings, labels, 2, -1, 0.5, 0.2));
        QVERIFY_THROWS_EXCEPTION(Error, multiSimilarityLoss(embeddings, labels, 2, 50, 0.5, -0.1));
        QVERIFY_THROWS_EXCEPTION(Error, multiSimilarityLoss(embeddings.to(torch::kLong), labels, 2, 50, 0.5, 0.2));
    }

    // ---- online hardest negative --------------------------------------------------------------
    void hardestNegativeSkipsPositives() {
        // The nearest candidate (index 1, 0.2) is a positive: the hardest negative is 3 (0.3).
        const auto distances = torch::tensor({0.5, 0.2, 0.9, 0.3});
        QVERIFY(hardestNegative(distances, torch::tensor({false, true, false, false})) ==
                std::optional<std::int64_t>(3));
        QVERIFY(hardestNegative(distances, torch::tensor({false, false, false, false})) ==
                std::optional<std::int64_t>(1));
        QVERIFY(!hardestNegative(distances, torch::ones({4}, torch::kBool)).has_value());
        QVERIFY(!hardestNegative(torch::zeros({0}), torch::zeros({0}, torch::kBool)).has_value());
        // A NaN distance is never the answer; ties go to the lower index.
        const auto withNan = torch::tensor({std::numeric_limits<double>::quiet_NaN(), 0.7, 0.7});
        QVERIFY(hardestNegative(withNan, torch::zeros({3}, torch::kBool)) == std::optional<std::int64_t>(1));
    }

    void hardestNegativeRejectsBadInput() {
        QVERIFY_THROWS_EXCEPTION(Error, hardestNegative(torch::zeros({3}), torch::zeros({4}, torch::kBool)));
        QVERIFY_THROWS_EXCEPTION(Error, hardestNegative(torch::zeros({3}), torch::zeros({3}, torch::kLong)));
        QVERIFY_THROWS_EXCEPTION(Error, hardestNegative(torch::zeros({3, 1}), torch::zeros({3}, torch::kBool)));
        QVERIFY_THROWS_EXCEPTION(Error,
                                 hardestNegative(torch::zeros({3}, torch::kLong), torch::zeros({3}, torch::kBool)));
    }
};

QTEST_APPLESS_MAIN(TestTrainLosses)
#include "test_losses.moc"
