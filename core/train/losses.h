#pragma once
// The training objectives of the methods Linkscope implements, as differentiable functions of
// the tensors a trainer step has computed (scores, embeddings). Each returns a 0-dim tensor that
// supports backward() and throws linkscope::Error (naming the function and the shape it got)
// when a tensor has the wrong rank, size or dtype. They work in the inputs' dtype and device.
//
// A loss with nothing to average (no row with a positive, no anchor with both a positive and a
// negative, an empty batch) is 0, still connected to the inputs' graph (zero gradients) so that
// a trainer can call backward() on every batch without a special case.
//
// This header includes torch: it is internal to the trainer (and its tests).
#include <torch/types.h>

#include <cstdint>
#include <optional>
#include <random>

namespace linkscope::train {

/// BioSyn's synonym marginalization (Sung et al. 2020, eq. 6-8): per row of scores [B, K]
/// (a mention's top-K candidates), P = softmax(scores); the loss is -mean over the rows having at
/// least one positive (positives [B, K] bool) of log(sum of P over the positives). As BioSyn's
/// marginal_nll: the marginal is clamped to [1e-9, 1] before the log and rows without a positive
/// are dropped.
torch::Tensor marginalLikelihoodLoss(const torch::Tensor& scores, const torch::Tensor& positives);

/// Xu & Bethard 2021 (eq. 3-5, after Hermans et al. 2017): batch-hard soft-margin triplet loss
/// on Euclidean distances between embeddings [B, D] with concept labels [B] (int64). For each
/// anchor, the hardest positive (farthest other row of its label) and the hardest negative
/// (nearest row of another label); mean over anchors having both of softplus(d_ap - d_an).
torch::Tensor batchHardSoftMarginLoss(const torch::Tensor& embeddings, const torch::Tensor& labels);

/// kNN-BioEL's contrastive objective (Lin et al. 2024, eq. 3): s = cosine similarity; mention i's
/// logits are s(m_i, e_j) / tau for every entity row j of the batch (in-batch negatives) and
/// s(m_i, h_ip) / tau for its P hard negatives; mean cross-entropy with the positive at j = i.
/// mentions [B, D], entities [B, D] (row i: mention i's gold entity), hardNegatives [B, P, D]
/// (P may be 0), temperature > 0. entityIds [B] (int64, optional): columns j != i whose entity id
/// equals i's are masked out, so that a duplicate of the gold entity is not a negative.
torch::Tensor infoNceLoss(const torch::Tensor& mentions, const torch::Tensor& entities,
                          const torch::Tensor& hardNegatives, double temperature,
                          const std::optional<torch::Tensor>& entityIds = std::nullopt);

/// Le & Nguyen 2023 prototype-based triplet loss (§3.2.2, eq. 3): prototype_c = mean of the
/// mention embeddings [N, D] with clusterOf [N] (int64) == c; the loss is the mean over the C
/// clusters of max(0, ||p_c - e+_c|| - ||p_c - e-_c|| + margin), with positiveEntity and
/// negativeEntity [C, D]. Plain (not squared) Euclidean distances, as eq. 3 writes them. Every
/// cluster needs at least one mention; margin >= 0.
torch::Tensor prototypeTripletLoss(const torch::Tensor& mentionEmbeddings, const torch::Tensor& clusterOf,
                                   const torch::Tensor& positiveEntity, const torch::Tensor& negativeEntity,
                                   double margin);

/// One cluster formed by Le & Nguyen's soft-radius neighbour clustering (§3.2.3, Algorithm 1).
struct SoftRadiusCluster {
    std::int64_t anchor = 0;   ///< the mention the cluster was formed around
    torch::Tensor members;     ///< [N] bool: the mentions in the anchor's cluster (anchor included)
    double radius = 0.0;       ///< r: the largest anchor distance among the members
    torch::Tensor radiusLoss;  ///< (lambda - r)^2, 0-dim; its gradient reaches lambda only
};

/// Algorithm 1 for the mentions [N, D] of one entity in one document, around mention `anchor`:
/// every mention at Euclidean distance d <= lambda + epsilon from the anchor joins the cluster,
/// r is the largest such d and the radius' loss is (lambda - r)^2. lambda: a one-element floating
/// tensor (the learnable radius, usually requiring grad); epsilon >= 0.
SoftRadiusCluster softRadiusCluster(const torch::Tensor& mentionEmbeddings, std::int64_t anchor,
                                    const torch::Tensor& lambda, double epsilon);
/// The same with the anchor drawn uniformly (Algorithm 1, line 3) from rng, by rejection sampling
/// so that a seed gives the same anchor with every standard library.
SoftRadiusCluster softRadiusCluster(const torch::Tensor& mentionEmbeddings, std::mt19937_64& rng,
                                    const torch::Tensor& lambda, double epsilon);

/// SapBERT's objective (Liu et al. 2021, eq. 1, after Wang et al. 2019): S = cosine similarities
/// of the embeddings [B, D] with concept labels [B] (int64). Online hard-pair mining keeps, for
/// anchor i, the positives p (same label, p != i) with S_ip - epsilon < max over negatives S_in,
/// and the negatives n with S_in + epsilon > min over positives S_ip. The loss is the mean over
/// all anchors of 1/alpha log(1 + sum_P exp(-alpha (S_ip - base))) + 1/beta log(1 + sum_N
/// exp(beta (S_in - base))) over the kept pairs (an anchor with no kept pair adds 0, as
/// pytorch-metric-learning's MultiSimilarityLoss averages). alpha, beta > 0; epsilon >= 0.
torch::Tensor multiSimilarityLoss(const torch::Tensor& embeddings, const torch::Tensor& labels, double alpha,
                                  double beta, double base, double epsilon);

/// Online hardest negative among candidates (Le & Nguyen §3.2.2): the index of the smallest of
/// distances [K] whose isPositive [K] (bool) is false, or nullopt when every candidate is a
/// positive (or K = 0). Ties go to the lowest index.
std::optional<std::int64_t> hardestNegative(const torch::Tensor& distances, const torch::Tensor& isPositive);

}  // namespace linkscope::train
