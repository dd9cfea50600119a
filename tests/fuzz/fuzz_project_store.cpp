// ProjectStore::open (project/project_store.h): a project file, i.e. an SQLite database as the
// GUI and `linkscope-cli export --project` open it, then every read the store offers (manifest,
// runs, decisions and the decision in effect on each mention, settings, blobs, the kNN datastore
// kept as a blob), the full check (integrity_check and every decision row's checksum), and an
// undo and a redo, which read the stored history back and upgrade a file of an older schema
// version (every row checksummed) before they write.
//
// The seed is a small database (make_seeds.py rewrites it with 512-byte pages: about 11 KB);
// 64 KiB leaves room for a hundred more pages. SQLite, the store and the blob reads are bounded
// by the file: 1 GiB of RSS, no allocation of 256 MiB. Opening checks the whole file
// (integrity_check below 64 MiB) and commits with fsync; 10 s per input is still generous.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
#include "fuzz_support.h"
#include "project/datastore_storage.h"
#include "project/project_store.h"

using namespace linkscope;
using namespace linkscope::project;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // A fresh folder: SQLite would take a stale -wal or -shm beside the file for the new file's.
    const auto file = fuzz::freshFolder("store") / "fuzz.linkscope";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("ProjectStore::open and its reads", [&] {
        ProjectStore store = ProjectStore::open(file);
        (void)store.checkIntegrity();
        (void)store.manifest();
        (void)store.runs();
        for (const auto& decision : store.decisions()) (void)store.currentDecision(decision.mention);
        (void)store.doneDecisions();
        (void)store.decisionCount();
        (void)store.setting("fuzz");
        (void)store.blob("fuzz");
        (void)loadDatastore(store, "fuzz", "");
        if (store.canUndo()) (void)store.undo();
        if (store.canRedo()) (void)store.redo();
    });
    return 0;
}
