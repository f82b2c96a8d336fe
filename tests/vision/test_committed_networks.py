"""The committed pip networks are the graphs `training/pool_rows.py` writes: cv2.dnn pools a
2x2 max-pooling of these small feature maps mostly in its scalar loop, and runs a 3x3
convolution on under 12x12 without Winograd, so an export that skipped the rewrite would read
the same numbers about 10 % slower (docs/history/vision.md, fourteenth session). Their outputs are
pinned by the reader's tests; this checks the graph's shape, through cv2.dnn's own view of it."""

import pytest

from station.vision.classifier import (DETAIL_WEIGHTS, OUTWARD_WEIGHTS, WEIGHTS, read_onnx)


def layers(path):
    net = read_onnx(path)
    return [(name, net.getLayer(name).type) for name in net.getLayerNames()]


@pytest.mark.parametrize("path", [WEIGHTS, DETAIL_WEIGHTS, OUTWARD_WEIGHTS], ids=lambda p: p.name)
def test_every_pooling_is_the_rewritten_one_along_a_row(path):
    poolings = [name for name, kind in layers(path) if kind == "Pooling"]
    assert poolings, "the network pools"
    # pool_rows names the 1x2 pooling it writes "<the MaxPool's output>/pooled"
    assert all(name.endswith("/pooled") for name in poolings), poolings


@pytest.mark.parametrize("path", [WEIGHTS, OUTWARD_WEIGHTS], ids=lambda p: p.name)
def test_the_third_convolution_runs_as_four_stride_two_corners(path):
    corners = {name.rsplit("/", 2)[-2] for name, kind in layers(path)
               if kind == "Convolution" and "/corner" in name}
    assert corners == {"corner00", "corner01", "corner10", "corner11"}
