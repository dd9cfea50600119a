// The vocabulary builder and the tokenizer on real KB names: MEDIC (shared data), the names a
// compact encoder for NCBI Disease would be trained on.
#include <QtTest/QtTest>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "encoder/bert_tokenizer.h"
#include "encoder/vocabulary_builder.h"
#include "fixtures.h"
#include "kb/dictionary_loader.h"

using namespace linkscope;
using namespace linkscope::encoder;

class TestTokenizerData : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

private Q_SLOTS:
    void medicVocabulary() {
        LINKSCOPE_REQUIRE_DATA(medic, "medic/medic_06Jul2012.txt");
        const auto loaded = kb::loadDictionary(medic);
        std::vector<std::string> names;
        loaded.kb.forEachNamePair(
            [&](kb::EntityIndex, kb::StringId name) { names.emplace_back(loaded.kb.strings().view(name)); });
        QVERIFY(names.size() > loaded.kb.entityCount());

        VocabularyBuilderOptions options;  // 8000 pieces, pairs seen at least twice, uncased
        const auto start = std::chrono::steady_clock::now();
        const Vocabulary vocabulary = buildWordPieceVocabulary(names, options);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        qInfo("MEDIC: %zu names, vocabulary of %zu pieces built in %.2f s", names.size(), vocabulary.size(), seconds);
        QVERIFY(vocabulary.size() <= options.vocabularySize);
        QCOMPARE(vocabulary.token(0), std::string("[PAD]"));
        QCOMPARE(vocabulary.token(4), std::string("[MASK]"));

        // Every character of every name is in the vocabulary in both forms, and no MEDIC word is
        // longer than 100 characters: no name may contain [UNK].
        const BertTokenizer tokenizer(vocabulary, TokenizerConfig{});
        std::size_t pieces = 0, words = 0;
        for (const auto& name : names) {
            const auto tokens = tokenizer.tokenize(name);
            QVERIFY2(std::find(tokens.begin(), tokens.end(), "[UNK]") == tokens.end(), name.c_str());
            pieces += tokens.size();
            words += static_cast<std::size_t>(
                std::count_if(tokens.begin(), tokens.end(), [](const std::string& t) { return !t.starts_with("##"); }));
        }
        qInfo("MEDIC names: %.2f pieces per name, %.3f pieces per word", double(pieces) / double(names.size()),
              double(pieces) / double(words));

        // The same names in another order give the same vocabulary.
        std::reverse(names.begin(), names.end());
        QVERIFY(std::ranges::equal(buildWordPieceVocabulary(names, options).tokens(), vocabulary.tokens()));

        // Saved as a checkpoint tokenizer and loaded back, it encodes the same.
        tokenizer.save(dir_.path("medic-tokenizer"));
        const auto loadedTokenizer = BertTokenizer::fromDirectory(dir_.path("medic-tokenizer"));
        for (std::size_t i = 0; i < names.size(); i += 97)
            QCOMPARE(loadedTokenizer.encode(names[i]).ids, tokenizer.encode(names[i]).ids);
    }
};

QTEST_APPLESS_MAIN(TestTokenizerData)
#include "test_tokenizer_data.moc"
