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

namespace {

void copyMessage(const char* message, char* error, std::size_t errorSize) {
    if (errorSize == 0) return;
    std::strncpy(error, message, errorSize - 1);
    error[errorSize - 1] = '\0';
}

}  // namespace

extern "C" {

/// A processor for the serialized model, or null with the library's message in `error`.
__attribute__((visibility("default"))) void* linkscope_spm_load(const char* bytes, std::size_t size, char* error,
                                                                std::size_t errorSize) {
    try {
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
