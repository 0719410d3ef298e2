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

namespace opscope::onnx_model {

/// How messages name `node`, the `index`-th node of its graph: its name,
/// else its first non-empty output's, else `#index`.
std::string nodeLabel(const onnx::NodeProto &node, int index);

/// `name` inside the subgraph at `path` (`if/then_branch/name`): one slash
/// between them even when torch-style names begin with one.
std::string scopedName(std::string_view path, std::string_view name);

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
