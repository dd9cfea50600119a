#include "console_progress.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <ostream>

namespace linkscope::cli {

namespace {

// What a plain line starts with, so that progress can be told from results and errors in a log
// that holds both streams (2>&1), and grepped for.
constexpr std::string_view kPlainPrefix = "progress: ";

double steadySeconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int percentOf(double fraction) {
    if (!std::isfinite(fraction)) return 0;
    return static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 100.0);
}

}  // namespace

ConsoleProgressOptions ConsoleProgressOptions::forStandardError() {
    ConsoleProgressOptions options;
    options.terminal = isatty(STDERR_FILENO) != 0;
    if (const char* value = std::getenv("LINKSCOPE_PROGRESS_INTERVAL")) {
        char* end = nullptr;
        const double seconds = std::strtod(value, &end);
        if (end != value && *end == '\0' && std::isfinite(seconds) && seconds >= 0.0) options.intervalSeconds = seconds;
    }
    return options;
}

std::string formatDuration(double seconds) {
    const long long whole = std::isfinite(seconds) ? std::max(0LL, std::llround(seconds)) : 0LL;
    char text[48];
    if (whole < 60)
        std::snprintf(text, sizeof text, "%lld s", whole);
    else if (whole < 3600)
        std::snprintf(text, sizeof text, "%lld min %02lld s", whole / 60, whole % 60);
    else
        std::snprintf(text, sizeof text, "%lld h %02lld min", whole / 3600, whole % 3600 / 60);
    return text;
}

ConsoleProgress::ConsoleProgress() : ConsoleProgress(std::cerr, ConsoleProgressOptions::forStandardError()) {}

ConsoleProgress::ConsoleProgress(std::ostream& out, ConsoleProgressOptions options)
    : out_(out), options_(std::move(options)) {}

ConsoleProgress::~ConsoleProgress() {
    try {
        if (std::uncaught_exceptions() > 0) {
            const std::lock_guard lock(mutex_);
            clearLocked();
        } else {
            finish();
        }
    } catch (...) {
        // A stream that fails while the command ends is no reason to terminate.
    }
}

double ConsoleProgress::now() const { return options_.now ? options_.now() : steadySeconds(); }

void ConsoleProgress::report(std::string_view stage, double fraction) {
    const std::lock_guard lock(mutex_);
    const double t = now();
    const bool newStage = stage != stage_;
    // A fraction that goes back is the stage run again (a second evaluation): its clock restarts.
    if (newStage || fraction < lastFraction_) {
        stage_ = std::string(stage);
        stageStart_ = t;
    }
    lastFraction_ = fraction;
    const double elapsed = t - stageStart_;
    std::string text = stage_ + ' ' + std::to_string(percentOf(fraction)) + " %  elapsed " + formatDuration(elapsed);
    // Less than a second in, the rate says nothing yet.
    if (fraction > 0.0 && fraction < 1.0 && elapsed >= 1.0)
        text += "  eta " + formatDuration(elapsed * (1.0 - fraction) / fraction);
    update(std::move(text), newStage);
}

void ConsoleProgress::show(std::string_view text) {
    const std::lock_guard lock(mutex_);
    update(std::string(text), false);
}

void ConsoleProgress::update(std::string text, bool newStage) {
    if (options_.terminal) {
        draw(text);
        return;
    }
    const double t = now();
    if (!printedAny_ || newStage || t - printedAt_ >= options_.intervalSeconds) {
        printLine(text);
        pending_.clear();
    } else {
        pending_ = std::move(text);
    }
}

void ConsoleProgress::draw(const std::string& text) {
    if (text == drawn_ && shown_ != 0) return;
    std::string line = text;
    // Padded over what is left of a longer previous line.
    line.resize(std::max(line.size(), shown_), ' ');
    out_ << '\r' << line << std::flush;
    shown_ = text.size();
    drawn_ = text;
}

void ConsoleProgress::printLine(const std::string& text) {
    out_ << kPlainPrefix << text << '\n' << std::flush;
    printedAt_ = now();
    printedAny_ = true;
}

void ConsoleProgress::clearLocked() {
    if (!options_.terminal || shown_ == 0) return;
    out_ << '\r' << std::string(shown_, ' ') << '\r' << std::flush;
    shown_ = 0;
    drawn_.clear();
}

void ConsoleProgress::clear() {
    const std::lock_guard lock(mutex_);
    clearLocked();
    pending_.clear();
}

void ConsoleProgress::finish() {
    const std::lock_guard lock(mutex_);
    clearLocked();
    if (!pending_.empty()) printLine(pending_);
    pending_.clear();
    // Whatever is reported next starts afresh: a line at once.
    printedAny_ = false;
    stage_.clear();
    lastFraction_ = 0.0;
}

ProgressSink ConsoleProgress::sink() {
    ProgressSink sink;
    sink.report = [this](std::string_view stage, double fraction) { report(stage, fraction); };
    return sink;
}

}  // namespace linkscope::cli
