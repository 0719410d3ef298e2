//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Part of opscope's runtime.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/npy.h"

#include "opscope/runtime/file_output.h"
#include "opscope/runtime/model.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace opscope;
using namespace opscope::rt;

namespace {
struct DescrName {
  DType type;
  const char *descr;
};
const DescrName kDescrs[] = {
    {DType::F32, "<f4"}, {DType::F64, "<f8"}, {DType::F16, "<f2"},
    {DType::I64, "<i8"}, {DType::I32, "<i4"}, {DType::I16, "<i2"},
    {DType::I8, "|i1"},  {DType::U8, "|u1"},  {DType::I1, "|b1"},
    {DType::U16, "<u2"}, {DType::U32, "<u4"}, {DType::U64, "<u8"}};

/// The value of `'key': ` in the header dict, up to the next comma at depth 0.
std::string field(const std::string &h, const std::string &key) {
  size_t k = h.find("'" + key + "'");
  if (k == std::string::npos)
    return "";
  size_t c = h.find(':', k);
  size_t start = c == std::string::npos ? c : h.find_first_not_of(' ', c + 1);
  if (start == std::string::npos)
    return "";
  int depth = 0;
  size_t i = start;
  for (; i < h.size(); ++i) {
    if (h[i] == '(')
      ++depth;
    else if (h[i] == ')')
      --depth;
    else if ((h[i] == ',' || h[i] == '}') && depth == 0)
      break;
  }
  return h.substr(start, i - start);
}
} // namespace

HostTensor opscope::rt::readNpy(const std::string &path) {
  // An input file is untrusted: only regular files (a FIFO would block),
  // a header of sane size, a strictly parsed dict, a shape whose byte count
  // neither overflows nor exceeds the file, and no trailing bytes.
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    throw Error(path + ": cannot open: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw Error(path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot open: " + std::strerror(errno));
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    throw Error(path + ": not a .npy file");
  uint32_t headerLen = 0;
  int64_t prefix = 0;
  if (magic[6] == 1) {
    uint16_t n = 0;
    in.read(reinterpret_cast<char *>(&n), 2);
    headerLen = n;
    prefix = 10;
  } else if (magic[6] == 2 || magic[6] == 3) {
    in.read(reinterpret_cast<char *>(&headerLen), 4);
    prefix = 12;
  } else {
    throw Error(path + ": unsupported .npy version " +
                std::to_string(static_cast<int>(magic[6])));
  }
  if (!in || headerLen > (1u << 20) ||
      prefix + static_cast<int64_t>(headerLen) > st.st_size)
    throw Error(path + ": truncated or oversized .npy header");
  std::string header(headerLen, '\0');
  if (!in.read(header.data(), headerLen))
    throw Error(path + ": truncated .npy header");
  std::string descr = field(header, "descr");
  std::string fortran = field(header, "fortran_order");
  std::string shape = field(header, "shape");
  if (descr.size() < 2 || shape.size() < 2 || shape.front() != '(' ||
      shape.back() != ')')
    throw Error(path + ": malformed .npy header");
  descr = descr.substr(1, descr.size() - 2);
  if (fortran == "True")
    throw Error(path + ": Fortran-ordered arrays are not supported");
  if (fortran != "False")
    throw Error(path + ": malformed .npy header (fortran_order is '" +
                fortran + "', expected True or False)");
  HostTensor t;
  bool known = false;
  for (const DescrName &d : kDescrs)
    if (descr == d.descr || (descr.size() == 3 && descr[0] == '=' &&
                             descr.substr(1) == std::string(d.descr).substr(1))) {
      t.dtype = d.type;
      known = true;
    }
  if (!known)
    throw Error(path + ": unsupported .npy dtype '" + descr + "'");
  // "(2, 3)", "(4,)" or "()": integers separated by commas, one trailing
  // comma allowed.
  std::string dims = shape.substr(1, shape.size() - 2);
  std::vector<std::string> items;
  std::stringstream ss(dims);
  std::string item;
  while (std::getline(ss, item, ','))
    items.push_back(item);
  if (!dims.empty() && dims.back() == ',')
    items.push_back(""); // getline drops a trailing empty field
  for (size_t i = 0; i < items.size(); ++i) {
    size_t b = items[i].find_first_not_of(' ');
    if (b == std::string::npos) {
      if (i + 1 == items.size() && i > 0)
        continue; // the trailing comma of "(4,)"
      throw Error(path + ": malformed .npy shape '" + shape + "'");
    }
    std::string digits = items[i].substr(b, items[i].find_last_not_of(' ') - b + 1);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
        digits.size() > 18)
      throw Error(path + ": malformed .npy shape '" + shape + "'");
    t.shape.push_back(std::stoll(digits));
  }
  int64_t elems = 1, bytes = 0;
  for (int64_t d : t.shape)
    if (__builtin_mul_overflow(elems, d, &elems))
      throw Error(path + ": .npy shape '" + shape + "' overflows");
  if (__builtin_mul_overflow(elems, static_cast<int64_t>(dtypeSize(t.dtype)),
                             &bytes))
    throw Error(path + ": .npy shape '" + shape + "' overflows");
  int64_t available = st.st_size - prefix - headerLen;
  if (bytes != available)
    throw Error(path + ": .npy data is " + std::to_string(available) +
                " bytes, the header's shape " + shape + " needs " +
                std::to_string(bytes));
  t.data.resize(bytes);
  if (!in.read(t.data.data(), t.data.size()))
    throw Error(path + ": truncated .npy data (expected " +
                std::to_string(t.data.size()) + " bytes)");
  return t;
}

void opscope::rt::writeNpy(const std::string &path, const HostTensor &t) {
  const char *descr = nullptr;
  for (const DescrName &d : kDescrs)
    if (d.type == t.dtype)
      descr = d.descr;
  if (!descr)
    throw Error(path + ": cannot write element type " +
                std::string(dtypeName(t.dtype)) + " as .npy");
  std::string shape = "(";
  for (int64_t d : t.shape)
    shape += std::to_string(d) + ", ";
  if (t.shape.size() > 1)
    shape.resize(shape.size() - 2);
  else if (t.shape.size() == 1)
    shape.resize(shape.size() - 1);
  shape += ")";
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts 64-byte aligned, ending with a newline.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string error = writeFileAtomically(path, [&](std::ostream &out) {
    out.write("\x93NUMPY\x01\x00", 8);
    uint16_t n = static_cast<uint16_t>(header.size());
    out.write(reinterpret_cast<const char *>(&n), 2);
    out.write(header.data(), header.size());
    out.write(t.data.data(), t.data.size());
  });
  if (!error.empty())
    throw Error(error);
}
