// The checked reader of link --shard's manifests (app/cli/shard_manifest.h): every field of every
// object given another JSON type, a negative, fractional or too large number, or left out, is an
// Error naming the file and the field, never a JSON library exception; a manifest that is a link,
// a folder, a FIFO or too large is refused before it is parsed.
#include <QTest>

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures.h"
#include "shard_manifest.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::cli;
namespace fs = std::filesystem;

namespace {

const std::string kFile = "shards/shard-00001-of-00004.json";

ShardManifest validManifest(CorpusFormat format = CorpusFormat::BioC) {
    ShardManifest m;
    m.shard = 1;
    m.shards = 4;
    m.input = {"/data/corpus.xml", 123456, -5, 0xdeadbeefu};
    m.rangeBytes = 40000;
    m.rangeCrc32 = 17;
    m.corpusFormat = format;
    m.linkerDescription = "sparse (char 3-grams)";
    m.linkerFingerprint = "dictionary 0123abcd";
    m.linkerArguments =
        nlohmann::json::array({"--kb", "kb.txt", nlohmann::json::array({100, 1700000000}), "--top", "3"});
    m.settings = {{"top", 3}, {"nilBelow", nullptr}, {"keepGold", false}, {"format", "bioc"}};
    if (format == CorpusFormat::PubTator) m.settings["format"] = "pubtator";
    const bool collection = format == CorpusFormat::BioC;
    m.part = {collection ? "shard-00001-of-00004.bioc.xml" : "shard-00001-of-00004.pubtator",
              5000,
              0xffffffffu,
              collection ? 120u : 0u,
              collection ? 14u : 0u,
              12};
    m.counts = {12, 300, 250, 20, 20, 10};
    m.command = {"linkscope-cli", "link", "--shard", "1/4"};
    return m;
}

// Error from parsing `json`, or "" when it parsed.
std::string parseError(const nlohmann::json& json) {
    try {
        parseShardManifest(json, kFile);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

// A value of another JSON type than `value`'s, for each other type.
std::vector<nlohmann::json> otherTypes(const nlohmann::json& value) {
    std::vector<nlohmann::json> out;
    if (!value.is_object()) out.push_back({{"a", 1}});
    if (!value.is_array()) out.push_back(nlohmann::json::array({1, 2, 3}));
    if (!value.is_string()) out.push_back("7");
    if (!value.is_number()) out.push_back(7);
    if (!value.is_boolean()) out.push_back(true);
    if (!value.is_null()) out.push_back(nullptr);
    return out;
}

}  // namespace

class TestShardManifest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void validManifestsReadBack() {
        for (const CorpusFormat format : {CorpusFormat::BioC, CorpusFormat::PubTator}) {
            const ShardManifest written = validManifest(format);
            const ShardManifest read = parseShardManifest(shardManifestJson(written), kFile);
            QCOMPARE(read.shard, written.shard);
            QCOMPARE(read.shards, written.shards);
            QVERIFY(read.input.sameContent(written.input));
            QCOMPARE(read.input.mtimeNs, written.input.mtimeNs);
            QCOMPARE(read.part.file, written.part.file);
            QCOMPARE(read.part.crc32, written.part.crc32);
            QCOMPARE(read.part.headerBytes, written.part.headerBytes);
            QCOMPARE(read.counts.withoutCandidate, written.counts.withoutCandidate);
            QVERIFY(read.settings == written.settings);
            QVERIFY(read.linkerArguments == written.linkerArguments);
            QVERIFY(read.command == written.command);
        }
    }

    // Every member of the manifest and of its objects: another JSON type, or left out.
    void everyFieldOfAnotherTypeOrMissing() {
        const nlohmann::json valid = shardManifestJson(validManifest());
        QVERIFY(parseError(valid).empty());
        std::size_t cases = 0;
        const auto check = [&](const nlohmann::json& damaged, const std::string& field, const std::string& how) {
            ++cases;
            const std::string error = parseError(damaged);
            QVERIFY2(!error.empty(), qPrintable(QString::fromStdString(field + " " + how + ": accepted")));
            QVERIFY2(error.starts_with(kFile + ": "), error.c_str());
            // The field is named as the file spells it (a wrong "format" or "version" says what
            // the manifest is instead).
            if (field != "format" && field != "version" && field != "complete")
                QVERIFY2(error.find("\"" + field + "\"") != std::string::npos, error.c_str());
        };
        for (const auto& [key, value] : valid.items()) {
            for (const nlohmann::json& other : otherTypes(value)) {
                nlohmann::json damaged = valid;
                damaged[key] = other;
                check(damaged, key, "as " + other.dump());
            }
            nlohmann::json missing = valid;
            missing.erase(key);
            check(missing, key, "left out");
            if (!value.is_object()) continue;
            for (const auto& [inner, innerValue] : value.items()) {
                const std::string field = key + "." + inner;
                for (const nlohmann::json& other : otherTypes(innerValue)) {
                    if (field == "settings.nilBelow" && (other.is_null() || other.is_number())) continue;
                    nlohmann::json damaged = valid;
                    damaged[key][inner] = other;
                    check(damaged, field, "as " + other.dump());
                }
                nlohmann::json innerMissing = valid;
                innerMissing[key].erase(inner);
                check(innerMissing, field, "left out");
            }
        }
        QVERIFY(cases > 150);
    }

    // A whole number that is negative, a fraction, beyond 64 bits or beyond its own bound.
    void numbersOutOfRange() {
        const nlohmann::json valid = shardManifestJson(validManifest());
        const std::vector<std::string> fields = {"shard",
                                                 "shards",
                                                 "input.size",
                                                 "input.crc32",
                                                 "range.bytes",
                                                 "range.crc32",
                                                 "settings.top",
                                                 "part.bytes",
                                                 "part.crc32",
                                                 "part.headerBytes",
                                                 "part.footerBytes",
                                                 "part.documents",
                                                 "counts.documents",
                                                 "counts.mentions",
                                                 "counts.linked",
                                                 "counts.nilBelow",
                                                 "counts.unranked",
                                                 "counts.withoutCandidate"};
        const std::vector<nlohmann::json> bad = {-1, 1.5, nlohmann::json::parse("18446744073709551616"),
                                                 nlohmann::json::parse("1e300")};
        for (const std::string& field : fields) {
            const auto dot = field.find('.');
            for (const nlohmann::json& value : bad) {
                nlohmann::json damaged = valid;
                if (dot == std::string::npos)
                    damaged[field] = value;
                else
                    damaged[field.substr(0, dot)][field.substr(dot + 1)] = value;
                const std::string error = parseError(damaged);
                QVERIFY2(error.find("\"" + field + "\"") != std::string::npos,
                         qPrintable(QString::fromStdString(field + " = " + value.dump() + ": " + error)));
            }
        }
        const auto refused = [&](const char* object, const char* key, const nlohmann::json& value) {
            nlohmann::json damaged = valid;
            if (*object)
                damaged[object][key] = value;
            else
                damaged[key] = value;
            const std::string error = parseError(damaged);
            const std::string field = std::string(*object ? object + std::string(".") : "") + key;
            return error.find("\"" + field + "\"") != std::string::npos;
        };
        QVERIFY(refused("", "shard", 4));                    // shard 4 of 4
        QVERIFY(refused("", "shards", 0));                   // no shards
        QVERIFY(refused("", "shards", 100000));              // above --shard's bound
        QVERIFY(refused("input", "crc32", 0x100000000ull));  // not a CRC-32
        QVERIFY(refused("part", "headerBytes", 5001));       // header past the part
        QVERIFY(refused("part", "footerBytes", 4990));       // header and footer past the part
        QVERIFY(refused("part", "footerBytes", 0));          // a BioC part without its footer
        QVERIFY(refused("part", "documents", 5001));         // more documents than bytes
        QVERIFY(refused("counts", "documents", 11));         // not the part's
        QVERIFY(refused("counts", "linked", 301));           // more linked than mentions
        QVERIFY(refused("counts", "withoutCandidate", 21));  // the counts do not add up
        QVERIFY(refused("settings", "top", 0));
        QVERIFY(refused("settings", "format", "pubtator"));                 // not corpusFormat
        QVERIFY(refused("part", "file", "shard-00002-of-00004.bioc.xml"));  // another shard's part
        QVERIFY(refused("", "corpusFormat", "brat"));                       // not split into shards
        QVERIFY(refused("", "linkerArguments", nlohmann::json::array({nlohmann::json::array({"x"})})));  // not words
        QVERIFY(refused("", "command", nlohmann::json::array({1})));
    }

    void notAManifest() {
        const nlohmann::json valid = shardManifestJson(validManifest());
        QVERIFY(parseError(nlohmann::json::array()).find("not a shard manifest") != std::string::npos);
        QVERIFY(parseError(nullptr).find("not a shard manifest") != std::string::npos);
        nlohmann::json other = valid;
        other["format"] = "linkscope-project";
        QVERIFY(parseError(other).find("\"format\"") != std::string::npos);
        other = valid;
        other["version"] = 1;
        QVERIFY(parseError(other).find("version 1") != std::string::npos);
        other["version"] = 3;
        QVERIFY(parseError(other).find("\"version\"") != std::string::npos);
        other = valid;
        other["complete"] = false;
        QVERIFY(parseError(other).find("not complete") != std::string::npos);
    }

    // What is at the manifest's path: nothing, a link, a folder, a FIFO, too large, not JSON.
    void manifestFiles() {
        test::FixtureDir dir;
        const fs::path file = dir.path("shard-00001-of-00004.json");
        QVERIFY(!readShardManifest(file));
        test::writeFile(file, shardManifestJson(validManifest()).dump(2));
        QCOMPARE(readShardManifest(file)->shard, std::size_t{1});

        const auto refused = [](const fs::path& path, const std::string& fragment) {
            try {
                readShardManifest(path);
            } catch (const Error& e) {
                const std::string message = e.what();
                return message.find(path.string()) != std::string::npos && message.find(fragment) != std::string::npos;
            }
            return false;
        };
        const fs::path link = dir.path("link.json");
        fs::create_symlink(file, link);
        QVERIFY(refused(link, "symbolic link"));
        const fs::path folder = dir.path("folder.json");
        fs::create_directory(folder);
        QVERIFY(refused(folder, "folder"));
        const fs::path fifo = dir.path("fifo.json");
        QVERIFY(::mkfifo(fifo.c_str(), 0600) == 0);
        QVERIFY(refused(fifo, "FIFO"));
        const fs::path large = dir.path("large.json");
        test::writeFile(large, std::string(kMaxShardManifestBytes + 16, '\n'));
        QVERIFY(refused(large, "larger than"));
        const fs::path cut = dir.path("cut.json");
        const std::string text = shardManifestJson(validManifest()).dump(2);
        test::writeFile(cut, text.substr(0, text.size() / 2));
        QVERIFY(refused(cut, "not valid JSON"));
    }
};

QTEST_GUILESS_MAIN(TestShardManifest)
#include "test_shard_manifest.moc"
