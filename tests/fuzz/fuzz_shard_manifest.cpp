// readShardManifest (app/cli/shard_manifest.h, compiled in: it uses no Qt and no CLI parser):
// the manifest of one `link --shard I/N` task, as merge-shards and a rerun read it. What it
// accepts is written back with shardManifestJson and must read back the same.
//
// Manifests are about a kilobyte; 64 KiB, 1 GiB of RSS, no allocation of 256 MiB, 10 s.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: json.dict
#include <cstdio>
#include <cstdlib>

#include "fuzz_support.h"
#include "shard_manifest.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::filesystem::path folder = fuzz::freshFolder("shard_manifest");
    const auto file = folder / "shard-00001-of-00004.json";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("readShardManifest", [&] {
        const auto manifest = cli::readShardManifest(file);
        if (!manifest) return;
        const nlohmann::json written = cli::shardManifestJson(*manifest);
        const cli::ShardManifest again = cli::parseShardManifest(written, file.string());
        if (cli::shardManifestJson(again) != written) {
            std::fprintf(stderr, "\n*** fuzz finding: a shard manifest read, written and read again differs\n");
            std::abort();
        }
    });
    return 0;
}
