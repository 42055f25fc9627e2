// Times a model in onnxruntime (onnxruntime-node) for `qtune run --model --onnxruntime`: the whole
// model (session.run, median of the timed runs) and every node (onnxruntime's own profiler: the
// kernel time of each node, so no JavaScript overhead), at each thread count given.
//
//   node onnxruntime_timing.js MODULES_DIR MODEL THREADS[,THREADS...] REPETITIONS INPUT_SHAPES_JSON
//
// Prints one JSON object: {"version", "runs": [{"threads", "model_ns": [...],
// "node_ns": {"<node name>": [...]}}]} with one time per timed run.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");

function randomTensor(ort, type, shape) {
  const count = shape.reduce((a, b) => a * b, 1);
  const arrays = {uint8: Uint8Array, int8: Int8Array, float32: Float32Array, int32: Int32Array, int64: BigInt64Array};
  if (!arrays[type]) throw new Error("input type " + type + " is not supported");
  const data = new arrays[type](count);
  for (let i = 0; i < count; ++i) {
    const v = Math.floor(Math.random() * 256) - (type === "uint8" ? 0 : 128);
    data[i] = type === "int64" ? BigInt(v) : type === "float32" ? v / 128 : v;
  }
  return new ort.Tensor(type, data, shape);
}

async function timeModel(ort, model, threads, repetitions, shapes) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "qtune-ort-"));
  try {
    const session = await ort.InferenceSession.create(model, {
      intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: "sequential",
      graphOptimizationLevel: "all", enableProfiling: true, profileFilePrefix: path.join(dir, "profile"),
    });
    const feeds = {};
    for (const input of session.inputMetadata) {
      const shape = shapes[input.name] || input.shape;
      if (!shape.every((d) => typeof d === "number" && d > 0))
        throw new Error("input " + input.name + " has a dynamic shape: give it with --input-shape");
      feeds[input.name] = randomTensor(ort, input.type, shape);
    }
    const warmup = 3;
    for (let i = 0; i < warmup; ++i) await session.run(feeds);
    const modelNs = [];
    for (let i = 0; i < repetitions; ++i) {
      const start = process.hrtime.bigint();
      await session.run(feeds);
      modelNs.push(Number(process.hrtime.bigint() - start));
    }
    session.endProfiling();
    const file = fs.readdirSync(dir).find((f) => f.endsWith(".json"));
    const events = JSON.parse(fs.readFileSync(path.join(dir, file)));
    const nodeNs = {};
    for (const e of events) {
      if (e.cat !== "Node" || !e.name.endsWith("_kernel_time")) continue;
      const name = e.name.slice(0, -"_kernel_time".length);
      (nodeNs[name] = nodeNs[name] || []).push(e.dur * 1000);
    }
    // The warm-up runs come first in the profile: keep the timed ones.
    for (const name of Object.keys(nodeNs)) nodeNs[name] = nodeNs[name].slice(-repetitions);
    await session.release();
    return {threads, model_ns: modelNs, node_ns: nodeNs};
  } finally {
    fs.rmSync(dir, {recursive: true, force: true});
  }
}

async function main() {
  const [modules, model, threadList, repetitions, shapes] = process.argv.slice(2);
  if (!shapes) throw new Error("usage: onnxruntime_timing.js MODULES_DIR MODEL THREADS REPETITIONS INPUT_SHAPES_JSON");
  const ort = require(path.join(modules, "onnxruntime-node"));
  const version = require(path.join(modules, "onnxruntime-node", "package.json")).version;
  const runs = [];
  for (const threads of threadList.split(",").map(Number)) {
    runs.push(await timeModel(ort, model, threads, Number(repetitions), JSON.parse(shapes)));
  }
  process.stdout.write(JSON.stringify({version, runs}) + "\n");
}

main().catch((error) => {
  console.error("onnxruntime_timing.js: " + (error && error.message ? error.message : error));
  process.exit(1);
});
