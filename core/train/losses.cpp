#include "train/losses.h"

#include <cmath>
#include <limits>
#include <string>
#include <string_view>

#include "util/error.h"

namespace linkscope::train {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::string shapeText(const torch::Tensor& tensor) {
    std::string text = "[";
    for (std::int64_t i = 0; i < tensor.dim(); ++i) {
        if (i > 0) text += ", ";
        text += std::to_string(tensor.size(i));
    }
    return text + "]";
}

[[noreturn]] void fail(std::string_view function, const std::string& message) {
    throw Error("linkscope::train::" + std::string(function) + ": " + message);
}

void requireRank(std::string_view function, std::string_view name, const torch::Tensor& tensor, std::int64_t rank,
                 std::string_view expected) {
    if (!tensor.defined()) fail(function, std::string(name) + " is an undefined tensor");
    if (tensor.dim() != rank)
        fail(function, std::string(name) + " must be " + std::string(expected) + ", got " + shapeText(tensor));
}

void requireFloating(std::string_view function, std::string_view name, const torch::Tensor& tensor) {
    if (!c10::isFloatingType(tensor.scalar_type()))
        fail(function,
             std::string(name) + " must be a floating tensor, got " + std::string(c10::toString(tensor.scalar_type())));
}

void requireDtype(std::string_view function, std::string_view name, const torch::Tensor& tensor,
                  torch::ScalarType dtype) {
    if (tensor.scalar_type() != dtype)
        fail(function, std::string(name) + " must be " + std::string(c10::toString(dtype)) + ", got " +
                           std::string(c10::toString(tensor.scalar_type())));
}

void requireSameDtype(std::string_view function, std::string_view name, const torch::Tensor& tensor,
                      const torch::Tensor& reference) {
    requireDtype(function, name, tensor, reference.scalar_type());
}

void requireSize(std::string_view function, std::string_view name, const torch::Tensor& tensor, std::int64_t dim,
                 std::int64_t expected, std::string_view what) {
    if (tensor.size(dim) != expected)
        fail(function, std::string(name) + " " + shapeText(tensor) + ": dimension " + std::to_string(dim) +
                           " must be " + std::to_string(expected) + " (" + std::string(what) + ")");
}

/// Mean of the per-item losses, or their (empty) sum = 0 when there is none: a mean of nothing
/// is NaN, and the empty sum stays connected to the graph, so backward() gives zero gradients.
torch::Tensor averageOrZero(const torch::Tensor& perItem) {
    return perItem.numel() == 0 ? perItem.sum() : perItem.mean();
}

/// sqrt with a finite gradient at 0: d sqrt(x)/dx is infinite there and 0 * inf = NaN would
/// poison every gradient of the batch (two identical embeddings give a distance of exactly 0).
/// The inner where keeps sqrt away from 0, the outer one gives 0 (and gradient 0) there.
torch::Tensor safeSqrt(const torch::Tensor& squared) {
    const auto positive = squared > 0;
    const auto shielded = torch::where(positive, squared, torch::ones_like(squared));
    return torch::where(positive, shielded.sqrt(), torch::zeros_like(squared));
}

/// Euclidean norm along `dim` with the safe gradient at 0.
torch::Tensor safeNorm(const torch::Tensor& vectors, std::int64_t dim, bool keepDim = false) {
    return safeSqrt(vectors.pow(2).sum(dim, keepDim));
}

/// Euclidean distances between all rows of x [B, D] -> [B, B], from the Gram matrix
/// (|a|^2 + |b|^2 - 2 a.b) rather than from the differences: those take B * B * D memory, which
/// at Xu & Bethard's batch of 1500 and D = 768 is 7 GB. Rounding can make a squared distance
/// slightly negative, hence the clamp (as sentence-transformers' batch-hard losses do it).
torch::Tensor pairwiseDistances(const torch::Tensor& x) {
    const auto squaredNorms = x.pow(2).sum(1);
    const auto squared = squaredNorms.unsqueeze(1) + squaredNorms.unsqueeze(0) - 2.0 * x.matmul(x.t());
    return safeSqrt(squared.clamp_min(0.0));
}

/// Rows scaled to unit length, as F.normalize does it (a zero row stays zero: cosine 0).
torch::Tensor unitRows(const torch::Tensor& x) { return x / safeNorm(x, -1, /*keepDim=*/true).clamp_min(1e-12); }

/// [size, size] bool: element (i, j) is i == j.
torch::Tensor diagonalMask(std::int64_t size, const torch::Device& device) {
    const auto index = torch::arange(size, torch::TensorOptions().dtype(torch::kLong).device(device));
    return index.unsqueeze(1) == index.unsqueeze(0);
}

void requireSoftRadiusInputs(const torch::Tensor& mentions, const torch::Tensor& lambda, double epsilon) {
    constexpr std::string_view fn = "softRadiusCluster";
    requireRank(fn, "mentionEmbeddings", mentions, 2, "[N, D]");
    requireFloating(fn, "mentionEmbeddings", mentions);
    if (mentions.size(0) == 0) fail(fn, "mentionEmbeddings has no mention to cluster");
    if (!lambda.defined() || lambda.numel() != 1)
        fail(fn, "lambda must be a one-element tensor, got " + (lambda.defined() ? shapeText(lambda) : "undefined"));
    requireFloating(fn, "lambda", lambda);
    if (!std::isfinite(lambda.detach().to(torch::kDouble).item<double>())) fail(fn, "lambda is not finite");
    if (!std::isfinite(epsilon) || epsilon < 0.0) fail(fn, "epsilon must be finite and >= 0");
}

/// Uniform in [0, n) from the 64-bit engine by rejection (values at or above the largest
/// multiple of n are drawn again): std::uniform_int_distribution differs between libraries.
std::int64_t uniformIndex(std::mt19937_64& rng, std::uint64_t n) {
    const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t limit = max - max % n;
    std::uint64_t value = rng();
    while (value >= limit) value = rng();
    return static_cast<std::int64_t>(value % n);
}

}  // namespace

torch::Tensor marginalLikelihoodLoss(const torch::Tensor& scores, const torch::Tensor& positives) {
    constexpr std::string_view fn = "marginalLikelihoodLoss";
    requireRank(fn, "scores", scores, 2, "[B, K]");
    requireFloating(fn, "scores", scores);
    requireRank(fn, "positives", positives, 2, "[B, K]");
    requireDtype(fn, "positives", positives, torch::kBool);
    if (!positives.sizes().equals(scores.sizes()))
        fail(fn, "positives " + shapeText(positives) + " must have the shape of scores " + shapeText(scores));

    // BioSyn drops the rows whose marginal is 0 (loss[loss > 0]), i.e. the mentions without a
    // synonym among their candidates: they carry no signal. We select them by the mask itself,
    // so that a row whose marginal merely underflows is clamped below instead of dropped.
    const auto rows = positives.any(1);
    const auto kept = scores.index({rows});
    const auto keptPositives = positives.index({rows});
    // log(sum over positives of softmax) as a difference of log-sum-exps: the same value as
    // BioSyn's softmax-then-sum, without the underflow of exponentiating each score.
    const auto logMarginal =
        torch::logsumexp(kept.masked_fill(~keptPositives, -kInfinity), 1) - torch::logsumexp(kept, 1);
    // BioSyn clamps the marginal to [1e-9, 1] before the log: clamping its log to [ln 1e-9, 0]
    // is the same value and the same gradient (none for a clamped row).
    const auto clamped = logMarginal.clamp(std::log(1e-9), 0.0);
    return averageOrZero(-clamped);
}

torch::Tensor batchHardSoftMarginLoss(const torch::Tensor& embeddings, const torch::Tensor& labels) {
    constexpr std::string_view fn = "batchHardSoftMarginLoss";
    requireRank(fn, "embeddings", embeddings, 2, "[B, D]");
    requireFloating(fn, "embeddings", embeddings);
    requireRank(fn, "labels", labels, 1, "[B]");
    requireDtype(fn, "labels", labels, torch::kLong);
    requireSize(fn, "labels", labels, 0, embeddings.size(0), "one label per embedding");

    // The paper writes eq. 4-5 with a similarity S (hardest positive = argmin S, hardest
    // negative = argmax S) but trains on Euclidean distance (§4, "like Schroff et al. and
    // Hermans et al."), so the hardest positive is the farthest and the hardest negative the
    // nearest, and the softplus argument is d_ap - d_an, as in Hermans et al.'s batch hard.
    const auto distances = pairwiseDistances(embeddings);
    const auto labelsHere = labels.to(embeddings.device());
    const auto same = labelsHere.unsqueeze(1) == labelsHere.unsqueeze(0);
    const auto positiveMask = same & ~diagonalMask(labels.size(0), embeddings.device());
    const auto negativeMask = ~same;
    // Anchors with no other row of their concept, or no row of another concept, form no triplet.
    // (sentence-transformers' BatchHardSoftMarginTripletLoss averages over every anchor, giving
    // such anchors a hardest positive of 0; we leave them out of the mean, as the brief asks.)
    const auto anchors = positiveMask.any(1) & negativeMask.any(1);
    const auto d = distances.index({anchors});
    const auto farthestPositive = d.masked_fill(~positiveMask.index({anchors}), -kInfinity).amax(1);
    const auto nearestNegative = d.masked_fill(~negativeMask.index({anchors}), kInfinity).amin(1);
    // softplus(x) = ln(1 + e^x), computed without overflow for large x.
    return averageOrZero(torch::softplus(farthestPositive - nearestNegative));
}

torch::Tensor infoNceLoss(const torch::Tensor& mentions, const torch::Tensor& entities,
                          const torch::Tensor& hardNegatives, double temperature,
                          const std::optional<torch::Tensor>& entityIds) {
    constexpr std::string_view fn = "infoNceLoss";
    requireRank(fn, "mentions", mentions, 2, "[B, D]");
    requireFloating(fn, "mentions", mentions);
    requireRank(fn, "entities", entities, 2, "[B, D]");
    requireSameDtype(fn, "entities", entities, mentions);
    if (!entities.sizes().equals(mentions.sizes()))
        fail(fn, "entities " + shapeText(entities) + " must have the shape of mentions " + shapeText(mentions));
    requireRank(fn, "hardNegatives", hardNegatives, 3, "[B, P, D]");
    requireSameDtype(fn, "hardNegatives", hardNegatives, mentions);
    requireSize(fn, "hardNegatives", hardNegatives, 0, mentions.size(0), "one row per mention");
    requireSize(fn, "hardNegatives", hardNegatives, 2, mentions.size(1), "the embedding dimension");
    if (!std::isfinite(temperature) || temperature <= 0.0) fail(fn, "temperature must be finite and > 0");
    if (entityIds) {
        requireRank(fn, "entityIds", *entityIds, 1, "[B]");
        requireDtype(fn, "entityIds", *entityIds, torch::kLong);
        requireSize(fn, "entityIds", *entityIds, 0, mentions.size(0), "one id per mention");
    }

    const auto batch = mentions.size(0);
    if (batch == 0) return mentions.sum() + entities.sum() + hardNegatives.sum();  // 0, on the graph

    // s = cosine similarity (eq. 2, g is cosine), i.e. dot products of unit vectors.
    const auto m = unitRows(mentions);
    const auto e = unitRows(entities);
    const auto h = unitRows(hardNegatives);
    auto inBatch = m.matmul(e.t());  // [B, B]: column j is entity j, the positive on the diagonal
    if (entityIds) {
        // Another mention of the same gold entity in the batch is no negative: drop its column
        // (exp(-inf) = 0 contributes nothing to the denominator).
        const auto ids = entityIds->to(mentions.device());
        const auto sameEntity = (ids.unsqueeze(1) == ids.unsqueeze(0)) & ~diagonalMask(batch, mentions.device());
        inBatch = inBatch.masked_fill(sameEntity, -kInfinity);
    }
    const auto hard = torch::bmm(h, m.unsqueeze(2)).squeeze(2);  // [B, P]: s(m_i, h_ip)
    const auto logits = torch::cat({inBatch, hard}, 1) / temperature;
    // -log(delta(m, e) / (delta(m, e) + sum_E1 + sum_E2)) = cross-entropy with target j = i.
    return -torch::log_softmax(logits, 1).diagonal().mean();
}

torch::Tensor prototypeTripletLoss(const torch::Tensor& mentionEmbeddings, const torch::Tensor& clusterOf,
                                   const torch::Tensor& positiveEntity, const torch::Tensor& negativeEntity,
                                   double margin) {
    constexpr std::string_view fn = "prototypeTripletLoss";
    requireRank(fn, "mentionEmbeddings", mentionEmbeddings, 2, "[N, D]");
    requireFloating(fn, "mentionEmbeddings", mentionEmbeddings);
    requireRank(fn, "clusterOf", clusterOf, 1, "[N]");
    requireDtype(fn, "clusterOf", clusterOf, torch::kLong);
    requireSize(fn, "clusterOf", clusterOf, 0, mentionEmbeddings.size(0), "one cluster per mention");
    requireRank(fn, "positiveEntity", positiveEntity, 2, "[C, D]");
    requireSameDtype(fn, "positiveEntity", positiveEntity, mentionEmbeddings);
    requireSize(fn, "positiveEntity", positiveEntity, 1, mentionEmbeddings.size(1), "the embedding dimension");
    requireRank(fn, "negativeEntity", negativeEntity, 2, "[C, D]");
    requireSameDtype(fn, "negativeEntity", negativeEntity, mentionEmbeddings);
    if (!negativeEntity.sizes().equals(positiveEntity.sizes()))
        fail(fn, "negativeEntity " + shapeText(negativeEntity) + " must have the shape of positiveEntity " +
                     shapeText(positiveEntity));
    if (!std::isfinite(margin) || margin < 0.0) fail(fn, "margin must be finite and >= 0");

    const auto clusters = positiveEntity.size(0);
    const auto dimension = mentionEmbeddings.size(1);
    const auto clusterIndex = clusterOf.to(mentionEmbeddings.device());
    if (clusterIndex.numel() > 0) {
        const auto lowest = clusterIndex.min().item<std::int64_t>();
        const auto highest = clusterIndex.max().item<std::int64_t>();
        if (lowest < 0 || highest >= clusters)
            fail(fn, "clusterOf holds " + std::to_string(lowest < 0 ? lowest : highest) + ", outside [0, " +
                         std::to_string(clusters) + ")");
    }
    // A cluster without mentions has no prototype (0/0): a caller's bookkeeping error.
    const auto counts = torch::bincount(clusterIndex, {}, clusters);
    const auto empty = (counts == 0).nonzero();
    if (empty.numel() > 0) fail(fn, "cluster " + std::to_string(empty[0][0].item<std::int64_t>()) + " has no mention");
    if (clusters == 0) return mentionEmbeddings.sum() + positiveEntity.sum() + negativeEntity.sum();

    // prototype_c = (1/N_c) sum of its mention embeddings: the gradient reaches every mention.
    const auto sums =
        torch::zeros({clusters, dimension}, mentionEmbeddings.options()).index_add(0, clusterIndex, mentionEmbeddings);
    const auto prototypes = sums / counts.unsqueeze(1).to(mentionEmbeddings.scalar_type());
    // Eq. 3 uses ||.||_2, not squared (unlike the standard triplet loss of eq. 1-2), and gives
    // the loss of one cluster; the paper does not say how a batch of clusters is reduced: mean.
    const auto positiveDistance = safeNorm(prototypes - positiveEntity, 1);
    const auto negativeDistance = safeNorm(prototypes - negativeEntity, 1);
    return averageOrZero(torch::relu(positiveDistance - negativeDistance + margin));
}

SoftRadiusCluster softRadiusCluster(const torch::Tensor& mentionEmbeddings, std::int64_t anchor,
                                    const torch::Tensor& lambda, double epsilon) {
    requireSoftRadiusInputs(mentionEmbeddings, lambda, epsilon);
    const auto count = mentionEmbeddings.size(0);
    if (anchor < 0 || anchor >= count)
        fail("softRadiusCluster", "anchor " + std::to_string(anchor) + " outside [0, " + std::to_string(count) + ")");

    // Algorithm 1, lines 4-12. Choices the paper leaves open, taken in the plainest reading:
    // - The distances come from the embeddings as they are (detached): the algorithm forms a
    //   cluster and learns lambda (line 14 "Update lambda"); nothing in it moves the mentions.
    // - The loop runs over every m_k in S, the anchor included (d = 0): the anchor is always a
    //   member, even if a learned lambda + epsilon fell below 0.
    // - d <= lambda + epsilon as line 6 (the prose says "smaller than lambda"; the algorithm
    //   adds epsilon "to increase the coverage" and compares with <=).
    // - Mentions outside the anchor's cluster are left to the caller (the algorithm forms one
    //   cluster per call and says nothing of the rest).
    const auto detached = mentionEmbeddings.detach();
    const auto distances = safeNorm(detached - detached[anchor], 1).to(torch::kDouble).cpu();
    const double threshold = lambda.detach().to(torch::kDouble).item<double>() + epsilon;
    auto members = distances <= threshold;
    members.index_put_({anchor}, true);
    const double radius = distances.masked_select(members).max().item<double>();

    SoftRadiusCluster cluster;
    cluster.anchor = anchor;
    cluster.members = members.to(mentionEmbeddings.device());
    cluster.radius = radius;
    // Line 13: L = (lambda - r)^2 with r a constant, so the gradient reaches lambda alone; its
    // minimiser over many clusters is their mean radius ("the learned radius is the mean radius
    // of all clusters"). A lone anchor has r = 0 and pulls lambda towards 0, as written.
    cluster.radiusLoss = (lambda.reshape({}) - radius).pow(2);
    return cluster;
}

SoftRadiusCluster softRadiusCluster(const torch::Tensor& mentionEmbeddings, std::mt19937_64& rng,
                                    const torch::Tensor& lambda, double epsilon) {
    requireSoftRadiusInputs(mentionEmbeddings, lambda, epsilon);
    const auto anchor = uniformIndex(rng, static_cast<std::uint64_t>(mentionEmbeddings.size(0)));
    return softRadiusCluster(mentionEmbeddings, anchor, lambda, epsilon);
}

torch::Tensor multiSimilarityLoss(const torch::Tensor& embeddings, const torch::Tensor& labels, double alpha,
                                  double beta, double base, double epsilon) {
    constexpr std::string_view fn = "multiSimilarityLoss";
    requireRank(fn, "embeddings", embeddings, 2, "[B, D]");
    requireFloating(fn, "embeddings", embeddings);
    requireRank(fn, "labels", labels, 1, "[B]");
    requireDtype(fn, "labels", labels, torch::kLong);
    requireSize(fn, "labels", labels, 0, embeddings.size(0), "one label per embedding");
    if (!(alpha > 0.0) || !(beta > 0.0) || !std::isfinite(alpha) || !std::isfinite(beta))
        fail(fn, "alpha and beta must be finite and > 0");
    if (!std::isfinite(base)) fail(fn, "base must be finite");
    if (!std::isfinite(epsilon) || epsilon < 0.0) fail(fn, "epsilon must be finite and >= 0");
    if (embeddings.size(0) == 0) return embeddings.sum();

    const auto unit = unitRows(embeddings);
    const auto similarity = unit.matmul(unit.t());
    const auto rows = embeddings.size(0);
    const auto same = labels.to(embeddings.device()).unsqueeze(1) == labels.to(embeddings.device()).unsqueeze(0);
    const auto positive = same & ~diagonalMask(rows, embeddings.device());
    const auto negative = ~same;

    // The miner reads the similarities without gradient: it only chooses pairs.
    const auto plain = similarity.detach();
    const auto hardestNegative = torch::where(negative, plain, torch::full_like(plain, -kInfinity)).amax(1, true);
    const auto hardestPositive = torch::where(positive, plain, torch::full_like(plain, kInfinity)).amin(1, true);
    const auto keptPositive = positive & (plain - epsilon < hardestNegative);
    const auto keptNegative = negative & (plain + epsilon > hardestPositive);

    // log(1 + sum exp(x)) over the kept pairs = logsumexp over them and a 0 (the 1), stable at
    // beta = 50 where exp overflows float for similarities near 1.
    const auto logOnePlusSum = [](const torch::Tensor& exponents, const torch::Tensor& kept) {
        const auto masked = torch::where(kept, exponents, torch::full_like(exponents, -kInfinity));
        return torch::cat({masked, torch::zeros({masked.size(0), 1}, masked.options())}, 1).logsumexp(1);
    };
    const auto positiveTerm = logOnePlusSum(-alpha * (similarity - base), keptPositive) / alpha;
    const auto negativeTerm = logOnePlusSum(beta * (similarity - base), keptNegative) / beta;
    return (positiveTerm + negativeTerm).mean();
}

std::optional<std::int64_t> hardestNegative(const torch::Tensor& distances, const torch::Tensor& isPositive) {
    constexpr std::string_view fn = "hardestNegative";
    requireRank(fn, "distances", distances, 1, "[K]");
    requireFloating(fn, "distances", distances);
    requireRank(fn, "isPositive", isPositive, 1, "[K]");
    requireDtype(fn, "isPositive", isPositive, torch::kBool);
    requireSize(fn, "isPositive", isPositive, 0, distances.size(0), "one flag per candidate");

    const auto d = distances.detach().to(torch::kDouble).cpu().contiguous();
    const auto positive = isPositive.cpu().contiguous();
    const auto dAt = d.accessor<double, 1>();
    const auto positiveAt = positive.accessor<bool, 1>();
    std::optional<std::int64_t> best;
    for (std::int64_t k = 0; k < d.size(0); ++k) {
        // A NaN distance is never chosen: it compares false with everything.
        if (positiveAt[k] || std::isnan(dAt[k])) continue;
        if (!best || dAt[k] < dAt[*best]) best = k;
    }
    return best;
}

}  // namespace linkscope::train
