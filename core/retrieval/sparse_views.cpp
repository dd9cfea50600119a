#include <cmath>
#include <string>

#include "retrieval/sparse_columns_view.h"
#include "retrieval/sparse_rows_view.h"
#include "util/error.h"

namespace linkscope::retrieval {
namespace {

bool positive(float weight) noexcept { return std::isfinite(weight) && weight > 0.0f; }

template <class Term>
void checkRowsOf(const SparseRowsView<Term>& rows, std::size_t names, std::size_t terms) {
    if (rows.offsets.size() != names + 1 || rows.offsets.front() != 0)
        throw Error("row offsets do not match the " + std::to_string(names) + " names");
    if (rows.terms.size() != rows.weights.size() || rows.offsets.back() != rows.terms.size())
        throw Error("row arrays have inconsistent sizes");
    for (std::size_t row = 0; row < names; ++row) {
        const std::uint64_t begin = rows.offsets[row];
        const std::uint64_t end = rows.offsets[row + 1];
        if (end < begin || end > rows.terms.size())
            throw Error("row offsets of name " + std::to_string(row) + " are out of order");
        for (std::uint64_t p = begin; p < end; ++p) {
            if (rows.terms[p] >= terms || (p > begin && rows.terms[p] <= rows.terms[p - 1]))
                throw Error("the row of name " + std::to_string(row) + " has terms out of range or not sorted");
            if (!positive(rows.weights[p]))
                throw Error("a weight of name " + std::to_string(row) + " is not a positive number");
        }
    }
}

}  // namespace

void checkRows(const CompactSparseRowsView& rows, std::size_t names, std::size_t terms) {
    std::visit([&](const auto& view) { checkRowsOf(view, names, terms); }, rows);
}

void checkColumns(const SparseColumnsView& columns, std::size_t terms, std::uint64_t documents, std::string_view what) {
    const std::string name(what);
    if (columns.offsets.size() != terms + 1 || columns.offsets.front() != 0)
        throw Error(name + " offsets do not match the " + std::to_string(terms) + " terms");
    if (columns.documents.size() != columns.weights.size() || columns.offsets.back() != columns.documents.size())
        throw Error(name + " arrays have inconsistent sizes");
    for (std::size_t t = 0; t < terms; ++t) {
        const std::uint64_t begin = columns.offsets[t];
        const std::uint64_t end = columns.offsets[t + 1];
        if (end < begin || end > columns.documents.size())
            throw Error(name + " offsets of term " + std::to_string(t) + " are out of order");
        if (begin == end) throw Error("term " + std::to_string(t) + " has no " + name + "s");
        for (std::uint64_t p = begin; p < end; ++p) {
            if (columns.documents[p] >= documents || (p > begin && columns.documents[p] <= columns.documents[p - 1]))
                throw Error(name + "s of term " + std::to_string(t) + " are out of range or not sorted");
            if (!positive(columns.weights[p]))
                throw Error("a weight of term " + std::to_string(t) + " is not a positive number");
        }
    }
}

}  // namespace linkscope::retrieval
