// AtomicFolder (util/atomic_folder.h): a folder written into a staged copy made of hard links and
// swapped in whole. The swap, a writer that never commits, files the writer does not write,
// what killed writers leave, an output that is a link to a folder, links inside the folder, and
// SIGKILLs of a forked writer at many points: the output is always entirely old or entirely new.
#include "fixtures.h"
#include "util/atomic_file.h"
#include "util/atomic_folder.h"
#include "util/error.h"

#include <chrono>
#include <csignal>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace linkscope;
namespace fs = std::filesystem;

namespace {

using Tree = std::map<std::string, std::string>;  // relative path -> bytes ("->target" for a link, "/" for a folder)

Tree treeOf(const fs::path& root) {
    Tree tree;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
        const std::string name = it->path().lexically_relative(root).string();
        if (it->is_symlink())
            tree[name] = "->" + fs::read_symlink(it->path()).string();
        else if (it->is_directory())
            tree[name] = "/";
        else
            tree[name] = test::readFile(it->path());
    }
    return tree;
}

void writeTree(const fs::path& root, const Tree& tree) {
    for (const auto& [name, content] : tree) {
        const fs::path path = root / name;
        if (content == "/") {
            fs::create_directories(path);
            continue;
        }
        fs::create_directories(path.parent_path());
        test::writeFile(path, content);
    }
}

void writeAtomically(const fs::path& path, const std::string& content) {
    fs::create_directories(path.parent_path());
    AtomicFileWriter writer(path);
    writer.stream() << content;
    writer.commit();
}

/// The names in `folder` other than `keep`: what writers left beside their output.
std::vector<std::string> leftBeside(const fs::path& folder, const std::string& keep) {
    std::vector<std::string> left;
    for (const auto& entry : fs::directory_iterator(folder))
        if (entry.path().filename() != keep) left.push_back(entry.path().filename().string());
    return left;
}

ino_t inodeOf(const fs::path& path) {
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0 ? info.st_ino : 0;
}

pid_t deadProcess() {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    int status = 0;
    ::waitpid(child, &status, 0);  // reaped: its pid no longer runs
    return child;
}

std::string sized(const std::string& seed, std::size_t bytes) {
    std::string text;
    while (text.size() < bytes) text += seed + " " + std::to_string(text.size()) + "\n";
    return text;
}

}  // namespace

class TestAtomicFolder : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    fs::path freshParent(const char* name) {
        const fs::path parent = dir_.path(name);
        fs::remove_all(parent);
        fs::create_directories(parent);
        return parent;
    }

private Q_SLOTS:
    void commitCreatesAMissingOutput() {
        const fs::path parent = freshParent("create");
        const fs::path out = parent / "out";
        {
            AtomicFolder folder(out);
            QCOMPARE(folder.staging().parent_path(), parent);
            QVERIFY(folder.staging().filename().string().starts_with(".out.linkscope-staging-"));
            writeAtomically(folder.staging() / "train.txt", "train");
            writeAtomically(folder.staging() / "sub" / "test.txt", "test");
            QVERIFY(!fs::exists(out));
            folder.commit();
        }
        QCOMPARE(treeOf(out), (Tree{{"sub", "/"}, {"sub/test.txt", "test"}, {"train.txt", "train"}}));
        QCOMPARE(leftBeside(parent, "out"), std::vector<std::string>{});
    }

    void commitReplacesTheFolderAndKeepsFilesItDoesNotWrite() {
        const fs::path parent = freshParent("replace");
        const fs::path out = parent / "out";
        writeTree(out, {{"train.txt", "old train"},
                        {"annotation.conf", "[entities]\nDisease\n"},
                        {"old/kept.ann", "T1\tDisease 0 3\tfoo\n"},
                        {"empty", "/"}});
        ::chmod(out.c_str(), 0750);
        {
            AtomicFolder folder(out);
            writeAtomically(folder.staging() / "train.txt", "new train");
            writeAtomically(folder.staging() / "test.txt", "new test");
            writeAtomically(folder.staging() / "old" / "added.txt", "added");
            // Nothing of it is visible before the commit.
            QCOMPARE(test::readFile(out / "train.txt"), std::string("old train"));
            QVERIFY(!fs::exists(out / "test.txt"));
            folder.commit();
        }
        QCOMPARE(treeOf(out), (Tree{{"annotation.conf", "[entities]\nDisease\n"},
                                    {"empty", "/"},
                                    {"old", "/"},
                                    {"old/added.txt", "added"},
                                    {"old/kept.ann", "T1\tDisease 0 3\tfoo\n"},
                                    {"test.txt", "new test"},
                                    {"train.txt", "new train"}}));
        struct stat info {};
        QCOMPARE(::stat(out.c_str(), &info), 0);
        QCOMPARE(info.st_mode & 07777, mode_t{0750});
        QCOMPARE(leftBeside(parent, "out"), std::vector<std::string>{});
    }

    void withoutCommitTheOutputStaysAsItWas() {
        const fs::path parent = freshParent("nocommit");
        const fs::path out = parent / "out";
        const Tree old{{"train.txt", "old train"}, {"sub", "/"}, {"sub/x.ann", "x"}};
        writeTree(out, old);
        {
            AtomicFolder folder(out);
            writeAtomically(folder.staging() / "train.txt", "new train");
            writeAtomically(folder.staging() / "sub" / "x.ann", "new x");
            fs::remove(folder.staging() / "sub" / "x.ann");
        }
        QCOMPARE(treeOf(out), old);
        QCOMPARE(leftBeside(parent, "out"), std::vector<std::string>{});
        // A missing output stays missing.
        const fs::path never = parent / "never";
        {
            AtomicFolder folder(never);
            writeAtomically(folder.staging() / "a.txt", "a");
        }
        QVERIFY(!fs::exists(never));
        QCOMPARE(leftBeside(parent, "out"), std::vector<std::string>{});
    }

    // The staged copy is made of hard links; a writer replaces a file by renaming over its link,
    // so the inode the live folder holds (and any other link to it) keeps the old bytes.
    void hardLinksNeverModifyTheOldFiles() {
        const fs::path parent = freshParent("links");
        const fs::path out = parent / "out";
        writeTree(out, {{"replaced.txt", "old bytes"}, {"untouched.txt", "same bytes"}});
        const fs::path elsewhere = parent / "elsewhere.txt";
        fs::create_hard_link(out / "replaced.txt", elsewhere);
        const ino_t replacedInode = inodeOf(out / "replaced.txt");
        const ino_t untouchedInode = inodeOf(out / "untouched.txt");
        {
            AtomicFolder folder(out);
            QCOMPARE(inodeOf(folder.staging() / "replaced.txt"), replacedInode);
            QCOMPARE(inodeOf(folder.staging() / "untouched.txt"), untouchedInode);
            writeAtomically(folder.staging() / "replaced.txt", "new bytes");
            QCOMPARE(test::readFile(out / "replaced.txt"), std::string("old bytes"));
            QCOMPARE(inodeOf(out / "replaced.txt"), replacedInode);
            folder.commit();
        }
        QCOMPARE(test::readFile(out / "replaced.txt"), std::string("new bytes"));
        QCOMPARE(test::readFile(elsewhere), std::string("old bytes"));
        QCOMPARE(inodeOf(out / "untouched.txt"), untouchedInode);  // kept, not copied
        QCOMPARE(test::readFile(out / "untouched.txt"), std::string("same bytes"));
    }

    // writeStagedFile: a new file in place of the staged hard link, with the old permission bits,
    // never written through the link; many of them are synced at once by commit().
    void stagedFilesAreNewFiles() {
        const fs::path parent = freshParent("staged-files");
        const fs::path out = parent / "out";
        writeTree(out, {{"1.txt", "old one"}, {"1.ann", "old ann"}});
        ::chmod((out / "1.txt").c_str(), 0640);
        const ino_t oldInode = inodeOf(out / "1.txt");
        {
            AtomicFolder folder(out);
            writeStagedFile(folder.staging() / "1.txt", "new one");
            QVERIFY(inodeOf(folder.staging() / "1.txt") != oldInode);
            QCOMPARE(test::readFile(out / "1.txt"), std::string("old one"));
            for (int i = 2; i < 40; ++i) writeStagedFile(folder.staging() / (std::to_string(i) + ".txt"), "text");
            folder.commit();
        }
        QCOMPARE(test::readFile(out / "1.txt"), std::string("new one"));
        QCOMPARE(test::readFile(out / "1.ann"), std::string("old ann"));
        QCOMPARE(test::readFile(out / "39.txt"), std::string("text"));
        struct stat info {};
        QCOMPARE(::stat((out / "1.txt").c_str(), &info), 0);
        QCOMPARE(info.st_mode & 07777, mode_t{0640});
        QCOMPARE(leftBeside(parent, "out"), std::vector<std::string>{});
    }

    // Links inside the output are staged as links (not followed, not copied as files).
    void linksInsideTheFolderStayLinks() {
        const fs::path parent = freshParent("inner-links");
        const fs::path out = parent / "out";
        writeTree(out, {{"data/real.txt", "real"}});
        test::writeFile(parent / "outside.txt", "outside");
        fs::create_symlink("data/real.txt", out / "relative-link");
        fs::create_symlink(parent / "outside.txt", out / "absolute-link");
        fs::create_directory_symlink("data", out / "folder-link");
        {
            AtomicFolder folder(out);
            writeAtomically(folder.staging() / "new.txt", "new");
            folder.commit();
        }
        const Tree tree = treeOf(out);
        QCOMPARE(tree.at("relative-link"), std::string("->data/real.txt"));
        QCOMPARE(tree.at("absolute-link"), "->" + (parent / "outside.txt").string());
        QCOMPARE(tree.at("folder-link"), std::string("->data"));
        QCOMPARE(tree.at("data/real.txt"), std::string("real"));
        QCOMPARE(tree.at("new.txt"), std::string("new"));
        QCOMPARE(test::readFile(parent / "outside.txt"), std::string("outside"));
    }

    // An output that is a link to a folder: the link stays, the folder it names is replaced (and
    // staged beside that folder, on its file system).
    void outputThatIsALinkToAFolder() {
        const fs::path parent = freshParent("linked-output");
        writeTree(parent / "real", {{"train.txt", "old"}, {"foreign.conf", "conf"}});
        const fs::path out = parent / "out";
        fs::create_directory_symlink("real", out);
        {
            AtomicFolder folder(out);
            QCOMPARE(folder.destination(), fs::canonical(parent / "real"));
            QCOMPARE(folder.staging().parent_path(), fs::canonical(parent));
            writeAtomically(folder.staging() / "train.txt", "new");
            folder.commit();
        }
        QVERIFY(fs::is_symlink(fs::symlink_status(out)));
        QCOMPARE(fs::read_symlink(out), fs::path("real"));
        QCOMPARE(treeOf(parent / "real"), (Tree{{"foreign.conf", "conf"}, {"train.txt", "new"}}));
        std::set<std::string> names;
        for (const auto& entry : fs::directory_iterator(parent)) names.insert(entry.path().filename().string());
        QCOMPARE(names, (std::set<std::string>{"out", "real"}));

        // A dangling link: the folder is created where it points.
        const fs::path dangling = parent / "dangling";
        fs::create_directory_symlink("made-by-export", dangling);
        {
            AtomicFolder folder(dangling);
            writeAtomically(folder.staging() / "a.txt", "a");
            folder.commit();
        }
        QVERIFY(fs::is_symlink(fs::symlink_status(dangling)));
        QCOMPARE(test::readFile(parent / "made-by-export" / "a.txt"), std::string("a"));
    }

    // A staging folder of a writer that no longer runs is removed by the next writer of that
    // output; a live writer's is kept; a retired old tree whose output is missing is put back.
    void leftoversOfKilledWritersAreCleaned() {
        const fs::path parent = freshParent("stale");
        const fs::path out = parent / "out";
        writeTree(out, {{"train.txt", "current"}});
        const pid_t dead = deadProcess();
        const std::string deadStaging = ".out.linkscope-staging-" + std::to_string(dead) + "-123";
        const std::string liveStaging = ".out.linkscope-staging-" + std::to_string(::getpid()) + "-456";
        const std::string otherOutput = ".other.linkscope-staging-" + std::to_string(dead) + "-789";
        const std::string notOurs = ".out.linkscope-staging-notapid";
        for (const auto& name : {deadStaging, liveStaging, otherOutput, notOurs})
            writeTree(parent / name, {{"train.txt", "partial"}});
        {
            AtomicFolder folder(out);
            QVERIFY2(!fs::exists(parent / deadStaging), "a dead writer's staging folder was kept");
            QVERIFY(fs::exists(parent / liveStaging));
            QVERIFY(fs::exists(parent / otherOutput));
            QVERIFY(fs::exists(parent / notOurs));
        }
        QCOMPARE(treeOf(out), (Tree{{"train.txt", "current"}}));

        // The fallback swap killed between its two renames: the output is missing and its old
        // tree whole under the retired name.
        const fs::path gone = parent / "gone";
        const std::string retired = ".gone.linkscope-retired-" + std::to_string(dead) + "-42";
        writeTree(parent / retired, {{"train.txt", "old whole"}, {"test.txt", "old test"}});
        {
            AtomicFolder folder(gone);
            QCOMPARE(treeOf(gone), (Tree{{"test.txt", "old test"}, {"train.txt", "old whole"}}));
            QCOMPARE(test::readFile(folder.staging() / "train.txt"), std::string("old whole"));
        }
        QVERIFY(!fs::exists(parent / retired));
        QCOMPARE(treeOf(gone), (Tree{{"test.txt", "old test"}, {"train.txt", "old whole"}}));
    }

    void refusals() {
        const fs::path parent = freshParent("refusals");
        test::writeFile(parent / "a-file", "not a folder");
        try {
            AtomicFolder folder(parent / "a-file");
            QFAIL("a file was accepted as the output folder");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("a-file: exists and is not a folder") != std::string::npos, e.what());
        }
        QCOMPARE(test::readFile(parent / "a-file"), std::string("not a folder"));

        const fs::path out = parent / "with-fifo";
        fs::create_directories(out);
        QCOMPARE(::mkfifo((out / "pipe").c_str(), 0600), 0);
        try {
            AtomicFolder folder(out);
            QFAIL("a FIFO was staged");
        } catch (const Error& e) {
            QVERIFY2(
                std::string(e.what()).find("pipe is neither a file, a folder nor a symbolic link") != std::string::npos,
                e.what());
        }
        QCOMPARE(leftBeside(parent, "with-fifo"), std::vector<std::string>{"a-file"});
    }

    // A forked writer exporting several splits is SIGKILLed at many points: by itself between
    // any two steps (before, between and after the files and the commit), and by this process at
    // random moments over its run. The output is always exactly the old tree or exactly the new
    // one, byte for byte, and the next writer removes what the killed one left.
    void killedWriterLeavesTheFolderOldOrNew() {
        const fs::path parent = freshParent("kills");
        const fs::path out = parent / "out";
        const Tree old{{"annotation.conf", "[entities]\n"},
                       {"train.pubtator.txt", sized("old train", 40000)},
                       {"dev.pubtator.txt", sized("old dev", 20000)},
                       {"test", "/"},
                       {"test/1.ann", "old ann"}};
        const Tree written{{"train.pubtator.txt", sized("new train", 60000)},
                           {"dev.pubtator.txt", sized("new dev", 10000)},
                           {"extra.pubtator.txt", sized("new extra", 30000)},
                           {"test/1.ann", "new ann"},
                           {"test/2.ann", "new second ann"}};
        Tree whole = old;
        for (const auto& [name, content] : written) whole[name] = content;
        constexpr int kSteps = 8;  // kill points inside the child: 0 .. kSteps

        // Runs the writer in a child; killSelfAt < 0: no self-kill. Returns the child's pid.
        const auto start = [&](int killSelfAt) {
            const pid_t child = ::fork();
            if (child != 0) return child;
            int step = 0;
            const auto point = [&] {
                if (step++ == killSelfAt) ::kill(::getpid(), SIGKILL);
            };
            try {
                point();
                AtomicFolder folder(out);
                point();
                for (const auto& [name, content] : written) {
                    writeAtomically(folder.staging() / name, content);
                    point();
                }
                folder.commit();
                point();
            } catch (...) {
                ::_exit(3);
            }
            point();
            ::_exit(0);
        };
        const auto reset = [&] {
            fs::remove_all(parent);
            fs::create_directories(parent);
            writeTree(out, old);
        };
        const auto check = [&](const std::string& how, int& olds, int& news) {
            const Tree now = fs::exists(out) ? treeOf(out) : Tree{};
            if (now == old)
                ++olds;
            else if (now == whole)
                ++news;
            else
                QFAIL(("killed " + how + ": the folder is neither the old tree nor the new one").c_str());
            // The next writer removes the killed one's staging folder.
            { AtomicFolder next(out); }
            QCOMPARE(leftBeside(parent, "out"), std::vector<std::string>{});
            QVERIFY(now == treeOf(out));
        };

        int olds = 0, news = 0;
        for (int at = 0; at <= kSteps; ++at) {
            reset();
            const pid_t child = start(at);
            int status = 0;
            QCOMPARE(::waitpid(child, &status, 0), child);
            const bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
            QVERIFY2(killed || (WIFEXITED(status) && WEXITSTATUS(status) == 0), "the writer failed");
            check("at step " + std::to_string(at), olds, news);
            if (QTest::currentTestFailed()) return;
        }
        QVERIFY(olds > 0 && news > 0);

        // The uninterrupted run's time, then kills at random moments over it.
        using Clock = std::chrono::steady_clock;
        double seconds = 0;
        for (int i = 0; i < 3; ++i) {
            reset();
            const auto began = Clock::now();
            const pid_t child = start(-1);
            int status = 0;
            ::waitpid(child, &status, 0);
            QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
            seconds = std::max(seconds, std::chrono::duration<double>(Clock::now() - began).count());
            QCOMPARE(treeOf(out), whole);
        }
        std::mt19937_64 random(38);
        std::uniform_real_distribution<double> moment(0.0, seconds * 1.1);
        int landed = 0;
        for (int trial = 0; trial < 60; ++trial) {
            reset();
            const double delay = moment(random);
            const pid_t child = start(-1);
            std::this_thread::sleep_for(std::chrono::duration<double>(delay));
            ::kill(child, SIGKILL);
            int status = 0;
            QCOMPARE(::waitpid(child, &status, 0), child);
            const bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
            QVERIFY2(killed || (WIFEXITED(status) && WEXITSTATUS(status) == 0), "the writer failed");
            landed += killed ? 1 : 0;
            check("at " + std::to_string(delay) + " s", olds, news);
            if (QTest::currentTestFailed()) return;
        }
        qInfo("%d timed kills landed; %d outcomes entirely old, %d entirely new", landed, olds, news);
        QVERIFY(landed > 0);
    }
};

QTEST_APPLESS_MAIN(TestAtomicFolder)
#include "test_atomic_folder.moc"
