#pragma once
// CTD's vocabulary downloads, CTD_diseases.tsv(.gz) and CTD_chemicals.tsv(.gz): tab-separated
// rows after '#' comment lines. The comment "# Fields:" is followed by a comment line naming
// the columns, which tells diseases from chemicals and where each column is:
//   diseases:  DiseaseName DiseaseID AltDiseaseIDs Definition ParentIDs TreeNumbers
//              ParentTreeNumbers Synonyms SlimMappings
//   chemicals: ChemicalName ChemicalID CasRN Definition ParentIDs TreeNumbers
//              ParentTreeNumbers Synonyms
// The name column is the preferred name, Synonyms ('|'-separated) the other names;
// AltDiseaseIDs ('|'-separated) and CasRN (as "CAS:<number>") become alternative ids;
// SlimMappings ('|'-separated) become semantic types (a name without a type id).
#include <filesystem>

#include "kb/load_result.h"

namespace linkscope::kb {

enum class CtdKind { Auto, Diseases, Chemicals };

struct CtdOptions : LoadOptions {
    /// Auto: read the kind from the "# Fields:" header, and refuse a file without it. A given
    /// kind must match the header, and lets a header-less file be read with CTD's standard
    /// column order (reported as a diagnostic).
    CtdKind kind = CtdKind::Auto;
};

struct CtdLoadResult : KbLoadResult {
    CtdKind kind = CtdKind::Auto;  ///< what the file turned out to be
};

CtdLoadResult loadCtd(const std::filesystem::path& file, const CtdOptions& options = {});

}  // namespace linkscope::kb
