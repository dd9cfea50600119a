#pragma once
// JsonReport: the `--json` option every benchmark shares. Without it a benchmark prints its human
// output as before. With it, that human output moves to standard error and standard output
// carries one JSON object, written when the report is destroyed (at the end of main):
//
//   {"benchmark": NAME, "parameters": {...what it ran with...}, "figures": {...what it measured...}}
//
// tools/write_benchmarks.py reads that object and writes docs/benchmarks.md's tables from it:
// a figure that is a number or a string becomes a row of the figures table, a figure that is a
// list of objects becomes a table of its own, and a nested object's keys are joined with '.'.
// The object keeps the order in which the benchmark set its keys (the tables' column order). It
// keeps them in a vector, so a reference to one figure is invalidated when another key is added
// beside it: hold a reference to a list only once no key will be added to the same object.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>

namespace linkscope::bench {

class JsonReport {
public:
    /// Takes `--json` out of argv (the benchmark's own parser never sees it) and, when it was
    /// there, points standard output at standard error until the report is written.
    JsonReport(std::string benchmark, int& argc, char** argv) {
        document_["benchmark"] = std::move(benchmark);
        document_["parameters"] = nlohmann::ordered_json::object();
        document_["figures"] = nlohmann::ordered_json::object();
        int kept = 1;
        for (int i = 1; i < argc; ++i) {
            if (std::string_view(argv[i]) == "--json")
                enabled_ = true;
            else
                argv[kept++] = argv[i];
        }
        argc = kept;
        argv[argc] = nullptr;
        if (!enabled_) return;
        std::fflush(stdout);
        std::cout.flush();
        jsonOutput_ = dup(STDOUT_FILENO);
        dup2(STDERR_FILENO, STDOUT_FILENO);
    }
    ~JsonReport() { write(); }
    JsonReport(const JsonReport&) = delete;
    JsonReport& operator=(const JsonReport&) = delete;

    bool enabled() const { return enabled_; }
    nlohmann::ordered_json& parameters() { return document_["parameters"]; }
    nlohmann::ordered_json& figures() { return document_["figures"]; }

    /// Writes the object to the program's original standard output; once, and only with --json.
    void write() {
        if (!enabled_ || jsonOutput_ < 0) return;
        std::fflush(stdout);
        std::cout.flush();
        const std::string text = document_.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
        for (std::size_t done = 0; done < text.size();) {
            const ssize_t n = ::write(jsonOutput_, text.data() + done, text.size() - done);
            if (n <= 0) break;
            done += static_cast<std::size_t>(n);
        }
        close(jsonOutput_);
        jsonOutput_ = -1;
    }

private:
    nlohmann::ordered_json document_;
    bool enabled_ = false;
    int jsonOutput_ = -1;
};

}  // namespace linkscope::bench
