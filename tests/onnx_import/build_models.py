#!/usr/bin/python3
"""Quantized ONNX models for qtune's tests, built with python3-onnx (Debian's: run /usr/bin/python3).

  build_models.py table WORKLOADS.json OUT.onnx --form qoperator|qdq
      every layer of a qtune workload table (each repeated `count` times, the copies named
      NAME#2, NAME#3, ...), one graph input and output per layer, random weights
  build_models.py cnn OUT.onnx --form qoperator|qdq [--seed S] [--dynamic-batch] [--power-of-two] [--clip LO,HI]
      a small CNN chained as deployed models are: 3x3/2 conv + ReLU, depthwise 3x3 + ReLU6,
      1x1 project, 1x1 expand + ReLU, global average pool, fully connected (QDQ: a Gemm with transB
      and an int32 bias); every layer's output is a graph output too (so a runner can compare each
      layer)
  build_models.py bad KIND OUT.onnx
      a model that must be refused: opset, weights-size, scale-zero, scale-nan, zero-point-type
"""
import argparse
import json
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13  # per-axis DequantizeLinear (13) and everything qtune reads


class Graph:
    def __init__(self, form, rng, power_of_two=False):
        self.form, self.rng, self.power_of_two = form, rng, power_of_two
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weights(self, shape, per_channel, wtype=np.int8, zero_points=False):
        w = self.rng.integers(-127 if wtype == np.int8 else 0, 128 if wtype == np.int8 else 256, size=shape).astype(wtype)
        channels = shape[0]
        scales = (self.rng.uniform(0.002, 0.02, size=channels) if per_channel else np.array(0.01)).astype(np.float32)
        if self.power_of_two:  # requantization scales 2^-k: many products end in exactly .5
            scales = np.exp2(np.round(np.log2(scales))).astype(np.float32)
        if zero_points:
            zps = self.rng.integers(-3, 4, size=channels if per_channel else None)
        else:
            zps = np.zeros(channels if per_channel else (), dtype=np.int64)
        return w, scales, np.asarray(zps).astype(wtype)

    def layer(self, op, name, x, x_scale, x_zp, out, w, w_scales, w_zps, y_scale, y_zp, bias, attrs, relu=None,
              w_axis=0, clip=(0, 6)):
        """QLinearConv / QLinearMatMul, or DequantizeLinear -> Conv / MatMul / Gemm -> [Relu|Clip] -> QuantizeLinear
        (op "conv", "gemm": B is K x N, or "gemm_t": a Gemm with transB = 1, B is N x K; relu "relu6" is a
        Clip with the bounds `clip`)."""
        xs, xz = self.const(name + "_x_scale", np.float32(x_scale)), self.const(name + "_x_zp", x_zp)
        ws, wz = self.const(name + "_w_scale", w_scales), self.const(name + "_w_zp", w_zps)
        ys, yz = self.const(name + "_y_scale", np.float32(y_scale)), self.const(name + "_y_zp", y_zp)
        wq = self.const(name + "_w", w)
        if self.form == "qoperator":
            assert relu is None, "the QOperator form has its activations folded into the output range"
            if op == "conv":
                inputs = [x, xs, xz, wq, ws, wz, ys, yz] + ([self.const(name + "_b", bias)] if bias is not None else [])
                self.nodes.append(helper.make_node("QLinearConv", inputs, [out], name=name, **attrs))
            else:
                self.nodes.append(helper.make_node("QLinearMatMul", [x, xs, xz, wq, ws, wz, ys, yz], [out], name=name))
            return
        self.nodes.append(helper.make_node("DequantizeLinear", [x, xs, xz], [name + "_xf"], name=name + "_dq_x"))
        self.nodes.append(helper.make_node("DequantizeLinear", [wq, ws, wz], [name + "_wf"], name=name + "_dq_w", axis=w_axis))
        inputs = [name + "_xf", name + "_wf"]
        if bias is not None:
            bs = self.const(name + "_b_scale", (np.float32(x_scale) * w_scales).astype(np.float32))
            bz = self.const(name + "_b_zp", np.zeros(bias.shape, dtype=np.int32))
            self.nodes.append(helper.make_node("DequantizeLinear", [self.const(name + "_b", bias), bs, bz], [name + "_bf"],
                                               name=name + "_dq_b", axis=0))
            inputs.append(name + "_bf")
        y = name + "_yf"
        onnx_op = {"conv": "Conv", "gemm": "MatMul", "gemm_t": "Gemm"}[op]
        if op == "gemm_t":
            attrs = dict(attrs, transB=1)
        self.nodes.append(helper.make_node(onnx_op, inputs, [y], name=name, **attrs))
        if relu == "relu":
            self.nodes.append(helper.make_node("Relu", [y], [name + "_relu"], name=name + "_relu"))
            y = name + "_relu"
        elif relu == "relu6":
            lo, hi = (self.const(name + "_clip_" + end, np.float32(v)) for end, v in zip(("lo", "hi"), clip))
            self.nodes.append(helper.make_node("Clip", [y, lo, hi], [name + "_clip"], name=name + "_clip"))
            y = name + "_clip"
        self.nodes.append(helper.make_node("QuantizeLinear", [y, ys, yz], [out], name=name + "_q"))

    def model(self, name, opset=OPSET):
        graph = helper.make_graph(self.nodes, name, self.inputs, self.outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="qtune tests")
        model.ir_version = 7  # onnxruntime and Debian's onnx 1.12 both read it
        return model


def table(args):
    doc = json.load(open(args.workloads))
    defaults = doc.get("defaults", {})
    g = Graph(args.form, np.random.default_rng(1))
    np_type = {"u8": (np.uint8, TensorProto.UINT8), "s8": (np.int8, TensorProto.INT8)}
    for layer in doc["layers"]:
        q = dict(defaults, **{k: v for k, v in layer.items() if k in defaults or k.endswith("nonzero") or k == "relu"})
        a_np, a_onnx = np_type[q.get("a_type", "u8")]
        y_np, y_onnx = np_type[q.get("out_type", "u8")]
        x_zp = a_np(3 if q.get("a_zero_point_nonzero", True) else 0)
        # A fused ReLU: the output range starts at its zero point (the bottom of the type's range).
        y_zp = y_np(np.iinfo(y_np).min if q.get("relu", False) else 5)
        per_channel = q.get("per_channel", True)
        for copy in range(layer.get("count", 1)):
            name = layer["name"] if copy == 0 else "%s#%d" % (layer["name"], copy + 1)
            x, out = name + "_in", name + "_out"
            if layer["op"] == "conv2d":
                n, h, w_, c = layer["input"]
                groups = layer.get("groups", 1)
                kh, kw = layer["kernel"]
                w, ws, wz = g.weights((layer["out_c"], c // groups, kh, kw), per_channel,
                                      zero_points=q.get("b_zero_point_nonzero", False))
                t, b, l, r = layer.get("pad", [0, 0, 0, 0])
                attrs = dict(strides=layer.get("stride", [1, 1]), dilations=layer.get("dilation", [1, 1]),
                             pads=[t, l, b, r], group=groups, kernel_shape=[kh, kw])
                bias = g.rng.integers(-1000, 1000, size=layer["out_c"]).astype(np.int32)
                g.inputs.append(helper.make_tensor_value_info(x, a_onnx, [n, c, h, w_]))
                g.layer("conv", name, x, 0.05, x_zp, out, w, ws, wz, 0.1, y_zp, bias, attrs)
            else:
                w, ws, wz = g.weights((layer["n"], layer["k"]), per_channel,
                                      zero_points=q.get("b_zero_point_nonzero", False))
                g.inputs.append(helper.make_tensor_value_info(x, a_onnx, [layer["m"], layer["k"]]))
                g.layer("gemm", name, x, 0.05, x_zp, out, np.ascontiguousarray(w.T), ws, wz, 0.1, y_zp, None, {},
                        w_axis=1)
            g.outputs.append(helper.make_tensor_value_info(out, y_onnx, None))
    onnx.save(g.model(doc["network"]), args.out)


def cnn(args):
    """Input 1x3x32x32 u8 -> 16x16x16 -> dw 16x16x16 -> 8 -> 48 -> pool -> fc 10, s8 weights per channel."""
    g = Graph(args.form, np.random.default_rng(args.seed), args.power_of_two)
    u8 = np.uint8
    batch = "N" if args.dynamic_batch else 1
    g.inputs.append(helper.make_tensor_value_info("image", TensorProto.UINT8, [batch, 3, 32, 32]))
    # (name, out_c, in_c per group, kernel, stride, pad, group, activation, output zero point)
    layers = [("stem", 16, 3, 3, 2, [1, 1, 1, 1], 1, "relu", 0),
              ("dw", 16, 1, 3, 1, [1, 1, 1, 1], 16, "relu6", 0),
              ("project", 8, 16, 1, 1, [0, 0, 0, 0], 1, None, 128),
              ("expand", 48, 8, 1, 1, [0, 0, 0, 0], 1, "relu", 0)]
    x, x_scale, x_zp = "image", (0.015625 if args.power_of_two else 0.02), u8(128)
    for name, oc, ic, k, s, pads, group, act, y_zp in layers:
        w, ws, wz = g.weights((oc, ic, k, k), True)
        bias = g.rng.integers(-2000, 2000, size=oc).astype(np.int32)
        y_scale = float(g.rng.uniform(0.03, 0.06))
        if args.power_of_two:
            y_scale = 2.0 ** round(np.log2(y_scale))
        # The QOperator form has no activation nodes: the output range carries them (ReLU: zero point 0).
        g.layer("conv", name, x, x_scale, x_zp, name + "_out", w, ws, wz, y_scale, u8(y_zp), bias,
                dict(kernel_shape=[k, k], strides=[s, s], pads=pads, group=group),
                relu=act if args.form == "qdq" else None, clip=args.clip)
        g.outputs.append(helper.make_tensor_value_info(name + "_out", TensorProto.UINT8, None))
        x, x_scale, x_zp = name + "_out", y_scale, u8(y_zp)
    # Global average pool on the quantized tensor (skipped by qtune), flattened for the FC.
    g.nodes.append(helper.make_node("DequantizeLinear", [x, g.const("pool_x_scale", np.float32(x_scale)),
                                                         g.const("pool_x_zp", x_zp)], ["pool_xf"], name="pool_dq"))
    g.nodes.append(helper.make_node("GlobalAveragePool", ["pool_xf"], ["pool_f"], name="pool"))
    g.nodes.append(helper.make_node("Flatten", ["pool_f"], ["flat_f"], name="flatten"))
    g.nodes.append(helper.make_node("QuantizeLinear", ["flat_f", g.const("flat_scale", np.float32(x_scale)),
                                                       g.const("flat_zp", x_zp)], ["flat"], name="flat_q"))
    g.outputs.append(helper.make_tensor_value_info("flat", TensorProto.UINT8, None))
    w, ws, wz = g.weights((10, 48), True)
    if args.form == "qdq":  # a Gemm with transB and an int32 bias, as onnxruntime's quantizer writes an FC
        bias = g.rng.integers(-2000, 2000, size=10).astype(np.int32)
        g.layer("gemm_t", "fc", "flat", x_scale, x_zp, "fc_out", w, ws, wz, 0.25, u8(128), bias, {}, w_axis=0)
    else:
        g.layer("gemm", "fc", "flat", x_scale, x_zp, "fc_out", np.ascontiguousarray(w.T), ws, wz, 0.25, u8(128), None,
                {}, w_axis=1)
    g.outputs.append(helper.make_tensor_value_info("fc_out", TensorProto.UINT8, None))
    onnx.save(g.model("small_cnn"), args.out)


def bad(args):
    g = Graph("qoperator", np.random.default_rng(2))
    g.inputs.append(helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 4, 8, 8]))
    w, ws, wz = g.weights((8, 4, 3, 3), True)
    x_zp, x_scale = np.uint8(2), 0.05
    if args.kind == "scale-zero":
        ws[3] = 0
    elif args.kind == "scale-nan":
        x_scale = float("nan")
    elif args.kind == "zero-point-type":
        x_zp = np.int8(2)
    g.layer("conv", "conv1", "x", x_scale, x_zp, "y", w, ws, wz, 0.1, np.uint8(0), None,
            dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
    g.outputs.append(helper.make_tensor_value_info("y", TensorProto.UINT8, None))
    model = g.model("bad", opset=9 if args.kind == "opset" else OPSET)
    if args.kind == "weights-size":
        for tensor in model.graph.initializer:
            if tensor.name == "conv1_w":
                tensor.raw_data = tensor.raw_data[:-5]
    onnx.save(model, args.out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("table")
    p.add_argument("workloads")
    p.add_argument("out")
    p.add_argument("--form", choices=["qoperator", "qdq"], required=True)
    p.set_defaults(run=table)
    p = sub.add_parser("cnn")
    p.add_argument("out")
    p.add_argument("--form", choices=["qoperator", "qdq"], required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--dynamic-batch", action="store_true", help="the image's batch dimension is the parameter N")
    p.add_argument("--power-of-two", action="store_true",
                   help="every scale a power of two, so that rounding ties occur (half to even is checked)")
    p.add_argument("--clip", type=lambda text: tuple(float(v) for v in text.split(",")), default=(0, 6),
                   metavar="LO,HI", help="the depthwise layer's Clip bounds (QDQ form; default 0,6)")
    p.set_defaults(run=cnn)
    p = sub.add_parser("bad")
    p.add_argument("kind", choices=["opset", "weights-size", "scale-zero", "scale-nan", "zero-point-type"])
    p.add_argument("out")
    p.set_defaults(run=bad)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    sys.exit(main())
