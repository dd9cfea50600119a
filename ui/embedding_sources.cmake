# The embedding plot: classical MDS of an entity's mentions and names with those of its
# competitors, drawn with Qt Charts. Included from ui/CMakeLists.txt.
target_sources(linkscope_ui PRIVATE
    embedding_plot.cpp
    embedding_plot.h)
target_link_libraries(linkscope_ui PUBLIC Qt6::Charts)
