# Several curators: the adjudication dialog (agreement figures, the disagreements of
# two curators side by side, picks stored as adjudications). Included from ui/CMakeLists.txt.
target_sources(linkscope_ui PRIVATE adjudication_dialog.cpp adjudication_dialog.h disagreement_model.cpp disagreement_model.h)
