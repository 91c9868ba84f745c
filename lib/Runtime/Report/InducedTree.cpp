#include "rvnn/Runtime/Report/InducedTree.h"

#include <stdexcept>

namespace rvnn::runtime::report {

namespace {

std::vector<Tree> tokenLeaves(int64_t length) {
  std::vector<Tree> nodes;
  for (int64_t i = 0; i < length; ++i)
    nodes.push_back(Tree::leaf(i));
  return nodes;
}

void joinAt(std::vector<Tree> &nodes, size_t left) {
  nodes[left] = Tree::join(std::move(nodes[left]), std::move(nodes[left + 1]));
  nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(left) + 1);
}

void collectSpans(const Tree &tree, std::vector<Span> &spans) {
  if (tree.isLeaf())
    return;
  spans.push_back({tree.begin, tree.end});
  for (const Tree &child : tree.children)
    collectSpans(child, spans);
}

void appendBracketed(const Tree &tree, const std::vector<std::string> &tokens,
                     std::string &out) {
  if (!out.empty())
    out += ' ';
  if (tree.isLeaf()) {
    out += tokens.at(static_cast<size_t>(tree.begin));
    return;
  }
  out += '(';
  for (const Tree &child : tree.children)
    appendBracketed(child, tokens, out);
  out += " )";
}

} // namespace

Tree Tree::join(Tree left, Tree right) {
  Tree parent{left.begin, right.end, {}};
  parent.children.push_back(std::move(left));
  parent.children.push_back(std::move(right));
  return parent;
}

Tree balancedTree(int64_t length, int64_t arity) {
  if (length < 1 || arity < 2)
    throw std::invalid_argument("a balanced tree needs at least one token "
                                "and an arity of at least 2");
  std::vector<Tree> level = tokenLeaves(length);
  while (level.size() > 1) {
    std::vector<Tree> parents;
    for (size_t first = 0; first < level.size();
         first += static_cast<size_t>(arity)) {
      size_t last = std::min(level.size(), first + static_cast<size_t>(arity));
      if (last - first == 1) {
        parents.push_back(std::move(level[first]));
        continue;
      }
      Tree parent{level[first].begin, level[last - 1].end, {}};
      for (size_t i = first; i < last; ++i)
        parent.children.push_back(std::move(level[i]));
      parents.push_back(std::move(parent));
    }
    level = std::move(parents);
  }
  return std::move(level.front());
}

Tree treeFromMerges(int64_t length, const std::vector<int64_t> &positions) {
  if (length < 1)
    throw std::invalid_argument("a tree needs at least one token");
  if (static_cast<int64_t>(positions.size()) < length - 1)
    throw std::invalid_argument(
        std::to_string(length) + " tokens need " + std::to_string(length - 1) +
        " merge steps, the model exposed " + std::to_string(positions.size()));
  std::vector<Tree> nodes = tokenLeaves(length);
  for (size_t step = 0; nodes.size() > 1; ++step) {
    int64_t position = positions[step];
    if (position < 0 || position + 1 >= static_cast<int64_t>(nodes.size()))
      throw std::invalid_argument("merge step " + std::to_string(step) +
                                  " selects pair " + std::to_string(position) +
                                  " of " + std::to_string(nodes.size()) +
                                  " nodes");
    joinAt(nodes, static_cast<size_t>(position));
  }
  return std::move(nodes.front());
}

Tree treeFromCompositions(int64_t length,
                          const std::vector<CompositionStep> &iterations,
                          std::vector<std::pair<Span, Span>> *merged) {
  if (length < 1)
    throw std::invalid_argument("a tree needs at least one token");
  std::vector<Tree> items = tokenLeaves(length);
  auto join = [&](size_t left) {
    if (merged)
      merged->push_back({{items[left].begin, items[left].end},
                         {items[left + 1].begin, items[left + 1].end}});
    joinAt(items, left);
  };
  for (const CompositionStep &composition : iterations) {
    if (items.size() <= 1)
      break;
    if (static_cast<int64_t>(composition.size()) < length)
      throw std::invalid_argument("a composition step covers " +
                                  std::to_string(composition.size()) +
                                  " tokens of " + std::to_string(length));
    // An item sits in the slot of its last token (it composed rightwards).
    size_t best = 0;
    for (size_t i = 1; i + 1 < items.size(); ++i)
      if (composition[static_cast<size_t>(items[i].end - 1)] >
          composition[static_cast<size_t>(items[best].end - 1)])
        best = i;
    join(best);
  }
  while (items.size() > 1)
    join(0);
  return std::move(items.front());
}

std::string bracketed(const Tree &tree,
                      const std::vector<std::string> &tokens) {
  std::string out;
  appendBracketed(tree, tokens, out);
  return out;
}

std::vector<Span> nodeSpans(const Tree &tree) {
  std::vector<Span> spans;
  collectSpans(tree, spans);
  return spans;
}

} // namespace rvnn::runtime::report
