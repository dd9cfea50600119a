# The evaluation dock: metrics, recall@k chart (Qt Charts), A/B comparison and the error list,
# included from ui/CMakeLists.txt. The error categories themselves are in core/eval.
target_sources(linkscope_ui PRIVATE
    error_filter_model.cpp
    error_filter_model.h
    error_table_model.cpp
    error_table_model.h
    evaluation_panel.cpp
    evaluation_panel.h
    evaluation_run.cpp
    evaluation_run.h)
target_link_libraries(linkscope_ui PUBLIC Qt6::Charts)
