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
        expectError("{\n\"format\": \"linkscope-project-manifest\",\n\"version\": 1,\n\"name\": oops\n}", "not valid JSON", 4);
    }
    void notAManifest() { expectError(R"({"format":"something-else","version":1})", "not a Linkscope project manifest"); }
    void wrongVersion() { expectError(R"({"format":"linkscope-project-manifest","version":7})", "unsupported manifest version"); }
    void missingKnowledgeBase() {
        expectError(R"({"format":"linkscope-project-manifest","version":1,"corpora":[]})", "missing \"knowledgeBase\"");
    }
    void missingFile() {
        expectError(R"({"format":"linkscope-project-manifest","version":1,"knowledgeBase":{"path":"nope.txt"},
                       "corpora":[{"path":"c.txt"}]})", "does not exist");
    }
    void unknownKbFormat() {
        expectError(R"({"format":"linkscope-project-manifest","version":1,"knowledgeBase":{"path":"kb.txt","format":"owl"},
                       "corpora":[{"path":"c.txt"}]})", "unknown knowledge-base format");
    }
    void emptyCorpora() {
        expectError(R"({"format":"linkscope-project-manifest","version":1,"knowledgeBase":{"path":"kb.txt"},"corpora":[]})",
                    "\"corpora\" is empty");
    }
    void wrongTypes() {
        expectError(R"({"format":"linkscope-project-manifest","version":1,"knowledgeBase":{"path":3},"corpora":[{"path":"c.txt"}]})",
                    "\"path\" has the wrong type");
    }
};

QTEST_APPLESS_MAIN(TestProjectManifest)
#include "test_project_manifest.moc"
