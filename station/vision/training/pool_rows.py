"""Rewrite an exported network's 2x2 max-poolings into an equivalent graph cv2.dnn runs faster.

    python -m station.vision.training.pool_rows station/vision/weights/d6_classifier.onnx ...

(training venv: needs `onnx`; rewrites the files in place; `train_classifier.export` applies it
to every network it writes.) The weights are untouched and the outputs are the same numbers:
a maximum is exact whatever the order.

Why: OpenCV's classic engine pools row by row, and vectorises a row only from its second
output to the ninth from its end, so on the 16-, 8- and 4-wide outputs of these networks nearly
every output goes through its scalar loop (about 80 instructions an output, 150 more a row); the
three poolings were 29 % of the classifier's instructions (docs/vision.md, fourteenth session).
Instead: the two rows of every pair, as one tensor of N*C*H/2 x 2 x W, are split in two and
their elementwise `Max` taken (vectorised, no rows), then the pairs of neighbours are pooled
along one row per crop (1 x 2 windows on a C*H*W/2-long row, nearly all vectorised).
"""

from __future__ import annotations

import argparse
from pathlib import Path


def rewrite(model):
    """The model with every 2x2, stride 2, unpadded MaxPool replaced (in place; returned)."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    graph = onnx.shape_inference.infer_shapes(model).graph
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
              for v in [*graph.value_info, *graph.input]}
    nodes = []
    for node in model.graph.node:
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if (node.op_type != "MaxPool" or list(attrs.get("kernel_shape", [])) != [2, 2]
                or list(attrs.get("strides", [])) != [2, 2] or any(attrs.get("pads", []))
                or attrs.get("ceil_mode", 0) or len(node.output) != 1):
            nodes.append(node)
            continue
        _, c, h, w = shapes[node.input[0]]
        name = node.output[0]

        def const(suffix, values):
            model.graph.initializer.append(
                numpy_helper.from_array(np.array(values, np.int64), f"{name}/{suffix}_const"))
            return f"{name}/{suffix}_const"

        nodes += [
            helper.make_node("Reshape", [node.input[0], const("row_pairs", [-1, 2, w])],
                             [f"{name}/row_pairs"]),
            helper.make_node("Split", [f"{name}/row_pairs", const("split", [1, 1])],
                             [f"{name}/upper", f"{name}/lower"], axis=1),
            helper.make_node("Max", [f"{name}/upper", f"{name}/lower"], [f"{name}/rows"]),
            helper.make_node("Reshape", [f"{name}/rows", const("one_row", [-1, 1, 1, c * h * w // 2])],
                             [f"{name}/one_row"]),
            helper.make_node("MaxPool", [f"{name}/one_row"], [f"{name}/pooled"],
                             kernel_shape=[1, 2], strides=[1, 2], pads=[0, 0, 0, 0]),
            helper.make_node("Reshape", [f"{name}/pooled", const("shape", [-1, c, h // 2, w // 2])],
                             [name]),
        ]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    onnx.checker.check_model(model)
    return model


def rewrite_file(path: Path) -> None:
    import onnx

    onnx.save(rewrite(onnx.load(str(path))), str(path))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", type=Path, nargs="+", help="ONNX files, rewritten in place")
    for path in parser.parse_args().paths:
        rewrite_file(path)


if __name__ == "__main__":
    main()
