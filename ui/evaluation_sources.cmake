# The evaluation dock: metrics, recall@k chart (Qt Charts), A/B comparison, the error list, the
# "All runs" page and the curation curve, included from ui/CMakeLists.txt. The error categories
# and the many-run statistics themselves are in core/eval.
target_sources(linkscope_ui PRIVATE
    error_filter_model.cpp
    error_filter_model.h
    error_table_model.cpp
    error_table_model.h
    evaluation_panel.cpp
    evaluation_panel.h
    evaluation_run.cpp
    evaluation_run.h
    multi_run_panel.cpp
    multi_run_panel.h
    curation_curve_plot.cpp
    curation_curve_plot.h
    curation_curve_reader.cpp
    curation_curve_reader.h)
target_link_libraries(linkscope_ui PUBLIC Qt6::Charts)
# Plots people can read and keep: axis styling and "Save plot…" (SVG through Qt SVG's
# QSvgGenerator, PNG) for every chart of the GUI, the training and embedding docks' included.
target_sources(linkscope_ui PRIVATE
    plot_export.cpp
    plot_export.h)
target_link_libraries(linkscope_ui PUBLIC Qt6::Svg)
