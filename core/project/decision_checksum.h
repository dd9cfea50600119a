#pragma once
// The checksum of one stored decision row (schema version 3): what the project store writes with
// each row and verifies on every read. SQLite pages carry no checksum of their own, so a byte
// changed on disk inside a row (a digit of a link, an offset, a state) would otherwise be read,
// applied and exported as if the curator had decided it.
//
// CRC-32 (zlib's) over a fixed encoding of every field of the row: a tag naming the encoding,
// then the fields in column order (id, split, document, start, end, mention text, kind, previous
// link, new link, curator, timestamp, state), each integer as 8 bytes little-endian (two's
// complement), each text as its length (8 bytes little-endian) and its bytes, kinds and states by
// their stored names. CRC-32 detects every change confined to 32 consecutive bits, so every
// flipped byte; the length prefixes keep "ab"+"c" and "a"+"bc" apart.
#include <cstdint>

#include "project/curation_decision.h"

namespace linkscope::project {

/// The checksum of `decision` as stored (its id and state included), in [0, 2^32).
std::int64_t decisionChecksum(const Decision& decision);

}  // namespace linkscope::project
