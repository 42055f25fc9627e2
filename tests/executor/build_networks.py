#!/usr/bin/python3
"""Whole quantized ONNX networks and edge-case models for qtune's executor tests and benchmarks, built
with python3-onnx (Debian's: run /usr/bin/python3). Every model takes float input(s), quantizes them
inside the graph and is meant to be run by onnxruntime (run_onnxruntime.js) for a reference.

  build_networks.py network NAME OUT.onnx --form qoperator|qdq [--seed S] [--intermediates] [--image H]
      NAME: mobilenet_v2 (TF-slim, 224), resnet50 (torchvision v1.5, 224), inception_v3 (TF-slim, 299):
      the real topology with the convolutions of workloads/NAME.json (MobileNetV2's inverted residuals
      and their adds, ResNet-50's bottlenecks with downsample branches and add + ReLU, InceptionV3's
      stem, Mixed blocks, pools and concats), random weights, then global average pool -> flatten ->
      fully connected 1000 -> "logits" (float) -> Softmax -> "probabilities". Input float32 "input"
      [1,3,H,H]; --image H overrides the size (InceptionV3 needs H >= 75). --intermediates makes every
      quantized activation a graph output too (QDQ: the outputs of QuantizeLinear nodes only).
  build_networks.py edge KIND OUT.onnx [--seed S]
      a small model for one corner of the executor (see EDGES below); every quantized intermediate is
      a graph output
  build_networks.py input OUT.npy --shape 1,3,224,224 [--seed S] [--range LO,HI | --network NAME]
      a float32 random image, uniform in LO..HI (default: the range the networks' input quantization
      covers, -1..1; resnet50's is the ImageNet-normalized -2.1179..2.6400)
  build_networks.py edit MODEL.onnx OUT.onnx --op OP [--string NAME=VALUE] [--int NAME=V] [--ints NAME=V1,V2]
      the model with attributes of its first OP node changed (the bad-input tests of qtune's nodes)
  build_networks.py list
      the network names and the edge kinds, one per line

Forms, as onnxruntime's quantizer writes them (opset 13; com.microsoft 1 for the contrib ops):
  qoperator  QuantizeLinear -> QLinearConv (activations folded into the output range) -> QLinearAdd,
             MaxPool on u8, QLinearAveragePool, QLinearConcat, QLinearGlobalAveragePool, Flatten,
             QGemm (QLinearMatMul in inception_v3) -> DequantizeLinear -> logits
  qdq        QuantizeLinear / DequantizeLinear around float ops: int8 per-channel weights (axis 0),
             int32 biases, Conv -> Relu|Clip -> QuantizeLinear, Add [-> Relu], MaxPool, AveragePool,
             GlobalAveragePool, Concat, Flatten, Gemm (transB=1; MatMul in inception_v3)
Activations are u8 (the s8_activations edge: s8) with scales and zero points calibrated as a min/max
quantizer does on one random input propagated through a numpy emulation of the quantized graph;
weights are He-like, then scaled per channel (a folded batch norm fitted to the calibration input) so
that activations neither blow up nor vanish. Fixed seeds: the same arguments give the same bytes.
"""
import argparse
import sys

import numpy as np
import onnx
from numpy.lib.stride_tricks import sliding_window_view
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
MS = "com.microsoft"
NETWORKS = {"mobilenet_v2": 224, "resnet50": 224, "inception_v3": 299}
INPUT_RANGE = {"mobilenet_v2": (-1.0, 1.0), "resnet50": (-2.1179, 2.6400), "inception_v3": (-1.0, 1.0)}
ONNX_TYPE = {np.uint8: TensorProto.UINT8, np.int8: TensorProto.INT8}


def stable(x):
    """x rounded to 5 significant digits, so that the last bits of a BLAS sum cannot change the model's bytes."""
    return np.float32(float("%.5g" % float(x)))


# ---------------------------------------------------------------------------------------------
# numpy emulation (NCHW, batch 1)

def pad_nchw(x, pads, value=0.0):  # pads in ONNX order: top, left, bottom, right
    return np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])), constant_values=value)


def conv_f(x, w, stride, pads, group):
    xp = pad_nchw(x, pads)[0]
    o, cg, kh, kw = w.shape
    c, hp, wp = xp.shape
    ho, wo = (hp - kh) // stride + 1, (wp - kw) // stride + 1
    if group == c and cg == 1 and o == c:  # depthwise: one shifted multiply-add per tap
        y = np.zeros((o, ho, wo), np.float32)
        for i in range(kh):
            for j in range(kw):
                y += xp[:, i:i + stride * (ho - 1) + 1:stride, j:j + stride * (wo - 1) + 1:stride] * w[:, 0, i, j, None, None]
        return y[None]
    outs = []
    for g in range(group):
        xg, wg = xp[g * cg:(g + 1) * cg], w[g * (o // group):(g + 1) * (o // group)]
        if kh == kw == 1:
            cols = xg[:, ::stride, ::stride][:, :ho, :wo].reshape(cg, -1)
        else:
            win = sliding_window_view(xg, (kh, kw), axis=(1, 2))[:, ::stride, ::stride][:, :ho, :wo]
            cols = win.transpose(0, 3, 4, 1, 2).reshape(cg * kh * kw, ho * wo)
        outs.append(wg.reshape(wg.shape[0], -1) @ cols)
    return np.concatenate(outs).reshape(1, o, ho, wo)


def pool_out(n, k, s, pb, pe, ceil):
    v = (n + pb + pe - k) / s
    o = (int(np.ceil(v)) if ceil else int(np.floor(v))) + 1
    if ceil and (o - 1) * s >= n + pb:  # the last window must start inside the input or its head pad
        o -= 1
    return o


def pool_f(x, kind, k, s, pads, ceil=0, count_include_pad=0):
    _, c, h, w = x.shape
    ho, wo = pool_out(h, k[0], s[0], pads[0], pads[2], ceil), pool_out(w, k[1], s[1], pads[1], pads[3], ceil)
    extra_h = max((ho - 1) * s[0] + k[0] - (h + pads[0] + pads[2]), 0)
    extra_w = max((wo - 1) * s[1] + k[1] - (w + pads[1] + pads[3]), 0)
    full = [pads[0], pads[1], pads[2] + extra_h, pads[3] + extra_w]
    if kind == "max":
        win = sliding_window_view(pad_nchw(x, full, -np.inf)[0], k, axis=(1, 2))[:, ::s[0], ::s[1]][:, :ho, :wo]
        return win.max(axis=(3, 4))[None].astype(np.float32)
    win = sliding_window_view(pad_nchw(x, full)[0], k, axis=(1, 2))[:, ::s[0], ::s[1]][:, :ho, :wo]
    if count_include_pad:  # onnxruntime 1.30 divides by the whole kernel, the ceil overhang included
        cnt = np.float32(k[0] * k[1])
    else:
        mask = pad_nchw(np.ones((1, 1, h, w), np.float32), full)
        cnt = sliding_window_view(mask[0], k, axis=(1, 2))[:, ::s[0], ::s[1]][:, :ho, :wo].sum(axis=(3, 4))
    return (win.sum(axis=(3, 4)) / cnt)[None].astype(np.float32)


def same_pads(n, k, s):
    """TensorFlow SAME padding made explicit (head, tail)."""
    out = -(-n // s)
    total = max((out - 1) * s + k - n, 0)
    return total // 2, total - total // 2


# ---------------------------------------------------------------------------------------------
# graph builder: every op emits its nodes in the current form and emulates its quantized output

class Q:
    def __init__(self, value, scale, zp, qtype):
        self.value, self.scale, self.zp, self.qtype = value, scale, zp, qtype


class Builder:
    def __init__(self, form, seed, qtype=np.uint8, expose=True):
        self.form, self.seed, self.qtype, self.expose = form, seed, qtype, expose
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.t = {}  # quantized tensor name -> Q
        self.init_names = set()
        self.uses_ms = False

    def reseed(self, form):
        """Switch to `form` and restart the random numbers, so that the parts of an edge model built in
        each form get the same weights and quantization parameters."""
        self.form, self.rng = form, np.random.default_rng([self.seed, 1])
        return "qop/" if form == "qoperator" else "qdq/"

    # -- plumbing
    def const(self, name, array):
        assert name not in self.init_names, name
        self.init_names.add(name)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, outputs, name, domain=None, **attrs):
        if domain == MS:
            self.uses_ms = True
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, domain=domain, **attrs))

    def qparams(self, name):
        """The shared scale and zero point initializers of quantized tensor `name`."""
        s, z = name + "_scale", name + "_zero_point"
        if s not in self.init_names:
            q = self.t[name]
            self.const(s, np.float32(q.scale))
            self.const(z, q.qtype(q.zp))
        return s, z

    @staticmethod
    def calibrate(lo, hi, qtype):
        """onnxruntime's compute_scale_zp (asymmetric): the range widened to hold 0."""
        info = np.iinfo(qtype)
        lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
        if hi - lo < 1e-6:
            return np.float32(1.0), 0 if qtype == np.int8 else 0
        scale = np.float32((hi - lo) / (info.max - info.min))
        zp = int(np.clip(np.round(info.min - lo / float(scale)), info.min, info.max))
        return scale, zp

    @staticmethod
    def fake_quant(value, scale, zp, qtype):
        info = np.iinfo(qtype)
        q = np.clip(np.round(value.astype(np.float32) / np.float32(scale)) + zp, info.min, info.max)
        return ((q - zp) * np.float32(scale)).astype(np.float32)

    def record(self, name, value, scale=None, zp=None, qtype=None, lo=None, hi=None):
        """Quantized tensor `name` holds `value` (float emulation); calibrate unless scale/zp given."""
        qtype = qtype or self.qtype
        if scale is None:
            lo = stable(value.min()) if lo is None else lo
            hi = stable(value.max()) if hi is None else hi
            scale, zp = self.calibrate(lo, hi, qtype)
        self.t[name] = Q(self.fake_quant(value, scale, zp, qtype), np.float32(scale), int(zp), qtype)
        if self.expose:
            self.outputs.append(helper.make_tensor_value_info(name, ONNX_TYPE[qtype], list(value.shape)))
        return name

    def dq(self, x, consumer, suffix="x"):
        """DequantizeLinear of x for one consumer (one DQ per consumer, as onnxruntime's quantizer writes)."""
        s, z = self.qparams(x)
        out = "%s/%s_dq" % (consumer, suffix)
        self.node("DequantizeLinear", [x, s, z], [out], out)
        return out

    def q(self, y, out):
        s, z = self.qparams(out)
        self.node("QuantizeLinear", [y, s, z], [out], out + "/q")
        return out

    # -- inputs
    def quantize_input(self, name, shape, lo, hi, out, qtype=None):
        qtype = qtype or self.qtype
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape)))
        value = self.rng.uniform(lo, hi, size=shape).astype(np.float32)
        self.record(out, value, *self.calibrate(lo, hi, qtype), qtype=qtype)  # the calibration set's full range
        self.q(name, out)
        return out

    # -- weights
    def weights(self, shape):
        fan_in = int(np.prod(shape[1:]))
        return self.rng.normal(0, np.sqrt(2.0 / fan_in), size=shape).astype(np.float32)

    def fold_norm(self, y0, act):
        """Per-channel scale and shift (a folded batch norm) so that y0 * s + b has a healthy spread."""
        c = y0.shape[1]
        flat = y0.reshape(c, -1).astype(np.float64)
        if flat.shape[1] >= 64:
            mean, std = flat.mean(axis=1), flat.std(axis=1)
        else:  # too few positions (a 1x1 map, an FC) for per-channel statistics: the whole tensor's
            mean, std = np.full(c, flat.mean()), np.full(c, flat.std())
        std = np.maximum(std, 1e-3)
        if act == "relu6":
            gamma, beta = self.rng.uniform(1.0, 3.0, c), self.rng.normal(0.8, 1.0, c)
        elif act == "relu":
            gamma, beta = self.rng.uniform(0.5, 1.5, c), self.rng.normal(0.2, 0.5, c)
        elif act == "logits":
            gamma, beta = np.full(c, 2.5), self.rng.normal(0.0, 0.5, c)
        else:
            gamma, beta = self.rng.uniform(0.5, 1.5, c), self.rng.normal(0.0, 0.3, c)
        s = np.array([stable(v) for v in gamma / std], np.float32)
        b = np.array([stable(v) for v in beta - mean * gamma / std], np.float32)
        return s, b

    @staticmethod
    def quantize_weights(w, wtype=np.int8, per_channel=True, rng=None):
        """Symmetric int8 per output channel (the default), or u8 / per-tensor with a zero point."""
        o = w.shape[0]
        flat = w.reshape(o, -1)
        if wtype == np.int8:
            absmax = np.abs(flat).max(axis=1) if per_channel else np.full(o, np.abs(flat).max())
            scales = np.array([stable(v) for v in np.maximum(absmax, 1e-8) / 127.0], np.float32)
            zps = np.zeros(o, np.int8)
        else:  # u8, asymmetric per tensor
            lo, hi = min(float(flat.min()), 0.0), max(float(flat.max()), 0.0)
            scales = np.full(o, stable((hi - lo) / 255.0), np.float32)
            zps = np.full(o, int(np.clip(np.round(-lo / float(scales[0])), 0, 255)), np.uint8)
        info = np.iinfo(wtype)
        wq = np.clip(np.round(flat / scales[:, None]) + zps[:, None].astype(np.int32), info.min, info.max)
        wq = wq.astype(wtype).reshape(w.shape)
        if not per_channel:
            scales, zps = scales[:1].reshape(()), zps[:1].reshape(())
        return wq, scales, zps

    # -- ops
    def conv(self, name, x, out_c, k, stride=1, pads=(0, 0, 0, 0), group=1, act=None, wtype=np.int8,
             per_channel=True, out_range=None, float_bias=False, out_qtype=None):
        """Conv + folded batch norm + activation (None, relu, relu6). out_range fixes the output range."""
        xq = self.t[x]
        k = (k, k) if isinstance(k, int) else tuple(k)
        in_c = xq.value.shape[1]
        w0 = self.weights((out_c, in_c // group) + k)
        y0 = conv_f(xq.value, w0, stride, pads, group)
        s, b = self.fold_norm(y0, act)
        w = w0 * s[:, None, None, None]
        wq, ws, wz = self.quantize_weights(w, wtype, per_channel)
        wdq = (wq.astype(np.float32) - np.asarray(wz, np.float32).reshape(-1, 1, 1, 1)) * \
            np.asarray(ws, np.float32).reshape(-1, 1, 1, 1)
        bscale = (np.float32(xq.scale) * np.broadcast_to(ws, (out_c,))).astype(np.float32)
        bq = np.clip(np.round(b / bscale), -2 ** 31, 2 ** 31 - 1).astype(np.int32)
        y = conv_f(xq.value, wdq.astype(np.float32), stride, pads, group) + \
            (b if float_bias else bq * bscale)[None, :, None, None]
        lo = hi = None
        if act in ("relu", "relu6"):
            y = np.maximum(y, 0)
        if act == "relu6":
            y = np.minimum(y, 6)
            hi = min(stable(y.max()), np.float32(6))
        if out_range is not None:
            lo, hi = out_range
        qtype = out_qtype or self.qtype
        lo_, hi_ = (stable(y.min()) if lo is None else lo), (stable(y.max()) if hi is None else hi)
        scale, zp = self.calibrate(lo_, hi_, qtype)
        if act == "relu6" and out_range is None:
            # onnxruntime drops Clip(0, 6) before the QuantizeLinear only if the quantized range ends within 6
            while np.float32(np.float32(scale) * np.float32(np.iinfo(qtype).max - zp)) > np.float32(6):
                scale = np.nextafter(np.float32(scale), np.float32(0))
        self.record(name, y, scale, zp, qtype)
        attrs = dict(kernel_shape=list(k), strides=[stride, stride], pads=list(pads), group=group)
        wn = self.const(name + "/weight", wq)
        wsn, wzn = self.const(name + "/weight_scale", ws), self.const(name + "/weight_zero_point", wz)
        if self.form == "qoperator":
            xs, xz = self.qparams(x)
            ys, yz = self.qparams(name)
            self.node("QLinearConv", [x, xs, xz, wn, wsn, wzn, ys, yz, self.const(name + "/bias", bq)], [name],
                      name, **attrs)
            return name
        ins = [self.dq(x, name)]
        wf = name + "/weight_dq"
        self.node("DequantizeLinear", [wn, wsn, wzn], [wf], wf, **({"axis": 0} if np.ndim(ws) else {}))
        ins.append(wf)
        if float_bias:  # as PyTorch-style exporters write it: a float initializer
            ins.append(self.const(name + "/bias", b.astype(np.float32)))
        else:
            bf = name + "/bias_dq"
            self.node("DequantizeLinear", [self.const(name + "/bias", bq), self.const(name + "/bias_scale", bscale),
                                           self.const(name + "/bias_zero_point", np.zeros(out_c, np.int32))],
                      [bf], bf, axis=0)
            ins.append(bf)
        yf = name + "/conv"
        self.node("Conv", ins, [yf], yf, **attrs)
        yf = self.activation(name, yf, act)
        return self.q(yf, name)

    def activation(self, name, yf, act, clip=(0.0, 6.0)):
        if act == "relu":
            self.node("Relu", [yf], [name + "/relu"], name + "/relu")
            return name + "/relu"
        if act in ("relu6", "clip"):
            lo, hi = self.const(name + "/clip_min", np.float32(clip[0])), self.const(name + "/clip_max", np.float32(clip[1]))
            self.node("Clip", [yf, lo, hi], [name + "/clip"], name + "/clip")
            return name + "/clip"
        return yf

    def add(self, name, a, b, relu=False, out_range=None):
        y = self.t[a].value + self.t[b].value
        if relu:
            y = np.maximum(y, 0)
        lo, hi = out_range if out_range else (None, None)
        self.record(name, y, lo=lo, hi=hi)
        if self.form == "qoperator":  # a fused ReLU is the output range starting at 0
            self.node("QLinearAdd", [a, *self.qparams(a), b, *self.qparams(b), *self.qparams(name)], [name], name,
                      domain=MS)
            return name
        fa, fb = self.dq(a, name, "a"), self.dq(b, name, "b")
        self.node("Add", [fa, fb], [name + "/add"], name + "/add")
        return self.q(self.activation(name, name + "/add", "relu" if relu else None), name)

    def same_params(self, name, x, y):
        """Record an output that keeps x's scale and zero point (max pool, views)."""
        xq = self.t[x]
        return self.record(name, y, xq.scale, xq.zp, xq.qtype)

    def maxpool(self, name, x, k, s, pads=(0, 0, 0, 0), ceil=0):
        self.same_params(name, x, pool_f(self.t[x].value, "max", (k, k), (s, s), pads, ceil))
        attrs = dict(kernel_shape=[k, k], strides=[s, s], pads=list(pads))
        if ceil:
            attrs["ceil_mode"] = 1
        if self.form == "qoperator":
            self.node("MaxPool", [x], [name], name, **attrs)
            return name
        self.node("MaxPool", [self.dq(x, name)], [name + "/pool"], name + "/pool", **attrs)
        return self.q(name + "/pool", name)

    def avgpool(self, name, x, k, s, pads=(0, 0, 0, 0), count_include_pad=1, ceil=0):
        self.record(name, pool_f(self.t[x].value, "avg", (k, k), (s, s), pads, ceil, count_include_pad))
        attrs = dict(kernel_shape=[k, k], strides=[s, s], pads=list(pads), count_include_pad=count_include_pad)
        if ceil:
            attrs["ceil_mode"] = 1
        if self.form == "qoperator":
            self.node("QLinearAveragePool", [x, *self.qparams(x), *self.qparams(name)], [name], name, domain=MS,
                      channels_last=0, **attrs)
            return name
        self.node("AveragePool", [self.dq(x, name)], [name + "/pool"], name + "/pool", **attrs)
        return self.q(name + "/pool", name)

    def global_avgpool(self, name, x):
        self.record(name, self.t[x].value.mean(axis=(2, 3), keepdims=True, dtype=np.float64).astype(np.float32))
        if self.form == "qoperator":
            self.node("QLinearGlobalAveragePool", [x, *self.qparams(x), *self.qparams(name)], [name], name, domain=MS,
                      channels_last=0)
            return name
        self.node("GlobalAveragePool", [self.dq(x, name)], [name + "/pool"], name + "/pool")
        return self.q(name + "/pool", name)

    def concat(self, name, xs, out_params=None):
        y = np.concatenate([self.t[x].value for x in xs], axis=1)
        if out_params:
            self.record(name, y, *out_params, self.t[xs[0]].qtype)
        else:
            self.record(name, y, qtype=self.t[xs[0]].qtype)
        if self.form == "qoperator":
            ins = list(self.qparams(name))
            for x in xs:
                ins += [x, *self.qparams(x)]
            self.node("QLinearConcat", ins, [name], name, domain=MS, axis=1)
            return name
        fs = [self.dq(x, name, "x%d" % i) for i, x in enumerate(xs)]
        self.node("Concat", fs, [name + "/concat"], name + "/concat", axis=1)
        return self.q(name + "/concat", name)

    def view(self, name, op, x, y, extra_inputs=(), **attrs):
        """A data-movement op on a quantized tensor: QOperator on u8 directly, QDQ between DQ and Q."""
        self.same_params(name, x, y)
        extra = list(extra_inputs)
        if self.form == "qoperator":
            self.node(op, [x] + extra, [name], name, **attrs)
            return name
        self.node(op, [self.dq(x, name)] + extra, [name + "/" + op.lower()], name + "/" + op.lower(), **attrs)
        return self.q(name + "/" + op.lower(), name)

    def flatten(self, name, x):
        v = self.t[x].value
        return self.view(name, "Flatten", x, v.reshape(v.shape[0], -1), axis=1)

    def fc(self, name, x, n, kind="gemm", out_range=None, float_out=None):
        """Fully connected on a [M, K] quantized tensor: kind gemm (QGemm / Gemm transB=1, int32 bias) or
        matmul (QLinearMatMul / MatMul, no bias). float_out: the float output's name, with no
        QuantizeLinear (QDQ only: DQ -> Gemm|MatMul [-> Add float bias] -> float_out)."""
        xq = self.t[x]
        kdim = xq.value.shape[1]
        w0 = self.weights((n, kdim))
        y0 = xq.value @ w0.T
        s, b = self.fold_norm(y0.T.reshape(1, n, -1), "logits")
        w = w0 * s[:, None]
        wq, ws, wz = self.quantize_weights(w)
        bscale = (np.float32(xq.scale) * ws).astype(np.float32)
        bq = np.round(b / bscale).astype(np.int32)
        y = xq.value @ (wq.astype(np.float32) * ws[:, None]).T
        if kind == "gemm" or float_out:
            y = y + (bq * bscale if kind == "gemm" else b)[None, :]
        if float_out is None:
            lo, hi = out_range if out_range else (None, None)
            self.record(name, y, lo=lo, hi=hi)
        if kind == "gemm":
            wn = self.const(name + "/weight", wq)  # N x K, transB = 1
            wsn, wzn = self.const(name + "/weight_scale", ws), self.const(name + "/weight_zero_point", wz)
        else:
            wn = self.const(name + "/weight", np.ascontiguousarray(wq.T))  # K x N
            wsn, wzn = self.const(name + "/weight_scale", ws), self.const(name + "/weight_zero_point", wz)
        if self.form == "qoperator":
            assert float_out is None
            if kind == "gemm":
                self.node("QGemm", [x, *self.qparams(x), wn, wsn, wzn, self.const(name + "/bias", bq),
                                    *self.qparams(name)], [name], name, domain=MS, transB=1)
            else:
                self.node("QLinearMatMul", [x, *self.qparams(x), wn, wsn, wzn, *self.qparams(name)], [name], name)
            return name
        fx, wf = self.dq(x, name), name + "/weight_dq"
        self.node("DequantizeLinear", [wn, wsn, wzn], [wf], wf, axis=0 if kind == "gemm" else 1)
        yf = float_out if float_out else name + "/" + kind
        if kind == "gemm":
            bf = name + "/bias_dq"
            self.node("DequantizeLinear", [self.const(name + "/bias", bq), self.const(name + "/bias_scale", bscale),
                                           self.const(name + "/bias_zero_point", np.zeros(n, np.int32))],
                      [bf], bf, axis=0)
            self.node("Gemm", [fx, wf, bf], [yf], name + "/gemm", transB=1)
        elif float_out:
            self.node("MatMul", [fx, wf], [name + "/matmul"], name + "/matmul")
            self.node("Add", [name + "/matmul", self.const(name + "/bias", b.astype(np.float32))], [yf], name + "/add")
        else:
            self.node("MatMul", [fx, wf], [yf], name + "/matmul")
        return yf if float_out else self.q(yf, name)

    def float_output(self, x, out, shape):
        """DequantizeLinear of quantized x as the float graph output `out`."""
        self.node("DequantizeLinear", [x, *self.qparams(x)], [out], out)
        self.outputs.append(helper.make_tensor_value_info(out, TensorProto.FLOAT, shape))
        return out

    def model(self, name):
        graph = helper.make_graph(self.nodes, name, self.inputs, self.outputs, self.inits)
        opsets = [helper.make_opsetid("", OPSET)] + ([helper.make_opsetid(MS, 1)] if self.uses_ms else [])
        model = helper.make_model(graph, opset_imports=opsets, producer_name="qtune tests")
        model.ir_version = 7  # onnxruntime and Debian's onnx 1.12 both read it
        return model


# ---------------------------------------------------------------------------------------------
# networks

def classifier(g, x, prefix, kind):
    pool = g.global_avgpool(prefix + "avgpool", x)
    flat = g.flatten(prefix + "flatten", pool)
    fc = g.fc(prefix + "fc", flat, 1000, kind)
    g.float_output(fc, "logits", [1, 1000])
    g.node("Softmax", ["logits"], ["probabilities"], "softmax", axis=-1)
    g.outputs.append(helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 1000]))


def mobilenet_v2(g, x):
    """TF-slim mobilenet_v2 (V2_DEF, depth multiplier 1): SAME padding made explicit."""
    def conv(name, x, c, k, s, group=1, act=None):
        h, w = g.t[x].value.shape[2:]
        (pt, pb), (pl, pr) = same_pads(h, k, s), same_pads(w, k, s)
        return g.conv(name, x, c, k, s, (pt, pl, pb, pr), group, act)

    x = conv("Conv", x, 32, 3, 2, act="relu6")
    blocks = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
    i = 0
    for t, c, n, s in blocks:
        for j in range(n):
            stride = s if j == 0 else 1
            prefix = "expanded_conv" + ("_%d" % i if i else "")
            in_c = g.t[x].value.shape[1]
            y = x
            if t != 1:
                y = conv(prefix + "/expand", y, in_c * t, 1, 1, act="relu6")
            y = conv(prefix + "/depthwise", y, in_c * t, 3, stride, group=in_c * t, act="relu6")
            y = conv(prefix + "/project", y, c, 1, 1)
            if stride == 1 and in_c == c:
                y = g.add(prefix + "/add", y, x)
            x = y
            i += 1
    x = conv("Conv_1", x, 1280, 1, 1, act="relu6")
    classifier(g, x, "Logits/", "gemm")


def resnet50(g, x):
    """torchvision resnet50 (v1.5: the stride of a downsampling bottleneck on its 3x3 conv)."""
    x = g.conv("conv1", x, 64, 7, 2, (3, 3, 3, 3), act="relu")
    x = g.maxpool("maxpool", x, 3, 2, (1, 1, 1, 1))
    for layer, (width, blocks, stride) in enumerate([(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)], 1):
        for b in range(blocks):
            p = "layer%d.%d." % (layer, b)
            s = stride if b == 0 else 1
            y = g.conv(p + "conv1", x, width, 1, 1, act="relu")
            y = g.conv(p + "conv2", y, width, 3, s, (1, 1, 1, 1), act="relu")
            y = g.conv(p + "conv3", y, width * 4, 1, 1)
            identity = x
            if b == 0:
                identity = g.conv(p + "downsample.0", x, width * 4, 1, s)
            x = g.add(p + "add", y, identity, relu=True)
    classifier(g, x, "", "gemm")


def inception_v3(g, x):
    """TF-slim inception_v3 (inception_v3_base + logits, no auxiliary head); avg pools as torchvision's
    (3x3, stride 1, pad 1, count_include_pad=1)."""
    def conv(name, x, c, k, s=1, valid=False):
        k = (k, k) if isinstance(k, int) else k
        ph, pw = (0, 0) if valid else ((k[0] - 1) // 2, (k[1] - 1) // 2)
        return g.conv(name, x, c, k, s, (ph, pw, ph, pw), act="relu")

    def avg(name, x):
        return g.avgpool(name, x, 3, 1, (1, 1, 1, 1), count_include_pad=1)

    x = conv("Conv2d_1a_3x3", x, 32, 3, 2, valid=True)
    x = conv("Conv2d_2a_3x3", x, 32, 3, valid=True)
    x = conv("Conv2d_2b_3x3", x, 64, 3)
    x = g.maxpool("MaxPool_3a_3x3", x, 3, 2)
    x = conv("Conv2d_3b_1x1", x, 80, 1, valid=True)
    x = conv("Conv2d_4a_3x3", x, 192, 3, valid=True)
    x = g.maxpool("MaxPool_5a_3x3", x, 3, 2)
    for m, pool_c in (("Mixed_5b", 32), ("Mixed_5c", 64), ("Mixed_5d", 64)):
        b0 = conv(m + "/Branch_0/Conv2d_0a_1x1", x, 64, 1)
        if m == "Mixed_5b":
            b1 = conv(m + "/Branch_1/Conv2d_0b_5x5", conv(m + "/Branch_1/Conv2d_0a_1x1", x, 48, 1), 64, 5)
        else:
            b1 = conv(m + "/Branch_1/Conv_1_0c_5x5", conv(m + "/Branch_1/Conv2d_0b_1x1", x, 48, 1), 64, 5)
        b2 = conv(m + "/Branch_2/Conv2d_0a_1x1", x, 64, 1)
        b2 = conv(m + "/Branch_2/Conv2d_0c_3x3", conv(m + "/Branch_2/Conv2d_0b_3x3", b2, 96, 3), 96, 3)
        b3 = conv(m + "/Branch_3/Conv2d_0b_1x1", avg(m + "/Branch_3/AvgPool_0a_3x3", x), pool_c, 1)
        x = g.concat(m + "/concat", [b0, b1, b2, b3])
    m = "Mixed_6a"
    b0 = conv(m + "/Branch_0/Conv2d_1a_1x1", x, 384, 3, 2, valid=True)
    b1 = conv(m + "/Branch_1/Conv2d_0b_3x3", conv(m + "/Branch_1/Conv2d_0a_1x1", x, 64, 1), 96, 3)
    b1 = conv(m + "/Branch_1/Conv2d_1a_1x1", b1, 96, 3, 2, valid=True)
    b2 = g.maxpool(m + "/Branch_2/MaxPool_1a_3x3", x, 3, 2)
    x = g.concat(m + "/concat", [b0, b1, b2])
    for m, c in (("Mixed_6b", 128), ("Mixed_6c", 160), ("Mixed_6d", 160), ("Mixed_6e", 192)):
        b0 = conv(m + "/Branch_0/Conv2d_0a_1x1", x, 192, 1)
        b1 = conv(m + "/Branch_1/Conv2d_0a_1x1", x, c, 1)
        b1 = conv(m + "/Branch_1/Conv2d_0b_1x7", b1, c, (1, 7))
        b1 = conv(m + "/Branch_1/Conv2d_0c_7x1", b1, 192, (7, 1))
        b2 = conv(m + "/Branch_2/Conv2d_0a_1x1", x, c, 1)
        b2 = conv(m + "/Branch_2/Conv2d_0b_7x1", b2, c, (7, 1))
        b2 = conv(m + "/Branch_2/Conv2d_0c_1x7", b2, c, (1, 7))
        b2 = conv(m + "/Branch_2/Conv2d_0d_7x1", b2, c, (7, 1))
        b2 = conv(m + "/Branch_2/Conv2d_0e_1x7", b2, 192, (1, 7))
        b3 = conv(m + "/Branch_3/Conv2d_0b_1x1", avg(m + "/Branch_3/AvgPool_0a_3x3", x), 192, 1)
        x = g.concat(m + "/concat", [b0, b1, b2, b3])
    m = "Mixed_7a"
    b0 = conv(m + "/Branch_0/Conv2d_1a_3x3", conv(m + "/Branch_0/Conv2d_0a_1x1", x, 192, 1), 320, 3, 2, valid=True)
    b1 = conv(m + "/Branch_1/Conv2d_0a_1x1", x, 192, 1)
    b1 = conv(m + "/Branch_1/Conv2d_0b_1x7", b1, 192, (1, 7))
    b1 = conv(m + "/Branch_1/Conv2d_0c_7x1", b1, 192, (7, 1))
    b1 = conv(m + "/Branch_1/Conv2d_1a_3x3", b1, 192, 3, 2, valid=True)
    b2 = g.maxpool(m + "/Branch_2/MaxPool_1a_3x3", x, 3, 2)
    x = g.concat(m + "/concat", [b0, b1, b2])
    for m, names in (("Mixed_7b", ("0b_3x1", "0c_1x3", "0d_3x1")), ("Mixed_7c", ("0c_3x1", "0c_1x3", "0d_3x1"))):
        b0 = conv(m + "/Branch_0/Conv2d_0a_1x1", x, 320, 1)
        b1 = conv(m + "/Branch_1/Conv2d_0a_1x1", x, 384, 1)
        b1 = g.concat(m + "/Branch_1/concat", [conv(m + "/Branch_1/Conv2d_0b_1x3", b1, 384, (1, 3)),
                                               conv(m + "/Branch_1/Conv2d_" + names[0], b1, 384, (3, 1))])
        b2 = conv(m + "/Branch_2/Conv2d_0b_3x3", conv(m + "/Branch_2/Conv2d_0a_1x1", x, 448, 1), 384, 3)
        b2 = g.concat(m + "/Branch_2/concat", [conv(m + "/Branch_2/Conv2d_" + names[1], b2, 384, (1, 3)),
                                               conv(m + "/Branch_2/Conv2d_" + names[2], b2, 384, (3, 1))])
        b3 = conv(m + "/Branch_3/Conv2d_0b_1x1", avg(m + "/Branch_3/AvgPool_0a_3x3", x), 192, 1)
        x = g.concat(m + "/concat", [b0, b1, b2, b3])
    classifier(g, x, "Logits/", "matmul")


BUILDERS = {"mobilenet_v2": mobilenet_v2, "resnet50": resnet50, "inception_v3": inception_v3}


def network(args):
    size = args.image or NETWORKS[args.name]
    if args.name == "inception_v3" and size < 75:
        sys.exit("build_networks.py: inception_v3 needs --image >= 75")
    if size < 32:
        sys.exit("build_networks.py: --image must be >= 32")
    g = Builder(args.form, args.seed, expose=args.intermediates)
    lo, hi = INPUT_RANGE[args.name]
    x = g.quantize_input("input", (1, 3, size, size), lo, hi, "input_quantized")
    BUILDERS[args.name](g, x)
    onnx.save(g.model(args.name), args.out)


# ---------------------------------------------------------------------------------------------
# edge cases: both forms in one model where both exist ("qop/..." and "qdq/..." tensors)

def edge_float_bias(g):
    x = g.quantize_input("input", (1, 3, 17, 19), -1, 1, "input_quantized")
    g.form = "qdq"
    y = g.conv("conv_relu", x, 8, 3, 1, (1, 1, 1, 1), act="relu", float_bias=True)
    y = g.conv("conv_stride2", y, 12, 3, 2, (0, 1, 1, 0), float_bias=True)
    g.conv("depthwise", y, 12, 3, 1, (1, 1, 1, 1), group=12, act="relu6", float_bias=True)


def edge_u8_weights(g):
    x = g.quantize_input("input", (1, 3, 17, 19), -1, 1, "input_quantized")
    for form in ("qoperator", "qdq"):
        p = g.reseed(form)
        y = g.conv(p + "conv", x, 8, 3, 1, (1, 1, 1, 1), act="relu", wtype=np.uint8, per_channel=False)
        y = g.conv(p + "conv_linear", y, 6, 3, 2, (1, 1, 1, 1), wtype=np.uint8, per_channel=False)
        g.conv(p + "pointwise", y, 10, 1, 1, act="relu", wtype=np.uint8, per_channel=False)


def edge_s8_activations(g):
    g.qtype = np.int8
    x = g.quantize_input("input", (1, 3, 17, 19), -1, 1, "input_quantized")
    for form in ("qoperator", "qdq"):
        p = g.reseed(form)
        a = g.conv(p + "conv", x, 16, 3, 1, (1, 1, 1, 1), act="relu")
        b = g.conv(p + "depthwise", a, 16, 3, 1, (1, 1, 1, 1), group=16, act="relu6")
        c = g.conv(p + "project", b, 16, 1, 1)
        d = g.add(p + "add", c, a)
        e = g.maxpool(p + "maxpool", d, 3, 2, (1, 1, 1, 1))
        f = g.avgpool(p + "avgpool", d, 3, 2, (1, 1, 1, 1), count_include_pad=0)
        h = g.concat(p + "concat", [e, f])
        i = g.global_avgpool(p + "global_avgpool", h)
        j = g.flatten(p + "flatten", i)
        k = g.fc(p + "fc", j, 10, "gemm")
        g.float_output(k, p + "logits", [1, 10])


def edge_float_logits(g):
    x = g.quantize_input("input", (3, 45), -1, 1, "input_quantized")
    g.form = "qdq"
    h = g.fc("hidden", x, 24, "gemm")
    g.fc("matmul", h, 10, "matmul", float_out="logits_matmul")
    g.fc("gemm", h, 10, "gemm", float_out="logits_gemm")
    for out in ("logits_matmul", "logits_gemm"):
        g.outputs.append(helper.make_tensor_value_info(out, TensorProto.FLOAT, [3, 10]))


def edge_ceil_pool(g):
    x = g.quantize_input("input", (1, 5, 17, 19), -1, 1, "input_quantized")
    for form in ("qoperator", "qdq"):
        p = g.reseed(form)
        g.maxpool(p + "maxpool_ceil", x, 3, 2, ceil=1)
        g.maxpool(p + "maxpool_ceil_pad", x, 3, 2, (1, 0, 1, 1), ceil=1)
        g.maxpool(p + "maxpool_2x2_ceil", x, 2, 2, ceil=1)
        g.avgpool(p + "avgpool_ceil_cip0", x, 3, 2, (1, 1, 1, 1), count_include_pad=0, ceil=1)
        g.avgpool(p + "avgpool_ceil_cip1", x, 3, 2, (1, 1, 1, 1), count_include_pad=1, ceil=1)
        g.avgpool(p + "avgpool_cip0", x, 3, 2, (1, 1, 1, 1), count_include_pad=0)
        g.avgpool(p + "avgpool_cip1", x, 3, 2, (1, 1, 1, 1), count_include_pad=1)
        g.avgpool(p + "avgpool_2x2_ceil_cip1", x, 2, 2, (0, 1, 0, 0), count_include_pad=1, ceil=1)


def edge_qlinear_softmax(g):
    x = g.quantize_input("input", (1, 3, 5, 11), -1, 1, "input_quantized")
    x8 = g.quantize_input("input_s8", (1, 3, 5, 11), -1, 1, "input_s8_quantized", qtype=np.int8)
    # QDQ: DQ -> Softmax -> Q, output quantized as onnxruntime's quantizer does: [0, 1] in 1/256 steps
    for name, axis in (("qdq/softmax_last", -1), ("qdq/softmax_axis1", 1)):
        v = g.t[x].value
        e = np.exp(v - v.max(axis=axis, keepdims=True))
        g.record(name, e / e.sum(axis=axis, keepdims=True), np.float32(1 / 256), 0, np.uint8)
        g.node("Softmax", [g.dq(x, name)], [name + "/softmax"], name + "/softmax", axis=axis)
        g.q(name + "/softmax", name)
    for name, src, zp, qtype in (("qop/qlinear_softmax_u8", x, 0, np.uint8),
                                 ("qop/qlinear_softmax_s8", x8, -128, np.int8)):
        v = g.t[src].value
        e = np.exp(v - v.max(axis=-1, keepdims=True))
        g.record(name, e / e.sum(axis=-1, keepdims=True), np.float32(1 / 256), zp, qtype)
        g.node("QLinearSoftmax", [src, *g.qparams(src), *g.qparams(name)], [name], name, domain=MS, axis=-1,
               opset=OPSET)


def edge_concat_scales(g):
    x = g.quantize_input("input", (1, 4, 15, 13), -1, 1, "input_quantized")
    for form in ("qoperator", "qdq"):
        p = g.reseed(form)
        a = g.conv(p + "branch_relu", x, 6, 3, 1, (1, 1, 1, 1), act="relu")
        b = g.conv(p + "branch_linear", x, 5, 1, 1)
        c = g.conv(p + "branch_relu6", x, 7, 3, 1, (1, 1, 1, 1), act="relu6")
        g.concat(p + "concat_requantize", [a, b, c, x])
        m = g.maxpool(p + "maxpool", x, 3, 1, (1, 1, 1, 1))
        xq = g.t[x]
        g.concat(p + "concat_copy", [x, m, x], out_params=(xq.scale, xq.zp))


def edge_views(g):
    x = g.quantize_input("input", (1, 4, 6, 10), -1, 1, "input_quantized")
    for form in ("qoperator", "qdq"):
        p = g.reseed(form)
        v = g.t[x].value
        t = g.view(p + "transpose", "Transpose", x, v.transpose(0, 2, 3, 1), perm=[0, 2, 3, 1])
        r = g.view(p + "reshape", "Reshape", t, g.t[t].value.reshape(1, 60, 4),
                   [g.const(p + "reshape/shape", np.array([1, -1, 4], np.int64))])
        u = g.view(p + "unsqueeze", "Unsqueeze", r, g.t[r].value[:, None],
                   [g.const(p + "unsqueeze/axes", np.array([1], np.int64))])
        s = g.view(p + "squeeze", "Squeeze", u, g.t[u].value[0],
                   [g.const(p + "squeeze/axes", np.array([0], np.int64))])
        f = g.view(p + "flatten", "Flatten", s, g.t[s].value.reshape(1, -1), axis=0)
        g.view(p + "transpose_2d", "Transpose", f, g.t[f].value.T, perm=[1, 0])


def edge_clip(g):
    x = g.quantize_input("input", (1, 3, 17, 19), -1, 1, "input_quantized")
    g.form = "qdq"
    v = g.t[x].value
    # standalone activations between DQ and Q: (op, clip range, output range)
    for name, act, clip, out_range in (("relu_redundant", "relu", None, None),             # zp 0: Relu dropped
                                       ("relu_zp_mid", "relu", None, (-1.0, 1.0)),         # zp 127: Relu kept
                                       ("clip_redundant", "clip", (0.0, 6.0), (0.0, 1.0)),  # Q range inside clip
                                       ("clip_inner", "clip", (-0.25, 0.5), (-1.0, 1.0))):  # Clip narrower than Q
        y = np.maximum(v, 0) if act == "relu" else np.clip(v, *clip)
        lo, hi = out_range if out_range else (None, None)
        g.record(name, y, lo=lo, hi=hi)
        g.q(g.activation(name, g.dq(x, name), act, clip), name)
    # after a Conv, with a zero point above the bottom of the range (not redundant)
    g.conv("conv_relu_zp", x, 8, 3, 1, (1, 1, 1, 1), act="relu", out_range=(-0.5, 3.0))
    g.conv("conv_relu6_zp", x, 8, 3, 2, (1, 1, 1, 1), act="relu6", out_range=(-1.0, 8.0))
    g.conv("conv_relu6_narrow", x, 8, 3, 1, (0, 0, 0, 0), act="relu6", out_range=(0.0, 4.0))


EDGES = {
    "float_bias": edge_float_bias,          # QDQ Conv with a float bias initializer
    "u8_weights": edge_u8_weights,          # QLinearConv and QDQ Conv with u8 per-tensor weights, zero point != 0
    "s8_activations": edge_s8_activations,  # s8 activations end to end, both forms
    "float_logits": edge_float_logits,      # QDQ MatMul + float Add and Gemm with float outputs
    "ceil_pool": edge_ceil_pool,            # MaxPool / AveragePool with ceil_mode, count_include_pad 0 and 1
    "qlinear_softmax": edge_qlinear_softmax,  # DQ -> Softmax -> Q and com.microsoft QLinearSoftmax (u8, s8)
    "concat_scales": edge_concat_scales,    # QLinearConcat / QDQ Concat: requantizing and copying inputs
    "views": edge_views,                    # Transpose, Reshape, Unsqueeze, Squeeze, Flatten on quantized tensors
    "clip": edge_clip,                      # standalone Relu / Clip in QDQ, and Relu / Clip after Conv, zp != min
}


def edge(args):
    g = Builder("qoperator", args.seed)
    EDGES[args.kind](g)
    onnx.save(g.model("edge_" + args.kind), args.out)


def make_input(args):
    shape = [int(d) for d in args.shape.split(",")]
    lo, hi = INPUT_RANGE[args.network] if args.network else [float(v) for v in args.range.split(",")]
    np.save(args.out, np.random.default_rng(args.seed).uniform(lo, hi, size=shape).astype(np.float32))


def edit_node(args):
    """Changes attributes of the first node of an op type (the bad-input tests of qtune's nodes)."""
    model = onnx.load(args.model)
    node = next(n for n in model.graph.node if n.op_type == args.op)
    edits = [(t, "string") for t in args.string] + [(t, "int") for t in args.int] + [(t, "ints") for t in args.ints]
    for text, kind in edits:
        name, value = text.split("=", 1)
        attribute = next(a for a in node.attribute if a.name == name)
        if kind == "string":
            attribute.s = value.encode()
        elif kind == "int":
            attribute.i = int(value)
        else:
            del attribute.ints[:]
            attribute.ints.extend(int(v) for v in value.split(",") if v)
    onnx.save(model, args.out)


def list_names(args):
    print("\n".join(list(NETWORKS) + list(EDGES)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("network")
    p.add_argument("name", choices=list(NETWORKS))
    p.add_argument("out")
    p.add_argument("--form", choices=["qoperator", "qdq"], required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--intermediates", action="store_true", help="every quantized activation is a graph output too")
    p.add_argument("--image", type=int, help="input height = width (default: the network's own)")
    p.set_defaults(run=network)
    p = sub.add_parser("edge")
    p.add_argument("kind", choices=list(EDGES))
    p.add_argument("out")
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(run=edge)
    p = sub.add_parser("input")
    p.add_argument("out")
    p.add_argument("--shape", required=True, help="dimensions, e.g. 1,3,224,224")
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--range", default="-1,1", help="LO,HI of the uniform distribution")
    p.add_argument("--network", choices=list(NETWORKS), help="the range of this network's input quantization")
    p.set_defaults(run=make_input)
    p = sub.add_parser("edit")
    p.add_argument("model")
    p.add_argument("out")
    p.add_argument("--op", required=True, help="the first node of this op type is changed")
    p.add_argument("--string", action="append", default=[], help="NAME=VALUE: a string attribute's new value")
    p.add_argument("--int", action="append", default=[], help="NAME=V: an int attribute's new value")
    p.add_argument("--ints", action="append", default=[], help="NAME=V1,V2,...: an ints attribute's new values")
    p.set_defaults(run=edit_node)
    p = sub.add_parser("list")
    p.set_defaults(run=list_names)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    sys.exit(main())
