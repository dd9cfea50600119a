#pragma once
// What the benchmarks on benchmarks/generate_umls_medmentions.py's output share (sparse_scale,
// dense_scale): the corpus file in the generator's folder, wall time, peak memory.
#include <sys/resource.h>

#include <chrono>
#include <cstddef>
#include <filesystem>

#include "util/error.h"

namespace linkscope::bench {

using Clock = std::chrono::steady_clock;

inline double seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

/// Peak resident memory of this process so far, in GiB (Linux reports ru_maxrss in KiB).
inline double peakRssGiB() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / (1024.0 * 1024.0);
}

inline double gib(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0); }

/// The generated MedMentions-size corpus in `dir` (.gz or plain).
inline std::filesystem::path generatedCorpus(const std::filesystem::path& dir) {
    for (const char* name : {"corpus_pubtator.txt.gz", "corpus_pubtator.txt"})
        if (std::filesystem::exists(dir / name)) return dir / name;
    throw Error(dir.string() + ": no corpus_pubtator.txt(.gz); run benchmarks/generate_umls_medmentions.py --out " +
                dir.string());
}

}  // namespace linkscope::bench
