// BertTokenizer::fromDirectory on a folder holding tokenizer.json alone (encoder/tokenizer_json.h):
// a WordPiece tokenizers file read without vocab.txt, and decideCasing on the same folder. A
// tokenizer that loads then tokenizes and encodes a text with special tokens, accents, CJK and
// punctuation.
//
// A WordPiece tokenizer.json of a few thousand tokens fits in 128 KiB; 1 GiB of RSS, no
// allocation of 256 MiB (an id must not size a table), 10 s per input.
// fuzz-options: -max_len=131072 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: json.dict
#include "encoder/bert_tokenizer.h"
#include "encoder/tokenizer_casing.h"
#include "fuzz_support.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto folder = fuzz::freshFolder("tokenizer_json");
    fuzz::writeFile(folder / "tokenizer.json", fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("BertTokenizer::fromDirectory (tokenizer.json)", [&] {
        const auto tokenizer = encoder::BertTokenizer::fromDirectory(folder);
        const std::string_view text =
            "[CLS] Naloxone reverses the Caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xce\xb1-synuclein (PMD) [MASK] ##x";
        (void)tokenizer.tokenize(text);
        (void)tokenizer.encode(text);
    });
    fuzz::expectErrorOr("decideCasing (tokenizer.json)", [&] { (void)encoder::decideCasing(folder); });
    return 0;
}
