// SentencePieceModel: libsentencepiece, reached through the module sentencepiece_module.cpp
// (see there why it is a module opened with dlopen), behind the fairseq id mapping of XLM-R.
#include "encoder/sentencepiece_model.h"

#include <dlfcn.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <system_error>
#include <type_traits>
#include <vector>

#include "encoder/wordpiece.h"  // detail::TokenPiece
#include "util/atomic_file.h"
#include "util/error.h"

namespace linkscope::encoder {
namespace {

namespace fs = std::filesystem;

// The pieces fairseq puts before SentencePiece's and their ids; SentencePiece id i >= 3 is at
// i + kFairseqOffset.
constexpr const char* kFairseqHead[] = {"<s>", "<pad>", "</s>", "<unk>"};
constexpr std::int32_t kFairseqOffset = 1;
// A SentencePiece model is a few megabytes (XLM-R's, 250,000 pieces, about five); a file far
// larger is not one, and is refused before it is read into memory.
constexpr std::uintmax_t kMaxModelBytes = std::uintmax_t{512} << 20;
constexpr std::size_t kMessageSize = 512;

using EmitPiece = void (*)(void*, std::uint32_t, const char*, std::size_t, std::uint32_t, std::uint32_t);

/// The module's functions (sentencepiece_module.cpp), resolved once.
struct Module {
    void* (*load)(const char*, std::size_t, char*, std::size_t) = nullptr;
    void (*free)(void*) = nullptr;
    void (*info)(const void*, int*) = nullptr;
    const char* (*piece)(const void*, int, std::size_t*) = nullptr;
    int (*encode)(const void*, const char*, std::size_t, EmitPiece, void*, char*, std::size_t) = nullptr;
    std::string problem;  ///< why the module is unavailable; empty when it loaded
};

#ifdef LINKSCOPE_HAVE_SENTENCEPIECE
fs::path executableFolder() {
    std::error_code ec;
    const auto self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path{} : self.parent_path();
}

/// Where the module may be: $LINKSCOPE_SENTENCEPIECE_MODULE, beside an installed program
/// (<prefix>/lib/linkscope/, which is also where the build tree puts it beside bin/).
std::vector<fs::path> moduleCandidates() {
    std::vector<fs::path> candidates;
    if (const char* configured = std::getenv("LINKSCOPE_SENTENCEPIECE_MODULE"); configured && *configured)
        candidates.emplace_back(configured);
    if (const auto folder = executableFolder(); !folder.empty()) {
        for (const char* lib : {"lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"})
            candidates.push_back(folder.parent_path() / lib / "linkscope" / "liblinkscope_sentencepiece.so");
        candidates.push_back(folder / "liblinkscope_sentencepiece.so");
    }
    return candidates;
}
#endif

const Module& module() {
    static const Module loaded = [] {
        Module m;
#ifndef LINKSCOPE_HAVE_SENTENCEPIECE
        m.problem = "this build has no SentencePiece support (XLM-R's tokenizer); rebuild with libsentencepiece-dev";
        return m;
#else
        int flags = RTLD_NOW | RTLD_LOCAL;
#if defined(__SANITIZE_ADDRESS__)
        constexpr bool sanitized = true;
#elif defined(__has_feature)
        constexpr bool sanitized = __has_feature(address_sanitizer);
#else
        constexpr bool sanitized = false;
#endif
        // The sanitizers refuse RTLD_DEEPBIND; a sanitized (fuzz) build has no LibTorch either.
        if (!sanitized) flags |= RTLD_DEEPBIND;
        void* handle = nullptr;
        std::string tried;
        for (const auto& candidate : moduleCandidates()) {
            std::error_code ec;
            if (!fs::is_regular_file(candidate, ec)) continue;
            handle = dlopen(candidate.c_str(), flags);
            if (handle) break;
            const char* why = dlerror();
            tried += "; " + candidate.string() + ": " + (why ? why : "cannot be opened");
        }
        if (!handle) {
            m.problem =
                "this build has no SentencePiece support (XLM-R's tokenizer): its module "
                "liblinkscope_sentencepiece.so is not installed" +
                tried;
            return m;
        }
        const auto resolve = [&](auto& function, const char* name) {
            function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(handle, name));
            if (!function && m.problem.empty()) m.problem = std::string("the SentencePiece module lacks ") + name;
        };
        resolve(m.load, "linkscope_spm_load");
        resolve(m.free, "linkscope_spm_free");
        resolve(m.info, "linkscope_spm_info");
        resolve(m.piece, "linkscope_spm_piece");
        resolve(m.encode, "linkscope_spm_encode");
        return m;
#endif
    }();
    return loaded;
}

struct EncodeContext {
    std::vector<detail::TokenPiece>* out;
    std::size_t byteOffset;
    std::int32_t unkId;
};

void appendPiece(void* context, std::uint32_t id, const char* piece, std::size_t size, std::uint32_t begin,
                 std::uint32_t end) {
    auto& c = *static_cast<EncodeContext*>(context);
    const auto spmId = static_cast<std::int32_t>(id);
    c.out->push_back({spmId == 0 ? c.unkId : spmId + kFairseqOffset, std::string(piece, size), c.byteOffset + begin,
                      c.byteOffset + end});
}

}  // namespace

bool sentencePieceAvailable() noexcept {
    try {
        return module().problem.empty();
    } catch (...) {
        return false;
    }
}

struct SentencePieceModel::Impl {
    void* processor = nullptr;
    std::string bytes;
    int pieceCount = 0;
    ~Impl() {
        if (processor) module().free(processor);
    }
};

SentencePieceModel::SentencePieceModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SentencePieceModel::~SentencePieceModel() = default;

std::shared_ptr<const SentencePieceModel> SentencePieceModel::parse(std::string bytes, const std::string& source) {
    const Module& m = module();
    if (!m.problem.empty()) throw Error(source + ": " + m.problem);
    auto impl = std::make_unique<Impl>();
    std::array<char, kMessageSize> message{};
    impl->processor = m.load(bytes.data(), bytes.size(), message.data(), message.size());
    if (!impl->processor)
        throw ParseError(source, 0, "not a SentencePiece model (" + std::string(message.data()) + ")");
    std::array<int, 4> info{};
    m.info(impl->processor, info.data());
    // fairseq's ids need SentencePiece's three control pieces in their usual places.
    if (info[0] < 3 || info[1] != 0 || info[2] != 1 || info[3] != 2)
        throw ParseError(source, 0,
                         "the SentencePiece model does not have <unk>, <s> and </s> at ids 0, 1 and 2, which "
                         "XLM-RoBERTa's token ids assume");
    impl->pieceCount = info[0];
    impl->bytes = std::move(bytes);
    return std::shared_ptr<const SentencePieceModel>(new SentencePieceModel(std::move(impl)));
}

std::shared_ptr<const SentencePieceModel> SentencePieceModel::load(const fs::path& file) {
    if (const Module& m = module(); !m.problem.empty()) throw Error(file.string() + ": " + m.problem);
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    if (ec) throw ParseError(file.string(), 0, "cannot read the SentencePiece model: " + ec.message());
    if (size > kMaxModelBytes)
        throw ParseError(file.string(), 0,
                         "is " + std::to_string(size) + " bytes, far larger than a SentencePiece model");
    std::ifstream in(file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw ParseError(file.string(), 0, "cannot read the SentencePiece model");
    return parse(std::move(bytes), file.string());
}

std::vector<std::string> SentencePieceModel::fairseqTokens() const {
    const Module& m = module();
    std::vector<std::string> tokens(std::begin(kFairseqHead), std::end(kFairseqHead));
    tokens.reserve(static_cast<std::size_t>(impl_->pieceCount) + 2);
    for (int id = 3; id < impl_->pieceCount; ++id) {
        std::size_t size = 0;
        const char* piece = m.piece(impl_->processor, id, &size);
        tokens.emplace_back(piece, size);
    }
    tokens.emplace_back("<mask>");
    return tokens;
}

void SentencePieceModel::appendPieces(std::string_view text, std::size_t byteOffset, std::int32_t unkId,
                                      std::vector<detail::TokenPiece>& out) const {
    if (text.empty()) return;
    EncodeContext context{&out, byteOffset, unkId};
    std::array<char, kMessageSize> message{};
    if (module().encode(impl_->processor, text.data(), text.size(), appendPiece, &context, message.data(),
                        message.size()) != 0)
        throw Error("SentencePiece: cannot tokenize the text (" + std::string(message.data()) + ")");
}

void SentencePieceModel::save(const fs::path& file) const {
    AtomicFileWriter writer(file);
    writer.stream().write(impl_->bytes.data(), static_cast<std::streamsize>(impl_->bytes.size()));
    writer.commit();
}

const std::string& SentencePieceModel::bytes() const noexcept { return impl_->bytes; }

}  // namespace linkscope::encoder
