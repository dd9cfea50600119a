#pragma once
// What the Training dock says about a finished run, from its run.json: the kept model against
// the sparse linker on the validation data, and every warning in plain words (a collapsed kept
// model; below the sparse linker; training lowered Acc@1 at every epoch; not validated).
#include <QString>

#include "train/run_directory.h"

namespace linkscope::ui {

/// The warnings, one paragraph each ("Warning: ..."), empty when there is none.
QString finishedRunWarnings(const train::RunInfo& info);

/// "held-out KB names Acc@1 0.8100, sparse linker 0.8500 on the same 140 queries"; empty for a
/// run whose run.json has no validation summary (older versions, the masked-LM stage).
QString validationLine(const train::RunInfo& info);

}  // namespace linkscope::ui
