// Project manifests: the demo project's must read, and broken ones must say what and where.
#include "fixtures.h"
#include "project/project_manifest.h"

using namespace linkscope;

class TestProjectManifest : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    // Writes a manifest next to two small data files and returns its path.
    std::filesystem::path manifest(const std::string& json) {
        dir_.write("kb.txt", "D1||Name\n");
        dir_.write("c.txt", "1|t|T\n1|a|A\n");
        return dir_.write("m.json", json);
    }
    void expectError(const std::string& json, const std::string& fragment, std::size_t line = 0) {
        const auto path = manifest(json);
        LINKSCOPE_EXPECT_PARSE_ERROR(readProjectManifest(path), "m.json", line, fragment);
    }

private Q_SLOTS:
    void readsTheDemoProject() {
        const auto file = std::filesystem::path(LINKSCOPE_SOURCE_DIR) / "resources/demo/demo-project.json";
        const ProjectManifest m = readProjectManifest(file);
        QCOMPARE(m.name, std::string("Linkscope demo"));
        QCOMPARE(m.knowledgeBase.format, KbFormat::Medic);
        QCOMPARE(m.knowledgeBase.path.filename().string(), std::string("demo-kb.txt"));
        QVERIFY(m.knowledgeBase.path.is_absolute());
        QCOMPARE(m.corpora.size(), std::size_t{2});
        QCOMPARE(m.corpora[0].split, std::string("train"));
        QCOMPARE(m.corpora[1].split, std::string("test"));
        QVERIFY(std::filesystem::exists(m.corpora[1].path));
    }
    void relativePathsResolveAgainstTheManifest() {
        const auto m = readProjectManifest(manifest(
            R"({"format":"linkscope-project-manifest","version":1,"knowledgeBase":{"path":"kb.txt","format":"ctd"},
                "corpora":[{"split":"dev","path":"c.txt"}]})"));
        QCOMPARE(m.knowledgeBase.path, dir_.path("kb.txt").lexically_normal());
        QCOMPARE(m.knowledgeBase.format, KbFormat::Ctd);
        QCOMPARE(m.name, std::string("m"));  // defaults to the file name
    }
    void syntaxErrorNamesTheLine() {
        expectError("{\n\"format\": \"linkscope-project-manifest\",\n\"version\": 1,\n\"name\": oops\n}",
                    "not valid JSON", 4);
    }
    void notAManifest() {
        expectError(R"({"format":"something-else","version":1})", "not a Linkscope project manifest");
    }
    void wrongVersion() {
        expectError(R"({"format":"linkscope-project-manifest","version":7})", "unsupported manifest version");
    }
    void missingKnowledgeBase() {
        expectError(R"({"format":"linkscope-project-manifest","version":1,"corpora":[]})", "missing \"knowledgeBase\"");
    }
    void missingFile() {
        expectError(R"({"format":"linkscope-project-manifest","version":1,"knowledgeBase":{"path":"nope.txt"},
                       "corpora":[{"path":"c.txt"}]})",
                    "does not exist");
    }
    void unknownKbFormat() {
        expectError(
            R"({"format":"linkscope-project-manifest","version":1,"knowledgeBase":{"path":"kb.txt","format":"owl"},
                       "corpora":[{"path":"c.txt"}]})",
            "unknown knowledge-base format");
    }
    void emptyCorpora() {
        expectError(
            R"({"format":"linkscope-project-manifest","version":1,"knowledgeBase":{"path":"kb.txt"},"corpora":[]})",
            "\"corpora\" is empty");
    }
    void wrongTypes() {
        expectError(
            R"({"format":"linkscope-project-manifest","version":1,"knowledgeBase":{"path":3},"corpora":[{"path":"c.txt"}]})",
            "\"path\" has the wrong type");
    }
    // The optional strings (format, name, description, the knowledge base's format) of another
    // JSON type are refused as this reader's own error, never as the JSON library's exception.
    void optionalStringsOfTheWrongType_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("fragment");
        const QString kb = R"("knowledgeBase":{"path":"kb.txt"})";
        const QString corpora = R"("corpora":[{"path":"c.txt"}])";
        QTest::newRow("format array") << R"({"format":["linkscope-project-manifest"],"version":1,)" + kb + "," +
                                             corpora + "}"
                                      << "not a Linkscope project manifest";
        QTest::newRow("name array") << R"({"format":"linkscope-project-manifest","version":1,"name":[],)" + kb + "," +
                                           corpora + "}"
                                    << "\"name\" must be a string";
        QTest::newRow("description object")
            << R"({"format":"linkscope-project-manifest","version":1,"description":{},)" + kb + "," + corpora + "}"
            << "\"description\" must be a string";
        QTest::newRow("kb format number")
            << R"({"format":"linkscope-project-manifest","version":1,"knowledgeBase":{"path":"kb.txt","format":1},)" +
                   corpora + "}"
            << "knowledgeBase: \"format\" must be a string";
    }
    void optionalStringsOfTheWrongType() {
        QFETCH(QString, json);
        QFETCH(QString, fragment);
        expectError(json.toStdString(), fragment.toStdString());
    }
    // A split name becomes an export's file or folder name: one that leaves the output folder,
    // or is no name at all, is refused where it is read.
    void hostileSplitNames_data() {
        QTest::addColumn<QString>("split");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("parent") << "../../etc/x"
                                << "holds a path separator";
        QTest::newRow("absolute") << "/tmp/evil"
                                  << "holds a path separator";
        QTest::newRow("backslash") << "..\\\\x"
                                   << "holds a path separator";
        QTest::newRow("dot dot") << ".."
                                 << "is not a file name";
        QTest::newRow("dot") << "."
                             << "is not a file name";
        QTest::newRow("empty") << ""
                               << "the split name is empty";
        QTest::newRow("NUL") << "dev\\u0000x"
                             << "control character";
        QTest::newRow("newline") << "dev\\nx"
                                 << "control character";
        QTest::newRow("too long") << QString(101, 'a') << "longer than 100 bytes";
    }
    void hostileSplitNames() {
        QFETCH(QString, split);
        QFETCH(QString, fragment);
        expectError(
            R"({"format":"linkscope-project-manifest","version":1,"knowledgeBase":{"path":"kb.txt"},"corpora":[{"split":")" +
                split.toStdString() + R"(","path":"c.txt"}]})",
            "corpora[0]: the split name");
        expectError(
            R"({"format":"linkscope-project-manifest","version":1,"knowledgeBase":{"path":"kb.txt"},"corpora":[{"split":")" +
                split.toStdString() + R"(","path":"c.txt"}]})",
            fragment.toStdString());
    }
    void splitOfTheWrongType() {
        expectError(
            R"({"format":"linkscope-project-manifest","version":1,"knowledgeBase":{"path":"kb.txt"},"corpora":[{"split":7,"path":"c.txt"}]})",
            "\"split\" has the wrong type");
    }
    void ordinarySplitNamesRead() {
        for (const std::string split : {"train", "dev-2", "test set", "étude", "v1.2"}) {
            const auto m = readProjectManifest(manifest(
                R"({"format":"linkscope-project-manifest","version":1,"knowledgeBase":{"path":"kb.txt"},"corpora":[{"split":")" +
                split + R"(","path":"c.txt"}]})"));
            QCOMPARE(m.corpora.at(0).split, split);
        }
    }
};

QTEST_APPLESS_MAIN(TestProjectManifest)
#include "test_project_manifest.moc"
