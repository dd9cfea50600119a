#include "corpus/corpus.h"

namespace linkscope {

const Document* Corpus::find(std::string_view pmid) const noexcept {
    const auto it = index_.find(pmid);
    return it == index_.end() ? nullptr : &documents_[it->second];
}

Document* Corpus::find(std::string_view pmid) noexcept {
    const auto it = index_.find(pmid);
    return it == index_.end() ? nullptr : &documents_[it->second];
}

Document& Corpus::add(Document document) {
    const auto [it, inserted] = index_.try_emplace(document.pmid(), documents_.size());
    if (!inserted) throw Error("corpus " + name + ": document " + document.pmid() + " is already present");
    try {
        documents_.push_back(std::move(document));
    } catch (...) {
        index_.erase(it);
        throw;
    }
    return documents_.back();
}

}  // namespace linkscope
