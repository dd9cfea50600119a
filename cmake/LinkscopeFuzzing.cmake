# libFuzzer harnesses for the readers of outside data (tests/fuzz). Off by default;
# the `fuzz` preset turns it on with clang-16 and without LibTorch.
#
# With the option on, every target of the build (core first of all) is compiled with coverage
# instrumentation for libFuzzer plus AddressSanitizer and UndefinedBehaviorSanitizer
# (-fsanitize=fuzzer-no-link,address,undefined), and linked with the sanitizer runtimes; the
# fuzz targets alone add libFuzzer's main (-fsanitize=fuzzer, see tests/fuzz/CMakeLists.txt).
if(NOT LINKSCOPE_BUILD_FUZZERS)
  return()
endif()

# Clang 16 at least: core's lambdas capture structured bindings (C++20, P1091R3/P1381R1; e.g.
# encoder/bert_tokenizer.cpp, encoder/tokenizer_files.cpp), which clang 14 and 15 refuse
# ("reference to local binding ... declared in enclosing function"). Debian bookworm:
# apt-get install clang-16 libclang-rt-16-dev (the latter holds libclang_rt.fuzzer).
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR CMAKE_CXX_COMPILER_VERSION VERSION_LESS 16)
  message(FATAL_ERROR "LINKSCOPE_BUILD_FUZZERS needs clang 16 or newer (libFuzzer, and C++20 lambda captures "
                      "of structured bindings in core); use the `fuzz` preset (clang++-16), not "
                      "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
endif()

target_compile_options(linkscope_options INTERFACE
    -fsanitize=fuzzer-no-link,address,undefined
    -fno-omit-frame-pointer
    # A UBSan finding aborts, so that libFuzzer records it as a crash with its input.
    -fno-sanitize-recover=undefined
    # Bounds-checked operator[], front(), back() of the standard containers (libstdc++'s cheap
    # assertions, ABI-compatible): an index one past a vector's size but within its capacity is
    # a finding too, which ASan alone does not see.
    -D_GLIBCXX_ASSERTIONS
    # LinkscopeWarnings passes GCC's -Wshadow=local, which clang does not know.
    -Wno-unknown-warning-option)
target_link_options(linkscope_options INTERFACE -fsanitize=address,undefined)
# The project is C++ only; the preset names clang-16 for C as well, so that a C source added
# later (or a dependency built in-tree) is instrumented by the same compiler.
message(STATUS "Linkscope: fuzzers on (-fsanitize=fuzzer-no-link,address,undefined on every target; "
               "C++ ${CMAKE_CXX_COMPILER}, C ${CMAKE_C_COMPILER})")
