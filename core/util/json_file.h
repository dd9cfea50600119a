#pragma once
// Reading the JSON files of the engine (project manifests, config.json, tokenizer files,
// presets): through LineReader, so that a missing file or invalid UTF-8 names the file and line,
// and with a syntax error reported at the line where the parser stopped. Internal to core: the
// header includes nlohmann/json.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "util/text_file.h"  // readTextFile, kMaxTextFileBytes

namespace linkscope {

class LineReader;

/// Nesting of arrays and objects that any JSON the engine reads may reach. nlohmann parses and
/// frees deep nesting without recursion, but dump() and the readers' own walks recurse: a
/// 200 KB file of '[' would overflow the stack. No file of ours nests deeper than 8.
inline constexpr int kMaxJsonDepth = 64;

/// Parses JSON text; a syntax error, or nesting deeper than kMaxJsonDepth, is a
/// ParseError(source, line, "not valid JSON: ...").
nlohmann::json parseJson(const std::string& text, const std::string& source);

/// For readers with their own parser callback: throws ParseError(source, 0, ...) when the
/// callback's depth exceeds kMaxJsonDepth. Call it first in the callback.
void checkJsonDepth(int depth, const std::string& source);

/// A value as an error message shows it, without recursion and at most about `shown` bytes:
/// a scalar's JSON text (shortened), "an array of N values", "an object of N keys".
std::string briefJson(const nlohmann::json& value, std::size_t shown = 80);

/// One line of a JSON-lines file read by `reader`: parsed with parseJson's depth bound, and any
/// failure reported by reader.fail() (so at the file's line, not the text's).
nlohmann::json parseJsonLine(const std::string& text, const LineReader& reader);

/// readTextFile, then parseJson. Memory: the text (at most kMaxTextFileBytes) and nlohmann's
/// tree of it.
nlohmann::json readJsonFile(const std::filesystem::path& file);

}  // namespace linkscope
