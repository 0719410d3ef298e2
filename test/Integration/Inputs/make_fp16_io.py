"""cnn-opset14's fp16 form without keep_io_types (FLOAT16 graph input and
output: onnxconverter-common's convert_float16(model, keep_io_types=False),
models/corpus_transforms.py), written to the directory argv[2] as
cnn-opset14-fp16.onnx; argv[1] is the source tree. fp16-io-ort.test."""
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "models"))
import onnx  # noqa: E402
import generate  # noqa: E402
from corpus_transforms import convert_float16  # noqa: E402

out = sys.argv[2]
os.makedirs(out, exist_ok=True)
fp16 = convert_float16(generate.build("cnn-opset14"), keep_io_types=False)
fp16.graph.name = "cnn-opset14-fp16"
onnx.save(fp16, os.path.join(out, "cnn-opset14-fp16.onnx"))
