#include "text/code_points.h"

#include <cstdint>

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include "util/error.h"

namespace linkscope::text::detail {

std::vector<CodePoint> decode(std::string_view utf8) {
    std::vector<CodePoint> result;
    result.reserve(utf8.size());
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(utf8.data());
    const auto length = static_cast<std::int32_t>(utf8.size());
    std::int32_t i = 0;
    while (i < length) {
        const std::int32_t begin = i;
        UChar32 c = 0;
        U8_NEXT(bytes, i, length, c);
        if (c < 0)
            throw Error("invalid UTF-8 at byte " + std::to_string(begin + 1) + " of \"" +
                        std::string(utf8.substr(0, 60)) + "\"");
        result.push_back({static_cast<char32_t>(c), static_cast<std::size_t>(begin), static_cast<std::size_t>(i)});
    }
    return result;
}

void appendUtf8(std::string& out, char32_t c) {
    char buffer[U8_MAX_LENGTH];
    std::int32_t length = 0;
    UBool error = false;
    U8_APPEND(reinterpret_cast<std::uint8_t*>(buffer), length, U8_MAX_LENGTH, static_cast<UChar32>(c), error);
    if (!error) out.append(buffer, static_cast<std::size_t>(length));
}

bool isWhiteSpace(char32_t c) noexcept { return u_isUWhiteSpace(static_cast<UChar32>(c)); }

bool isLetterOrDigit(char32_t c) noexcept { return u_isalnum(static_cast<UChar32>(c)); }

bool isLetter(char32_t c) noexcept { return u_isalpha(static_cast<UChar32>(c)); }

bool isUpperCase(char32_t c) noexcept { return u_charType(static_cast<UChar32>(c)) == U_UPPERCASE_LETTER; }

bool isLowerCase(char32_t c) noexcept { return u_charType(static_cast<UChar32>(c)) == U_LOWERCASE_LETTER; }

char32_t toLowerSimple(char32_t c) noexcept { return static_cast<char32_t>(u_tolower(static_cast<UChar32>(c))); }

}  // namespace linkscope::text::detail
