// Runs a whole ONNX model in onnxruntime (onnxruntime-node, installed by scripts/setup.sh into
// .deps/node) on NumPy inputs and writes every graph output as a NumPy file, for the executor's
// tests and benchmarks to compare with:
//
//   node run_onnxruntime.js MODULES_DIR MODEL.onnx OUT_DIR THREADS NAME=INPUT.npy [NAME=INPUT.npy ...]
//
// MODULES_DIR holds onnxruntime-node (e.g. .deps/node/node_modules). Each NAME=INPUT.npy feeds graph
// input NAME from a .npy file (format version 1.0, C order, little endian; float32 '<f4', uint8 '|u1',
// int8 '|i1', int32 '<i4' or int64 '<i8'). The session runs with intraOpNumThreads THREADS,
// interOpNumThreads 1, sequential execution and graphOptimizationLevel "all". Every graph output is
// written as OUT_DIR/<name>.npy (version 1.0; dtype and shape from the tensor), where every character
// of the output name outside [A-Za-z0-9._-] is replaced by '_' (so "Mixed_5b/concat" is written as
// "Mixed_5b_concat.npy"). Exits 1 with a message on any error.
"use strict";
const fs = require("fs");
const path = require("path");

// npy descr -> [onnxruntime type, typed array, bytes per element]
const NPY_TYPES = {
  "<f4": ["float32", Float32Array, 4],
  "|u1": ["uint8", Uint8Array, 1],
  "<u1": ["uint8", Uint8Array, 1],
  "|i1": ["int8", Int8Array, 1],
  "<i1": ["int8", Int8Array, 1],
  "<i4": ["int32", Int32Array, 4],
  "<i8": ["int64", BigInt64Array, 8],
};
const ORT_DESCR = {float32: "<f4", uint8: "|u1", int8: "|i1", int32: "<i4", int64: "<i8"};

function readNpy(ort, file) {
  const bytes = fs.readFileSync(file);
  if (bytes.length < 10 || bytes.toString("latin1", 0, 6) !== "\x93NUMPY") throw new Error(file + ": not a .npy file");
  if (bytes[6] !== 1 || bytes[7] !== 0) throw new Error(file + ": .npy version " + bytes[6] + "." + bytes[7] + ", not 1.0");
  const headerLength = bytes.readUInt16LE(8);
  const header = bytes.toString("latin1", 10, 10 + headerLength);
  const descr = /'descr':\s*'([^']*)'/.exec(header);
  const order = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !order || !shape) throw new Error(file + ": cannot read the .npy header " + header);
  if (order[1] !== "False") throw new Error(file + ": Fortran order is not supported");
  const type = NPY_TYPES[descr[1]];
  if (!type) throw new Error(file + ": dtype " + descr[1] + " is not supported");
  const dims = shape[1].split(",").map((d) => d.trim()).filter((d) => d !== "").map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const offset = 10 + headerLength;
  if (bytes.length - offset !== count * type[2]) {
    throw new Error(file + ": " + (bytes.length - offset) + " data bytes for shape (" + dims + ") of " + descr[1]);
  }
  // A copy into a fresh (aligned) buffer.
  const data = new type[1](count);
  new Uint8Array(data.buffer).set(bytes.subarray(offset));
  return new ort.Tensor(type[0], data, dims);
}

function writeNpy(file, tensor) {
  const descr = ORT_DESCR[tensor.type];
  if (!descr) throw new Error("output type " + tensor.type + " cannot be written as .npy");
  const dims = tensor.dims.map(Number);
  const shape = dims.length === 1 ? "(" + dims[0] + ",)" : "(" + dims.join(", ") + ")";
  let header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // magic (6) + version (2) + length (2) + header + '\n', padded to a multiple of 64 as NumPy does
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = header + " ".repeat(total - 10 - header.length - 1) + "\n";
  const prefix = Buffer.alloc(10);
  prefix.write("\x93NUMPY", 0, "latin1");
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([prefix, Buffer.from(header, "latin1"), data]));
}

async function main() {
  const [modules, model, outDir, threads, ...feeds] = process.argv.slice(2);
  if (!threads || feeds.length === 0 || !/^[1-9][0-9]*$/.test(threads)) {
    throw new Error("usage: run_onnxruntime.js MODULES_DIR MODEL.onnx OUT_DIR THREADS NAME=INPUT.npy [NAME=INPUT.npy ...]");
  }
  const ort = require(path.join(path.resolve(modules), "onnxruntime-node"));
  const inputs = {};
  for (const feed of feeds) {
    const eq = feed.indexOf("=");
    if (eq <= 0) throw new Error("an input is NAME=INPUT.npy, not " + feed);
    inputs[feed.slice(0, eq)] = readNpy(ort, feed.slice(eq + 1));
  }
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
  });
  for (const name of session.inputNames) {
    if (!(name in inputs)) throw new Error("the model's input " + name + " is not given");
  }
  const results = await session.run(inputs);
  fs.mkdirSync(outDir, {recursive: true});
  const written = new Map();
  for (const name of session.outputNames) {
    const file = name.replace(/[^A-Za-z0-9._-]/g, "_") + ".npy";
    if (written.has(file)) throw new Error("outputs " + written.get(file) + " and " + name + " both map to " + file);
    written.set(file, name);
    writeNpy(path.join(outDir, file), results[name]);
  }
}

main().catch((error) => {
  console.error("run_onnxruntime.js: " + (error && error.message ? error.message : error));
  process.exit(1);
});
