#pragma once
// BioSyn's way of applying a document's abbreviation definitions to a mention
// (dmis-lab/BioSyn, preprocess/query_preprocess.py, apply_abbr_dict), reproduced so that our
// queries can match BioSyn's processed ones:
//   - the definitions become one short form -> long form map; a short form defined twice keeps
//     its LAST long form (a Python dict filled in order);
//   - the mention is split on white space and every whole token that is a short form is
//     replaced; a token holding '/' is also replaced piece by piece ("CL/P"), and a token ending
//     in ',' is looked up without its commas and gets one ',' back;
//   - the result is re-read until nothing changes (long forms holding short forms), here at
//     most text::kMaxExpansionPasses times, since a cyclic definition would loop for ever.
// Unlike text::expandAbbreviations, a short form inside a token ("HPRT-deficient") or of two
// words ("Hex A") is never replaced. The tokens are joined by single spaces.
#include <span>
#include <string>
#include <string_view>

namespace linkscope::text {
struct AbbreviationDefinition;
}

namespace linkscope::eval {

struct TokenExpansion {
    std::string text;
    bool changed = false;  ///< some token was replaced
};

TokenExpansion expandAbbreviationTokens(std::string_view mention,
                                        std::span<const text::AbbreviationDefinition> definitions);

}  // namespace linkscope::eval
