#pragma once
// Typed access to the fields of one parsed JSON document (BioC JSON, BigBio), for its parser: each
// check fails with a ParseError naming the file, the line where the document starts and the place
// in it (`where_`, e.g. "document 123: "), and saying what was found instead.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/json_file.h"

namespace linkscope {

class JsonFields {
public:
    using Json = nlohmann::json;

    JsonFields(const std::string& file, std::size_t line) : file_(file), line_(line) {}

protected:
    [[noreturn]] void fail(const std::string& message) const { throw ParseError(file_, line_, where_ + message); }

    /// The member named `key`, or nullptr.
    static const Json* member(const Json& object, const char* key) {
        const auto it = object.find(key);
        return it == object.end() ? nullptr : &*it;
    }

    const Json& array(const Json& value, const std::string& what) const {
        if (!value.is_array()) fail(what + " must be a list, not " + briefJson(value));
        return value;
    }

    const Json& object(const Json& value, const std::string& what) const {
        if (!value.is_object()) fail(what + " must be an object, not " + briefJson(value));
        return value;
    }

    void requireNoNul(std::string_view text, const std::string& what) const {
        if (text.find('\0') != std::string_view::npos) fail(what + " holds a NUL character");
    }

    /// A string without a NUL character.
    std::string string(const Json& value, const std::string& what) const {
        if (!value.is_string()) fail(what + " must be a string, not " + briefJson(value));
        const auto& text = value.get_ref<const std::string&>();
        requireNoNul(text, what);
        return text;
    }

    /// A string, or an integer written as a number (ids, identifiers).
    std::string scalarText(const Json& value, const std::string& what) const {
        if (value.is_number_integer()) return value.dump();
        return string(value, what);
    }

    /// A non-negative integer.
    std::size_t count(const Json& value, const std::string& what) const {
        if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0))
            fail(what + " " + briefJson(value) + " is not a non-negative integer");
        return value.get<std::size_t>();
    }
    std::size_t count(const Json* value, const std::string& what) const {
        if (!value) fail(what + " is missing");
        return count(*value, what);
    }

    const std::string& file_;
    std::size_t line_;
    std::string where_;
};

}  // namespace linkscope
