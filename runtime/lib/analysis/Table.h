//===- Table.h - one column list, four output formats -----------*- C++ -*-===//
//
// Part of opscope's runtime (internal to opscope_analysis). A table is a
// list of columns, each a name, whether it is numeric and how to make its
// cell from a row; renderTable prints it as a terminal table, CSV, JSON or
// markdown, so the formats cannot disagree. Used by the ops table, the
// summary, the diff and the what-if.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_ANALYSIS_TABLE_H
#define OPSCOPE_RUNTIME_LIB_ANALYSIS_TABLE_H

#include "opscope/runtime/analysis.h"
#include "opscope/runtime/text.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace opscope::analysis::table {

using nlohmann::json;

/// A cell: text for table/markdown/CSV, a JSON value; missing is "-"/null.
struct Cell {
  std::string text;
  json value;
};

inline Cell missing() { return {"-", nullptr}; }
inline Cell text(const std::string &s) { return {s.empty() ? "-" : s, s}; }
inline Cell number(std::optional<double> v, int precision) {
  if (!v)
    return missing();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, *v);
  return {buf, *v};
}
inline Cell integer(std::optional<int64_t> v) {
  if (!v)
    return missing();
  return {std::to_string(*v), *v};
}

template <typename RowT> struct Column {
  std::string name;
  bool numeric;
  std::function<Cell(const RowT &)> cell;
};

inline std::string shorten(const std::string &s, size_t max) {
  return shortenMiddle(s, max);
}

/// Terminal and markdown tables cut text cells (in any column: the summary
/// shows the model name among numbers) to this width unless --wide.
inline constexpr size_t kMaxCellWidth = 48;

template <typename RowT>
void renderTable(const std::vector<Column<RowT>> &cols,
                 const std::vector<RowT> &rows, Format format, std::ostream &os,
                 size_t maxCellWidth = 0) {
  std::vector<std::vector<Cell>> cells;
  for (const RowT &r : rows) {
    std::vector<Cell> line;
    for (const auto &c : cols)
      line.push_back(c.cell(r));
    cells.push_back(std::move(line));
  }
  if (format == Format::Json) {
    json out = json::array();
    for (const auto &line : cells) {
      json o = json::object();
      for (size_t i = 0; i < cols.size(); ++i)
        o[cols[i].name] = line[i].value;
      out.push_back(std::move(o));
    }
    os << out.dump(2);
    return;
  }
  if (format == Format::Csv) {
    auto quote = [](const std::string &s) {
      if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
      std::string q = "\"";
      for (char ch : s)
        q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      return q + "\"";
    };
    for (size_t i = 0; i < cols.size(); ++i)
      os << (i ? "," : "") << cols[i].name;
    os << "\n";
    for (const auto &line : cells) {
      for (size_t i = 0; i < cols.size(); ++i)
        os << (i ? "," : "")
           << (line[i].value.is_null() ? std::string() : quote(line[i].text));
      os << "\n";
    }
    return;
  }
  // Every text cell, whatever its column (numbers are never long).
  for (auto &line : cells)
    for (auto &cell : line)
      if (!cell.value.is_number())
        cell.text = shorten(cell.text, maxCellWidth);
  if (format == Format::Markdown) {
    os << "|";
    for (const auto &c : cols)
      os << " " << c.name << " |";
    os << "\n|";
    for (const auto &c : cols)
      os << (c.numeric ? " ---: |" : " --- |");
    os << "\n";
    for (const auto &line : cells) {
      os << "|";
      for (const auto &cell : line)
        os << " " << cell.text << " |";
      os << "\n";
    }
    return;
  }
  std::vector<size_t> width(cols.size());
  for (size_t i = 0; i < cols.size(); ++i) {
    width[i] = cols[i].name.size();
    for (const auto &line : cells)
      width[i] = std::max(width[i], line[i].text.size());
  }
  auto pad = [&](const std::string &s, size_t i, bool right) {
    std::string fill(width[i] - s.size(), ' ');
    return right ? fill + s : s + fill;
  };
  auto emit = [&](auto textOf) {
    std::string out;
    for (size_t i = 0; i < cols.size(); ++i)
      out += (i ? "  " : "") + pad(textOf(i), i, cols[i].numeric);
    while (!out.empty() && out.back() == ' ')
      out.pop_back();
    os << out << "\n";
  };
  emit([&](size_t i) { return cols[i].name; });
  for (const auto &line : cells)
    emit([&](size_t i) { return line[i].text; });
}

} // namespace opscope::analysis::table

#endif // OPSCOPE_RUNTIME_LIB_ANALYSIS_TABLE_H
