//===- TfIdf.cpp - ONNX TfIdfVectorizer over integer tokens ---------------===//
//
// Part of opscope's runtime. The pool's n-grams form a trie whose edges
// (parent node, token) live in one hash map, built once at model init; a
// row's n-grams are walked from each start token, so a start whose first
// token is in no n-gram costs one lookup. Hash lookups, not lanes: one
// scalar form (named `reference`).
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/indexing.h"

#include <algorithm>
#include <functional>

using namespace opscope::rt;

size_t TfIdfVectorizer::EdgeHash::operator()(
    const std::pair<int64_t, int64_t> &e) const {
  size_t h = std::hash<int64_t>()(e.first);
  return h ^ (std::hash<int64_t>()(e.second) + 0x9e3779b97f4a7c15ULL +
              (h << 6) + (h >> 2));
}

TfIdfVectorizer::TfIdfVectorizer(const TfIdfParams &p) : p_(p) {
  columns_ = *std::max_element(p.ngramIndexes.begin(), p.ngramIndexes.end()) +
             1;
  ngram_.push_back(-1); // the root
  int64_t id = 0, size = static_cast<int64_t>(p.pool.size());
  for (size_t level = 0; level < p.ngramCounts.size(); ++level) {
    int64_t n = level + 1, begin = std::clamp<int64_t>(p.ngramCounts[level], 0, size);
    int64_t end = level + 1 < p.ngramCounts.size()
                      ? std::clamp<int64_t>(p.ngramCounts[level + 1], 0, size)
                      : size;
    for (int64_t i = begin; i + n <= end &&
                            id < static_cast<int64_t>(p.ngramIndexes.size());
         i += n, ++id) {
      // Pool n-grams of other lengths keep their ids but are never found.
      if (n < p.minGram || n > p.maxGram)
        continue;
      int64_t node = 0;
      for (int64_t j = 0; j < n; ++j) {
        auto [it, added] = edges_.try_emplace({node, p.pool[i + j]},
                                              int64_t(ngram_.size()));
        if (added)
          ngram_.push_back(-1);
        node = it->second;
      }
      ngram_[node] = id;
    }
  }
}

int64_t TfIdfVectorizer::child(int64_t parent, int64_t token) const {
  auto it = edges_.find({parent, token});
  return it == edges_.end() ? -1 : it->second;
}

template <typename T>
void TfIdfVectorizer::weighRow(const T *row, int64_t length, float *out) const {
  // In ONNX Runtime's order (bit for bit: TFIDF sums the weights hit by
  // hit): for each distance d (1 to max_skip_count + 1), the n-grams of
  // tokens d apart from every start (min_gram_length <= n <=
  // max_gram_length); 1-grams only at d = 1. Each hit of pool n-gram i
  // adds 1 (TF) or weights[i] (TFIDF) to column ngram_indexes[i], or sets
  // it to weights[i] (IDF: where n-grams share a column, the last hit's).
  int64_t startGram = p_.minGram;
  for (int64_t d = 1; d <= p_.maxSkip + 1; ++d) {
    for (int64_t s = 0; s < length; ++s) {
      if (s + d * (startGram - 1) >= length)
        break;
      int64_t node = 0;
      for (int64_t n = 1, i = s; n <= p_.maxGram && i < length;
           ++n, i += d) {
        node = child(node, static_cast<int64_t>(row[i]));
        if (node < 0)
          break;
        int64_t id = ngram_[node];
        if (n < startGram || id < 0)
          continue;
        float w = p_.weights.empty() ? 1.0f : p_.weights[id];
        float &o = out[p_.ngramIndexes[id]];
        switch (p_.mode) {
        case TfIdfMode::Tf:
          o += 1.0f;
          break;
        case TfIdfMode::Idf:
          o = w;
          break;
        case TfIdfMode::TfIdf:
          o += w;
          break;
        }
      }
    }
    if (startGram == 1) {
      startGram = 2;
      if (startGram > p_.maxGram)
        break;
    }
  }
}

void TfIdfVectorizer::run(const void *x, DType t, int64_t rows,
                          int64_t length, float *y) const {
  std::fill(y, y + rows * columns_, 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    if (t == DType::I32)
      weighRow(static_cast<const int32_t *>(x) + r * length, length,
               y + r * columns_);
    else
      weighRow(static_cast<const int64_t *>(x) + r * length, length,
               y + r * columns_);
  }
}
