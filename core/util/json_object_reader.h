#pragma once
// Typed reading of the members of one JSON object (config.json, run.json, training presets):
// each member checked for its type (and range), every error a ParseError that names the file and
// the key. Internal to core: the header includes nlohmann/json.
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace linkscope {

/// An enum's spellings in a JSON file, in the order error messages list them.
template <typename Enum, std::size_t N>
using NameTable = std::array<std::pair<Enum, std::string_view>, N>;

template <typename Enum, std::size_t N>
std::optional<Enum> parseName(const NameTable<Enum, N>& table, std::string_view name) noexcept {
    for (const auto& [entry, spelled] : table)
        if (spelled == name) return entry;
    return std::nullopt;
}

/// "a, b, c": the table's spellings, for error messages.
template <typename Enum, std::size_t N>
std::string nameList(const NameTable<Enum, N>& table) {
    std::string list;
    for (const auto& [entry, name] : table) list += (list.empty() ? "" : ", ") + std::string(name);
    return list;
}

/// A value as an error message shows it, never written out whole: "null", "a list", "an
/// object", or its JSON type and (the start of) its text ("string \"768\"", "number 1").
std::string describeJson(const nlohmann::json& value);

/// The accepted interval of a real-valued key, and how an error message words it.
struct RealRange {
    double min = -std::numeric_limits<double>::infinity();
    bool minInclusive = true;
    double max = std::numeric_limits<double>::infinity();
    bool maxInclusive = true;

    static RealRange atLeast(double min) { return {min, true, std::numeric_limits<double>::infinity(), true}; }
    static RealRange greaterThan(double min) { return {min, false, std::numeric_limits<double>::infinity(), true}; }
    static RealRange between(double min, double max) { return {min, true, max, true}; }
    static RealRange any() { return {}; }

    bool contains(double value) const {
        return (minInclusive ? value >= min : value > min) && (maxInclusive ? value <= max : value < max);
    }
    /// "between 0 and 1", "at least 0", "greater than 0", "a finite number".
    std::string wording() const;
};

/// How a reader names keys in its errors and which counts it accepts.
struct JsonReaderStyle {
    enum class Keys {
        Quoted,  ///< "\"pooling\"", after the reader's prefix ("linkscope: "): files of a fixed, flat layout
        Dotted,  ///< the key's path from the top, "training.batch_size": nested files people write
    };
    Keys keys = Keys::Quoted;
    /// Whether a count may be written as a whole float (3.0): yes for files people write, no for
    /// files programs write (a float there means the file is not what it claims to be).
    bool wholeFloatCounts = false;
};

/// Reads the members of one JSON object. Every read of an absent key leaves its target as it was
/// (the default); require() makes a key mandatory. The reader remembers the keys it was asked for,
/// so that finish() can refuse every other one. The object must outlive the reader.
class JsonObjectReader {
public:
    /// `prefix` precedes every key in errors: "linkscope: " (Quoted) or "training." (Dotted).
    JsonObjectReader(const nlohmann::json& object, std::string file, JsonReaderStyle style = {},
                     std::string prefix = {});

    bool has(std::string_view key) const { return object_.contains(key); }
    /// The member itself (nullptr when absent), counted as asked for; the caller checks it.
    const nlohmann::json* member(std::string_view key);
    /// Fails with "missing required key" when the key is absent.
    void require(std::string_view key);

    /// A non-negative integer (a whole float too when the style allows), at least `minimum`.
    void size(std::string_view key, std::size_t& into, std::size_t minimum = 0);
    void uint64(std::string_view key, std::uint64_t& into);
    void real(std::string_view key, double& into, const RealRange& range = RealRange::any());
    void boolean(std::string_view key, bool& into);
    void string(std::string_view key, std::string& into);
    void stringList(std::string_view key, std::vector<std::string>& into);
    /// A string, one of the table's spellings.
    template <typename Enum, std::size_t N>
    void choice(std::string_view key, Enum& into, const NameTable<Enum, N>& table) {
        const nlohmann::json* value = member(key);
        if (!value) return;
        if (!value->is_string())
            fail(key, "must be a string, one of " + nameList(table) + ", not " + describeJson(*value));
        const auto parsed = parseName(table, value->get_ref<const std::string&>());
        if (!parsed) fail(key, "must be one of " + nameList(table) + ", not " + value->dump());
        into = *parsed;
    }
    /// Set only when the key is there (a real with `bounds` a RealRange, a size with a minimum).
    template <typename T, typename... Bounds>
    void optional(std::string_view key, std::optional<T>& into, Bounds... bounds) {
        if (!member(key)) return;
        T value{};
        if constexpr (std::is_same_v<T, double>)
            real(key, value, bounds...);
        else
            size(key, value, bounds...);
        into = value;
    }
    /// The reader of a nested object, nullopt when the key is absent. `shape` shows what the
    /// object holds in the error when the member is not one ("{...}").
    std::optional<JsonObjectReader> object(std::string_view key, std::string_view shape = "{...}");

    /// Refuses the first key (in sorted order) that no read asked for, listing the known ones.
    void finish() const;
    /// Refuses the first key not in `known`, listing them (for files whose keys are fixed).
    void refuseKeysOtherThan(std::span<const std::string_view> known) const;

    /// The key as errors name it: "\"epochs\"" (Quoted) or "training.epochs" (Dotted), prefix included.
    std::string keyName(std::string_view key) const;
    /// ParseError(file, 0, keyName(key) + " " + message).
    [[noreturn]] void fail(std::string_view key, const std::string& message) const;
    /// ParseError(file, 0, message).
    [[noreturn]] void fail(const std::string& message) const;
    const std::string& file() const noexcept { return file_; }

private:
    bool wholeNumber(std::string_view key, std::uint64_t& into);
    [[noreturn]] void failUnknown(const std::string& key, const std::string& known) const;

    const nlohmann::json& object_;
    std::string file_;
    JsonReaderStyle style_;
    std::string prefix_;
    std::vector<std::string> asked_;
};

}  // namespace linkscope
