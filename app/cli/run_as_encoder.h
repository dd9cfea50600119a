#pragma once
// A training run's model as a plain encoder checkpoint, for `eval --model RUN --method dense|hybrid`
// and `link --run RUN --method dense|hybrid`: RUN/model with every encoder option applying as to
// any checkpoint. A run whose method pools a mention at markers in its sentence reads the bare
// mentions of these linkers as it reads KB names (its name pooling) unless --pooling says
// otherwise. Needs no LibTorch (nothing is loaded here).
#include <filesystem>
#include <string>

#include "encoder_options.h"

namespace linkscope::cli {

/// `encoder` with --model set to the run's model folder and, unless --pooling was given, the
/// pooling the run reads names with (a note on standard error says so). `method` ("dense" or
/// "hybrid") names the linker in the messages. Error when `run` is not a training run, holds no
/// model yet, or pools at markers for names too (--pooling cls or mean is then needed).
EncoderArguments runModelAsEncoder(const EncoderArguments& encoder, const std::filesystem::path& run,
                                   const std::string& method);

}  // namespace linkscope::cli
