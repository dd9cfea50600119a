// libsentencepiece behind a C interface, built as its own loadable module
// (liblinkscope_sentencepiece.so) that sentencepiece_model.cpp opens with dlopen.
//
// Why a module: Debian's libsentencepiece carries its own copy of protobuf-lite (3.14) and
// exports its symbols; LibTorch brings the system's libprotobuf (3.21). Linked into one
// program, one copy's symbols replace the other's and the program crashes before main (or
// stops in protobuf's version check). Opened with RTLD_LOCAL | RTLD_DEEPBIND, this module and
// libsentencepiece resolve protobuf's names to their own copy and show none of them to the
// rest of the program. Nothing here throws across the interface.
#include <sentencepiece_processor.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace {

void copyMessage(const char* message, char* error, std::size_t errorSize) {
    if (errorSize == 0) return;
    std::strncpy(error, message, errorSize - 1);
    error[errorSize - 1] = '\0';
}

/// Reads a protobuf varint at `at`; false past the end or beyond 64 bits.
bool readVarint(std::string_view bytes, std::size_t& at, std::uint64_t& value) {
    value = 0;
    for (int shift = 0; shift < 64 && at < bytes.size(); shift += 7) {
        const auto byte = static_cast<unsigned char>(bytes[at++]);
        value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
        if ((byte & 0x80) == 0) return true;
    }
    return false;
}

/// Calls `field(number, payload)` for each length-delimited field of a serialized message;
/// false when the message is malformed.
template <typename Field>
bool forEachBytesField(std::string_view message, Field&& field) {
    for (std::size_t at = 0; at < message.size();) {
        std::uint64_t key = 0, value = 0;
        if (!readVarint(message, at, key)) return false;
        switch (key & 7) {
            case 0:
                if (!readVarint(message, at, value)) return false;
                break;
            case 1:
                if (message.size() - at < 8) return false;
                at += 8;
                break;
            case 5:
                if (message.size() - at < 4) return false;
                at += 4;
                break;
            case 2:
                if (!readVarint(message, at, value) || value > message.size() - at) return false;
                if (!field(key >> 3, message.substr(at, static_cast<std::size_t>(value)))) return false;
                at += static_cast<std::size_t>(value);
                break;
            default:
                return false;  // groups: not in a SentencePiece model
        }
    }
    return true;
}

/// Whether a normalizer's precompiled character map is safe for libsentencepiece to walk. The
/// map is a 4-byte trie size, a darts-clone double array and NUL-terminated replacement
/// strings; the library indexes both without bounds checks (a damaged map makes Normalize read
/// outside them). Every node reachable from the root must keep its 256 children inside the
/// array, and every value must point inside the strings, which must end with a NUL.
bool charsMapIsSafe(std::string_view map) {
    if (map.empty()) return true;  // no map: the identity normalizer
    if (map.size() < 4) return false;
    std::uint32_t trieBytes = 0;
    std::memcpy(&trieBytes, map.data(), 4);  // little-endian, as this machine
    if (trieBytes % 4 != 0 || trieBytes > map.size() - 4) return false;
    const std::size_t units = trieBytes / 4;
    const std::string_view strings = map.substr(4 + trieBytes);
    if (units == 0 || strings.empty() || strings.back() != '\0') return false;
    const auto unitAt = [&](std::size_t i) {
        std::uint32_t unit = 0;
        std::memcpy(&unit, map.data() + 4 + 4 * i, 4);
        return unit;
    };
    const auto offsetOf = [](std::uint32_t unit) -> std::size_t { return (unit >> 10) << ((unit & (1U << 9)) >> 6); };
    const auto blockInside = [&](std::size_t node) { return (node | 0xFF) < units; };
    std::vector<bool> seen(units, false);
    std::vector<std::size_t> pending{offsetOf(unitAt(0))};
    if (!blockInside(pending.back())) return false;
    while (!pending.empty()) {
        const std::size_t node = pending.back();
        pending.pop_back();
        if (seen[node]) continue;
        seen[node] = true;
        for (std::size_t c = 0; c < 256; ++c) {
            const std::uint32_t unit = unitAt(node ^ c);
            if ((unit & ((1U << 31) | 0xFF)) != c) continue;  // no child for this byte
            const std::size_t child = (node ^ c) ^ offsetOf(unit);
            if (!blockInside(child)) return false;
            if (((unit >> 8) & 1) != 0 && (unitAt(child) & ((1U << 31) - 1)) >= strings.size()) return false;
            pending.push_back(child);
        }
    }
    return true;
}

/// Whether every normalizer of the model (normalizer_spec 3, denormalizer_spec 5) has a safe
/// precompiled_charsmap (field 2).
bool normalizersAreSafe(std::string_view model) {
    return forEachBytesField(model, [](std::uint64_t number, std::string_view spec) {
        if (number != 3 && number != 5) return true;
        return forEachBytesField(
            spec, [](std::uint64_t inner, std::string_view map) { return inner != 2 || charsMapIsSafe(map); });
    });
}

}  // namespace

extern "C" {

/// A processor for the serialized model, or null with the library's message in `error`.
__attribute__((visibility("default"))) void* linkscope_spm_load(const char* bytes, std::size_t size, char* error,
                                                                std::size_t errorSize) {
    try {
        if (!normalizersAreSafe(std::string_view(bytes, size))) {
            copyMessage("a damaged or malformed normalizer character map", error, errorSize);
            return nullptr;
        }
        auto processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
        const auto status = processor->LoadFromSerializedProto(std::string_view(bytes, size));
        if (!status.ok()) {
            copyMessage(status.message(), error, errorSize);
            return nullptr;
        }
        return processor.release();
    } catch (const std::exception& e) {
        copyMessage(e.what(), error, errorSize);
        return nullptr;
    }
}

__attribute__((visibility("default"))) void linkscope_spm_free(void* processor) {
    delete static_cast<sentencepiece::SentencePieceProcessor*>(processor);
}

/// Piece count, then the ids of <unk>, <s> and </s> (-1 when the model has none).
__attribute__((visibility("default"))) void linkscope_spm_info(const void* processor, int* info) {
    const auto* p = static_cast<const sentencepiece::SentencePieceProcessor*>(processor);
    info[0] = p->GetPieceSize();
    info[1] = p->unk_id();
    info[2] = p->bos_id();
    info[3] = p->eos_id();
}

/// The piece of an id in [0, piece count), as bytes that live as long as the processor.
__attribute__((visibility("default"))) const char* linkscope_spm_piece(const void* processor, int id,
                                                                       std::size_t* size) {
    const std::string& piece = static_cast<const sentencepiece::SentencePieceProcessor*>(processor)->IdToPiece(id);
    *size = piece.size();
    return piece.data();
}

using EmitPiece = void (*)(void* context, std::uint32_t id, const char* piece, std::size_t pieceSize,
                           std::uint32_t begin, std::uint32_t end);

/// Calls `emit` for each piece of the text in order (byte ranges of the text); 0 on success, 1
/// with the message in `error` otherwise.
__attribute__((visibility("default"))) int linkscope_spm_encode(const void* processor, const char* text,
                                                                std::size_t size, EmitPiece emit, void* context,
                                                                char* error, std::size_t errorSize) {
    try {
        const auto* p = static_cast<const sentencepiece::SentencePieceProcessor*>(processor);
        const auto encoded = p->EncodeAsImmutableProto(std::string_view(text, size));
        for (const auto& piece : encoded.pieces())
            emit(context, piece.id(), piece.piece().data(), piece.piece().size(), piece.begin(), piece.end());
        return 0;
    } catch (const std::exception& e) {
        copyMessage(e.what(), error, errorSize);
        return 1;
    }
}

}  // extern "C"
