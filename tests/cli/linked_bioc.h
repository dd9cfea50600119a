#pragma once
// Reading back what `linkscope-cli link --keep-gold` wrote into a BioC file, and checking it
// against `eval`'s per-mention file: the links scored against the gold are right for exactly the
// mentions eval finds right at rank 1.
#include <QRegularExpression>
#include <QStringList>
#include <QTest>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "kb/knowledge_base.h"
#include "test_data.h"

namespace linkscope::test {

using LinkKey = std::tuple<std::string, std::size_t, std::size_t>;  // document, start, end

// The ids of each part of every annotation of a BioC file that `link --keep-gold` wrote, as the
// KB's primary ids: linkscope_part_P for a composite, else linkscope_identifier.
inline std::map<LinkKey, std::vector<std::vector<std::string>>> linkedParts(const std::filesystem::path& bioc,
                                                                            const kb::KnowledgeBase& kb) {
    const auto primaryIds = [&](const QString& column) {
        std::vector<std::string> ids;
        for (const auto& id : column.split('|'))
            if (const auto entity = kb.findEntity(id.toStdString())) ids.emplace_back(kb.primaryId(*entity));
        return ids;
    };
    std::map<LinkKey, std::vector<std::vector<std::string>>> linked;
    const QString xml = QString::fromStdString(readFile(bioc));
    const QRegularExpression document("<document>\\s*<id>([^<]*)</id>(.*?)</document>",
                                      QRegularExpression::DotMatchesEverythingOption);
    const QRegularExpression annotation("<annotation [^>]*>(.*?)</annotation>",
                                        QRegularExpression::DotMatchesEverythingOption);
    const QRegularExpression infon("<infon key=\"(linkscope_identifier|linkscope_part_\\d+)\">([^<]*)</infon>");
    const QRegularExpression location("<location offset=\"(\\d+)\" length=\"(\\d+)\"");
    for (const auto& d : document.globalMatch(xml))
        for (const auto& a : annotation.globalMatch(d.captured(2))) {
            std::vector<std::vector<std::string>> parts;
            std::vector<std::string> whole;
            for (const auto& i : infon.globalMatch(a.captured(1))) {
                if (i.captured(1) == "linkscope_identifier")
                    whole = primaryIds(i.captured(2));
                else
                    parts.push_back(primaryIds(i.captured(2)));
            }
            if (parts.empty()) parts.push_back(whole);
            const auto at = location.match(a.captured(1));
            if (!at.hasMatch()) continue;
            const std::size_t start = at.captured(1).toULongLong();
            linked[{d.captured(1).toStdString(), start, start + at.captured(2).toULongLong()}] = parts;
        }
    return linked;
}

// Each mention of eval's per-mention file is linked, right exactly when eval found it right at
// rank 1 (a part is right when its link names a gold id, the mention when all parts are), and the
// share right is eval's Acc@1.
inline void checkAgainstEval(const std::filesystem::path& perMention, double evalAcc1,
                             const std::map<LinkKey, std::vector<std::vector<std::string>>>& linked) {
    std::ifstream in(perMention);
    std::string line;
    std::size_t mentions = 0;
    std::size_t right = 0;
    while (std::getline(in, line)) {
        const auto mention = nlohmann::json::parse(line);
        const LinkKey key{mention["document"].get<std::string>(), mention["start"].get<std::size_t>(),
                          mention["end"].get<std::size_t>()};
        const auto found = linked.find(key);
        QVERIFY2(found != linked.end(), line.c_str());
        const auto gold = mention["gold"].get<std::vector<std::string>>();
        const auto& parts = found->second;
        QCOMPARE(parts.size(), mention["parts"].size());
        const bool linkRight = std::all_of(parts.begin(), parts.end(), [&](const std::vector<std::string>& ids) {
            return std::any_of(ids.begin(), ids.end(), [&](const std::string& id) {
                return std::find(gold.begin(), gold.end(), id) != gold.end();
            });
        });
        QVERIFY2(linkRight == mention["correct@1"].get<bool>(), line.c_str());
        ++mentions;
        right += linkRight ? 1 : 0;
    }
    QVERIFY(mentions > 0);
    QCOMPARE(static_cast<double>(right) / static_cast<double>(mentions), evalAcc1);
}

// Every value of one infon key in a BioC file, in order.
inline QStringList infonValues(const std::filesystem::path& bioc, const QString& key) {
    const QRegularExpression infon("<infon key=\"" + key + "\">([^<]*)</infon>");
    QStringList values;
    for (const auto& m : infon.globalMatch(QString::fromStdString(readFile(bioc)))) values << m.captured(1);
    return values;
}

// The value of the "NAME: value" line link prints on standard output.
inline QString printed(const CliResult& r, const char* name) {
    for (const auto& line : QString::fromUtf8(r.out).split('\n'))
        if (line.startsWith(QString::fromLatin1(name) + ": ")) return line.mid(static_cast<int>(qstrlen(name)) + 2);
    return {};
}

}  // namespace linkscope::test
