#pragma once
// scikit-learn's built-in English stop-word list (sklearn.feature_extraction.text.ENGLISH_STOP_WORDS),
// which Le & Nguyen remove before their word-level TF-IDF. Embedded rather than read from a file
// so that an index built with stop words means the same thing on every machine.
#include <span>
#include <string_view>

namespace linkscope::retrieval {

/// The 318 words of scikit-learn's ENGLISH_STOP_WORDS (copied from scikit-learn 1.2.1,
/// sklearn/feature_extraction/_stop_words.py, itself taken from the Glasgow Information Retrieval
/// Group's list), lower-case, sorted by byte value.
std::span<const std::string_view> englishStopWords() noexcept;

/// True when `word` (already lower-cased) is one of englishStopWords().
bool isEnglishStopWord(std::string_view word) noexcept;

}  // namespace linkscope::retrieval
