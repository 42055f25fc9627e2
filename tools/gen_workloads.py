#!/usr/bin/env python3
"""Generates workloads/{inception_v3,mobilenet_v2,resnet50}.json: every convolution and
fully-connected layer of the three quantized networks, in the qtune-workloads/1 form
(workloads/README.md).

The layer lists are written out from the published architectures (see each builder's docstring);
shapes are propagated from the input resolution so that strides, 'VALID'/'SAME' padding and
pooling are applied in one place rather than typed by hand. TensorFlow 'SAME' padding is made
explicit, asymmetric where it is (the extra row/column goes to the bottom/right, as in TF).
Identical layers (same shape, stride, padding, groups) are merged into one entry with a count;
the entry keeps the name of the first occurrence.

Usage: tools/gen_workloads.py [--out DIR]   (default: the repository's workloads/)
"""

import argparse
import json
import os
from collections import OrderedDict

FORMAT = "qtune-workloads/1"


def same_pad(size, kernel, stride, dilation=1):
    """TensorFlow 'SAME': out = ceil(size / stride); returns (out, pad_before, pad_after)."""
    out = -(-size // stride)
    span = (kernel - 1) * dilation + 1
    total = max((out - 1) * stride + span - size, 0)
    return out, total // 2, total - total // 2


def valid_out(size, kernel, stride, dilation=1):
    return (size - ((kernel - 1) * dilation + 1)) // stride + 1


class Net:
    """Collects layers in network order and tracks nothing else: callers pass shapes explicitly."""

    def __init__(self):
        self.layers = []

    def conv(self, name, hw, c, out_c, kernel, stride=1, padding="SAME", groups=1):
        """Adds a conv on an hw=(H, W) x c input; padding 'SAME', 'VALID' or an explicit int
        (symmetric, PyTorch style). Returns the output (H, W)."""
        (h, w), (kh, kw) = hw, kernel
        if padding == "SAME":
            oh, pt, pb = same_pad(h, kh, stride)
            ow, pl, pr = same_pad(w, kw, stride)
        elif padding == "VALID":
            oh, ow, pt, pb, pl, pr = valid_out(h, kh, stride), valid_out(w, kw, stride), 0, 0, 0, 0
        else:
            p = int(padding)
            pt = pb = pl = pr = p
            oh, ow = valid_out(h + 2 * p, kh, stride), valid_out(w + 2 * p, kw, stride)
        assert oh >= 1 and ow >= 1, name
        self.layers.append(OrderedDict([
            ("name", name), ("op", "conv2d"), ("input", [1, h, w, c]), ("out_c", out_c),
            ("kernel", [kh, kw]), ("stride", [stride, stride]), ("pad", [pt, pb, pl, pr]),
            ("groups", groups)]))
        return oh, ow

    def fc(self, name, k, n):
        self.layers.append(OrderedDict([("name", name), ("op", "gemm"), ("m", 1), ("n", n), ("k", k)]))

    def merged(self):
        """Identical layers (everything but the name) merged, first name kept, counts added."""
        by_key = OrderedDict()
        for layer in self.layers:
            key = json.dumps({k: v for k, v in layer.items() if k != "name"}, sort_keys=True)
            if key in by_key:
                by_key[key]["count"] += 1
            else:
                entry = OrderedDict(layer)
                entry["count"] = 1
                by_key[key] = entry
        return list(by_key.values())


def pool_valid(hw, kernel=3, stride=2):
    return valid_out(hw[0], kernel, stride), valid_out(hw[1], kernel, stride)


def inception_v3():
    """TF-slim inception_v3 (nets/inception_v3.py, inception_v3_base + logits), 299x299 input,
    as in the quantized TFLite model inception_v3_quant: the auxiliary head is training-only and
    absent from the inference graph. Stem convolutions are 'VALID' unless slim sets 'SAME'; inside
    the Mixed blocks slim's arg_scope makes every conv stride 1 'SAME', and the stride-2 reductions
    are 'VALID'. Spatial sizes: 299 -> 149 -> 147 -> 147 -> (pool) 73 -> 73 -> 71 -> (pool) 35 ->
    17 -> 8 -> (avg pool) 1."""
    n = Net()
    hw = n.conv("Conv2d_1a_3x3", (299, 299), 3, 32, (3, 3), 2, "VALID")
    hw = n.conv("Conv2d_2a_3x3", hw, 32, 32, (3, 3), 1, "VALID")
    hw = n.conv("Conv2d_2b_3x3", hw, 32, 64, (3, 3), 1, "SAME")
    hw = pool_valid(hw)  # MaxPool_3a_3x3
    hw = n.conv("Conv2d_3b_1x1", hw, 64, 80, (1, 1), 1, "VALID")
    hw = n.conv("Conv2d_4a_3x3", hw, 80, 192, (3, 3), 1, "VALID")
    hw = pool_valid(hw)  # MaxPool_5a_3x3: 35x35x192
    c = 192
    # Mixed_5b/5c/5d: the 35x35 blocks; the pool branch projects to 32, then 64, 64.
    for block, pool_proj, b1_names in (("Mixed_5b", 32, ("Conv2d_0a_1x1", "Conv2d_0b_5x5")),
                                       ("Mixed_5c", 64, ("Conv2d_0b_1x1", "Conv_1_0c_5x5")),
                                       ("Mixed_5d", 64, ("Conv2d_0a_1x1", "Conv2d_0b_5x5"))):
        n.conv(f"{block}/Branch_0/Conv2d_0a_1x1", hw, c, 64, (1, 1))
        n.conv(f"{block}/Branch_1/{b1_names[0]}", hw, c, 48, (1, 1))
        n.conv(f"{block}/Branch_1/{b1_names[1]}", hw, 48, 64, (5, 5))
        n.conv(f"{block}/Branch_2/Conv2d_0a_1x1", hw, c, 64, (1, 1))
        n.conv(f"{block}/Branch_2/Conv2d_0b_3x3", hw, 64, 96, (3, 3))
        n.conv(f"{block}/Branch_2/Conv2d_0c_3x3", hw, 96, 96, (3, 3))
        n.conv(f"{block}/Branch_3/Conv2d_0b_1x1", hw, c, pool_proj, (1, 1))
        c = 64 + 64 + 96 + pool_proj
    # Mixed_6a: 35 -> 17 reduction.
    out = n.conv("Mixed_6a/Branch_0/Conv2d_1a_1x1", hw, c, 384, (3, 3), 2, "VALID")
    n.conv("Mixed_6a/Branch_1/Conv2d_0a_1x1", hw, c, 64, (1, 1))
    n.conv("Mixed_6a/Branch_1/Conv2d_0b_3x3", hw, 64, 96, (3, 3))
    n.conv("Mixed_6a/Branch_1/Conv2d_1a_1x1", hw, 96, 96, (3, 3), 2, "VALID")
    hw, c = out, 384 + 96 + c
    # Mixed_6b..6e: the 17x17 blocks with factorized 7x7 convolutions.
    for block, mid in (("Mixed_6b", 128), ("Mixed_6c", 160), ("Mixed_6d", 160), ("Mixed_6e", 192)):
        n.conv(f"{block}/Branch_0/Conv2d_0a_1x1", hw, c, 192, (1, 1))
        n.conv(f"{block}/Branch_1/Conv2d_0a_1x1", hw, c, mid, (1, 1))
        n.conv(f"{block}/Branch_1/Conv2d_0b_1x7", hw, mid, mid, (1, 7))
        n.conv(f"{block}/Branch_1/Conv2d_0c_7x1", hw, mid, 192, (7, 1))
        n.conv(f"{block}/Branch_2/Conv2d_0a_1x1", hw, c, mid, (1, 1))
        n.conv(f"{block}/Branch_2/Conv2d_0b_7x1", hw, mid, mid, (7, 1))
        n.conv(f"{block}/Branch_2/Conv2d_0c_1x7", hw, mid, mid, (1, 7))
        n.conv(f"{block}/Branch_2/Conv2d_0d_7x1", hw, mid, mid, (7, 1))
        n.conv(f"{block}/Branch_2/Conv2d_0e_1x7", hw, mid, 192, (1, 7))
        n.conv(f"{block}/Branch_3/Conv2d_0b_1x1", hw, c, 192, (1, 1))
        c = 4 * 192
    # Mixed_7a: 17 -> 8 reduction.
    n.conv("Mixed_7a/Branch_0/Conv2d_0a_1x1", hw, c, 192, (1, 1))
    out = n.conv("Mixed_7a/Branch_0/Conv2d_1a_3x3", hw, 192, 320, (3, 3), 2, "VALID")
    n.conv("Mixed_7a/Branch_1/Conv2d_0a_1x1", hw, c, 192, (1, 1))
    n.conv("Mixed_7a/Branch_1/Conv2d_0b_1x7", hw, 192, 192, (1, 7))
    n.conv("Mixed_7a/Branch_1/Conv2d_0c_7x1", hw, 192, 192, (7, 1))
    n.conv("Mixed_7a/Branch_1/Conv2d_1a_3x3", hw, 192, 192, (3, 3), 2, "VALID")
    hw, c = out, 320 + 192 + c
    # Mixed_7b/7c: the 8x8 blocks with split 1x3 / 3x1 branches.
    for block, b1_second in (("Mixed_7b", "Conv2d_0b_3x1"), ("Mixed_7c", "Conv2d_0c_3x1")):
        n.conv(f"{block}/Branch_0/Conv2d_0a_1x1", hw, c, 320, (1, 1))
        n.conv(f"{block}/Branch_1/Conv2d_0a_1x1", hw, c, 384, (1, 1))
        n.conv(f"{block}/Branch_1/Conv2d_0b_1x3", hw, 384, 384, (1, 3))
        n.conv(f"{block}/Branch_1/{b1_second}", hw, 384, 384, (3, 1))
        n.conv(f"{block}/Branch_2/Conv2d_0a_1x1", hw, c, 448, (1, 1))
        n.conv(f"{block}/Branch_2/Conv2d_0b_3x3", hw, 448, 384, (3, 3))
        n.conv(f"{block}/Branch_2/Conv2d_0c_1x3", hw, 384, 384, (1, 3))
        n.conv(f"{block}/Branch_2/Conv2d_0d_3x1", hw, 384, 384, (3, 1))
        n.conv(f"{block}/Branch_3/Conv2d_0b_1x1", hw, c, 192, (1, 1))
        c = 320 + 768 + 768 + 192
    # Logits: 8x8 average pool, then a 1x1 convolution to the 1001 classes (slim's background class).
    n.conv("Logits/Conv2d_1c_1x1", (1, 1), c, 1001, (1, 1), 1, "VALID")
    return n


def mobilenet_v2():
    """TF-slim mobilenet_v2 1.0 (nets/mobilenet/mobilenet_v2.py, V2_DEF), 224x224 input, as in the
    quantized TFLite model mobilenet_v2_1.0_224_quant: every conv 'SAME' (so stride-2 layers on an
    even input pad 0 above/left and 1 below/right), inverted residual blocks expanded_conv[_i] of
    expand 1x1 (absent in the first block), depthwise 3x3, project 1x1, then Conv_1 (1x1 -> 1280)
    and Logits/Conv2d_1c_1x1 (1x1 conv -> 1001 classes) after the global average pool."""
    n = Net()
    hw = n.conv("Conv", (224, 224), 3, 32, (3, 3), 2)
    c = 32
    # (expansion t, output channels, repeats, first stride) per stage.
    stages = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
              (6, 320, 1, 1)]
    index = 0
    for t, out_c, repeats, first_stride in stages:
        for r in range(repeats):
            name = "expanded_conv" if index == 0 else f"expanded_conv_{index}"
            stride = first_stride if r == 0 else 1
            expanded = c * t
            if t != 1:
                n.conv(f"{name}/expand", hw, c, expanded, (1, 1))
            out = n.conv(f"{name}/depthwise", hw, expanded, expanded, (3, 3), stride, groups=expanded)
            hw = out
            n.conv(f"{name}/project", hw, expanded, out_c, (1, 1))
            c = out_c
            index += 1
    n.conv("Conv_1", hw, c, 1280, (1, 1))
    n.conv("Logits/Conv2d_1c_1x1", (1, 1), 1280, 1001, (1, 1))
    return n


def resnet50():
    """torchvision resnet50 (ResNet-50 v1.5: the stride of a downsampling bottleneck is on its 3x3
    conv), 224x224 input, as quantized by torchvision.models.quantization.resnet50 (fbgemm/qnnpack):
    explicit symmetric PyTorch padding (7x7 stem pad 3, 3x3 pad 1, 1x1 pad 0), stem 7x7/2 -> max
    pool 3x3/2 pad 1 -> layer1..4 with [3, 4, 6, 3] bottlenecks of widths 64..512 (expansion 4),
    the first block of each layer with a 1x1 downsample projection, then the 2048 -> 1000 fc."""
    n = Net()
    hw = n.conv("conv1", (224, 224), 3, 64, (7, 7), 2, 3)
    hw = (valid_out(hw[0] + 2, 3, 2), valid_out(hw[1] + 2, 3, 2))  # maxpool 3x3/2 pad 1: 112 -> 56
    c = 64
    for layer, (width, blocks, stride) in enumerate(((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)), start=1):
        for b in range(blocks):
            s = stride if b == 0 else 1
            prefix = f"layer{layer}.{b}"
            n.conv(f"{prefix}.conv1", hw, c, width, (1, 1), 1, 0)
            out = n.conv(f"{prefix}.conv2", hw, width, width, (3, 3), s, 1)
            n.conv(f"{prefix}.conv3", out, width, width * 4, (1, 1), 1, 0)
            if b == 0:
                n.conv(f"{prefix}.downsample.0", hw, c, width * 4, (1, 1), s, 0)
            hw, c = out, width * 4
    n.fc("fc", c, 1000)
    return n


NETWORKS = {
    "inception_v3": (inception_v3, "InceptionV3 (TF-slim, 299x299), quantized: every convolution and the "
                                   "logits layer; auxiliary head excluded (training only)."),
    "mobilenet_v2": (mobilenet_v2, "MobileNetV2 1.0 (TF-slim, 224x224), quantized: every convolution "
                                   "(depthwise included) and the logits layer."),
    "resnet50": (resnet50, "ResNet-50 v1.5 (torchvision, 224x224), quantized: every convolution "
                           "(downsample projections included) and the fully-connected layer."),
}

# The quantization of the deployed models: u8 activations with a non-zero zero point, symmetric
# int8 weights with per-channel scales, s8 output, TFLite rounding, one thread.
DEFAULTS = OrderedDict([("a_type", "u8"), ("out_type", "s8"), ("a_zero_point_nonzero", True),
                        ("b_zero_point_nonzero", False), ("per_channel", True), ("rounding", "tflite"),
                        ("threads", 1)])


def write_network(name, out_dir):
    builder, description = NETWORKS[name]
    net = builder()
    doc = OrderedDict([("format", FORMAT), ("network", name), ("description", description),
                       ("defaults", DEFAULTS), ("layers", net.merged())])
    path = os.path.join(out_dir, name + ".json")
    with open(path, "w") as f:
        f.write("{\n")
        keys = list(doc.keys())
        for i, key in enumerate(keys):
            sep = "," if i + 1 < len(keys) else ""
            if key == "layers":
                f.write('  "layers": [\n')
                layers = doc["layers"]
                for j, layer in enumerate(layers):
                    f.write("    " + json.dumps(layer) + ("," if j + 1 < len(layers) else "") + "\n")
                f.write("  ]" + sep + "\n")
            else:
                f.write(f"  {json.dumps(key)}: {json.dumps(doc[key])}{sep}\n")
        f.write("}\n")
    total = sum(layer["count"] for layer in doc["layers"])
    print(f"{path}: {len(doc['layers'])} distinct layers, {total} in the network")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(here, "..", "workloads"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in NETWORKS:
        write_network(name, args.out)


if __name__ == "__main__":
    main()
