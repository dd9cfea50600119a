#pragma once
// Fixture files for the evaluation suites: a small MEDIC-format KB and PubTator documents whose
// offsets are computed from the text, so that the fixtures stay correct when edited.
#include <QtTest/QtTest>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "test_data.h"

namespace linkscope::test {

/// MEDIC's format: IDS||name|name...; the first name is the preferred one. "Cold" is a homonym
/// of two concepts; 613097 and 201400 are OMIM alternatives of C567755 and C562707.
inline constexpr std::string_view kFixtureKb =
    "D006816||Huntington Disease|Huntington's Chorea\n"
    "D001943||Breast Neoplasms|Breast Cancer\n"
    "D010051||Ovarian Neoplasms|Ovarian Cancer\n"
    "D009369||Neoplasms|Tumors|Cancer\n"
    "C567755|613097||Tooth Agenesis, Selective, 6|STHAG6\n"
    "C535668||Adrenocorticotropic Hormone Deficiency\n"
    "C562707|201400||ACTH Deficiency, Isolated\n"
    "D003139||Common Cold|Cold\n"
    "D003080||Cold Temperature|Cold\n"
    "D019572||Retinal Neoplasms|Retinal Tumors\n"
    "D010871||Pinealoma|Pineal Tumors\n";

struct FixtureMention {
    std::string text;
    std::string type;
    std::string ids;
    std::size_t occurrence = 0;  ///< which occurrence of `text` in title + " " + abstract
    std::string individual{};    ///< BC5CDR's 7th column (the composite's parts); none when empty
};

/// One PubTator document; mention offsets are found in the text (ASCII fixtures only).
inline std::string pubTatorDocument(const std::string& pmid, const std::string& title, const std::string& abstract,
                                    const std::vector<FixtureMention>& mentions) {
    const std::string text = title + " " + abstract;
    std::string out = pmid + "|t|" + title + "\n" + pmid + "|a|" + abstract + "\n";
    for (const auto& mention : mentions) {
        std::size_t at = text.find(mention.text);
        for (std::size_t i = 0; i < mention.occurrence && at != std::string::npos; ++i)
            at = text.find(mention.text, at + 1);
        if (at == std::string::npos) qFatal("fixture mention \"%s\" is not in the text", mention.text.c_str());
        out += pmid + "\t" + std::to_string(at) + "\t" + std::to_string(at + mention.text.size()) + "\t" +
               mention.text + "\t" + mention.type + "\t" + mention.ids +
               (mention.individual.empty() ? "" : "\t" + mention.individual) + "\n";
    }
    return out + "\n";
}

}  // namespace linkscope::test
