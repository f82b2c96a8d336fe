"""Rewrite an exported network's 2x2 max-poolings into an equivalent graph cv2.dnn runs faster.

    python -m station.vision.training.pool_rows station/vision/weights/d6_classifier.onnx ...

(training venv: needs `onnx`; rewrites the files in place; `train_classifier.export` applies it
to every network it writes.) The weights are untouched and the outputs are the same numbers:
a maximum is exact whatever the order.

Why: OpenCV's classic engine pools row by row, and vectorises a row only from its second
output to the ninth from its end, so on the 16-, 8- and 4-wide outputs of these networks nearly
every output goes through its scalar loop (about 80 instructions an output, 150 more a row); the
three poolings were 29 % of the classifier's instructions (docs/history/vision.md, fourteenth session).
Instead: the two rows of every pair, as one tensor of N*C*H/2 x 2 x W, are split in two and
their elementwise `Max` taken (vectorised, no rows), then the pairs of neighbours are pooled
along one row per crop (1 x 2 windows on a C*H*W/2-long row, nearly all vectorised).

A pooled 3x3 convolution too small for OpenCV's Winograd kernel (input under 12x12: the
classifier's third) becomes four stride-2 convolutions, one per corner of the 2x2 windows, and
their elementwise `Max`: OpenCV's generic kernel packs an 8-wide output's patches mostly two by
two, and the four 4x4 convolutions with the `Max` take a third less time than the 8x8 one and its
pooling (batch 16; the whole forward 12-17 % less at batches of 1 to 64), for 3 % more
instructions.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def rewrite(model):
    """The model with every 2x2, stride 2, unpadded MaxPool replaced, with the convolution
    before it when that is too small for Winograd (in place; returned)."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    graph = onnx.shape_inference.infer_shapes(model).graph
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
              for v in [*graph.value_info, *graph.input]}
    producer = {out: node for node in model.graph.node for out in node.output}
    readers = {}
    for node in model.graph.node:
        for name in node.input:
            readers[name] = readers.get(name, 0) + 1

    def attributes(node):
        return {a.name: helper.get_attribute_value(a) for a in node.attribute}

    def small_pooled_conv(pool):
        """The Conv of Conv -> Relu -> pool when it is a plain 3x3 one on under 12x12, else None."""
        relu = producer.get(pool.input[0])
        conv = producer.get(relu.input[0]) if relu is not None and relu.op_type == "Relu" else None
        if conv is None or conv.op_type != "Conv" or readers[relu.output[0]] != 1 \
                or readers[conv.output[0]] != 1:
            return None
        attrs = attributes(conv)
        plain = (list(attrs.get("kernel_shape", [])) == [3, 3] and attrs.get("group", 1) == 1
                 and list(attrs.get("pads", [])) == [1, 1, 1, 1]
                 and list(attrs.get("strides", [1, 1])) == [1, 1]
                 and list(attrs.get("dilations", [1, 1])) == [1, 1])
        return conv if plain and min(shapes[conv.input[0]][2:]) < 12 else None

    nodes, replaced = [], set()
    for node in model.graph.node:
        attrs = attributes(node)
        if (node.op_type != "MaxPool" or list(attrs.get("kernel_shape", [])) != [2, 2]
                or list(attrs.get("strides", [])) != [2, 2] or any(attrs.get("pads", []))
                or attrs.get("ceil_mode", 0) or len(node.output) != 1):
            nodes.append(node)
            continue
        name = node.output[0]
        conv = small_pooled_conv(node)
        if conv is not None:
            # output (i, j) of the pooled convolution is the largest of the convolution at
            # (2i + a, 2j + b), a, b in {0, 1}: a stride-2 convolution padded 1 - a above, a below
            relu = producer[node.input[0]]
            replaced.update({conv.output[0], relu.output[0]})
            corners = []
            for a in (0, 1):
                for b in (0, 1):
                    out = f"{name}/corner{a}{b}"
                    nodes += [helper.make_node("Conv", list(conv.input), [f"{out}/conv"],
                                               kernel_shape=[3, 3], strides=[2, 2],
                                               pads=[1 - a, 1 - b, a, b]),
                              helper.make_node("Relu", [f"{out}/conv"], [out])]
                    corners.append(out)
            nodes.append(helper.make_node("Max", corners, [name]))
            continue
        _, c, h, w = shapes[node.input[0]]

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
    model.graph.node.extend(n for n in nodes if n.output[0] not in replaced)
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
