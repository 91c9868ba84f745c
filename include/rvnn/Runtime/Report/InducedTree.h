#ifndef RVNN_RUNTIME_REPORT_INDUCEDTREE_H
#define RVNN_RUNTIME_REPORT_INDUCEDTREE_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rvnn::runtime::report {

/// A tree over the tokens [begin, end) of a sequence: a leaf is one token
/// (no children), an internal node covers its children's adjacent spans.
struct Tree {
  int64_t begin = 0;
  int64_t end = 0;
  std::vector<Tree> children;

  bool isLeaf() const { return children.empty(); }
  /// The leaf of token `index`.
  static Tree leaf(int64_t index) { return {index, index + 1, {}}; }
  /// The parent of adjacent nodes `left` and `right`.
  static Tree join(Tree left, Tree right);
};

/// A token span [begin, end).
using Span = std::pair<int64_t, int64_t>;

/// The balanced `arity`-ary tree rvnn.balanced_reduce builds over `length`
/// tokens: each level groups consecutive nodes by `arity` (the last group
/// may be shorter); a group of one node passes it up unchanged.
Tree balancedTree(int64_t length, int64_t arity);

/// The tree of a sequence of adjacent merges over `length` tokens: step t
/// joins nodes positions[t] and positions[t] + 1 of the current node
/// sequence (which shrinks by one per step) into one node in their place.
/// Needs length - 1 positions; throws std::invalid_argument naming the step
/// whose position is outside its node sequence.
Tree treeFromMerges(int64_t length, const std::vector<int64_t> &positions);

/// One iteration of soft composition over the row's tokens:
/// `composition[i]` is the probability that the item in token slot i
/// composes with its right neighbour item.
using CompositionStep = std::vector<double>;

/// The discrete reading of soft composition over `length` tokens. Items
/// start as the tokens, each in its own slot. At each iteration, the item
/// with the highest composition probability (read at its slot; ties to the
/// left) among those that have a right neighbour joins that neighbour, and
/// the joined item takes the neighbour's slot (CRvNN composes into the right
/// neighbour). Items left after the last iteration are joined left to
/// right. `merged`, when given, receives each iteration's joined spans
/// (left, right), in order.
Tree treeFromCompositions(int64_t length,
                          const std::vector<CompositionStep> &iterations,
                          std::vector<std::pair<Span, Span>> *merged = nullptr);

/// "( ( a b ) c )": tokens separated by spaces, each internal node in round
/// brackets (the notation of bracketed ListOps data). `tokens` holds the
/// text of every token the tree covers.
std::string bracketed(const Tree &tree, const std::vector<std::string> &tokens);

/// The span of every internal node, parents before children.
std::vector<Span> nodeSpans(const Tree &tree);

} // namespace rvnn::runtime::report

#endif // RVNN_RUNTIME_REPORT_INDUCEDTREE_H
