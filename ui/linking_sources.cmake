# The Linking menu: link the project with a trained run and its kNN datastore, or with
# sparse TF-IDF. Included from ui/CMakeLists.txt; without LibTorch the menu says run linking
# needs it.
target_sources(linkscope_ui PRIVATE linking_menu.cpp linking_menu.h)
