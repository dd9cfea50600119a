#include "util/json_object_reader.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"
#include "util/json_file.h"

namespace linkscope {

using Json = nlohmann::json;

namespace {

/// "a, b, c": the known keys as an unknown-key error lists them.
template <typename Names>
std::string commaList(const Names& names) {
    std::string list;
    for (const auto& name : names) list += (list.empty() ? "" : ", ") + std::string(name);
    return list;
}

}  // namespace

std::string describeJson(const Json& value) {
    if (value.is_array()) return "a list";
    if (value.is_object()) return "an object";
    if (value.is_null()) return "null";
    return std::string(value.type_name()) + " " + briefJson(value, 40);
}

std::string RealRange::wording() const {
    // "between 0 and 1" rather than nlohmann's "0.0 and 1.0": the bounds are whole or short.
    const auto text = [](double bound) {
        return std::floor(bound) == bound && std::fabs(bound) < 1e15 ? std::to_string(static_cast<long long>(bound))
                                                                     : Json(bound).dump();
    };
    if (std::isfinite(min) && std::isfinite(max)) return "between " + text(min) + " and " + text(max);
    if (std::isfinite(min)) return (minInclusive ? "at least " : "greater than ") + text(min);
    if (std::isfinite(max)) return (maxInclusive ? "at most " : "less than ") + text(max);
    return "a finite number";
}

JsonObjectReader::JsonObjectReader(const Json& object, std::string file, JsonReaderStyle style, std::string prefix)
    : object_(object), file_(std::move(file)), style_(style), prefix_(std::move(prefix)) {}

const Json* JsonObjectReader::member(std::string_view key) {
    if (std::find(asked_.begin(), asked_.end(), key) == asked_.end()) asked_.emplace_back(key);
    const auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
}

void JsonObjectReader::require(std::string_view key) {
    if (member(key)) return;
    if (style_.keys == JsonReaderStyle::Keys::Quoted)
        fail(prefix_ + "missing required key \"" + std::string(key) + "\"");
    fail("missing required key \"" + prefix_ + std::string(key) + "\"");
}

void JsonObjectReader::size(std::string_view key, std::size_t& into, std::size_t minimum) {
    static_assert(sizeof(std::size_t) >= sizeof(std::uint64_t), "sizes are read as 64-bit integers");
    std::uint64_t value = into;
    if (!wholeNumber(key, value)) return;
    if (value < minimum) fail(key, "must be at least " + std::to_string(minimum) + ", not " + std::to_string(value));
    into = static_cast<std::size_t>(value);
}

void JsonObjectReader::uint64(std::string_view key, std::uint64_t& into) { wholeNumber(key, into); }

void JsonObjectReader::real(std::string_view key, double& into, const RealRange& range) {
    const Json* value = member(key);
    if (!value) return;
    if (!value->is_number()) fail(key, "must be a number, not " + describeJson(*value));
    const double number = value->get<double>();  // finite: parseJson refuses 1e999
    if (!range.contains(number)) fail(key, "must be " + range.wording() + ", not " + value->dump());
    into = number;
}

void JsonObjectReader::boolean(std::string_view key, bool& into) {
    const Json* value = member(key);
    if (!value) return;
    if (!value->is_boolean()) fail(key, "must be true or false, not " + describeJson(*value));
    into = value->get<bool>();
}

void JsonObjectReader::string(std::string_view key, std::string& into) {
    const Json* value = member(key);
    if (!value) return;
    if (!value->is_string()) fail(key, "must be a string, not " + describeJson(*value));
    into = value->get<std::string>();
}

void JsonObjectReader::stringList(std::string_view key, std::vector<std::string>& into) {
    const Json* value = member(key);
    if (!value) return;
    if (!value->is_array()) fail(key, "must be a list of strings, not " + describeJson(*value));
    std::vector<std::string> strings;
    for (std::size_t i = 0; i < value->size(); ++i) {
        const Json& element = (*value)[i];
        if (!element.is_string())
            fail(key, "must be a list of strings; element " + std::to_string(i + 1) + " is " + describeJson(element));
        strings.push_back(element.get<std::string>());
    }
    into = std::move(strings);
}

std::optional<JsonObjectReader> JsonObjectReader::object(std::string_view key, std::string_view shape) {
    const Json* value = member(key);
    if (!value) return std::nullopt;
    if (!value->is_object()) fail(key, "must be an object " + std::string(shape) + ", not " + describeJson(*value));
    const std::string nested = style_.keys == JsonReaderStyle::Keys::Quoted ? prefix_ + std::string(key) + ": "
                                                                            : prefix_ + std::string(key) + ".";
    return JsonObjectReader(*value, file_, style_, nested);
}

void JsonObjectReader::finish() const {
    for (const auto& [key, value] : object_.items())
        if (std::find(asked_.begin(), asked_.end(), key) == asked_.end()) failUnknown(key, commaList(asked_));
}

void JsonObjectReader::refuseKeysOtherThan(std::span<const std::string_view> known) const {
    for (const auto& [key, value] : object_.items())
        if (std::find(known.begin(), known.end(), key) == known.end()) failUnknown(key, commaList(known));
}

void JsonObjectReader::failUnknown(const std::string& key, const std::string& known) const {
    if (style_.keys == JsonReaderStyle::Keys::Quoted)
        fail(prefix_ + "unknown key \"" + key + "\" (known: " + known + ")");
    fail("unknown key \"" + prefix_ + key + "\" (known" +
         (prefix_.empty() ? "" : " in " + prefix_.substr(0, prefix_.size() - 1)) + ": " + known + ")");
}

std::string JsonObjectReader::keyName(std::string_view key) const {
    if (style_.keys == JsonReaderStyle::Keys::Quoted) return prefix_ + "\"" + std::string(key) + "\"";
    return prefix_ + std::string(key);
}

void JsonObjectReader::fail(std::string_view key, const std::string& message) const {
    throw ParseError(file_, 0, keyName(key) + " " + message);
}

void JsonObjectReader::fail(const std::string& message) const { throw ParseError(file_, 0, message); }

bool JsonObjectReader::wholeNumber(std::string_view key, std::uint64_t& into) {
    const Json* value = member(key);
    if (!value) return false;
    // nlohmann reads "3" as unsigned, "-3" as a signed integer and "3.0" as a float.
    if (value->is_number_unsigned()) {
        into = value->get<std::uint64_t>();
        return true;
    }
    if (value->is_number_integer()) fail(key, "must be a non-negative integer, not " + value->dump());
    if (!style_.wholeFloatCounts || !value->is_number_float())
        fail(key, "must be a non-negative integer, not " + describeJson(*value));
    // A whole float is read as its count; 2.5 and -1 are refused: a count must not be rounded
    // or wrapped around silently.
    const double number = value->get<double>();
    if (number < 0) fail(key, "must be a non-negative integer, not " + value->dump());
    if (std::floor(number) != number) fail(key, "must be a whole number, not " + value->dump());
    if (number >= 0x1p64) fail(key, "is too large: " + value->dump());
    into = static_cast<std::uint64_t>(number);
    return true;
}

}  // namespace linkscope
