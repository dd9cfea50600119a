#pragma once
// Reading the JSON files of the engine (project manifests, config.json, tokenizer files,
// presets): through LineReader, so that a missing file or invalid UTF-8 names the file and line,
// and with a syntax error reported at the line where the parser stopped. Internal to core: the
// header includes nlohmann/json.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace linkscope {

/// The file's lines joined with "\n" (no newline after the last), so that an error at the end
/// of a truncated file is reported on its last line. Throws ParseError as LineReader does.
std::string readTextFile(const std::filesystem::path& file);

/// Parses JSON text; a syntax error is a ParseError(source, line, "not valid JSON: ...").
nlohmann::json parseJson(const std::string& text, const std::string& source);

/// readTextFile, then parseJson.
nlohmann::json readJsonFile(const std::filesystem::path& file);

}  // namespace linkscope
