#pragma once
// The message a test expects a refusal to give.
#include <string>

#include "util/error.h"

namespace linkscope::test {

/// The message of the linkscope::Error that `action` throws ("" when it throws none).
template <typename F>
std::string errorOf(F&& action) {
    try {
        action();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

}  // namespace linkscope::test
