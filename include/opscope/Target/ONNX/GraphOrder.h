//===- GraphOrder.h - the order of an ONNX graph's nodes --------*- C++ -*-===//
//
// Part of opscope. ONNX requires a graph's nodes to be topologically sorted,
// but ONNX Runtime sorts them itself, and tools that rewrite models (fp16
// converters among them) write graphs that are not. The importer sorts each
// graph before ONNX's checker and the node walk see it. libonnx and
// protobuf only (no MLIR), like ModelFile.h.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TARGET_ONNX_GRAPHORDER_H
#define OPSCOPE_TARGET_ONNX_GRAPHORDER_H

#include <onnx/onnx_pb.h>

#include <string>
#include <string_view>
#include <type_traits>

namespace opscope::onnx_model {

/// How messages name `node`, the `index`-th node of its graph: its name,
/// else its first non-empty output's, else `#index`.
std::string nodeLabel(const onnx::NodeProto &node, int index);

/// `name` inside the subgraph at `path` (`if/then_branch/name`): one slash
/// between them even when torch-style names begin with one.
std::string scopedName(std::string_view path, std::string_view name);

/// Calls f(graph, "attribute" or "attribute[i]") for every subgraph `node`
/// carries (If's branches, Loop's and Scan's bodies).
template <typename F>
void forEachSubgraph(const onnx::NodeProto &node, F &&f) {
  for (const auto &attr : node.attribute()) {
    if (attr.has_g())
      f(attr.g(), attr.name());
    for (int i = 0; i < attr.graphs_size(); ++i)
      f(attr.graphs(i), attr.name() + "[" + std::to_string(i) + "]");
  }
}

/// The same, to change them.
template <typename F>
void forEachMutableSubgraph(onnx::NodeProto &node, F &&f) {
  for (auto &attr : *node.mutable_attribute()) {
    if (attr.has_g())
      f(*attr.mutable_g(), attr.name());
    for (int i = 0; i < attr.graphs_size(); ++i)
      f(*attr.mutable_graphs(i), attr.name() + "[" + std::to_string(i) + "]");
  }
}

/// Calls f(node, path) for every node of `graph` (const or not) and of the
/// subgraphs its nodes carry, depth first, a node before its subgraphs;
/// `path` names the node as messages do (`if/then_branch/name`, nodeLabel
/// inside its own graph), under `scope`.
template <typename Graph, typename F>
void forEachNode(Graph &graph, F &&f, const std::string &scope = "") {
  for (int i = 0; i < graph.node_size(); ++i) {
    auto &node = [&]() -> auto & {
      if constexpr (std::is_const_v<Graph>)
        return graph.node(i);
      else
        return *graph.mutable_node(i);
    }();
    std::string path = scopedName(scope, nodeLabel(node, i));
    f(node, path);
    auto recurse = [&](auto &g, const std::string &attr) {
      forEachNode(g, f, path + "/" + attr);
    };
    if constexpr (std::is_const_v<Graph>)
      forEachSubgraph(node, recurse);
    else
      forEachMutableSubgraph(node, recurse);
  }
}

/// Orders the nodes of `graph`, and of every subgraph its nodes carry (If's
/// branches, Loop's and Scan's bodies), so that each node comes after the
/// nodes whose outputs it reads. What a subgraph reads from an enclosing
/// graph counts as read by the node that carries it. Stable: a sorted graph
/// is left as it is, and otherwise, of the nodes whose inputs exist, the
/// one first in the graph comes next. A graph in which a name is produced
/// twice is left as it is (ONNX's checker reports that). Returns false when
/// nodes read each other's outputs in a cycle, with `error` naming the
/// nodes of one cycle (by their path inside subgraphs), their op types and
/// the values that close it; the graph with the cycle is then left as it
/// was, though subgraphs already sorted stay sorted.
bool sortTopologically(onnx::GraphProto &graph, std::string &error);

} // namespace opscope::onnx_model

#endif // OPSCOPE_TARGET_ONNX_GRAPHORDER_H
