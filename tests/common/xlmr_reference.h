#pragma once
// Runs tests/encoder/xlmr_reference.py with Debian's Python (/usr/bin/python3, which has
// python3-sentencepiece and python3-numpy; the python3 on PATH may lack them): the XLM-R
// suites' references, written without Linkscope's code.
#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace linkscope::test {

struct ReferenceRun {
    bool ran = false;  ///< false: Python or its modules are absent (skip), see `message`
    QString message;   ///< the skip reason, or the script's errors when it failed
};

/// Runs the script with `arguments`. ran is false (with a reason to QSKIP) when /usr/bin/python3
/// or one of its modules is missing; a script that fails otherwise is a failure of the test.
inline ReferenceRun runXlmrReference(const QStringList& arguments) {
    const QString python = QStringLiteral("/usr/bin/python3");
    if (!QFileInfo::exists(python)) return {false, "/usr/bin/python3 is absent: no independent XLM-R reference"};
    QProcess process;
    process.start(python,
                  QStringList{QStringLiteral(LINKSCOPE_SOURCE_DIR "/tests/encoder/xlmr_reference.py")} << arguments);
    if (!process.waitForFinished(120000)) {
        process.kill();
        return {true, "xlmr_reference.py did not finish"};
    }
    const QString errors = QString::fromUtf8(process.readAllStandardError());
    if (errors.contains("ModuleNotFoundError"))
        return {false, "python3-sentencepiece or python3-numpy is absent: no independent XLM-R reference (" +
                           errors.trimmed().section('\n', -1) + ")"};
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) return {true, errors};
    return {true, {}};
}

}  // namespace linkscope::test
