// BertTokenizer::fromDirectory of an XLM-R checkpoint (encoder/sentencepiece_model.h): its
// sentencepiece.bpe.model, parsed by libsentencepiece, given whole. A model that loads then
// tokenizes and encodes a text with special tokens, accents, Cyrillic, Greek and CJK.
//
// XLM-R's own model is about 5 MB; small models fit in 256 KiB. 1 GiB of RSS, no allocation
// of 256 MiB, 10 s per input.
// fuzz-options: -max_len=262144 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
#include "encoder/bert_tokenizer.h"
#include "encoder/sentencepiece_model.h"
#include "fuzz_support.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto folder = fuzz::freshFolder("sentencepiece");
    fuzz::writeFile(folder / encoder::kSentencePieceFile, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("BertTokenizer::fromDirectory (SentencePiece)", [&] {
        const auto tokenizer = encoder::BertTokenizer::fromDirectory(folder);
        const std::string_view text =
            "<s> Herzinfarkt und \xc3\x9c"
            "belkeit <mask> \xd0\xba\xd0\xbe\xd1\x80\xd1\x8c "
            "\xce\xb9\xce\xbb\xce\xb1\xcf\x81\xce\xac \xe8\x82\xba\xe7\x82\x8e </s>";
        (void)tokenizer.tokenize(text);
        encoder::EncodeOptions options;
        options.maxLength = 16;
        options.padToMaxLength = true;
        (void)tokenizer.encode(text, options);
    });
    return 0;
}
