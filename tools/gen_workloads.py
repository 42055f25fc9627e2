#!/usr/bin/env python3
"""Generates workloads/{inception_v3,mobilenet_v2,resnet50}.json and the int8 variants
{inception_v3,mobilenet_v2}_int8.json: every convolution and fully-connected layer of the three
quantized networks, each in the quantization scheme of the deployed model it names (SCHEMES), in
the qtune-workloads/1 form (workloads/README.md).

The layer lists are written out from the published architectures (see each builder's docstring);
shapes are propagated from the input resolution so that strides, 'VALID'/'SAME' padding and
pooling are applied in one place rather than typed by hand. TensorFlow 'SAME' padding is made
explicit, asymmetric where it is (the extra row/column goes to the bottom/right, as in TF).
A layer's activation zero point follows from what produced its input (an image, a ReLU, or a
linear output) under the table's scheme; where it differs from the table's default the layer
says so. A layer followed by a ReLU (or ReLU6) that the deployed model fuses into it says
"relu": true: its output range starts at its zero point. Identical layers (same shape, stride,
padding, groups and quantization) are merged into one entry with a count; the entry keeps the
name of the first occurrence.

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
        self.sources = []  # per layer: what produced its input (SOURCES)

    def conv(self, name, hw, c, out_c, kernel, stride=1, padding="SAME", groups=1, source="relu", relu=True):
        """Adds a conv on an hw=(H, W) x c input; padding 'SAME', 'VALID' or an explicit int
        (symmetric, PyTorch style). `source` is what produced the input (see SOURCES); `relu`
        whether a ReLU/ReLU6 is fused into its output. Returns the output (H, W)."""
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
        if relu:
            self.layers[-1]["relu"] = True
        self.sources.append(source)
        return oh, ow

    def fc(self, name, k, n, source="relu"):
        """A fully-connected layer (logits: never followed by a ReLU)."""
        self.layers.append(OrderedDict([("name", name), ("op", "gemm"), ("m", 1), ("n", n), ("k", k)]))
        self.sources.append(source)

    def merged(self, scheme):
        """The layers in `scheme` (SCHEMES): a layer whose input zero point differs from the
        table's default says so itself. Identical layers (everything but the name, quantization
        included) merged, first name kept, counts added."""
        defaults, input_zero_point_nonzero = SCHEMES[scheme]
        by_key = OrderedDict()
        for layer, source in zip(self.layers, self.sources):
            azp = input_zero_point_nonzero(source)
            if azp != defaults["a_zero_point_nonzero"]:
                layer = OrderedDict(layer)
                layer["a_zero_point_nonzero"] = azp
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
    # Every convolution but the first reads ReLU outputs (slim's conv2d default), through the
    # pools and concatenations of the Mixed blocks; the logits read the average pool of Mixed_7c.
    hw = n.conv("Conv2d_1a_3x3", (299, 299), 3, 32, (3, 3), 2, "VALID", source="image")
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
    n.conv("Logits/Conv2d_1c_1x1", (1, 1), c, 1001, (1, 1), 1, "VALID", relu=False)
    return n


def mobilenet_v2():
    """TF-slim mobilenet_v2 1.0 (nets/mobilenet/mobilenet_v2.py, V2_DEF), 224x224 input, as in the
    quantized TFLite model mobilenet_v2_1.0_224_quant: every conv 'SAME' (so stride-2 layers on an
    even input pad 0 above/left and 1 below/right), inverted residual blocks expanded_conv[_i] of
    expand 1x1 (absent in the first block), depthwise 3x3, project 1x1, then Conv_1 (1x1 -> 1280)
    and Logits/Conv2d_1c_1x1 (1x1 conv -> 1001 classes) after the global average pool."""
    n = Net()
    # Sources: expand (and Conv_1) read a block's linear output (the projection, or the residual
    # sum); depthwise and project read ReLU6 outputs; the logits read the pooled Conv_1 (ReLU6).
    # Every convolution but the projections (linear bottlenecks) and the logits has a fused ReLU6.
    hw = n.conv("Conv", (224, 224), 3, 32, (3, 3), 2, source="image")
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
                n.conv(f"{name}/expand", hw, c, expanded, (1, 1), source="linear")
            out = n.conv(f"{name}/depthwise", hw, expanded, expanded, (3, 3), stride, groups=expanded)
            hw = out
            n.conv(f"{name}/project", hw, expanded, out_c, (1, 1), relu=False)
            c = out_c
            index += 1
    n.conv("Conv_1", hw, c, 1280, (1, 1), source="linear")
    n.conv("Logits/Conv2d_1c_1x1", (1, 1), 1280, 1001, (1, 1), relu=False)
    return n


def resnet50():
    """torchvision resnet50 (ResNet-50 v1.5: the stride of a downsampling bottleneck is on its 3x3
    conv), 224x224 input, as quantized by torchvision.models.quantization.resnet50 (fbgemm/qnnpack):
    explicit symmetric PyTorch padding (7x7 stem pad 3, 3x3 pad 1, 1x1 pad 0), stem 7x7/2 -> max
    pool 3x3/2 pad 1 -> layer1..4 with [3, 4, 6, 3] bottlenecks of widths 64..512 (expansion 4),
    the first block of each layer with a 1x1 downsample projection, then the 2048 -> 1000 fc."""
    n = Net()
    # Every layer but the stem reads a ReLU output: a bottleneck's conv1 and downsample read the
    # block input (the previous block's add_relu, or the max pool of the stem's ReLU), conv2 and
    # conv3 the fused ConvReLU2d before them, fc the average pool of the last add_relu. The stem,
    # conv1 and conv2 are ConvReLU2d (ReLU fused); conv3 and the downsample are plain convolutions
    # whose sum the block's add_relu takes.
    hw = n.conv("conv1", (224, 224), 3, 64, (7, 7), 2, 3, source="image")
    hw = (valid_out(hw[0] + 2, 3, 2), valid_out(hw[1] + 2, 3, 2))  # maxpool 3x3/2 pad 1: 112 -> 56
    c = 64
    for layer, (width, blocks, stride) in enumerate(((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)), start=1):
        for b in range(blocks):
            s = stride if b == 0 else 1
            prefix = f"layer{layer}.{b}"
            n.conv(f"{prefix}.conv1", hw, c, width, (1, 1), 1, 0)
            out = n.conv(f"{prefix}.conv2", hw, width, width, (3, 3), s, 1)
            n.conv(f"{prefix}.conv3", out, width, width * 4, (1, 1), 1, 0, relu=False)
            if b == 0:
                n.conv(f"{prefix}.downsample.0", hw, c, width * 4, (1, 1), s, 0, relu=False)
            hw, c = out, width * 4
    n.fc("fc", c, 1000)
    return n


# What produces a layer's input; it decides the activation zero point under each scheme.
SOURCES = ("image", "relu", "linear")


def _zero_unless_after_relu(source):
    """uint8 with an affine zero point: a ReLU/ReLU6 output has min 0, so its zero point is 0
    (TF's nudged fake-quant and PyTorch's observers both put 0 on q = 0); the image and linear
    outputs (projections, residual sums) span negative values and get a non-zero one."""
    assert source in SOURCES, source
    return source != "relu"


def _always_nonzero(source):
    """int8 with an affine zero point: a ReLU output [0, max] maps 0 to -128, and the others are
    asymmetric too, so no layer reads activations with a zero zero point."""
    assert source in SOURCES, source
    return True


def _defaults(a_type, out_type, a_zp_after_relu, b_zp, per_channel, rounding):
    return OrderedDict([("a_type", a_type), ("out_type", out_type), ("a_zero_point_nonzero", a_zp_after_relu),
                        ("b_zero_point_nonzero", b_zp), ("per_channel", per_channel), ("rounding", rounding),
                        ("threads", 1)])


# The quantization schemes of the deployed models (workloads/README.md says where each comes
# from): the table's defaults (with the zero point of a layer reading a ReLU output, the common
# case) and the activation zero point of each input source. Every table is one thread.
SCHEMES = {
    # TFLite uint8 (quantization-aware training, TOCO): u8 activations in and out, u8 weights with
    # one scale and one zero point per tensor, held as s8 weights with the zero point shifted by
    # -128 (non-zero), gemmlowp's two-step rounding.
    "tflite_uint8": (_defaults("u8", "u8", False, True, False, "tflite"), _zero_unless_after_relu),
    # TFLite full-integer int8 (post-training, TFLiteConverter with Optimize.DEFAULT and int8 in
    # and out): s8 activations in and out, symmetric per-channel s8 weights, gemmlowp rounding.
    "tflite_int8": (_defaults("s8", "s8", True, False, True, "tflite"), _always_nonzero),
    # PyTorch eager-mode quantization with the fbgemm qconfig: u8 activations in and out,
    # symmetric per-channel s8 weights (zero point 0), requantized with a float multiplier and
    # round-half-to-even (qtune's fp32).
    "fbgemm": (_defaults("u8", "u8", False, False, True, "fp32"), _zero_unless_after_relu),
}

# Each table: (architecture, scheme, description).
TABLES = {
    "inception_v3": (inception_v3, "tflite_uint8",
                     "InceptionV3 (TF-slim, 299x299) as TFLite inception_v3_quant (uint8): every convolution and "
                     "the logits layer; auxiliary head excluded (training only)."),
    "inception_v3_int8": (inception_v3, "tflite_int8",
                          "InceptionV3 (TF-slim, 299x299) as a TFLite full-integer int8 model: every convolution "
                          "and the logits layer; auxiliary head excluded (training only)."),
    "mobilenet_v2": (mobilenet_v2, "tflite_uint8",
                     "MobileNetV2 1.0 (TF-slim, 224x224) as TFLite mobilenet_v2_1.0_224_quant (uint8): every "
                     "convolution (depthwise included) and the logits layer."),
    "mobilenet_v2_int8": (mobilenet_v2, "tflite_int8",
                          "MobileNetV2 1.0 (TF-slim, 224x224) as a TFLite full-integer int8 model: every "
                          "convolution (depthwise included) and the logits layer."),
    "resnet50": (resnet50, "fbgemm",
                 "ResNet-50 v1.5 (torchvision, 224x224) as torchvision.models.quantization.resnet50 (fbgemm): "
                 "every convolution (downsample projections included) and the fully-connected layer."),
}


def write_network(name, out_dir):
    builder, scheme, description = TABLES[name]
    net = builder()
    doc = OrderedDict([("format", FORMAT), ("network", name), ("description", description),
                       ("defaults", SCHEMES[scheme][0]), ("layers", net.merged(scheme))])
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
    print(f"{path}: {scheme}, {len(doc['layers'])} distinct layers, {total} in the network")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(here, "..", "workloads"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in TABLES:
        write_network(name, args.out)


if __name__ == "__main__":
    main()
