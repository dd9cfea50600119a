#include "project/decision_checksum.h"

#include <zlib.h>

#include <array>
#include <string>
#include <string_view>

namespace linkscope::project {
namespace {

// Names the encoding: a future change of the fields or their order changes the tag too.
constexpr std::string_view kEncodingTag = "linkscope-decision-row/1";

class RowEncoding {
public:
    void integer(std::uint64_t value) {
        std::array<char, 8> bytes{};
        for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((value >> (8 * i)) & 0xFF);
        text_.append(bytes.data(), bytes.size());
    }
    void text(std::string_view value) {
        integer(value.size());
        text_.append(value);
    }
    std::int64_t crc() const {
        uLong crc = crc32(0L, Z_NULL, 0);
        // crc32_z takes a size_t length: a row is never near 4 GiB, but no cast is needed either.
        crc = crc32_z(crc, reinterpret_cast<const Bytef*>(text_.data()), text_.size());
        return static_cast<std::int64_t>(crc & 0xFFFFFFFFu);
    }

private:
    std::string text_;
};

}  // namespace

std::int64_t decisionChecksum(const Decision& decision) {
    RowEncoding row;
    row.text(kEncodingTag);
    row.integer(static_cast<std::uint64_t>(decision.id));
    row.text(decision.mention.split);
    row.text(decision.mention.document);
    row.integer(decision.mention.start);
    row.integer(decision.mention.end);
    row.text(decision.mentionText);
    row.text(decisionKindName(decision.kind));
    row.text(decision.previousLink);
    row.text(decision.newLink);
    row.text(decision.curator);
    row.text(decision.timestamp);
    row.text(decisionStateName(decision.state));
    return row.crc();
}

}  // namespace linkscope::project
