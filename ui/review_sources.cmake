# The review queue in the GUI: the undecided mentions by the policy of
# core/curation/review_queue.h, for "Next mention worth reviewing" and the Documents dock filter.
target_sources(linkscope_ui PRIVATE review_queue_order.cpp)
# A team project's queue handed out through claims that expire, and the project's mode.
target_sources(linkscope_ui PRIVATE review_claims.cpp review_claims.h)
# The claims' statements on a worker thread and a connection of their own.
target_sources(linkscope_ui PRIVATE review_claims_worker.cpp review_claims_worker.h)
# The Candidates dock's preview of a decision's reach (same text, "Apply to all").
target_sources(linkscope_ui PRIVATE reach_preview.cpp)
