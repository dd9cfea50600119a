#include "run_as_encoder.h"

#include <iostream>

#include "train/run_directory.h"
#include "train/training_preset.h"
#include "util/error.h"

namespace linkscope::cli {

EncoderArguments runModelAsEncoder(const EncoderArguments& encoder, const std::filesystem::path& run,
                                   const std::string& method) {
    if (!train::isRunDirectory(run)) throw Error(run.string() + " is not a training run (no run.json and preset.json)");
    EncoderArguments plain = encoder;
    plain.model = train::modelDirectory(run);
    if (!std::filesystem::exists(plain.model / "config.json"))
        throw Error(run.string() + " holds no model yet (" + plain.model.string() + ")");
    if (!plain.pooling.empty()) return plain;
    const train::TrainingPreset preset = train::loadRunPreset(run, train::readRunInfo(run));
    const encoder::Pooling names = preset.namePooling();
    const auto atMarkers = [](encoder::Pooling p) {
        return p == encoder::Pooling::Markers || p == encoder::Pooling::StartEnd;
    };
    if (!atMarkers(preset.pooling)) return plain;
    if (atMarkers(names))
        throw Error(run.string() + " (" + std::string(train::methodName(preset.method)) +
                    ") pools a mention at its markers in its sentence, which --method " + method +
                    " does not add: add --pooling cls (or mean), or leave out --method to link the run as its "
                    "preset says");
    plain.pooling = std::string(encoder::poolingName(names));
    std::cerr << "note: " << run.string() << " (" << train::methodName(preset.method)
              << ") reads a mention between markers in its sentence; --method " << method
              << " reads mentions alone, pooled as the run reads KB names (" << plain.pooling
              << "; --pooling chooses another)\n";
    return plain;
}

}  // namespace linkscope::cli
