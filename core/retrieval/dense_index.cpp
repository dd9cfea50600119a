// FAISS behind dense_index.h (issue 4)
