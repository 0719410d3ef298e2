//===- GraphOrder.cpp - the order of an ONNX graph's nodes ----------------===//
//
// Part of opscope. A stable topological sort of each graph of a model, and
// the cycle that stops one. Standard library, libonnx and protobuf only.
//
//===----------------------------------------------------------------------===//

#include "opscope/Target/ONNX/GraphOrder.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

using namespace opscope;
using onnx_model::forEachMutableSubgraph;
using onnx_model::forEachSubgraph;

std::string onnx_model::nodeLabel(const onnx::NodeProto &node, int index) {
  if (!node.name().empty())
    return node.name();
  for (const auto &out : node.output())
    if (!out.empty())
      return out;
  return "#" + std::to_string(index);
}

std::string onnx_model::scopedName(std::string_view path,
                                   std::string_view name) {
  if (path.empty())
    return std::string(name);
  while (!path.empty() && path.back() == '/')
    path.remove_suffix(1);
  while (!name.empty() && name.front() == '/')
    name.remove_prefix(1);
  return std::string(path) + "/" + std::string(name);
}

namespace {
/// The names `graph` reads from the scopes around it: what its nodes (and
/// their subgraphs) read and its outputs name, less what it defines (its
/// inputs, initializers and node outputs).
void freeNames(const onnx::GraphProto &graph, std::set<std::string> &out) {
  std::unordered_set<std::string> defined;
  for (const auto &in : graph.input())
    defined.insert(in.name());
  for (const auto &init : graph.initializer())
    defined.insert(init.name());
  for (const auto &init : graph.sparse_initializer())
    defined.insert(init.values().name());
  std::set<std::string> read;
  for (const auto &node : graph.node()) {
    for (const auto &o : node.output())
      defined.insert(o);
    for (const auto &in : node.input())
      read.insert(in);
    forEachSubgraph(node, [&](const onnx::GraphProto &g, const std::string &) {
      freeNames(g, read);
    });
  }
  for (const auto &o : graph.output())
    read.insert(o.name());
  for (const auto &name : read)
    if (!name.empty() && !defined.count(name))
      out.insert(name);
}

struct Dependency {
  int producer;
  std::string value;
};

/// "'a' (Relu)", or "'a'" without the op type.
std::string describe(const onnx::GraphProto &graph, const std::string &path,
                     int i, bool withType) {
  const onnx::NodeProto &node = graph.node(i);
  std::string s =
      "'" + onnx_model::scopedName(path, onnx_model::nodeLabel(node, i)) + "'";
  return withType ? s + " (" + node.op_type() + ")" : s;
}

/// The message for a cycle among the nodes `left` (those the sort could not
/// place): each of them reads an output of another one left, so following
/// producers from any of them comes back to a node already seen.
std::string describeCycle(const onnx::GraphProto &graph,
                          const std::string &path,
                          const std::vector<std::vector<Dependency>> &deps,
                          const std::vector<bool> &left) {
  // The node of the lowest index among those left that `i` reads from.
  auto producerLeft = [&](int i) -> const Dependency & {
    const Dependency *best = nullptr;
    for (const Dependency &d : deps[i])
      if (left[d.producer] && (!best || d.producer < best->producer))
        best = &d;
    return *best;
  };
  std::vector<int> walk;
  std::vector<std::string> via; // via[k]: what walk[k] reads of walk[k + 1]
  std::unordered_map<int, size_t> seenAt;
  int cur = static_cast<int>(std::find(left.begin(), left.end(), true) -
                             left.begin());
  while (!seenAt.count(cur)) {
    seenAt[cur] = walk.size();
    walk.push_back(cur);
    const Dependency &d = producerLeft(cur);
    via.push_back(d.value);
    cur = d.producer;
  }
  // The walk went from readers to producers; the cycle is its tail from the
  // node seen twice, told in the direction data flows.
  size_t from = seenAt[cur];
  std::vector<int> cycle(walk.begin() + from, walk.end());
  std::vector<std::string> values(via.begin() + from, via.end());
  std::reverse(cycle.begin(), cycle.end());
  std::reverse(values.begin(), values.end());
  // Now cycle[k] reads values[k] from cycle[k - 1] (cyclically); told from
  // the node that comes first in the graph.
  auto first = std::min_element(cycle.begin(), cycle.end()) - cycle.begin();
  std::rotate(cycle.begin(), cycle.begin() + first, cycle.end());
  std::rotate(values.begin(), values.begin() + first, values.end());
  if (cycle.size() == 1)
    return "node " + describe(graph, path, cycle[0], true) + " reads '" +
           values[0] + "', its own output: the graph has a cycle";
  std::string s = "nodes ";
  for (size_t k = 0; k < cycle.size(); ++k)
    s += (k ? (k + 1 == cycle.size() ? " and " : ", ") : "") +
         describe(graph, path, cycle[k], true);
  s += " form a cycle, so no order can compute them: ";
  for (size_t k = 0; k < cycle.size(); ++k) {
    size_t before = (k + cycle.size() - 1) % cycle.size();
    s += (k ? ", " : "") + describe(graph, path, cycle[k], false) + " reads '" +
         values[k] + "' from " + describe(graph, path, cycle[before], false);
  }
  return s;
}

bool sortGraph(onnx::GraphProto &graph, const std::string &path,
               std::string &error) {
  const int n = graph.node_size();
  // Subgraphs first: each is sorted within itself, whatever the order of
  // the graph around it.
  for (int i = 0; i < n; ++i) {
    std::string scope =
        onnx_model::scopedName(path, onnx_model::nodeLabel(graph.node(i), i));
    bool ok = true;
    forEachMutableSubgraph(*graph.mutable_node(i),
                           [&](onnx::GraphProto &g, const std::string &attr) {
                             if (ok)
                               ok = sortGraph(g, scope + "/" + attr, error);
                           });
    if (!ok)
      return false;
  }

  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < n; ++i)
    for (const auto &o : graph.node(i).output())
      if (!o.empty() && !producer.emplace(o, i).second)
        return true; // not single assignment: the checker says so

  // deps[i]: the nodes of this graph whose outputs node i reads, and what;
  // names not produced here (graph inputs, initializers, outer scopes, or
  // nothing, which the importer reports) constrain nothing.
  std::vector<std::vector<Dependency>> deps(n);
  std::vector<std::vector<int>> readers(n);
  std::vector<int> waiting(n, 0);
  bool sorted = true;
  for (int i = 0; i < n; ++i) {
    std::set<std::string> reads;
    const onnx::NodeProto &node = graph.node(i);
    for (const auto &in : node.input())
      if (!in.empty())
        reads.insert(in);
    forEachSubgraph(node, [&](const onnx::GraphProto &g, const std::string &) {
      freeNames(g, reads);
    });
    for (const auto &name : reads) {
      auto it = producer.find(name);
      if (it == producer.end())
        continue;
      deps[i].push_back({it->second, name});
      readers[it->second].push_back(i);
      ++waiting[i];
      sorted &= it->second < i;
    }
  }
  if (sorted)
    return true;

  // Kahn's algorithm taking the earliest ready node each time: nodes keep
  // their order unless a later node must come first.
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i)
    if (!waiting[i])
      ready.push(i);
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int r : readers[i])
      if (--waiting[r] == 0)
        ready.push(r);
  }
  if (static_cast<int>(order.size()) != n) {
    std::vector<bool> left(n, true);
    for (int i : order)
      left[i] = false;
    error = describeCycle(graph, path, deps, left);
    return false;
  }

  std::vector<onnx::NodeProto> nodes(n);
  for (int i = 0; i < n; ++i)
    nodes[i].Swap(graph.mutable_node(i));
  graph.clear_node();
  for (int i : order)
    graph.add_node()->Swap(&nodes[i]);
  return true;
}
} // namespace

bool onnx_model::sortTopologically(onnx::GraphProto &graph,
                                   std::string &error) {
  return sortGraph(graph, "", error);
}
