"""Writes an ONNX TensorProto: write_tensor.py OUT.pb DTYPE V1,V2,..."""
import sys

import numpy as np
from onnx import numpy_helper

out, dtype, values = sys.argv[1], sys.argv[2], sys.argv[3]
array = np.array([float(v) for v in values.split(",")]).astype(dtype)
with open(out, "wb") as f:
    f.write(numpy_helper.from_array(array).SerializeToString())
