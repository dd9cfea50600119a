// BertTokenizer::fromDirectory (encoder/bert_tokenizer.h, tokenizer_files.cpp): a checkpoint's
// vocab.txt, tokenizer_config.json, special_tokens_map.json and added_tokens.json, given in that
// order separated by NULs (a missing part is a missing file: a lone part is vocab.txt alone).
// A tokenizer that loads then tokenizes and encodes a text with special and added tokens,
// accents, CJK and punctuation.
//
// A vocabulary of a few thousand tokens fits in 64 KiB; 1 GiB of RSS, no allocation of
// 256 MiB (an added token's id must not size a table), 10 s per input.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: json.dict
#include <array>

#include "encoder/bert_tokenizer.h"
#include "fuzz_support.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static constexpr std::array<const char*, 4> kFiles{"vocab.txt", "tokenizer_config.json", "special_tokens_map.json",
                                                       "added_tokens.json"};
    const auto parts = fuzz::splitParts(fuzz::bytesOf(data, size), kFiles.size());
    const auto folder = fuzz::freshFolder("tokenizer");
    for (std::size_t i = 0; i < parts.size(); ++i) fuzz::writeFile(folder / kFiles[i], parts[i]);
    fuzz::expectErrorOr("BertTokenizer::fromDirectory", [&] {
        const auto tokenizer = encoder::BertTokenizer::fromDirectory(folder);
        const std::string_view text =
            "[CLS] Naloxone [S] reverses [E] the Caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 "
            "\xce\xb1-synuclein (PMD) [MASK] [UNK] ##x [START] end [END]";
        (void)tokenizer.tokenize(text);
        encoder::EncodeOptions options;
        options.maxLength = 16;
        options.padToMaxLength = true;
        (void)tokenizer.encode(text, options);
        (void)tokenizer.vocabularySize();
    });
    return 0;
}
