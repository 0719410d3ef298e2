//===- OpscopeModule.cpp - the opscope._opscope Python extension ----------===//
//
// Part of opscope's Python API (docs/python.md). Binds the runtime's C++ API
// (model.h) with pybind11, as ONNX Runtime's onnxruntime_pybind_state.cc
// binds its session: numpy arrays go into a session's input buffers with one
// copy and no conversion, outputs come back as fresh arrays or as read-only
// views of the session's buffers, and the GIL is released while a model
// runs. The Python layer (python/opscope/runtime.py, profiler.py) builds the
// user-facing classes on this module; nothing here is public API.
//
// A run never takes the interpreter down: the runtime's errors (an
// out-of-range gather index, a missing compiled schedule) come back as
// exceptions, and each session has a mutex that a run, a profiling switch
// or a labelled span holds, so two Python threads using one session wait
// for each other instead of racing on its buffers. The mutex is only ever
// taken with the GIL released, and released before the GIL is taken back.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/abi.h"
#include "opscope/runtime/analysis.h"
#include "opscope/runtime/dense.h"
#include "opscope/runtime/model.h"
#include "opscope/runtime/sinks.h"
#include "opscope/runtime/tooling/model_files.h"
#include "opscope/runtime/tooling/threads.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace py = pybind11;
using namespace opscope;

namespace {

/// The numpy type of a runtime element type. bf16 has none: its tensors
/// are exchanged as their uint16 bit patterns.
py::dtype numpyType(rt::DType t) {
  switch (t) {
  case rt::DType::F16:
    return py::dtype("float16");
  case rt::DType::BF16:
    return py::dtype("uint16");
  case rt::DType::F32:
    return py::dtype("float32");
  case rt::DType::F64:
    return py::dtype("float64");
  case rt::DType::I1:
    return py::dtype("bool");
  case rt::DType::I8:
    return py::dtype("int8");
  case rt::DType::U8:
    return py::dtype("uint8");
  case rt::DType::I16:
    return py::dtype("int16");
  case rt::DType::I32:
    return py::dtype("int32");
  case rt::DType::I64:
    return py::dtype("int64");
  case rt::DType::U16:
    return py::dtype("uint16");
  case rt::DType::U32:
    return py::dtype("uint32");
  case rt::DType::U64:
    return py::dtype("uint64");
  }
  return py::dtype("uint8");
}

/// `1x128`, or `scalar`.
std::string shapeText(const rt::Shape &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s.empty() ? "scalar" : s;
}

/// `'input_ids' (1x128, int64)`, as ValueError messages name a tensor.
std::string describe(const TensorInfo &t) {
  return "'" + t.name + "' (" + shapeText(t.shape) + ", " +
         py::str(numpyType(t.dtype)).cast<std::string>() + ")";
}

/// A tensor's description for Python: (name, dtype, shape).
py::tuple tensorTuple(const TensorInfo &t) {
  py::tuple shape(t.shape.size());
  for (size_t i = 0; i < t.shape.size(); ++i)
    shape[i] = t.shape[i];
  return py::make_tuple(t.name, numpyType(t.dtype), shape);
}

/// One session and what guards it. Holds its model, so a session outlives
/// the Python Model object it came from.
class PySession {
public:
  PySession(std::shared_ptr<Model> model, std::unique_ptr<Session> session,
            int threads)
      : model(std::move(model)), session(std::move(session)), threads(threads) {
    for (const TensorInfo &t : this->model->inputs())
      inputTypes.push_back(numpyType(t.dtype));
    for (const TensorInfo &t : this->model->outputs()) {
      outputTypes.push_back(numpyType(t.dtype));
      outputNames.push_back(py::str(t.name));
    }
  }

  ~PySession() {
    // Spans left open (an interpreter torn down inside a `record` block)
    // close before the session goes.
    while (!spans.empty())
      spans.pop_back();
  }

  /// Feeds, runs, returns {name: array}. `copy`: fresh arrays; else
  /// read-only views of the output buffers, valid until the next run.
  py::dict run(py::handle feeds, bool copy) {
    const std::vector<TensorInfo> &ins = model->inputs();
    std::vector<py::array> arrays(ins.size());
    std::vector<bool> given(ins.size());
    if (PyDict_Check(feeds.ptr())) {
      for (auto item : py::reinterpret_borrow<py::dict>(feeds)) {
        if (!PyUnicode_Check(item.first.ptr()))
          throw py::type_error("feeds: input names must be str, got " +
                               py::repr(item.first).cast<std::string>());
        std::string name = item.first.cast<std::string>();
        int i = model->inputIndex(name);
        if (i < 0)
          throw py::value_error("unknown input '" + name + "'; " +
                                expectedInputs());
        arrays[i] = checked(static_cast<size_t>(i), item.second);
        given[i] = true;
      }
    } else if (py::isinstance<py::array>(feeds) && ins.size() == 1) {
      arrays[0] = checked(0, feeds);
      given[0] = true;
    } else if (PyList_Check(feeds.ptr()) || PyTuple_Check(feeds.ptr())) {
      py::sequence seq = py::reinterpret_borrow<py::sequence>(feeds);
      if (seq.size() != ins.size())
        throw py::value_error(
            "feeds: " + std::to_string(seq.size()) + " arrays given for " +
            std::to_string(ins.size()) + " inputs; " + expectedInputs());
      for (size_t i = 0; i < ins.size(); ++i) {
        arrays[i] = checked(i, seq[i]);
        given[i] = true;
      }
    } else {
      throw py::type_error(
          "feeds: a dict of input name -> numpy array, a list of arrays in "
          "input order, or one array for a one-input model; got " +
          py::repr(py::type::handle_of(feeds)).cast<std::string>());
    }
    for (size_t i = 0; i < ins.size(); ++i)
      if (!given[i])
        throw py::value_error("missing input " + describe(ins[i]));

    const std::vector<TensorInfo> &outs = model->outputs();
    std::vector<py::array> results;
    if (copy)
      for (size_t o = 0; o < outs.size(); ++o)
        results.emplace_back(outputTypes[o], outs[o].shape);
    std::vector<const void *> src(ins.size());
    std::vector<void *> dst(results.size());
    for (size_t i = 0; i < ins.size(); ++i)
      src[i] = arrays[i].data();
    for (size_t o = 0; o < results.size(); ++o)
      dst[o] = results[o].mutable_data();

    std::string error;
    // Each output's shape after the run: the model's, except where it
    // depends on the values (Session::outputShape), whose copies go
    // through `bounded` until the GIL is back to make their arrays.
    std::vector<rt::Shape> shapes(outs.size());
    std::vector<std::vector<char>> bounded(outs.size());
    {
      py::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(mu);
      if (threads > 0)
        rt::setDenseThreads(threads); // this thread's OpenMP team size
      for (size_t i = 0; i < ins.size(); ++i)
        std::memcpy(session->input(i), src[i], ins[i].bytes());
      try {
        session->run();
        for (size_t o = 0; o < outs.size(); ++o) {
          shapes[o] = session->outputShape(o);
          if (!copy)
            continue;
          if (shapes[o] == outs[o].shape) {
            std::memcpy(dst[o], session->output(o), outs[o].bytes());
            continue;
          }
          const char *p = static_cast<const char *>(session->output(o));
          bounded[o].assign(p, p + rt::numElements(shapes[o]) *
                                       rt::dtypeSize(outs[o].dtype));
        }
      } catch (const std::exception &e) {
        error = e.what();
      } catch (...) { // nothing may unwind into the interpreter unnamed
        error = "the run failed with an exception that is not a "
                "std::exception";
      }
    }
    if (!error.empty())
      throw RunError(error);

    py::dict out;
    for (size_t o = 0; o < outs.size(); ++o) {
      if (copy && shapes[o] != outs[o].shape) {
        py::array a(outputTypes[o], shapes[o]);
        if (!bounded[o].empty())
          std::memcpy(a.mutable_data(), bounded[o].data(), bounded[o].size());
        out[outputNames[o]] = a;
        continue;
      }
      if (copy) {
        out[outputNames[o]] = results[o];
        continue;
      }
      // A view keeps this session (and its buffers) alive.
      py::array view(outputTypes[o], shapes[o], {}, session->output(o),
                     py::cast(this));
      py::detail::array_proxy(view.ptr())->flags &=
          ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
      out[outputNames[o]] = view;
    }
    return out;
  }

  /// Runs `f` holding this session's mutex, without the GIL.
  template <typename F> void locked(F &&f) {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(mu);
    f();
  }

  void setProfiling(bool on) {
    locked([&] { session->profiler().enable(on); });
  }
  void openSpan(const std::string &label) {
    locked([&] {
      spans.push_back(
          std::make_unique<Profiler::Span>(session->profiler(), label));
    });
  }
  void closeSpan() {
    locked([&] {
      if (!spans.empty())
        spans.pop_back();
    });
  }
  /// Stops recording and forgets what was recorded (spans included).
  void resetProfile() {
    locked([&] {
      while (!spans.empty())
        spans.pop_back();
      session->profiler().enable(false);
      session->profiler().clear();
      session->profiler().setIteration(0);
    });
  }

  /// The runtime's own error of a failed run (not a usage error).
  struct RunError : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

  std::shared_ptr<Model> model;
  std::unique_ptr<Session> session;
  std::mutex mu;
  int threads;

private:
  /// `value` as input `i` wants it: a numpy array (anything else converts
  /// by numpy's rules) of exactly its dtype and shape; C-contiguous, which
  /// costs a copy only for an array that is not.
  py::array checked(size_t i, py::handle value) {
    const TensorInfo &t = model->inputs()[i];
    py::array a;
    if (py::isinstance<py::array>(value)) {
      a = py::reinterpret_borrow<py::array>(value);
    } else {
      try {
        a = py::module_::import("numpy").attr("asarray")(value);
      } catch (py::error_already_set &e) {
        // Only numpy's refusals are the feed's fault; KeyboardInterrupt,
        // MemoryError and the like go on as they are.
        if (!e.matches(PyExc_ValueError) && !e.matches(PyExc_TypeError))
          throw;
        throw py::value_error(
            "input " + describe(t) +
            ": not convertible to an array: " + std::string(e.what()));
      }
    }
    if (!a.dtype().is(inputTypes[i]) && !a.dtype().equal(inputTypes[i]))
      throw py::value_error("input " + describe(t) + ": expected dtype " +
                            py::str(inputTypes[i]).cast<std::string>() +
                            ", got " + py::str(a.dtype()).cast<std::string>());
    bool same = static_cast<size_t>(a.ndim()) == t.shape.size();
    for (size_t d = 0; same && d < t.shape.size(); ++d)
      same = a.shape(d) == t.shape[d];
    if (!same)
      throw py::value_error(
          "input " + describe(t) + ": expected shape " + shapeText(t.shape) +
          ", got " + shapeText(rt::Shape(a.shape(), a.shape() + a.ndim())));
    if (!(a.flags() & py::array::c_style))
      a = py::array::ensure(a, py::array::c_style);
    return a;
  }

  std::string expectedInputs() const {
    std::string s = "the model's inputs are ";
    const auto &ins = model->inputs();
    for (size_t i = 0; i < ins.size(); ++i)
      s += (i ? ", " : "") + describe(ins[i]);
    return ins.empty() ? "the model has no inputs" : s;
  }

  std::vector<py::dtype> inputTypes, outputTypes;
  std::vector<py::str> outputNames;
  std::vector<std::unique_ptr<Profiler::Span>> spans;
};

/// The Chrome trace JSON (docs/trace-format.md) of sessions of one model,
/// as opscope-run --trace writes it.
std::string
traceJson(const std::vector<PySession *> &sessions,
          const std::vector<std::pair<std::string, std::string>> &run) {
  if (sessions.empty())
    throw py::value_error("no sessions to write a trace of");
  std::ostringstream os;
  ProfileData d;
  d.model = sessions[0]->model.get();
  for (PySession *s : sessions) {
    if (s->model.get() != d.model)
      throw py::value_error("one trace holds sessions of one model");
    d.sessions.push_back(s->session.get());
  }
  d.threads = sessions[0]->threads;
  d.run = run;
  py::gil_scoped_release nogil;
  d.probeCostNs = Profiler::probeCostNs();
  std::vector<std::unique_lock<std::mutex>> locks;
  for (PySession *s : sessions)
    locks.emplace_back(s->mu);
  writeTrace(os, d);
  return os.str();
}

/// opscope-analyze's rendering of a trace held in memory: written to an
/// anonymous memory file and read back by the analyzer's own reader, so the
/// table is the tool's, byte for byte. `name` stands for the file in errors.
std::string analyze(const std::string &traceText, const std::string &name,
                    const py::dict &kw) {
  analysis::Options options;
  analysis::EventFilter filter;
  for (auto item : kw) {
    std::string key = item.first.cast<std::string>();
    py::handle v = item.second;
    if (v.is_none())
      continue;
    if (key == "top")
      options.top = v.cast<size_t>();
    else if (key == "types")
      options.types = v.cast<std::vector<std::string>>();
    else if (key == "name") {
      std::string re = v.cast<std::string>();
      try {
        options.name = std::regex(re);
      } catch (const std::regex_error &e) {
        throw py::value_error("name: invalid regex '" + re + "': " + e.what());
      }
    } else if (key == "order_by") {
      std::string err = analysis::parseOrderBy(v.cast<std::string>(), options);
      if (!err.empty())
        throw py::value_error("order_by: " + err);
    } else if (key == "aggregate_by") {
      std::string by = v.cast<std::string>();
      if (by != "type" && by != "name" && by != "kernel" && by != "shape")
        throw py::value_error("aggregate_by: type, name, kernel or shape, "
                              "not '" +
                              by + "'");
      options.aggregateBy = by;
    } else if (key == "aggregate") {
      std::string a = v.cast<std::string>();
      if (a == "sum")
        options.aggregate = analysis::Aggregate::Sum;
      else if (a == "mean")
        options.aggregate = analysis::Aggregate::Mean;
      else if (a == "max")
        options.aggregate = analysis::Aggregate::Max;
      else if (a == "min")
        options.aggregate = analysis::Aggregate::Min;
      else
        throw py::value_error("aggregate: sum, mean, max or min, not '" + a +
                              "'");
    } else if (key == "min_time" || key == "max_time") {
      std::string text = py::str(v).cast<std::string>();
      auto us = analysis::parseTimeUs(text);
      if (!us)
        throw py::value_error(key +
                              ": expected a time like 2ms, 150us or "
                              "0.5s, got '" +
                              text + "'");
      (key == "min_time" ? options.minTimeUs : options.maxTimeUs) = us;
    } else if (key == "label")
      filter.label = v.cast<std::string>();
    else if (key == "include_warmup")
      filter.includeWarmUp = v.cast<bool>();
    else if (key == "skip_iterations")
      filter.skipIterations = v.cast<int64_t>();
    else if (key == "format") {
      std::string f = v.cast<std::string>();
      if (f == "table")
        options.format = analysis::Format::Table;
      else if (f == "csv")
        options.format = analysis::Format::Csv;
      else if (f == "json")
        options.format = analysis::Format::Json;
      else if (f == "markdown")
        options.format = analysis::Format::Markdown;
      else
        throw py::value_error("format: table, csv, json or markdown, not '" +
                              f + "'");
    } else if (key == "print_only") {
      std::string p = v.cast<std::string>();
      options.printSummary = p != "ops";
      options.printOps = p != "summary";
    } else if (key == "wide")
      options.wide = v.cast<bool>();
    else
      throw py::type_error("unexpected keyword argument '" + key + "'");
  }

  std::string error, text;
  {
    py::gil_scoped_release nogil;
    int fd = memfd_create("opscope-trace", MFD_CLOEXEC);
    if (fd < 0) {
      error = std::string("memfd_create: ") + std::strerror(errno);
    } else {
      for (size_t done = 0; done < traceText.size() && error.empty();) {
        ssize_t n =
            ::write(fd, traceText.data() + done, traceText.size() - done);
        if (n <= 0)
          error = std::string("writing the trace: ") + std::strerror(errno);
        else
          done += static_cast<size_t>(n);
      }
      std::string path = "/proc/self/fd/" + std::to_string(fd);
      analysis::Profile profile;
      if (error.empty())
        error = analysis::loadProfile(path, filter, profile);
      ::close(fd);
      for (size_t at; (at = error.find(path)) != std::string::npos;)
        error.replace(at, path.size(), name);
      if (error.empty()) {
        std::ostringstream out;
        render(profile, buildRows(profile, options), options, out);
        text = out.str();
      }
    }
  }
  if (!error.empty())
    throw py::value_error(error);
  return text;
}

/// opscope.errors.RunError, for the process's life.
py::object *runErrorType = nullptr;

} // namespace

PYBIND11_MODULE(_opscope, m) {
  m.doc() = "opscope's runtime, bound for the opscope package (private)";
  // A compiled model resolves the runtime's ABI entry points (abi.h)
  // against the process's global symbols when it is loaded. Python loads
  // this module, and the runtime library with it, with RTLD_LOCAL: make
  // the runtime global, as it is in a program that links it.
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&opscope_rt_exec), &info) ||
      !info.dli_fname ||
      !dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL)) {
    const char *why = dlerror();
    throw std::runtime_error(
        std::string("cannot make the opscope runtime's symbols global: ") +
        (why ? why : "its library was not found"));
  }
  // The runtime's errors: opscope.errors.RunError for a failed run (never
  // destroyed: not after the interpreter either), a RuntimeError subclass for
  // the rest (the Python layer turns a model that does not load into
  // opscope.LoadError).
  runErrorType =
      new py::object(py::module_::import("opscope.errors").attr("RunError"));
  py::register_exception<Error>(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const PySession::RunError &e) {
      PyErr_SetString(runErrorType->ptr(), e.what());
    }
  });

  py::class_<Model, std::shared_ptr<Model>>(m, "Model")
      .def_static(
          "load",
          [](const std::string &so, const std::string &weights) {
            py::gil_scoped_release nogil;
            return std::shared_ptr<Model>(Model::load(so, weights));
          },
          py::arg("so_path"), py::arg("weights_path") = "")
      .def_property_readonly("name", &Model::name)
      .def_property_readonly("path", &Model::path)
      .def_property_readonly("weights_path", &Model::weightsPath)
      .def_property_readonly("inputs",
                             [](const Model &model) {
                               py::list l;
                               for (const TensorInfo &t : model.inputs())
                                 l.append(tensorTuple(t));
                               return l;
                             })
      .def_property_readonly("outputs",
                             [](const Model &model) {
                               py::list l;
                               for (const TensorInfo &t : model.outputs())
                                 l.append(tensorTuple(t));
                               return l;
                             })
      .def_property_readonly(
          "num_probes",
          [](const Model &model) { return model.probes().size(); })
      .def_property_readonly("num_ops", &Model::numOps)
      .def_property_readonly("arena_bytes", &Model::arenaBytes)
      .def_property_readonly("weight_bytes", &Model::weightBytes)
      .def_property_readonly("target_tier", &Model::targetTier)
      .def_property_readonly("tier_mismatch", &Model::tierMismatch)
      .def_property_readonly("packed_weights", [](const Model &model) {
        Model::PackedWeightStats s = model.packedWeightStats();
        return py::make_tuple(s.tensors, s.reused);
      });

  py::class_<PySession>(m, "Session")
      .def(py::init([](std::shared_ptr<Model> model, int threads,
                       size_t probeCapacity) {
             std::unique_ptr<Session> session;
             {
               // Kernel creation takes a while: let other threads run.
               py::gil_scoped_release nogil;
               // oneDNN sizes a primitive's partitioning by the team size
               // in force when it is created, as well as when it runs.
               if (threads > 0)
                 rt::setDenseThreads(threads);
               session = model->createSession(probeCapacity);
             }
             return std::make_unique<PySession>(std::move(model),
                                                std::move(session), threads);
           }),
           py::arg("model"), py::arg("threads") = 0,
           py::arg("probe_capacity") = 0)
      .def("run", &PySession::run, py::arg("feeds"), py::arg("copy") = true)
      .def_readonly("model", &PySession::model)
      .def_readonly("threads", &PySession::threads)
      .def_property_readonly(
          "kernel_names",
          [](const PySession &s) { return s.session->kernelNames(); })
      .def("set_profiling", &PySession::setProfiling)
      .def_property_readonly("profiling",
                             [](PySession &s) {
                               bool on = false;
                               s.locked([&] {
                                 on = s.session->profiler().enabled();
                               });
                               return on;
                             })
      .def("open_span", &PySession::openSpan)
      .def("close_span", &PySession::closeSpan)
      .def("reset_profile", &PySession::resetProfile)
      .def_property_readonly("recorded_events", [](PySession &s) {
        size_t n = 0;
        s.locked([&] { n = s.session->profiler().events().size(); });
        return n;
      });

  m.def("trace_json", &traceJson, py::arg("sessions"), py::arg("run"),
        "The Chrome trace JSON of sessions of one model (opscope-run "
        "--trace's format).");
  m.def("analyze", &analyze, py::arg("trace"), py::arg("name"),
        py::arg("options"),
        "opscope-analyze's rendering of a trace text with the given options.");
  m.def(
      "compile_plan",
      [](const std::string &model, const std::vector<std::string> &shapes,
         const std::vector<std::string> &flags, bool noProbes,
         const std::string &compiler, const std::string &cacheDir) {
        tooling::CompileRequest r;
        r.model = model;
        r.inputShapes = shapes;
        r.extraFlags = flags;
        r.noProbes = noProbes;
        r.compiler = compiler;
        std::string error;
        std::string out = tooling::cachedLibraryPath(
            r, cacheDir.empty() ? tooling::defaultCacheDir() : cacheDir, error);
        if (out.empty())
          throw py::value_error(error);
        return py::make_tuple(out, tooling::compileCommand(r, out));
      },
      py::arg("model"), py::arg("input_shapes"), py::arg("flags"),
      py::arg("no_probes"), py::arg("compiler"), py::arg("cache_dir"),
      "The compile cache's library for a request and the opscope-compile "
      "command that builds it (the key opscope-run uses).");
  m.def(
      "compile_command",
      [](const std::string &model, const std::vector<std::string> &shapes,
         const std::vector<std::string> &flags, bool noProbes,
         const std::string &compiler, const std::string &out) {
        tooling::CompileRequest r;
        r.model = model;
        r.inputShapes = shapes;
        r.extraFlags = flags;
        r.noProbes = noProbes;
        r.compiler = compiler;
        return tooling::compileCommand(r, out);
      },
      py::arg("model"), py::arg("input_shapes"), py::arg("flags"),
      py::arg("no_probes"), py::arg("compiler"), py::arg("out"));
  m.def("default_cache_dir", &tooling::defaultCacheDir);
  m.def("default_threads", [] {
    py::gil_scoped_release nogil;
    return tooling::defaultThreadCount(tooling::sampleCoreUsage());
  });
  m.def("kernel_tier", &kernelTierLine);
  m.def("probe_cost_ns", [] {
    py::gil_scoped_release nogil;
    return Profiler::probeCostNs();
  });
}
