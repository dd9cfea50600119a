#pragma once
// What the team benchmarks (team_curation, ui_stall --team-curators) set up alike: a project on
// NCBI Disease (train, dev) with MEDIC from the shared data, created on a server the benchmark
// started (tests/common/postgres_server.h), and simulated curators, each a
// `linkscope-cli simulate-curation --curator` process with a login of its own walking the dev
// split's review queue at a set rate.
#include <QProcess>
#include <QString>
#include <QStringList>

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace linkscope::bench {

/// The shared files a team project reads, under `data`; the first one missing, or empty.
inline std::string missingTeamData(const std::filesystem::path& data) {
    for (const char* file : {"medic/medic_06Jul2012.txt", "ncbi-disease/NCBItrainset_corpus.txt",
                             "ncbi-disease/NCBIdevelopset_corpus.txt"})
        if (!std::filesystem::exists(data / file)) return (data / file).string();
    return {};
}

/// Writes the team project's manifest (NCBI Disease train and dev, MEDIC) into `folder`.
inline std::string writeTeamManifest(const std::filesystem::path& data, const std::filesystem::path& folder,
                                     const std::string& name) {
    const nlohmann::json manifest = {
        {"format", "linkscope-project-manifest"},
        {"version", 1},
        {"name", "NCBI Disease + MEDIC (" + name + ")"},
        {"knowledgeBase", {{"path", (data / "medic" / "medic_06Jul2012.txt").string()}, {"format", "medic"}}},
        {"corpora",
         {{{"split", "train"},
           {"path", (data / "ncbi-disease" / "NCBItrainset_corpus.txt").string()},
           {"format", "pubtator"}},
          {{"split", "dev"},
           {"path", (data / "ncbi-disease" / "NCBIdevelopset_corpus.txt").string()},
           {"format", "pubtator"}}}}};
    const std::filesystem::path file = folder / (name + ".json");
    std::ofstream(file) << manifest.dump(2);
    return file.string();
}

/// Runs `cli` with `arguments` to its end (two minutes at most); true when it exited with 0.
/// `output` takes what it printed.
inline bool runCli(const std::filesystem::path& cli, const QStringList& arguments, QString& output) {
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(QString::fromStdString(cli.string()), arguments);
    const bool finished = process.waitForFinished(120000);
    output = QString::fromUtf8(process.readAll());
    return finished && process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
}

/// Creates the team project of `manifest` in the database `ownerUri` names; throws when it fails.
inline void createTeamProject(const std::filesystem::path& cli, const std::string& manifest,
                              const std::string& ownerUri) {
    QString output;
    if (!runCli(cli,
                {"project", "create", "--manifest", QString::fromStdString(manifest), "--store",
                 QString::fromStdString(ownerUri)},
                output))
        throw std::runtime_error("project create failed: " + output.toStdString());
}

/// Starts one simulated curator: `login` through `uri`, deciding `rate` mentions a second on the
/// dev split until it has made `limit` decisions; its report (--json) on its standard output.
inline std::unique_ptr<QProcess> startCurator(const std::filesystem::path& cli, const std::filesystem::path& data,
                                              const std::string& uri, const std::string& login, double rate,
                                              int limit) {
    const std::filesystem::path corpora = data / "ncbi-disease";
    auto process = std::make_unique<QProcess>();
    process->setStandardErrorFile(QProcess::nullDevice());
    process->start(QString::fromStdString(cli.string()),
                   {"simulate-curation",
                    "--order",
                    "queue",
                    "--project",
                    QString::fromStdString(uri),
                    "--curator",
                    QString::fromStdString(login),
                    "--rate",
                    QString::number(rate),
                    "--limit",
                    QString::number(limit),
                    "--train",
                    QString::fromStdString((corpora / "NCBItrainset_corpus.txt").string()),
                    "--dev",
                    QString::fromStdString((corpora / "NCBIdevelopset_corpus.txt").string()),
                    "--kb",
                    QString::fromStdString((data / "medic" / "medic_06Jul2012.txt").string()),
                    "--split",
                    "dev",
                    "--json"});
    return process;
}

}  // namespace linkscope::bench
