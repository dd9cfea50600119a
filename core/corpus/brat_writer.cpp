#include "corpus/brat_writer.h"

#include <system_error>

#include "corpus/link_column.h"
#include "corpus/pubtator_lines.h"
#include "util/atomic_file.h"
#include "util/atomic_folder.h"
#include "util/error.h"

namespace linkscope {
namespace {

using pubtator::quoteForMessage;

[[noreturn]] void refuse(const Document& document, const std::string& what) {
    throw Error("cannot write document " + document.pmid() + " as brat standoff: " + what);
}

bool hasSpace(std::string_view text) noexcept { return text.find_first_of(" \t\r\n\v\f") != std::string_view::npos; }

// brat's DB:ID spelling of one canonical id (see the header for "id:" and "CUI-less:").
std::string referenceOf(const Document& document, const std::string& id) {
    if (id.empty() || hasSpace(id) || id.find_first_of("|+") != std::string::npos)
        refuse(document, "identifier " + quoteForMessage(id) + " is empty or holds a space, '|' or '+'");
    if (id == "-1") return "CUI-less:-1";
    const auto colon = id.find(':');
    if (colon == std::string::npos) return "id:" + id;
    const std::string_view prefix(id.data(), colon);
    if (colon == 0 || colon + 1 == id.size() || prefix == "id" || prefix == "CUI-less")
        refuse(document, "identifier " + quoteForMessage(id) + " cannot be written as brat's DB:ID");
    return id;
}

void appendWithCheck(std::string& out, const Document& document, std::string_view field, std::string_view what) {
    if (field.find_first_of("\t\r\n") != std::string_view::npos)
        refuse(document, std::string(what) + " " + quoteForMessage(field) + " holds a tab or line break");
    out.append(field);
}

void appendMention(std::string& out, const Document& document, const Mention& mention, std::size_t number,
                   BratExportSummary& summary) {
    if (!mention.offsetsValid)
        refuse(document, "mention " + quoteForMessage(mention.text) + " at offsets " + std::to_string(mention.start) +
                             "-" + std::to_string(mention.end) + " failed validation when it was read");
    if (mention.type.empty() || hasSpace(mention.type))
        refuse(document, "mention type " + quoteForMessage(mention.type) + " is empty or holds whitespace");
    const std::string target = "T" + std::to_string(number);
    out.append(target).append(1, '\t').append(mention.type);
    out.append(1, ' ').append(std::to_string(mention.start)).append(1, ' ').append(std::to_string(mention.end));
    out.append(1, '\t');
    appendWithCheck(out, document, mention.text, "mention text");
    out.append(1, '\n');
    ++summary.mentions;
    if (!mention.individualMentions.empty()) ++summary.individualMentionListsLeftOut;

    if (isUnlinked(mention)) return;
    const std::vector<std::string> cuiLess{"-1"};
    const auto& ids = mention.ids.cuiLess || mention.ids.ids.empty() ? cuiLess : mention.ids.ids;
    for (const auto& id : ids) {
        out.append("N").append(std::to_string(++summary.normalizations)).append("\tReference ").append(target);
        out.append(1, ' ').append(referenceOf(document, id)).append(1, '\t');
        appendWithCheck(out, document, mention.text, "mention text");
        out.append(1, '\n');
    }
    if (mention.ids.join == IdJoin::Conjunction && ids.size() > 1)
        out.append("A").append(std::to_string(number)).append("\tIdJoin ").append(target).append(" Conjunction\n");
}

}  // namespace

BratFiles formatBrat(const Document& document, BratExportSummary& summary) {
    if (!pubtator::isValidPmid(document.pmid())) refuse(document, "malformed PMID (it names the files)");
    if (document.title.find_first_of("\r\n") != std::string::npos) refuse(document, "the title holds a line break");
    if (document.abstract.find('\r') != std::string::npos) refuse(document, "the abstract holds a carriage return");
    if (!document.hasAbstract && !document.abstract.empty())
        refuse(document, "an abstract is set but hasAbstract is false");
    BratFiles files;
    files.text = document.title;
    if (document.hasAbstract) files.text.append(1, '\n').append(document.abstract);
    files.text.append(1, '\n');
    // N numbers run over the document; the summary counts over the corpus.
    BratExportSummary local;
    for (std::size_t i = 0; i < document.mentions.size(); ++i)
        appendMention(files.annotations, document, document.mentions[i], i + 1, local);
    summary.documents += 1;
    summary.mentions += local.mentions;
    summary.normalizations += local.normalizations;
    summary.individualMentionListsLeftOut += local.individualMentionListsLeftOut;
    summary.relationsLeftOut += document.relations.size();
    return files;
}

namespace {

// Both writers: the folder created, each document formatted and its two files written by `write`.
template <typename WriteFile>
BratExportSummary writeBratWith(const Corpus& corpus, const std::filesystem::path& folder, WriteFile write) {
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec) throw Error("cannot create folder " + folder.string() + ": " + ec.message());
    BratExportSummary summary;
    for (const Document& document : corpus.documents()) {
        const BratFiles files = formatBrat(document, summary);
        write(folder / (document.pmid() + ".txt"), files.text);
        write(folder / (document.pmid() + ".ann"), files.annotations);
    }
    return summary;
}

}  // namespace

BratExportSummary writeBrat(const Corpus& corpus, const std::filesystem::path& folder) {
    return writeBratWith(corpus, folder, [](const std::filesystem::path& file, const std::string& content) {
        AtomicFileWriter writer(file);
        writer.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
        writer.commit();
    });
}

BratExportSummary writeBratStaged(const Corpus& corpus, const std::filesystem::path& stagedFolder) {
    return writeBratWith(corpus, stagedFolder, [](const std::filesystem::path& file, const std::string& content) {
        writeStagedFile(file, content);
    });
}

}  // namespace linkscope
