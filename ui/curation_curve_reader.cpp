#include "curation_curve_reader.h"

#include <charconv>
#include <string>
#include <string_view>

#include "util/error.h"
#include "util/line_reader.h"

namespace linkscope::ui {
namespace {

constexpr std::string_view kHeader =
    "documents_done,mentions_done,corrections,remaining_mentions,remaining_acc_feedback,remaining_acc_without,"
    "online_acc_feedback,online_acc_without";
constexpr std::size_t kFields = 8;

std::vector<std::string_view> splitFields(std::string_view line) {
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = line.find(',', start);
        fields.push_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        if (comma == std::string_view::npos) return fields;
        start = comma + 1;
    }
}

std::size_t wholeNumber(std::string_view field, std::string_view name, const LineReader& reader) {
    std::size_t value = 0;
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (field.empty() || error != std::errc() || end != field.data() + field.size())
        reader.fail(std::string(name) + " must be a whole number >= 0, not \"" + std::string(field) + "\"");
    return value;
}

double fraction(std::string_view field, std::string_view name, const LineReader& reader) {
    double value = 0.0;
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (field.empty() || error != std::errc() || end != field.data() + field.size() || !(value >= 0.0 && value <= 1.0))
        reader.fail(std::string(name) + " must be a fraction in [0, 1], not \"" + std::string(field) + "\"");
    return value;
}

std::optional<double> optionalFraction(std::string_view field, std::string_view name, const LineReader& reader) {
    if (field.empty()) return std::nullopt;
    return fraction(field, name, reader);
}

}  // namespace

std::vector<curation::CurationStep> readCurationCurve(const std::filesystem::path& file) {
    LineReader reader(file);
    std::string line;
    if (!reader.next(line)) throw ParseError(file.string(), 0, "empty file: no simulate-curation CSV header");
    if (line != kHeader)
        reader.fail("not a simulate-curation CSV: the header must be \"" + std::string(kHeader) + "\"");
    std::vector<curation::CurationStep> steps;
    while (reader.next(line)) {
        if (line.empty()) continue;
        const std::vector<std::string_view> fields = splitFields(line);
        if (fields.size() != kFields)
            reader.fail("expected " + std::to_string(kFields) + " comma-separated fields, got " +
                        std::to_string(fields.size()));
        curation::CurationStep step;
        step.documentsDone = wholeNumber(fields[0], "documents_done", reader);
        step.mentionsDone = wholeNumber(fields[1], "mentions_done", reader);
        step.correctionsFed = wholeNumber(fields[2], "corrections", reader);
        step.remainingMentions = wholeNumber(fields[3], "remaining_mentions", reader);
        step.remainingWithFeedback = optionalFraction(fields[4], "remaining_acc_feedback", reader);
        step.remainingWithout = optionalFraction(fields[5], "remaining_acc_without", reader);
        step.onlineWithFeedback = fraction(fields[6], "online_acc_feedback", reader);
        step.onlineWithout = fraction(fields[7], "online_acc_without", reader);
        steps.push_back(step);
    }
    if (steps.empty()) throw ParseError(file.string(), reader.lineNumber(), "no rows after the header");
    return steps;
}

}  // namespace linkscope::ui
