"""``opscope.profile``: a profiling block around sessions (docs/python.md).

Sessions created inside the block record their compiled-in probes (no
recompilation; a model compiled with --no-probes records iterations only).
``record(label)`` spans label the events inside them, as opscope-run's
"warm up" and "measure" do. The block's trace is the Chrome trace JSON
opscope-run --trace writes (one per model), made in memory; the tables come
from opscope-analyze's own code and the frames from ``opscope.loads_trace``,
so a notebook needs no file.
"""
import contextlib
import os
import threading
import warnings

from .trace import loads_trace

FORMATS = ("chrome", "dataframe")

_lock = threading.Lock()
_active = None


def _session_created(session):
    """Called by every Session: the active block (if any) records it."""
    with _lock:
        block = _active
    if block is not None:
        block._attach(session)


class profile:
    """Profiles the sessions created inside it::

        with opscope.profile(file="trace.json") as profiler:
            with opscope.Session("model.so") as sess:
                feeds = sess.random_inputs()
                with profiler.record("warm up"):
                    for _ in range(3):
                        sess.run(feeds)
                with profiler.record("measure"):
                    for _ in range(20):
                        sess.run(feeds)
        profiler.print_summary()
        df = profiler.get_pandas_dataframe()

    ``format="chrome"`` (the default) writes the Chrome trace (Perfetto,
    chrome://tracing, speedscope, opscope-analyze) to ``file`` (a path or a
    file object open for text) when the block ends; ``format="dataframe"``
    keeps it in memory only. Either way the tables and frames are
    available, inside the block (as recorded so far) and after it. With
    sessions of several models the block makes one trace per model; in a
    file, the second goes to FILE.1.json and so on, as OPSCOPE_PROFILE
    names them. Blocks do not nest.
    """

    def __init__(self, file=None, format="chrome"):
        if format not in FORMATS:
            raise ValueError("format: 'chrome' or 'dataframe', not %r" % (format,))
        if format == "chrome" and file is None:
            raise ValueError("profile(format='chrome') writes a Chrome trace: give "
                             "file=PATH (or format='dataframe' to keep it in memory)")
        if format == "dataframe" and file is not None:
            raise ValueError("profile(format='dataframe') keeps the trace in memory; "
                             "file= is for format='chrome'")
        self.file = file
        self.format = format
        self._entries = []  # (opscope.Model, native session), creation order
        self._labels = []   # record() labels open now, outermost first
        self._texts = None  # [(model name, trace JSON)] once the block ended
        self._parsed = {}
        # Sessions may be created on other threads while record() opens a
        # span: each session's spans must mirror _labels.
        self._mu = threading.Lock()
        self._active = False
        self._closed = False

    # The block ---------------------------------------------------------

    def __enter__(self):
        global _active
        if self._active or self._closed:
            raise RuntimeError("a profile block is entered once")
        with _lock:
            if _active is not None:
                raise RuntimeError("profile blocks do not nest: another one is active")
            self._active = True
            _active = self
        return self

    def __exit__(self, *exc):
        global _active
        with _lock:
            _active = None
        with self._mu:
            self._active = False
            self._closed = True
            entries, self._entries = self._entries, []
        try:
            self._texts = self._make_traces(entries) if entries else []
        finally:
            for _, native in entries:
                native.reset_profile()
        if self.file is not None and self._texts:
            self._write()
        return False

    def _attach(self, session):
        native = session._s
        if session.model.num_probes == 0:
            warnings.warn("opscope.profile: model %r has no probes (it was compiled with "
                          "--no-probes): the trace will show iterations but no ops"
                          % session.model.name, stacklevel=3)
        with self._mu:
            if not self._active:  # the block ended meanwhile
                return
            native.set_profiling(True)
            for label in self._labels:
                native.open_span(label)
            self._entries.append((session.model, native))

    @contextlib.contextmanager
    def record(self, label):
        """A labelled span around the runs inside it, in every session of
        the block: the trace gets a ``label`` event and each op event inside
        it carries the label (``events.label``), as opscope-run's "warm up"
        and "measure". The ``warm up`` label is left out of the statistics
        by default, as opscope-analyze leaves it out. Spans nest."""
        if not self._active:
            raise RuntimeError("profiler.record() is used inside its profile block")
        label = str(label)
        with self._mu:
            self._labels.append(label)
            for _, native in self._entries:
                native.open_span(label)
        try:
            yield self
        finally:
            with self._mu:
                for _, native in reversed(self._entries):
                    native.close_span()
                self._labels.pop()

    # The trace ---------------------------------------------------------

    def _make_traces(self, entries):
        groups = []  # [(model, [native sessions])], by first appearance
        for model, native in entries:
            for m, natives in groups:
                if m is model:
                    natives.append(native)
                    break
            else:
                groups.append((model, [native]))
        from .runtime import _ext
        texts = []
        for model, natives in groups:
            run = [("source", "opscope.profile"), ("threads", str(natives[0].threads)),
                   ("sessions", str(len(natives)))]
            texts.append((model.name, _ext().trace_json(natives, run)))
        return texts

    def _traces(self):
        if self._texts is not None:
            return self._texts
        with self._mu:
            entries = list(self._entries)
        # Inside the block: what is recorded so far.
        return self._make_traces(entries) if entries else []

    def _paths(self):
        """The file of each model's trace (format='chrome' with a path)."""
        if self.file is None or hasattr(self.file, "write"):
            return []
        path = os.fspath(self.file)
        root, ext = os.path.splitext(path)
        return [path] + ["%s.%d%s" % (root, i, ext) for i in range(1, len(self._texts))]

    def _write(self):
        if hasattr(self.file, "write"):
            if len(self._texts) > 1:
                raise ValueError("the block ran %d models: a file object holds one trace; "
                                 "give file=PATH" % len(self._texts))
            self.file.write(self._texts[0][1])
            return
        for path, (_, text) in zip(self._paths(), self._texts):
            # Whole or not at all: a failed write leaves no temporary.
            tmp = "%s.tmp.%d" % (path, os.getpid())
            try:
                with open(tmp, "w") as f:
                    f.write(text)
                os.replace(tmp, path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise

    def _trace_text(self, model):
        texts = self._traces()
        if not texts:
            raise ValueError("no session was created inside this profile block: nothing "
                             "was recorded")
        if model is None:
            if len(texts) > 1:
                raise ValueError("the block ran several models (%s): name one with model="
                                 % ", ".join(repr(n) for n, _ in texts))
            return texts[0]
        name = getattr(model, "name", model)
        for n, text in texts:
            if n == name:
                return n, text
        raise ValueError("no trace of model %r; the block ran %s"
                         % (name, ", ".join(repr(n) for n, _ in texts)))

    def _name(self, model_name):
        paths = self._paths() if self._texts is not None else []
        names = [n for n, _ in self._traces()]
        if paths and model_name in names:
            return paths[names.index(model_name)]
        return "<opscope.profile %s>" % model_name

    def trace_json(self, model=None):
        """The Chrome trace JSON text of the block (``model``: which one,
        by name or Model, when the block ran several)."""
        return self._trace_text(model)[1]

    def get_trace(self, model=None, label=None, include_warmup=False, skip_iterations=0):
        """The block's trace as ``opscope.Trace`` frames (``events``,
        ``iterations``, ``ops``, ``summary``, ...): what
        ``opscope.load_trace`` gives for the trace file, with the same
        selection arguments."""
        name, text = self._trace_text(model)
        key = (name, len(text), label, include_warmup, skip_iterations)
        cached = self._parsed.get(key)
        if cached is None or cached[0] is not text:
            trace = loads_trace(text, self._name(name), label=label,
                                include_warmup=include_warmup,
                                skip_iterations=skip_iterations)
            cached = (text, trace)
            if self._texts is not None:  # final: worth keeping
                self._parsed[key] = cached
        return cached[1]

    def get_pandas_dataframe(self, model=None):
        """One row per op execution (``Trace.events``: probe, name, tid,
        iteration, label, ts_us, dur_us, extent, selected): the frame
        ``opscope.load_trace(file).events`` gives for the same run. The
        per-op statistics are ``get_trace().ops``, the run summary
        ``get_trace().summary``."""
        return self.get_trace(model).events

    def _analyze(self, model, print_only, options):
        from .runtime import _ext
        name, text = self._trace_text(model)
        options = dict(options, print_only=print_only)
        if isinstance(options.get("types"), str):
            options["types"] = [options["types"]]
        return _ext().analyze(text, self._name(name), options)

    def summary_text(self, model=None, **options):
        """``print_summary``'s text."""
        return self._analyze(model, "summary", options)

    def operators_text(self, model=None, **options):
        """``print_operators``'s text."""
        return self._analyze(model, "ops", options)

    def print_summary(self, model=None, **options):
        """Prints opscope-analyze's run summary of the block (latency
        percentiles, op time, coverage, probe cost, start-up, memory).
        Options as ``print_operators``'s selection: ``label``,
        ``include_warmup``, ``skip_iterations``, ``format``."""
        print(self.summary_text(model, **options), end="")

    def print_operators(self, model=None, **options):
        """Prints opscope-analyze's op table of the block. Options are its
        flags: ``top`` (-t), ``types`` (--type), ``name`` (regex),
        ``order_by`` ("time", "+name", ...), ``aggregate_by`` ("type",
        "name", "kernel", "shape"), ``aggregate`` ("sum", "mean", "max",
        "min"), ``min_time`` / ``max_time`` ("2ms"), ``label``,
        ``include_warmup``, ``skip_iterations``, ``format`` ("table",
        "csv", "json", "markdown"), ``wide``."""
        print(self.operators_text(model, **options), end="")

    def __repr__(self):
        state = "active" if self._active else "ended" if self._closed else "not entered"
        return "<opscope.profile format=%r, %s>" % (self.format, state)
