// Times a model in onnxruntime (onnxruntime-node) for qtune's onnxruntime peer (`qtune run --model
// --onnxruntime`, `qtune bench`): the whole model (session.run) and every node (onnxruntime's own
// profiler: the kernel time of each node, so no JavaScript overhead), at each thread count given.
// qtune drives it in rounds, so that its own timings and onnxruntime's alternate:
//
//   node onnxruntime_timing.js MODULES_DIR MODEL THREADS[,THREADS...] INPUT_SHAPES_JSON
//
// It creates one session per thread count, runs each three times (warm-up) and prints
// {"ready": true, "version": "..."}. Then it reads commands, one a line, from its standard input:
//   round RUNS MIN_MS   per session in turn: at least RUNS timed runs, and for at least MIN_MS ms;
//                       answers {"done": <runs per session>}
//   end                 prints {"runs": [{"threads", "round": [...], "model_ns": [...],
//                       "node_ns": {"<node name>": [...]}}]}, one entry per timed run, and exits.
// The end of its input without 'end' (qtune stopped early) ends it quietly.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const readline = require("readline");

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

async function openSession(ort, model, threads, shapes, dir) {
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: "sequential",
    graphOptimizationLevel: "all", enableProfiling: true, profileFilePrefix: path.join(dir, "profile" + threads),
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
  return {threads, session, feeds, dir, round: [], modelNs: []};
}

async function timeRound(s, index, runs, minMs) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs || Number(process.hrtime.bigint() - start) < minMs * 1e6; ++i) {
    const t = process.hrtime.bigint();
    await s.session.run(s.feeds);
    s.modelNs.push(Number(process.hrtime.bigint() - t));
    s.round.push(index);
  }
}

// The kernel time of every node in every timed run, from the session's profile.
async function finish(s) {
  s.session.endProfiling();
  const prefix = "profile" + s.threads;
  const file = fs.readdirSync(s.dir).find((f) => f.startsWith(prefix) && f.endsWith(".json"));
  const events = JSON.parse(fs.readFileSync(path.join(s.dir, file)));
  const nodeNs = {};
  for (const e of events) {
    if (e.cat !== "Node" || !e.name.endsWith("_kernel_time")) continue;
    const name = e.name.slice(0, -"_kernel_time".length);
    (nodeNs[name] = nodeNs[name] || []).push(e.dur * 1000);
  }
  // The warm-up runs come first in the profile: keep the timed ones.
  for (const name of Object.keys(nodeNs)) nodeNs[name] = nodeNs[name].slice(-s.modelNs.length);
  await s.session.release();
  return {threads: s.threads, round: s.round, model_ns: s.modelNs, node_ns: nodeNs};
}

async function main() {
  const [modules, model, threadList, shapes] = process.argv.slice(2);
  if (!shapes) throw new Error("usage: onnxruntime_timing.js MODULES_DIR MODEL THREADS INPUT_SHAPES_JSON");
  const ort = require(path.join(modules, "onnxruntime-node"));
  const version = require(path.join(modules, "onnxruntime-node", "package.json")).version;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "qtune-ort-"));
  try {
    const sessions = [];
    for (const threads of threadList.split(",").map(Number))
      sessions.push(await openSession(ort, model, threads, JSON.parse(shapes), dir));
    process.stdout.write(JSON.stringify({ready: true, version}) + "\n");
    let rounds = 0;
    for await (const line of readline.createInterface({input: process.stdin})) {
      const [command, runs, minMs] = line.trim().split(/\s+/);
      if (command === "round") {
        for (const s of sessions) await timeRound(s, rounds, Number(runs), Number(minMs));
        ++rounds;
        process.stdout.write(JSON.stringify({done: sessions[0].round.length}) + "\n");
      } else if (command === "end") {
        const results = [];
        for (const s of sessions) results.push(await finish(s));
        process.stdout.write(JSON.stringify({runs: results}) + "\n");
        return;
      } else {
        throw new Error("unknown command '" + line + "'");
      }
    }
    // The command stream ended without 'end': qtune stopped early (an error of its own, said there).
  } finally {
    fs.rmSync(dir, {recursive: true, force: true});
  }
}

main().catch((error) => {
  console.error("onnxruntime_timing.js: " + (error && error.message ? error.message : error));
  process.exit(1);
});
