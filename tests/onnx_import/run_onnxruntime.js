// Runs an ONNX model in onnxruntime (onnxruntime-node, installed by scripts/setup.sh into
// .deps/node) and writes every graph output as raw bytes, for qtune's tests to compare with.
//
//   node run_onnxruntime.js MODULES_DIR MODEL.onnx INPUT_NAME INPUT.bin D1,D2,... OUT_DIR THREADS [TYPE]
//
// INPUT.bin holds the input, uint8 unless TYPE says int8; OUT_DIR/<output name>.bin receives each
// output's elements.
"use strict";
const fs = require("fs");
const path = require("path");

async function main() {
  const [modules, model, inputName, inputFile, dims, outDir, threads, type = "uint8"] = process.argv.slice(2);
  if (!threads) throw new Error("usage: run_onnxruntime.js MODULES_DIR MODEL INPUT_NAME INPUT.bin DIMS OUT_DIR THREADS");
  const ort = require(path.join(modules, "onnxruntime-node"));
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
  });
  const bytes = fs.readFileSync(inputFile);
  const data = type === "int8" ? new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length) : new Uint8Array(bytes);
  const shape = dims.split(",").map(Number);
  const results = await session.run({[inputName]: new ort.Tensor(type, data, shape)});
  for (const [name, tensor] of Object.entries(results)) {
    const bytes = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
    fs.writeFileSync(path.join(outDir, name + ".bin"), bytes);
  }
}

main().catch((error) => {
  console.error("run_onnxruntime.js: " + (error && error.stack ? error.stack : error));
  process.exit(1);
});
