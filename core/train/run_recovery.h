#pragma once
// What `train --resume` (and `pretrain --resume`) take back from a run killed in the middle of
// replacing a folder. A run writes checkpoint/ and model/ beside their final names (.new) and
// swaps them in by renames (the old one moved to .old, removed last), so a kill inside a swap
// leaves no checkpoint/ (or no model/) but a complete copy beside it. The commands call this
// before they read the checkpoint; the trainer calls it again (it is idempotent). Torch-free.
#include <filesystem>

namespace linkscope::train {

/// Checks the run folder for links (run_files.h: Error naming the link), then, when the run has
/// no checkpoint/state.json, makes the newest complete copy the checkpoint again:
/// checkpoint.new once its state.json exists (written last), else checkpoint.old (the previous
/// one). When it has no model/ but model.old (the best model before a swap that did not
/// finish), that becomes model/ again: run.json is written after the swap, so it still describes
/// model.old, and the resume validates the interrupted epoch again and saves its model anew.
/// Nothing happens when nothing was interrupted.
void recoverInterruptedSwaps(const std::filesystem::path& run);

}  // namespace linkscope::train
