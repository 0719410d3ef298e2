#!/usr/bin/python3
"""Profiles a compiled model from a plain script, with the same block as
examples/python/profile.ipynb (test/Python/notebook.test checks that the two
blocks are the same text and that both run):

  PYTHONPATH=python /usr/bin/python3 examples/python/profile_block.py MODEL TRACE.json

MODEL is a compiled model.so, or an ONNX file with static input shapes (or
BERT-mini's, which this script gives for `input_ids` and `attention_mask`).
It prints opscope-analyze's summary and op table, writes TRACE.json (the
Chrome trace opscope-run --trace writes: Perfetto, chrome://tracing,
speedscope) and checks that the block's DataFrame is the one
opscope.load_trace reads from that file.
"""
import os
import sys

import pandas as pd

import opscope


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path, TRACE = argv[1], argv[2]
    if path.endswith(".so"):
        model = opscope.Model.load(path)
    else:
        shapes = {}
        if "bert" in os.path.basename(path):
            shapes = {"input_ids": (1, 128), "attention_mask": (1, 128)}
        model = opscope.compile(path, input_shapes=shapes)
    inputs = model.random_inputs()

    # --- the profiling block (as in profile.ipynb) ---
    with opscope.profile(file=TRACE, format="chrome") as profiler:
        with opscope.Session(model, threads=1) as sess:
            with profiler.record("warm up"):
                for _ in range(10):
                    sess.run(inputs)
            with profiler.record("measure"):
                for _ in range(50):
                    sess.run(inputs)
        profiler.print_summary()
        df = profiler.get_pandas_dataframe()
    # --- end of the block ---

    profiler.print_operators(top=10)
    pd.testing.assert_frame_equal(df, opscope.load_trace(TRACE).events)
    print("%d op events, the same frame as opscope.load_trace(%r).events" % (len(df), TRACE))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
