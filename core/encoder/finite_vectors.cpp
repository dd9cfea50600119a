// Vectors leaving the encoder: finite, and short enough for their scores to stay finite.
#include "encoder/finite_vectors.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "util/error.h"

namespace linkscope::encoder {
namespace {

/// "text 3 of 7 (\"heart attack\")", the text cut to a readable length.
std::string describeRow(std::size_t row, std::size_t rows, std::span<const std::string> texts) {
    std::string text = "text " + std::to_string(row + 1) + " of " + std::to_string(rows);
    if (row < texts.size()) {
        constexpr std::size_t kShown = 60;
        const std::string& shown = texts[row];
        std::string cut = shown.substr(0, kShown);
        // Cut on a character boundary: drop a partial UTF-8 sequence at the end.
        while (cut.size() < shown.size() && !cut.empty() &&
               (static_cast<unsigned char>(shown[cut.size()]) & 0xC0) == 0x80)
            cut.pop_back();
        text += " (\"" + cut + (cut.size() < shown.size() ? "...\")" : "\")");
    }
    return text;
}

}  // namespace

double maxVectorLength() noexcept { return std::sqrt(static_cast<double>(std::numeric_limits<float>::max())) / 2.0; }

void requireFiniteVectors(std::span<const float> vectors, std::size_t dimension, std::string_view model,
                          std::span<const std::string> texts) {
    if (dimension == 0) return;
    const std::size_t rows = vectors.size() / dimension;
    const double limit = maxVectorLength();
    for (std::size_t row = 0; row < rows; ++row) {
        const auto values = vectors.subspan(row * dimension, dimension);
        std::size_t nonFinite = 0;
        double squares = 0.0;  // in double: a float32 sum of squares would overflow first
        for (const float value : values) {
            if (!std::isfinite(value))
                ++nonFinite;
            else
                squares += static_cast<double>(value) * static_cast<double>(value);
        }
        if (nonFinite > 0)
            throw Error(std::string(model) + ": the vector of " + describeRow(row, rows, texts) + " holds " +
                        std::to_string(nonFinite) +
                        " NaN or infinite value(s): the model's forward pass overflows float32 (weights too large "
                        "for it, or a half precision too narrow for them), and its vectors cannot be used");
        if (const double length = std::sqrt(squares); length > limit) {
            char numbers[96];
            std::snprintf(numbers, sizeof numbers, "%.3g, above %.3g", length, limit);
            throw Error(std::string(model) + ": the vector of " + describeRow(row, rows, texts) + " has a length of " +
                        numbers + " (sqrt(FLT_MAX) / 2): scores between such vectors overflow float32");
        }
    }
}

}  // namespace linkscope::encoder
