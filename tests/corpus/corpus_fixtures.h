#pragma once
// Fixture texts shared by the corpus suites (the reader's and the writer's must agree on them),
// and the common fixture helpers (FixtureDir, LINKSCOPE_EXPECT_PARSE_ERROR).
#include <string_view>

#include "fixtures.h"

namespace linkscope::test {

// NCBI Disease style: leading empty line, stray spaces in id columns, '|' and '+' composites.
inline constexpr std::string_view kNcbiStyle =
    "\n"
    "100|t|BRCA1 mutations cause breast cancer.\n"
    "100|a|Ovarian cancer and breast cancer share risk factors.\n"
    "100\t22\t35\tbreast cancer\tSpecificDisease\tD001943\n"
    "100\t37\t51\tOvarian cancer\tSpecificDisease\t D010051\n"
    "100\t37\t69\tOvarian cancer and breast cancer\tCompositeMention\tD010051|D001943\n"
    "\n"
    "101|t|Pelizaeus-Merzbacher disease is an X-linked dysmyelinating disorder.\n"
    "101|a|PMD is rare.\n"
    "101\t0\t28\tPelizaeus-Merzbacher disease\tSpecificDisease\tOMIM:312080 \n"
    "101\t35\t67\tX-linked dysmyelinating disorder\tDiseaseClass\tD020279+D035583\n"
    "101\t69\t72\tPMD\tSpecificDisease\tOMIM:312080\n";

// A BC5CDR style document without its closing blank line: trailing TAB, a 7th column of
// individual mentions, CUI-less ids, a CID line (line 7).
inline constexpr std::string_view kBc5cdrDocument =
    "200|t|Naloxone reverses the antihypertensive effect of clonidine.\n"
    "200|a|In rats, ocular and auditory toxicity followed nalozone.\n"
    "200\t0\t8\tNaloxone\tChemical\tD009270\t\n"
    "200\t22\t38\tantihypertensive\tDisease\tD002544|-1\t\n"
    "200\t69\t97\tocular and auditory toxicity\tDisease\tD014786|D006311\tocular toxicity|auditory toxicity\n"
    "200\t107\t115\tnalozone\tChemical\t-1\n"
    "200\tCID\tD009270\tD006973\n";

// NCBI Disease train line 3249 writes the mention with two spaces the text lacks.
inline constexpr std::string_view kPaddedMention =
    "9|t|Febrile seizures \" plus \" here.\n9|a|x\n"
    "9\t0\t25\tFebrile seizures \" plus \"  \tSpecificDisease\tD003294\n";

}  // namespace linkscope::test
