// A training run's folder as the GUI's run list, `eval --run` and `train --resume` read it
// (train/run_directory.h): run.json (readRunInfo), a NUL, then preset.json (loadRunPreset, i.e.
// TrainingPreset::load with the name run.json gives), a NUL, then checkpoint/state.json
// (loopStateFrom, what `train --resume` reads). log.jsonl is only ever appended to and measured,
// never parsed; the checkpoint's weights are safetensors (fuzz_safetensors).
//
// Both files are about 1 KiB; 16 KiB, 1 GiB of RSS, no allocation of 256 MiB, 10 s per input.
// fuzz-options: -max_len=16384 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: json.dict
#include <nlohmann/json.hpp>

#include "fuzz_support.h"
#include "train/loop_state.h"
#include "train/run_directory.h"

using namespace linkscope;
using namespace linkscope::train;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto parts = fuzz::splitParts(fuzz::bytesOf(data, size), 3);
    const auto run = fuzz::freshFolder("run");
    fuzz::writeFile(runInfoFile(run), parts[0]);
    if (parts.size() >= 2) fuzz::writeFile(presetFile(run), parts[1]);
    (void)isRunDirectory(run);
    RunInfo info;
    const bool haveInfo = fuzz::expectErrorOr("readRunInfo", [&] { info = readRunInfo(run); });
    if (parts.size() >= 2) {
        fuzz::expectErrorOr("loadRunPreset", [&] {
            const TrainingPreset preset = haveInfo ? loadRunPreset(run, info) : TrainingPreset::load(presetFile(run));
            (void)preset.toJson();
        });
    }
    if (parts.size() == 3) {
        const auto state = run / "checkpoint" / "state.json";
        std::filesystem::create_directories(state.parent_path());
        fuzz::writeFile(state, parts[2]);
        fuzz::expectErrorOr("loopStateFrom", [&] { (void)toJson(loopStateFrom(state)).dump(); });
    }
    return 0;
}
