"""Compiling and running models from Python (docs/python.md).

``compile`` drives opscope-compile and its cache, ``Session`` runs a
compiled model through the runtime's C++ API (the ``_opscope`` extension,
built by ``make build``). Sessions of one model file share its mapped
weights and packed kernels, as opscope-run's instances do.
"""
import collections
import errno
import os
import shutil
import subprocess
import threading
import weakref

import numpy as np

from .errors import CompileError, LoadError

_ext_module = None


def _ext():
    """The extension, imported on first use: the trace loaders work
    without it (an installed loader, a sweep worker)."""
    global _ext_module
    if _ext_module is None:
        try:
            from . import _opscope
        except ImportError as e:
            raise ImportError(
                "opscope's Python extension (opscope._opscope) is not built or "
                "cannot load: run `make build` (it links "
                "python/opscope/_opscope*.so into the source package): %s" % e
            ) from e
        _ext_module = _opscope
    return _ext_module


#: A model input or output: ``name``, ``shape`` (a tuple of ints) and
#: ``dtype`` (a numpy dtype; bf16 tensors are exchanged as uint16 bits).
TensorInfo = collections.namedtuple("TensorInfo", "name shape dtype")


def _tensor_infos(rows):
    return [TensorInfo(name, tuple(shape), dtype) for name, dtype, shape in rows]


def _tool_dirs():
    """Where opscope's tools may be, in order: $OPSCOPE_TOOL_DIR (as the
    tools themselves look, tooling::siblingToolPath), the build tree's bin/
    beside the extension, an installed prefix's bin/."""
    env = os.environ.get("OPSCOPE_TOOL_DIR")
    if env:
        return [env]
    here = os.path.dirname(os.path.realpath(_ext().__file__))
    return [os.path.normpath(os.path.join(here, "..", "..", "bin")),
            os.path.normpath(os.path.join(here, "..", "..", "..", "..", "bin"))]


def tool_path(name):
    """The path of opscope tool ``name`` (``opscope-compile``,
    ``opscope-run``, ...): in $OPSCOPE_TOOL_DIR when set, else beside this
    build or install, else on PATH; None when there is none."""
    for d in _tool_dirs():
        p = os.path.join(d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return shutil.which(name)


class CompiledModel:
    """What ``compile`` returns: the library (``path``, with its
    ``weights_path``), whether it came from the cache, and the
    opscope-compile command that builds it. ``Session(compiled)`` runs it;
    ``compiled.model`` loads it."""

    def __init__(self, path, command=None, cached=False):
        self.path = path
        self.weights_path = os.path.splitext(path)[0] + ".weights"
        self.command = list(command or [])
        self.cached = cached

    @property
    def model(self):
        """The loaded ``Model`` (shared with the sessions of this file)."""
        return Model.load(self.path)

    @property
    def inputs(self):
        return self.model.inputs

    @property
    def outputs(self):
        return self.model.outputs

    def random_inputs(self, seed=0, int_max=2):
        """``self.model.random_inputs(seed, int_max)``."""
        return self.model.random_inputs(seed, int_max)

    def __fspath__(self):
        return self.path

    def __repr__(self):
        return "<opscope.CompiledModel %r%s>" % (self.path, " (cached)" if self.cached else "")


def _shape_arg(name, dims):
    if isinstance(dims, str):
        text = dims
    else:
        try:
            text = "x".join(str(int(d)) for d in dims)
        except (TypeError, ValueError):
            raise ValueError("input_shapes[%r]: expected a tuple of ints or '1x128', got %r"
                             % (name, dims)) from None
    return "%s=%s" % (name, text)


def compile(model, input_shapes=None, precision=None, sparse=None, probes=True,
            fuse=True, output=None, flags=(), cache_dir=None):
    """Compiles an ONNX (``.onnx``, ``.onnxtext``) or osc ``.mlir`` model
    with opscope-compile and returns a ``CompiledModel``.

    ``input_shapes``: ``{"input_ids": (1, 128)}`` (or ``"1x128"``), the
    static shapes of the graph's inputs (opscope-compile --input-shape).
    ``precision``: ``"fp32"``, ``"bf16"`` or ``"int8"`` (--precision; int8
    also needs ``flags=["--calibration-inputs", "random"]`` or a
    calibration file). ``sparse``: ``"auto"``, ``"always"``, ``"never"``
    (True is ``"auto"``, False ``"never"``). ``probes``: True (every op,
    the default: profiling is then switched on at run time, by
    ``opscope.profile`` or OPSCOPE_PROFILE, at no cost while off), False
    (--no-probes) or a regular expression of source node names
    (--profile=REGEX). ``fuse=False`` is --no-fuse. ``flags``: further
    opscope-compile options.

    Without ``output`` the library goes into opscope's compile cache
    (``$OPSCOPE_CACHE_DIR``, else ``~/.cache/opscope/compiled``, or
    ``cache_dir``) under the key opscope-run uses for the same model and
    flags, so either reuses what the other compiled; with ``output``
    (``model.so``) it is written there. Raises ``CompileError`` with
    opscope-compile's message when it fails, FileNotFoundError for a
    missing model.
    """
    model = os.fspath(model)
    if not os.path.exists(model):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), model)
    shapes = [_shape_arg(n, d) for n, d in (input_shapes or {}).items()]
    extra = []
    if precision is not None:
        extra += ["--precision", str(precision)]
    if sparse is not None:
        extra += ["--sparse", {True: "auto", False: "never"}.get(sparse, sparse)]
    if isinstance(probes, str):
        extra.append("--profile=" + probes)
    elif probes not in (True, False):
        raise TypeError("probes: True, False or a regular expression, not %r" % (probes,))
    if not fuse:
        extra.append("--no-fuse")
    if isinstance(flags, str):
        raise TypeError("flags: a list of opscope-compile options, not one string")
    extra += [str(f) for f in flags]
    compiler = tool_path("opscope-compile")
    if compiler is None:
        raise CompileError("opscope-compile not found (looked in %s and on PATH; set "
                           "OPSCOPE_TOOL_DIR to the directory holding opscope's tools)"
                           % ", ".join(_tool_dirs()), 1)
    no_probes = probes is False
    if output is not None:
        out = os.fspath(output)
        command = _ext().compile_command(model, shapes, extra, no_probes, compiler, out)
    else:
        try:
            out, command = _ext().compile_plan(model, shapes, extra, no_probes, compiler,
                                               os.fspath(cache_dir) if cache_dir else "")
        except ValueError as e:
            raise CompileError(str(e), 1) from None
        weights = os.path.splitext(out)[0] + ".weights"
        if os.path.exists(out) and os.path.exists(weights):
            return CompiledModel(out, command, cached=True)
        os.makedirs(os.path.dirname(out), exist_ok=True)
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        message = run.stderr.strip() or run.stdout.strip() or (
            "opscope-compile exited with status %d" % run.returncode)
        raise CompileError(message, run.returncode, command)
    return CompiledModel(out, command)


# Models loaded in this process, by file identity: sessions of one file
# share one Model (its mapped weights and packed kernels).
_models = weakref.WeakValueDictionary()
_models_lock = threading.Lock()


def _file_key(path):
    st = os.stat(path)
    return (os.path.realpath(path), st.st_size, st.st_mtime_ns, st.st_ino)


class Model:
    """A compiled model (``model.so`` and its mmapped ``model.weights``):
    read-only, shared by the sessions created from it. ``Model.load(path)``
    returns the model already loaded from that file when there is one."""

    def __init__(self, native):
        self._m = native
        self.inputs = _tensor_infos(native.inputs)
        self.outputs = _tensor_infos(native.outputs)

    @classmethod
    def load(cls, path, weights=None):
        """Loads ``path`` (``.so``; its weights default to the same path
        with ``.weights``). Raises FileNotFoundError for a missing file
        and ``opscope.LoadError`` for one that is not a loadable opscope
        model (the runtime's message: not a compiled model, ABI version,
        missing, truncated, foreign or corrupt weights, ...)."""
        path = os.fspath(path)
        weights = os.fspath(weights) if weights is not None else (
            os.path.splitext(path)[0] + ".weights")
        for p in (path, weights):
            if not os.path.exists(p):
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), p)
        key = (_file_key(path), _file_key(weights))
        with _models_lock:
            model = _models.get(key)
            if model is None:
                try:
                    native = _ext().Model.load(path, weights)
                except _ext().Error as e:
                    raise LoadError(path, str(e)) from None
                model = cls(native)
                _models[key] = model
        return model

    name = property(lambda self: self._m.name, doc="the model's name (the ONNX graph's)")
    path = property(lambda self: self._m.path)
    weights_path = property(lambda self: self._m.weights_path)
    num_probes = property(lambda self: self._m.num_probes,
                          doc="probes compiled in (0: compiled with --no-probes)")
    num_ops = property(lambda self: self._m.num_ops)
    arena_bytes = property(lambda self: self._m.arena_bytes)
    weight_bytes = property(lambda self: self._m.weight_bytes)
    target_tier = property(lambda self: self._m.target_tier)

    @property
    def packed_weights(self):
        """(tensors packed into kernel layouts, times a later session took
        a packed tensor instead of packing it again)."""
        return tuple(self._m.packed_weights)

    def random_inputs(self, seed=0, int_max=2):
        """Inputs as opscope-run makes those it is not given: floats
        uniform in [-1, 1), integers in [0, int_max), booleans 0/1 (its
        values differ: numpy's generator, not the runtime's)."""
        rng = np.random.default_rng(seed)
        feeds = {}
        for t in self.inputs:
            if t.dtype.kind == "f":
                feeds[t.name] = rng.uniform(-1, 1, t.shape).astype(t.dtype)
            elif t.dtype.kind == "b":
                feeds[t.name] = rng.integers(0, 2, t.shape).astype(t.dtype)
            else:
                feeds[t.name] = rng.integers(0, int_max, t.shape).astype(t.dtype)
        return feeds

    def __repr__(self):
        return "<opscope.Model %r: %d inputs, %d outputs, %d probes>" % (
            self.name, len(self.inputs), len(self.outputs), self.num_probes)


def _as_model(model):
    if isinstance(model, Model):
        return model
    if isinstance(model, CompiledModel):
        return Model.load(model.path)
    path = os.fspath(model)
    if os.path.splitext(path)[1] in (".onnx", ".onnxtext", ".mlir"):
        return Model.load(compile(path).path)
    return Model.load(path)


class Session:
    """One executable instance of a compiled model: its buffers and
    kernels. ``model`` is a ``model.so`` path, a ``CompiledModel``, a
    ``Model`` or an ONNX file (compiled with ``compile``'s defaults).

    ``threads``: kernel threads of its runs (0, the default: the cores
    idle now, as opscope-run chooses). ``probe_buffer``: probe events a
    profiled session keeps (0: the runtime's default, 1M).

    A session is used from one thread at a time (a second thread waits);
    run several sessions for concurrency: the GIL is released while a model
    runs. Created inside an ``opscope.profile`` block, its runs are
    profiled.
    """

    def __init__(self, model, threads=0, probe_buffer=0):
        from . import profiler
        self.model = _as_model(model)
        threads = int(threads)
        if threads < 0:
            raise ValueError("threads must be >= 0 (0: the cores idle now), got %d" % threads)
        if threads == 0:
            threads = _ext().default_threads()
        self._s = _ext().Session(self.model._m, threads, int(probe_buffer))
        self.inputs = self.model.inputs
        self.outputs = self.model.outputs
        profiler._session_created(self)

    @property
    def threads(self):
        return self._native().threads

    @property
    def kernel_names(self):
        """The kernel (oneDNN implementation or opscope kernel) of each op."""
        return list(self._native().kernel_names)

    def _native(self):
        if self._s is None:
            raise ValueError("the session is closed")
        return self._s

    def run(self, feeds, copy=True):
        """Runs once and returns ``{output name: numpy array}``.

        ``feeds``: ``{input name: array}``, a list of arrays in input
        order, or one array for a one-input model. Each must have the
        input's shape and dtype exactly (``ValueError`` names the input and
        what it expects; a missing or unknown name too); a C-contiguous
        array is copied straight into the session's input buffer, any
        other once more. ``copy=False`` returns read-only views of the
        session's output buffers instead of fresh arrays: no copy, but the
        next run of this session overwrites them. A failure inside the
        model (an out-of-range gather index) raises ``opscope.RunError``.
        """
        return self._native().run(feeds, copy)

    def random_inputs(self, seed=0, int_max=2):
        """``self.model.random_inputs(seed, int_max)``."""
        return self.model.random_inputs(seed, int_max)

    def close(self):
        """Frees the session (a profile block that recorded it keeps its
        events until the block's trace is made). Idempotent."""
        self._s = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        state = "closed" if self._s is None else "%d threads" % self._s.threads
        return "<opscope.Session of %r, %s>" % (self.model.name, state)
