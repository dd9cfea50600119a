#pragma once
// Helpers of the packaging suites: running an outside tool, and the sections and build id of an
// ELF file (to tell a stripped binary from one with debug info without depending on `file`).
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QStringList>

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>

namespace linkscope::test {

struct ToolResult {
    int exitCode = -1;  // -1: did not start, or crashed
    QByteArray out;
    QByteArray err;
    QByteArray all() const { return out + err; }
};

/// Runs `program` to its end. No time limit of its own: cpack takes minutes on a busy machine, and
/// the suite's ctest TIMEOUT already ends a run that hangs.
inline ToolResult runTool(const QString& program, const QStringList& arguments,
                          const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment()) {
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(program, arguments);
    ToolResult result;
    if (!process.waitForStarted(-1) || !process.waitForFinished(-1)) {
        result.err = process.errorString().toUtf8();
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

/// The sections of a 64-bit ELF file (name -> whether it has bytes in the file) and its GNU
/// build id in hex; `ok` is false when the file is not one.
struct ElfFile {
    bool ok = false;
    std::set<std::string> sections;          // every section
    std::set<std::string> sectionsWithData;  // those with bytes in the file (not SHT_NOBITS, size > 0)
    std::string buildId;
};

inline ElfFile readElf(const QString& path) {
    ElfFile elf;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return elf;
    const qint64 size = file.size();
    const uchar* data = file.map(0, size);
    if (!data || size < static_cast<qint64>(sizeof(Elf64_Ehdr))) return elf;
    Elf64_Ehdr header;
    std::memcpy(&header, data, sizeof header);
    if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
        header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shstrndx >= header.e_shnum ||
        static_cast<qint64>(header.e_shoff + std::uint64_t{header.e_shnum} * sizeof(Elf64_Shdr)) > size)
        return elf;
    auto sectionAt = [&](std::size_t index) {
        Elf64_Shdr section;
        std::memcpy(&section, data + header.e_shoff + index * sizeof(Elf64_Shdr), sizeof section);
        return section;
    };
    const Elf64_Shdr names = sectionAt(header.e_shstrndx);
    if (static_cast<qint64>(names.sh_offset + names.sh_size) > size) return elf;
    for (std::size_t i = 0; i < header.e_shnum; ++i) {
        const Elf64_Shdr section = sectionAt(i);
        if (section.sh_name >= names.sh_size) return elf;
        const char* start = reinterpret_cast<const char*>(data + names.sh_offset + section.sh_name);
        const std::string name(start, strnlen(start, names.sh_size - section.sh_name));
        elf.sections.insert(name);
        const bool inFile = section.sh_type != SHT_NOBITS && section.sh_size > 0 &&
                            static_cast<qint64>(section.sh_offset + section.sh_size) <= size;
        if (inFile) elf.sectionsWithData.insert(name);
        // The note: namesz, descsz, type, then "GNU\0" and the id, each padded to 4 bytes.
        if (name == ".note.gnu.build-id" && inFile && section.sh_size >= sizeof(Elf64_Nhdr)) {
            Elf64_Nhdr note;
            std::memcpy(&note, data + section.sh_offset, sizeof note);
            const std::uint64_t descAt = sizeof note + ((note.n_namesz + 3) & ~3u);
            if (note.n_type == NT_GNU_BUILD_ID && descAt + note.n_descsz <= section.sh_size)
                elf.buildId = QByteArray(reinterpret_cast<const char*>(data + section.sh_offset + descAt),
                                         static_cast<qsizetype>(note.n_descsz))
                                  .toHex()
                                  .toStdString();
        }
    }
    elf.ok = true;
    return elf;
}

}  // namespace linkscope::test
