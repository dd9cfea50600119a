#pragma once
// Shared by the export suites (BioC, brat, the data round trips): a PubTator fixture with
// everything an export must carry, and the comparison of annotations after a round trip.
#include <string>
#include <string_view>

#include "corpus/corpus.h"
#include "corpus/link_column.h"
#include "corpus_fixtures.h"

namespace linkscope::test {

// 1001: an unprefixed id (a gene), a stray space in an id column, '|' and '+' composites.
// 300: non-ASCII text (2-byte alpha and beta in the title, a 4-byte mathematical alpha in the
//      abstract: characters and bytes differ), CUI-less "-1" alone and inside a composite, an
//      individual-mention column, an UNLINKED mention (empty id column), UMLS ids with semantic
//      types, a CID relation.
// 400: title only, with mentions and a relation. 401: no mentions.
inline constexpr std::string_view kExportFixture =
    "1001|t|BRCA1 mutations cause breast cancer.\n"
    "1001|a|Ovarian cancer and breast cancer share risk factors; an X-linked dysmyelinating disorder is rare.\n"
    "1001\t0\t5\tBRCA1\tGene\t672\n"
    "1001\t22\t35\tbreast cancer\tSpecificDisease\tD001943\n"
    "1001\t37\t51\tOvarian cancer\tSpecificDisease\t D010051\n"
    "1001\t37\t69\tOvarian cancer and breast cancer\tCompositeMention\tD010051|D001943\n"
    "1001\t93\t125\tX-linked dysmyelinating disorder\tDiseaseClass\tD020279+D035583\n"
    "\n"
    "300|t|Role of \xce\xb1-synuclein and \xce\xb2-amyloid in Parkinson disease.\n"
    "300|a|Levels of \xf0\x9d\x9b\xbc-synuclein rose in Parkinson disease patients treated with naloxone; TP53 was "
    "unchanged.\n"
    "300\t8\t19\t\xce\xb1-synuclein\tChemical\t-1\n"
    "300\t24\t33\t\xce\xb2-amyloid\tChemical\tD016229\n"
    "300\t37\t54\tParkinson disease\tDisease\tD010300|-1\tParkinson|disease\n"
    "300\t66\t77\t\xf0\x9d\x9b\xbc-synuclein\tChemical\tD051844\n"
    "300\t86\t103\tParkinson disease\tDisease\t\n"
    "300\t126\t134\tnaloxone\tChemical\tMESH:D009270\n"
    "300\t136\t140\tTP53\tT116,T123\tUMLS:C0079419\n"
    "300\tCID\tD009270\tD010300\n"
    "\n"
    "400|t|Hypertension after clonidine withdrawal.\n"
    "400\t0\t12\tHypertension\tDisease\tD006973\n"
    "400\t19\t28\tclonidine\tChemical\tD003000\n"
    "400\tCID\tD003000\tD006973\n"
    "\n"
    "401|t|A title with no mentions at all.\n"
    "401|a|And an abstract without any.\n";

struct AnnotationCheck {
    bool relations = true;           ///< brat cannot hold document-level relations
    bool individualMentions = true;  ///< nor BC5CDR's individual-mention lists
};

/// What differs between the annotations of two documents, or "" when they agree. Ignores what
/// only matters for writing PubTator byte for byte (an id column's spelling, an empty 7th
/// column, padded text columns, source lines), but not the unlinked / CUI-less distinction.
inline std::string annotationDifference(const Document& a, const Document& b, AnnotationCheck check = {}) {
    const std::string where = "document " + a.pmid() + ": ";
    if (a.pmid() != b.pmid()) return where + "PMID " + b.pmid();
    if (a.title != b.title) return where + "title \"" + b.title + "\"";
    if (a.hasAbstract != b.hasAbstract || a.abstract != b.abstract) return where + "abstract \"" + b.abstract + "\"";
    if (a.mentions.size() != b.mentions.size())
        return where + std::to_string(a.mentions.size()) + " vs " + std::to_string(b.mentions.size()) + " mentions";
    for (std::size_t i = 0; i < a.mentions.size(); ++i) {
        const Mention& x = a.mentions[i];
        const Mention& y = b.mentions[i];
        const std::string which = where + "mention " + std::to_string(i + 1) + " (" + x.text + "): ";
        if (x.start != y.start || x.end != y.end)
            return which + "offsets " + std::to_string(y.start) + "-" + std::to_string(y.end);
        if (x.text != y.text) return which + "text \"" + y.text + "\"";
        if (x.type != y.type || x.semanticTypes != y.semanticTypes) return which + "type \"" + y.type + "\"";
        if (!sameIds(x.ids, y.ids))
            return which + "ids \"" + formatLinkColumn(y.ids) + "\" (id column \"" + y.idColumn + "\")";
        if (isUnlinked(x) != isUnlinked(y)) return which + "unlinked vs CUI-less";
        if (check.individualMentions && x.individualMentions != y.individualMentions)
            return which + "individual mentions";
        if (!y.offsetsValid) return which + "offsets not valid";
    }
    if (check.relations) {
        if (a.relations.size() != b.relations.size())
            return where + std::to_string(a.relations.size()) + " vs " + std::to_string(b.relations.size()) +
                   " relations";
        for (std::size_t i = 0; i < a.relations.size(); ++i)
            if (a.relations[i].type != b.relations[i].type || a.relations[i].arguments != b.relations[i].arguments)
                return where + "relation " + std::to_string(i + 1);
    } else if (!b.relations.empty()) {
        return where + "relations where the format has none";
    }
    return {};
}

/// Same check over corpora: the same PMIDs (in any order: brat keeps none), each document's
/// annotations agreeing.
inline std::string annotationDifference(const Corpus& a, const Corpus& b, AnnotationCheck check = {}) {
    if (a.size() != b.size()) return std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " documents";
    for (const Document& document : a.documents()) {
        const Document* other = b.find(document.pmid());
        if (!other) return "document " + document.pmid() + " missing";
        if (auto difference = annotationDifference(document, *other, check); !difference.empty()) return difference;
    }
    return {};
}

/// A corpus written in a format that keeps the document order (BioC XML, BioC JSON) and read
/// back: the same PMIDs in the same order, every annotation agreeing, and nothing reported.
inline std::string orderedRoundTripDifference(const Corpus& original, const Corpus& back) {
    if (auto difference = annotationDifference(original, back); !difference.empty()) return difference;
    for (std::size_t i = 0; i < original.size(); ++i)
        if (back.documents()[i].pmid() != original.documents()[i].pmid())
            return "document " + std::to_string(i) + " is " + back.documents()[i].pmid() + ", not " +
                   original.documents()[i].pmid();
    if (!back.diagnostics.empty()) return "read back with a diagnostic: " + back.diagnostics.front().message;
    return {};
}

}  // namespace linkscope::test
