"""opscope-sweep's spec file: reading, checking, and the grid it expands to.

A spec (YAML or JSON) names models and the axes of the grid; every
combination is a point (docs/sweep.md). Nothing here runs anything or
imports Dask: the driver checks a spec completely before it starts a
cluster or writes a file.
"""
import hashlib
import itertools
import json
import os
import re

# The tiers opscope's runtime names (OPSCOPE_MAX_ISA's values, oneDNN's
# names), lowest first; a worker's tier is one of them (sweep_worker.py).
TIERS = ["sse41", "avx2", "avx2_vnni", "avx512_core", "avx512_core_vnni", "avx512_core_bf16",
         "avx512_core_amx"]
PRECISIONS = ["fp32", "bf16", "int8"]

_KEYS = {"models", "batch", "seq", "precision", "sparsity", "threads",
         "iterations", "warmup", "calibration", "tiers", "timeout"}
_MODEL_KEYS = {"name", "path", "inputs"}
_DIM = re.compile(r"^(?:[1-9][0-9]*|B|S)$")


def configuration(precision, sparsity, threads):
    """What a point chooses for its workload: 'int8 p0.8 t1'."""
    return "%s %s t%d" % (precision, "dense" if sparsity == 0 else "p%g" % sparsity, threads)


class SpecError(ValueError):
    """A spec that cannot be swept; the message names the file and the key."""

    def __init__(self, path, message):
        super().__init__("%s: %s" % (path, message))


class Model:
    """One model of the spec: its name, file and input shape templates."""

    def __init__(self, name, path, inputs):
        self.name = name
        self.path = path
        self.inputs = inputs  # [(input name, ["B", "S", "784"]), ...]
        self.sha256 = None    # filled by read_models()

    @property
    def uses_seq(self):
        return any("S" in dims for _, dims in self.inputs)

    def shapes(self, batch, seq):
        """opscope-compile's --input-shape values for one point."""
        out = []
        for name, dims in self.inputs:
            real = [str(batch) if d == "B" else str(seq) if d == "S" else d for d in dims]
            out.append("%s=%s" % (name, "x".join(real)))
        return out


class Point:
    """One combination of the grid."""

    def __init__(self, model, batch, seq, precision, sparsity, threads):
        self.model, self.batch, self.seq = model, batch, seq
        self.precision, self.sparsity, self.threads = precision, sparsity, threads

    @property
    def id(self):
        """A readable, file-name-safe key: bert-mini_b1_s16_int8_p0.8_t1."""
        parts = [self.model.name, "b%d" % self.batch]
        if self.seq is not None:
            parts.append("s%d" % self.seq)
        parts.append(self.precision)
        parts.append("dense" if self.sparsity == 0 else "p%g" % self.sparsity)
        parts.append("t%d" % self.threads)
        return "_".join(parts)

    @property
    def configuration(self):
        return configuration(self.precision, self.sparsity, self.threads)

    def as_dict(self):
        return {"point": self.id, "model": self.model.name, "batch": self.batch,
                "seq": self.seq, "precision": self.precision,
                "sparsity": self.sparsity, "threads": self.threads,
                "input_shapes": self.model.shapes(self.batch, self.seq)}


class Spec:
    """A checked spec: models, axes, run settings and placement."""

    def __init__(self, path):
        self.path = path
        self.models = []
        self.batch, self.seq = [1], None
        self.precision, self.sparsity, self.threads = ["fp32"], [0.0], [1]
        self.iterations, self.warmup, self.timeout = 20, 3, 600
        self.calibration = None
        # "every": each point on every distinct tier of the cluster; "any":
        # each point once, on any worker; else a list of tiers.
        self.tiers = "every"

    def points(self):
        """The grid, models outermost, threads innermost."""
        out = []
        for m in self.models:
            seqs = self.seq if m.uses_seq else [None]
            for b, s, p, sp, t in itertools.product(self.batch, seqs, self.precision,
                                                    self.sparsity, self.threads):
                out.append(Point(m, b, s, p, sp, t))
        return out

    def settings(self):
        """What every point's figures depend on besides its own axes: a
        results directory holds one set of these (a resumed sweep must
        match them)."""
        return {"iterations": self.iterations, "warmup": self.warmup,
                "calibration": self.calibration,
                "models": {m.name: {"sha256": m.sha256,
                                    "inputs": {n: "x".join(d) for n, d in m.inputs}}
                           for m in self.models}}


def _read(path):
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
    except UnicodeDecodeError:
        raise SpecError(path, "not UTF-8 text") from None
    if path.endswith(".json"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            raise SpecError(path, "not valid JSON: line %d, column %d: %s"
                            % (e.lineno, e.colno, e.msg)) from None
    try:
        import yaml
    except ImportError:
        raise SpecError(path, "reading YAML needs python3-yaml "
                              "(scripts/install-deps.sh installs it), or write the spec as .json") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = "line %d, column %d: " % (mark.line + 1, mark.column + 1) if mark else ""
        raise SpecError(path, "not valid YAML: %s%s" % (
            where, getattr(e, "problem", None) or e)) from None


def _list(path, doc, key, kind, check, what):
    """doc[key] as a non-empty list (a scalar is a list of one)."""
    v = doc[key]
    values = v if isinstance(v, list) else [v]
    if not values:
        raise SpecError(path, "'%s' is empty; expected %s" % (key, what))
    out = []
    for x in values:
        if isinstance(x, bool) or not isinstance(x, kind) or not check(x):
            raise SpecError(path, "'%s': expected %s, got %s" % (key, what, json.dumps(x)))
        out.append(x)
    if len(set(out)) != len(out):
        raise SpecError(path, "'%s' lists a value twice: %s" % (key, json.dumps(values)))
    return out


def _count(path, doc, key, minimum):
    v = doc[key]
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise SpecError(path, "'%s': expected an integer >= %d, got %s"
                        % (key, minimum, json.dumps(v)))
    return v


def _model(path, base, i, entry):
    where = "models[%d]" % i
    if not isinstance(entry, dict):
        raise SpecError(path, "%s: expected a mapping with 'path' and 'inputs'" % where)
    for k in entry:
        if k not in _MODEL_KEYS:
            raise SpecError(path, "%s: unknown key '%s' (known: %s)"
                            % (where, k, ", ".join(sorted(_MODEL_KEYS))))
    for k in ("path", "inputs"):
        if k not in entry:
            raise SpecError(path, "%s: '%s' is required" % (where, k))
    if not isinstance(entry["path"], str) or not entry["path"]:
        raise SpecError(path, "%s.path: expected a file name" % where)
    # Relative to the spec's folder, lexically (a symlinked folder stays).
    file = os.path.normpath(os.path.join(base, os.path.expanduser(entry["path"])))
    name = entry.get("name", os.path.splitext(os.path.basename(file))[0])
    if not isinstance(name, str) or not re.match(r"^[A-Za-z0-9][A-Za-z0-9.-]*$", name):
        raise SpecError(path, "%s.name: expected letters, digits, '.' and '-' "
                              "(it names result folders), got %s" % (where, json.dumps(name)))
    inputs = entry["inputs"]
    if not isinstance(inputs, dict) or not inputs:
        raise SpecError(path, "%s.inputs: expected a mapping of input name to a "
                              "shape template like BxS or Bx784" % where)
    parsed = []
    for n, t in inputs.items():
        dims = str(t).split("x") if isinstance(t, (str, int)) and not isinstance(t, bool) else None
        bad = [d for d in dims or [""] if not _DIM.match(d)]
        if bad:
            raise SpecError(path, "%s.inputs.%s: dimension '%s' of %s is not a positive "
                                  "number, B or S" % (where, n, bad[0], json.dumps(t)))
        parsed.append((str(n), dims))
    return Model(name, file, parsed)


def load_spec(path):
    """Reads and checks a spec; raises SpecError naming the file and key."""
    if not os.path.isfile(path):
        raise SpecError(path, "no such file" if not os.path.exists(path) else "not a file")
    doc = _read(path)
    if not isinstance(doc, dict):
        raise SpecError(path, "expected a mapping of keys (models, batch, seq, ...) "
                              "at the top level")
    for k in doc:
        if k not in _KEYS:
            raise SpecError(path, "unknown key '%s' (known: %s)" % (k, ", ".join(sorted(_KEYS))))
    spec = Spec(path)
    if "models" not in doc:
        raise SpecError(path, "'models' is required: a list of {name, path, inputs}")
    if not isinstance(doc["models"], list) or not doc["models"]:
        raise SpecError(path, "'models': expected a non-empty list of {name, path, inputs}")
    base = os.path.dirname(path)
    spec.models = [_model(path, base, i, m) for i, m in enumerate(doc["models"])]
    names = [m.name for m in spec.models]
    for n in names:
        if names.count(n) > 1:
            raise SpecError(path, "two models are named '%s'; give each a distinct 'name'" % n)

    positive = lambda x: x > 0
    if "batch" in doc:
        spec.batch = _list(path, doc, "batch", int, positive, "positive integers")
    if "seq" in doc:
        spec.seq = _list(path, doc, "seq", int, positive, "positive integers")
    if "precision" in doc:
        spec.precision = _list(path, doc, "precision", str, lambda x: x in PRECISIONS,
                               "precisions among %s" % ", ".join(PRECISIONS))
    if "sparsity" in doc:
        spec.sparsity = [float(x) for x in _list(
            path, doc, "sparsity", (int, float), lambda x: 0 <= x < 1,
            "block sparsities in [0, 1) (0 is the dense model)")]
    if "threads" in doc:
        spec.threads = _list(path, doc, "threads", int, positive, "positive integers")
    if "iterations" in doc:
        spec.iterations = _count(path, doc, "iterations", 1)
    if "warmup" in doc:
        spec.warmup = _count(path, doc, "warmup", 0)
    if "timeout" in doc:
        spec.timeout = _count(path, doc, "timeout", 1)
    uses_seq = [m.name for m in spec.models if m.uses_seq]
    if uses_seq and spec.seq is None:
        raise SpecError(path, "'seq' is required: model '%s' has S in its input shapes"
                        % uses_seq[0])
    if spec.seq is not None and not uses_seq:
        raise SpecError(path, "'seq' is given but no model has S in its input shapes")
    if "calibration" in doc:
        c = doc["calibration"]
        if not isinstance(c, str) or not c:
            raise SpecError(path, "'calibration': expected 'random' or a directory of "
                                  "input sets")
        spec.calibration = c if c == "random" else os.path.normpath(os.path.join(base, c))
    if "int8" in spec.precision and spec.calibration is None:
        raise SpecError(path, "precision int8 needs 'calibration': a directory of input "
                              "sets (opscope-compile --calibration-inputs), or 'random'")
    if "int8" not in spec.precision and spec.calibration is not None:
        raise SpecError(path, "'calibration' applies to precision int8, which the "
                              "spec does not list")
    if "tiers" in doc:
        t = doc["tiers"]
        if t in ("every", "any"):
            spec.tiers = t
        else:
            spec.tiers = _list(path, doc, "tiers", str, lambda x: x in TIERS,
                               "'every', 'any' or a list of tiers among %s" % ", ".join(TIERS))
    return spec


def read_models(spec):
    """Checks every model file exists and records its SHA-256; raises
    SpecError naming the file and the spec key."""
    for i, m in enumerate(spec.models):
        h = hashlib.sha256()
        try:
            with open(m.path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
        except OSError as e:
            raise SpecError(spec.path, "models[%d].path: %s: %s"
                            % (i, m.path, e.strerror or e)) from None
        m.sha256 = h.hexdigest()
    if spec.calibration not in (None, "random") and not os.path.isdir(spec.calibration):
        raise SpecError(spec.path, "calibration: %s: no such directory" % spec.calibration)
