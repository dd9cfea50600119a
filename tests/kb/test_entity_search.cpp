// Interactive entity search on a hand-made MEDIC file: the order of the match classes, accents
// and punctuation, ids in every spelling, homonym-expanded names, the limit, and a brute-force
// reference that must give the same hits, in the same order, for every prefix of every name.
#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "fixtures.h"
#include "kb/dictionary_loader.h"
#include "kb/entity_search.h"
#include "kb/homonyms.h"
#include "kb/kb_builder.h"
#include "kb/trigram_postings.h"
#include "util/utf8.h"

using namespace linkscope;
using namespace linkscope::kb;

namespace {

// Names chosen so that every class has members and the tie-breaks decide something:
// "Alpha Zeta" (preferred) and "Alpha Beta" (synonym) have keys of equal length.
constexpr std::string_view kKb =
    "D009369||Neoplasms|Tumors|Neoplasm|Cancer\n"
    "D001943||Breast Neoplasms|Breast Cancer|Breast Tumors|Cancer of Breast\n"
    "D003123|120435||Colorectal Neoplasms, Hereditary Nonpolyposis|Hereditary Nonpolyposis Colorectal Cancer|Lynch "
    "Syndrome\n"
    "D012859||Sj\xC3\xB6gren's Syndrome|Sicca Syndrome\n"
    "D006816|143100||Huntington Disease|Huntington Chorea|HD\n"
    "D006627||Hirschsprung Disease|Aganglionic Megacolon|HD\n"
    "D009370||Neoplasms by Histologic Type|Neoplasm, Histologic\n"
    "D018302||Neoplasms, Neuroepithelial\n"
    "C535972||Colorectal cancer, hereditary nonpolyposis, type 1\n"
    "D000001||Alpha Zeta\n"
    "D000002||Omega|Alpha Beta\n"
    "D000003||\xE2\x80\x93\n";  // a name that is punctuation only (an en dash)

struct Got {
    std::string id;
    SearchMatch match;
    std::string text;
    friend bool operator==(const Got&, const Got&) = default;
};

char* toString(const Got& g) {
    return QTest::toString(
        QString::fromStdString(g.id + " " + std::string(kb::toString(g.match)) + " \"" + g.text + "\""));
}

class TestEntitySearch : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;
    KnowledgeBase kb_;
    std::unique_ptr<HomonymExpansion> homonyms_;
    std::unique_ptr<EntitySearchIndex> plain_;     // names only
    std::unique_ptr<EntitySearchIndex> expanded_;  // names and homonym-expanded names

    std::vector<Got> run(const EntitySearchIndex& index, std::string_view query, std::size_t limit = 50) const {
        std::vector<Got> got;
        for (const EntitySearchHit& hit : index.search(query, limit))
            got.push_back({std::string(kb_.primaryId(hit.entity)), hit.match, std::string(hit.text)});
        return got;
    }
    std::vector<std::string> ids(const EntitySearchIndex& index, std::string_view query, std::size_t limit = 50) const {
        std::vector<std::string> out;
        for (const auto& g : run(index, query, limit)) out.push_back(g.id);
        return out;
    }

    // The same search written from the definitions, entity by entity, without any index:
    // each entity's best (class, tie-break) over its ids and names, then all entities sorted.
    std::vector<Got> reference(const EntitySearchIndex& index, std::string_view query, bool withExpanded) const {
        const std::string key = index.normalizedKey(query);
        std::string idQuery;
        for (char c : std::string(query)) idQuery += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
        while (!idQuery.empty() && idQuery.back() == ' ') idQuery.pop_back();
        while (!idQuery.empty() && idQuery.front() == ' ') idQuery.erase(0, 1);
        const bool digit = std::any_of(idQuery.begin(), idQuery.end(), [](char c) { return c >= '0' && c <= '9'; });
        using Order = std::tuple<int, std::size_t, int, std::string, EntityIndex>;
        std::vector<std::pair<Order, Got>> best;
        for (EntityIndex e = 0; e < kb_.entityCount(); ++e) {
            std::optional<std::pair<Order, Got>> mine;
            const auto offer = [&](Order order, SearchMatch match, std::string_view text) {
                if (!mine || order < mine->first)
                    mine = {{order, {std::string(kb_.primaryId(e)), match, std::string(text)}}};
            };
            std::vector<std::tuple<std::string, bool, std::string_view>> idForms;  // (upper-cased form, primary, id)
            const auto addForms = [&](std::string_view id, bool primary) {
                std::string upper(id);
                for (char& c : upper) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
                idForms.emplace_back(upper, primary, id);
                if (const auto colon = upper.find(':'); colon != std::string::npos && colon > 0)
                    idForms.emplace_back(upper.substr(colon + 1), primary, id);
            };
            addForms(kb_.primaryId(e), true);
            for (const auto alt : kb_.alternativeIds(e)) addForms(alt, false);
            for (const auto& [form, primary, text] : idForms) {
                if (!idQuery.empty() && form == idQuery)
                    offer({0, 0, primary ? 0 : 1, "", e}, SearchMatch::ExactId, text);
                else if (digit && !idQuery.empty() && form.starts_with(idQuery))
                    offer({3, form.size(), 0, form + (primary ? "\x01" : "\x02"), e}, SearchMatch::IdPrefix, text);
            }
            if (!key.empty()) {
                std::vector<std::string> queryWords;
                for (std::size_t b = 0; b < key.size();) {
                    const auto end = std::min(key.find(' ', b), key.size());
                    queryWords.push_back(key.substr(b, end - b));
                    b = end + 1;
                }
                for (std::size_t pair = kb_.firstPair(e); pair < kb_.firstPair(e) + kb_.nameIds(e).size(); ++pair) {
                    std::vector<std::pair<std::string_view, bool>> texts{
                        {kb_.strings().view(kb_.pairName(pair)), false}};
                    if (withExpanded && homonyms_->expandedName(pair) != texts[0].first)
                        texts.push_back({homonyms_->expandedName(pair), true});
                    for (const auto& [text, isExpanded] : texts) {
                        const std::string k = index.normalizedKey(text);
                        const bool preferred = !isExpanded && pair == kb_.firstPair(e);
                        const Order tie{0, k.size(), preferred ? 0 : 1, k, e};
                        const auto with = [&](int cls) {
                            auto o = tie;
                            std::get<0>(o) = cls;
                            return o;
                        };
                        bool words = true;
                        for (const auto& w : queryWords)
                            words = words && (k.starts_with(w) || k.find(" " + w) != std::string::npos);
                        if (k == key)
                            offer(with(1), SearchMatch::ExactName, text);
                        else if (k.starts_with(key))
                            offer(with(2), SearchMatch::NamePrefix, text);
                        else if (words)
                            offer(with(4), SearchMatch::WordPrefix, text);
                        else if (k.find(key) != std::string::npos)
                            offer(with(5), SearchMatch::Substring, text);
                    }
                }
            }
            if (mine) best.push_back(*mine);
        }
        std::sort(best.begin(), best.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<Got> out;
        for (const auto& [order, got] : best) out.push_back(got);
        return out;
    }

private Q_SLOTS:
    void initTestCase() {
        auto loaded = loadDictionary(dir_.write("kb.txt", kKb));
        kb_ = std::move(loaded.kb);
        homonyms_ = std::make_unique<HomonymExpansion>(expandHomonyms(kb_));
        plain_ = std::make_unique<EntitySearchIndex>(kb_);
        expanded_ = std::make_unique<EntitySearchIndex>(kb_, homonyms_.get());
    }

    void sizes() {
        // 27 names, one of which (the en dash) has an empty key; the two "HD" pairs gain expanded names.
        QCOMPARE(kb_.pairCount(), std::size_t{27});
        QCOMPARE(plain_->entryCount(), std::size_t{26});
        QCOMPARE(expanded_->entryCount(), std::size_t{28});
        QVERIFY(plain_->memoryBytes() > 0);
    }

    void emptyQueriesFindNothing() {
        QVERIFY(plain_->search("").empty());
        QVERIFY(plain_->search("   ").empty());
        QVERIFY(plain_->search(" ,;- ").empty());
        QVERIFY(plain_->search("\xE2\x80\x93").empty());  // the en dash entity's only name
        QVERIFY(plain_->search("neoplasm", 0).empty());
    }

    void classesComeInOrder() {
        // Exact name, then name prefixes (shorter key first), then names where every query word
        // starts a word, each entity once under its best match.
        const std::vector<Got> want{
            {"MESH:D009369", SearchMatch::ExactName, "Neoplasm"},
            {"MESH:D009370", SearchMatch::NamePrefix, "Neoplasm, Histologic"},
            {"MESH:D018302", SearchMatch::NamePrefix, "Neoplasms, Neuroepithelial"},
            {"MESH:D001943", SearchMatch::WordPrefix, "Breast Neoplasms"},
            {"MESH:D003123", SearchMatch::WordPrefix, "Colorectal Neoplasms, Hereditary Nonpolyposis"},
        };
        QCOMPARE(run(*plain_, "neoplasm"), want);
        // A substring that starts no word comes last.
        const auto plasm = run(*plain_, "plasm");
        QCOMPARE(plasm.size(), std::size_t{5});
        for (const Got& g : plasm) QVERIFY(g.match == SearchMatch::Substring);
        QCOMPARE(plasm.front(), (Got{"MESH:D009369", SearchMatch::Substring, "Neoplasm"}));
    }

    void wordPrefixesInAnyOrder() {
        QCOMPARE(run(*plain_, "canc breast"),
                 (std::vector<Got>{{"MESH:D001943", SearchMatch::WordPrefix, "Breast Cancer"}}));
        // The shorter of D003123's matching names stands for it, and it is shorter than C535972's.
        QCOMPARE(run(*plain_, "hered nonpol"),
                 (std::vector<Got>{
                     {"MESH:D003123", SearchMatch::WordPrefix, "Hereditary Nonpolyposis Colorectal Cancer"},
                     {"MESH:C535972", SearchMatch::WordPrefix, "Colorectal cancer, hereditary nonpolyposis, type 1"}}));
        QVERIFY(plain_->search("breast lynch").empty());
    }

    void preferredNameBreaksTies() {
        // "alpha zeta" and "alpha beta" are equally long: the preferred name wins over the key order.
        QCOMPARE(ids(*plain_, "alpha"), (std::vector<std::string>{"MESH:D000001", "MESH:D000002"}));
        QCOMPARE(run(*plain_, "alpha").back().text, std::string("Alpha Beta"));
    }

    void accentsCaseAndPunctuationAreIgnored() {
        const Got sjogren{"MESH:D012859", SearchMatch::NamePrefix, "Sj\xC3\xB6gren's Syndrome"};
        QCOMPARE(run(*plain_, "sjogren"), std::vector<Got>{sjogren});
        QCOMPARE(run(*plain_, "SJ\xC3\x96GREN"), std::vector<Got>{sjogren});
        QVERIFY(run(*plain_, "Sjogren's syndrome").front().match == SearchMatch::ExactName);
        QVERIFY(run(*plain_, "sjogren s syndrome").front().match == SearchMatch::ExactName);
        QCOMPARE(plain_->normalizedKey("Sj\xC3\xB6gren's  Syndrome!"), std::string("sjogren s syndrome"));
    }

    void idsInEverySpelling() {
        for (const char* query : {"D009369", "MESH:D009369", "mesh:d009369", " d009369 "}) {
            const auto got = run(*plain_, query);
            QVERIFY2(!got.empty(), query);
            QCOMPARE(got.front(), (Got{"MESH:D009369", SearchMatch::ExactId, "MESH:D009369"}));
        }
        // MEDIC's bare OMIM numbers are alternative ids, found with or without their prefix.
        QCOMPARE(run(*plain_, "OMIM:143100").front(), (Got{"MESH:D006816", SearchMatch::ExactId, "OMIM:143100"}));
        QCOMPARE(run(*plain_, "143100").front(), (Got{"MESH:D006816", SearchMatch::ExactId, "OMIM:143100"}));
    }

    void idPrefixesOnceADigitIsTyped() {
        QCOMPARE(run(*plain_, "D0093"), (std::vector<Got>{{"MESH:D009369", SearchMatch::IdPrefix, "MESH:D009369"},
                                                          {"MESH:D009370", SearchMatch::IdPrefix, "MESH:D009370"}}));
        QCOMPARE(ids(*plain_, "omim:1"), (std::vector<std::string>{"MESH:D003123", "MESH:D006816"}));
        // Without a digit no id prefix is tried: "d" finds names only.
        for (const auto& g : run(*plain_, "d"))
            QVERIFY(g.match != SearchMatch::IdPrefix && g.match != SearchMatch::ExactId);
    }

    void homonymExpandedNamesAreFound() {
        QVERIFY(plain_->search("hd hunt").empty());
        QCOMPARE(run(*expanded_, "HD (Hunt"),
                 (std::vector<Got>{{"MESH:D006816", SearchMatch::NamePrefix, "HD (Huntington Disease)"}}));
        const auto hirsch = expanded_->search("hd hirsch");
        QCOMPARE(hirsch.size(), std::size_t{1});
        QVERIFY(hirsch.front().expandedName);
        QVERIFY(!hirsch.front().preferredName);
        // The homonym itself still finds both of its entities, by their original name.
        const auto hd = run(*expanded_, "HD");
        QCOMPARE(hd.size(), std::size_t{2});
        QCOMPARE((std::set<std::string>{hd[0].id, hd[1].id}), (std::set<std::string>{"MESH:D006816", "MESH:D006627"}));
        for (const Got& g : hd) QCOMPARE(g.text, std::string("HD"));
    }

    void limitCapsDistinctEntities() {
        QCOMPARE(plain_->search("n", 2).size(), std::size_t{2});
        const auto all = plain_->search("n", 1000);
        std::set<EntityIndex> entities;
        for (const auto& hit : all) QVERIFY(entities.insert(hit.entity).second);
        // Every entity with an "n" in some name: all but D000001 (Alpha Zeta), D000002 (Omega,
        // Alpha Beta) and the en dash.
        QCOMPARE(all.size(), kb_.entityCount() - 3);
        // The first hits of a longer list are the hits of a shorter one.
        const auto five = plain_->search("n", 5);
        for (std::size_t i = 0; i < five.size(); ++i) QCOMPARE(five[i].entity, all[i].entity);
    }

    // Every prefix of every name, id and expanded name, plus some words and substrings.
    std::set<std::string> allQueries() const {
        std::set<std::string> queries{"syndrome", "ease",  "canc",   "cancer breast",   "colo can", "1",   "D00",
                                      "omim",     "c5",    "tumors", "neoplasms neuro", "hd (",     "(",   "a b",
                                      "z",        "plasm", "eredit", "ogren",           "ndrome",   "s s", "ton cho"};
        kb_.forEachNamePair([&](EntityIndex, StringId name) {
            const std::string_view text = kb_.strings().view(name);
            for (std::size_t n = 1; n <= text.size(); ++n) queries.insert(std::string(text.substr(0, n)));
        });
        for (EntityIndex e = 0; e < kb_.entityCount(); ++e) {
            const std::string_view id = kb_.primaryId(e);
            for (std::size_t n = 1; n <= id.size(); ++n) queries.insert(std::string(id.substr(0, n)));
        }
        homonyms_->forEach([&](const ExpandedName& name) { queries.insert(std::string(name.expanded)); });
        return queries;
    }

    void agreesWithBruteForce() {
        const std::set<std::string> queries = allQueries();
        int checked = 0;
        for (const std::string& query : queries) {
            if (!utf8::isValid(query)) continue;  // a prefix cut inside "ö"
            const auto want = reference(*plain_, query, false);
            QCOMPARE(run(*plain_, query, 1000), want);
            QCOMPARE(run(*expanded_, query, 1000), reference(*expanded_, query, true));
            // A small limit stops early (later classes are skipped) and must keep the best ones.
            QCOMPARE(run(*plain_, query, 3),
                     std::vector<Got>(want.begin(), want.begin() + std::min<std::ptrdiff_t>(3, std::ssize(want))));
            ++checked;
        }
        QVERIFY(checked > 300);
    }

    void postingsAgreeWithTheScan() {
        // Above kSubstringScanBytes of keys (UMLS) the substring class reads 3-gram postings: the
        // same hits as the scan for every query of three characters or more, and no substring
        // hits for a shorter one (the other classes unchanged).
        const EntitySearchIndex plain(kb_, nullptr, {}, 0), expanded(kb_, homonyms_.get(), {}, 0);
        QVERIFY(plain.substringPostings() && expanded.substringPostings());
        QVERIFY(!plain_->substringPostings());
        QVERIFY(plain.memoryBytes() > plain_->memoryBytes());
        int longer = 0, substringHits = 0;
        for (const std::string& query : allQueries()) {
            if (!utf8::isValid(query)) continue;
            for (const auto& [withPostings, scanned] :
                 {std::pair{&plain, plain_.get()}, std::pair{&expanded, expanded_.get()}}) {
                const auto want = run(*scanned, query, 1000);
                const auto got = run(*withPostings, query, 1000);
                if (plain.normalizedKey(query).size() >= 3) {
                    QCOMPARE(got, want);
                    ++longer;
                    substringHits += static_cast<int>(std::count_if(
                        got.begin(), got.end(), [](const Got& g) { return g.match == SearchMatch::Substring; }));
                } else {
                    std::vector<Got> better;
                    std::copy_if(want.begin(), want.end(), std::back_inserter(better),
                                 [](const Got& g) { return g.match != SearchMatch::Substring; });
                    QCOMPARE(got, better);
                }
            }
        }
        QVERIFY(longer > 300);
        QVERIFY(substringHits > 20);  // the comparison did reach the substring class
    }

    void trigramPostingsFindEveryKeyOnce() {
        // Gaps of 299 keys need two varint bytes; a key holding a 3-gram twice is listed once;
        // bytes of UTF-8 are 3-grams like any others.
        std::vector<std::string> keys;
        for (int i = 0; i < 1000; ++i)
            keys.push_back(i % 299 == 0 ? "xx aaaa aaa" : i == 500 ? "sj\xC3\xB6gren" : "bbbb");
        const TrigramPostings::KeyFn keyOf = [&](std::uint32_t k) { return std::string_view(keys[k]); };
        const TrigramPostings postings(static_cast<std::uint32_t>(keys.size()), keyOf);
        const std::vector<std::uint32_t> every299{0, 299, 598, 897};
        QCOMPARE(postings.containing("aaa", keyOf), every299);
        QCOMPARE(postings.containing("aaaa", keyOf), every299);
        QCOMPARE(postings.containing("x aaaa a", keyOf), every299);
        QCOMPARE(postings.containing("\xC3\xB6gr", keyOf), std::vector<std::uint32_t>{500});
        QVERIFY(postings.containing("aab", keyOf).empty());        // a 3-gram no key holds
        QVERIFY(postings.containing("aaaa aaaa", keyOf).empty());  // every 3-gram held, the text not
        QVERIFY_THROWS_EXCEPTION(Error, postings.containing("aa", keyOf));
        QCOMPARE(TrigramPostings(0, keyOf).gramCount(), std::size_t{0});
        ProgressSink stop;
        stop.cancelled = [] { return true; };
        QVERIFY_THROWS_EXCEPTION(Cancelled, TrigramPostings(10, keyOf, stop));
    }

    void invalidInputIsAnError() {
        QVERIFY_THROWS_EXCEPTION(Error, plain_->search("bad \xC3("));
        KnowledgeBase other = loadDictionary(dir_.write("other.txt", "D000009||Other\n")).kb;
        QVERIFY_THROWS_EXCEPTION(Error, EntitySearchIndex(other, homonyms_.get()));
    }

    void buildCanBeCancelled() {
        ProgressSink sink;
        double last = -1;
        sink.report = [&](std::string_view, double fraction) { last = fraction; };
        EntitySearchIndex built(kb_, nullptr, sink);
        QCOMPARE(last, 1.0);
        sink.cancelled = [] { return true; };
        QVERIFY_THROWS_EXCEPTION(Cancelled, EntitySearchIndex(kb_, nullptr, sink));
    }

    void emptyKnowledgeBase() {
        KnowledgeBase empty = KnowledgeBaseBuilder().build();
        EntitySearchIndex index(empty);
        QCOMPARE(index.entryCount(), std::size_t{0});
        QVERIFY(index.search("anything").empty());
        QVERIFY(index.search("D0").empty());
    }
};

}  // namespace

QTEST_APPLESS_MAIN(TestEntitySearch)
#include "test_entity_search.moc"
