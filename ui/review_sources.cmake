# The review queue in the GUI: the undecided mentions by the policy of
# core/curation/review_queue.h, for "Next mention worth reviewing" and the Documents dock filter.
target_sources(linkscope_ui PRIVATE review_queue_order.cpp)
# The Candidates dock's preview of a decision's reach (same text, "Apply to all").
target_sources(linkscope_ui PRIVATE reach_preview.cpp)
