#pragma once
// Finds and loads the dense module (liblinkscope_ui_dense.so, dense_engine.h) once per process.
// It lives in lib/linkscope/ beside the programs' bin/ (the build tree has the same layout),
// as core's SentencePiece module does; $LINKSCOPE_UI_DENSE_MODULE names another file.
//
// installed() only looks for the file, so the window may ask it while it opens; load() maps the
// module and with it LibTorch, whose static initialisers take long: call it on a worker.
#include <QString>

namespace linkscope::ui {

class DenseEngine;

class DenseEngineLoader {
public:
    /// Whether the module is there (this build has LibTorch and it is installed); cheap.
    static bool installed();
    /// The engine, the module loaded on the first call (thread-safe; later calls return at once).
    /// Throws Error in plain words when it is not installed or cannot be loaded.
    static DenseEngine& load();
    /// Why linking with a trained run or training cannot be done here, in plain words.
    static QString missingMessage();
};

}  // namespace linkscope::ui
