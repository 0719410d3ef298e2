#!/usr/bin/env node
// Runs an ONNX model with ONNX Runtime (npm onnxruntime-node, installed by
// scripts/install-deps.sh into third_party/node): opscope's numeric
// reference and performance peer.
//
//   node scripts/ort_run.js MODEL.onnx [--input NAME=FILE.npy ...]
//        [--output-dir DIR] [--iterations N] [--warmup N] [--threads N]
//        [--profile PREFIX]   (ONNX Runtime's own per-node profile of the
//                              timed runs: a JSON file named PREFIX_<date>.json)
//        [--no-optimize]      (graph optimisations off: the graph as written)
//
// Writes each output as DIR/NAME.npy and prints one JSON line with the
// latency summary in ms. Graph optimisations are at ORT's default ("all")
// unless --no-optimize.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, '..', 'third_party', 'node', 'node_modules', 'onnxruntime-node'));

const DESCR = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
  '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array],
  '|b1': ['bool', Uint8Array], '|u1': ['uint8', Uint8Array], '|i1': ['int8', Int8Array],
  '<f2': ['float16', Uint16Array], '<u2': ['uint16', Uint16Array],
  '<u4': ['uint32', Uint32Array], '<u8': ['uint64', BigUint64Array],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const off = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', off, off + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map(s => s.trim()).filter(s => s).map(Number);
  if (!DESCR[descr]) throw new Error(`${file}: unsupported dtype ${descr}`);
  const [type, Ctor] = DESCR[descr];
  const start = off + hlen;
  const bytes = buf.subarray(start);
  const data = new Ctor(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  return new ort.Tensor(type, type === 'bool' ? Uint8Array.from(data) : data, shape);
}

function writeNpy(file, tensor) {
  const map = { float32: '<f4', float64: '<f8', int64: '<i8', int32: '<i4', bool: '|b1', uint8: '|u1', int8: '|i1',
                float16: '<f2', uint16: '<u2', uint32: '<u4', uint64: '<u8' };
  const descr = map[tensor.type];
  if (!descr) throw new Error(`cannot write ${tensor.type}`);
  const dims = tensor.dims;
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  fs.writeFileSync(file + '.tmp', Buffer.concat([pre, Buffer.from(header, 'latin1'), data]));
  fs.renameSync(file + '.tmp', file);
}

function percentile(sorted, p) {
  const rank = Math.max(1, Math.ceil(p / 100 * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1];
}

async function main() {
  const args = process.argv.slice(2);
  const opts = { inputs: {}, outputDir: '', iterations: 10, warmup: 2, threads: 0 };
  let model = '';
  for (let i = 0; i < args.length; ++i) {
    const a = args[i];
    if (a === '--input') { const [n, f] = args[++i].split('='); opts.inputs[n] = f; }
    else if (a === '--output-dir') opts.outputDir = args[++i];
    else if (a === '--iterations') opts.iterations = Number(args[++i]);
    else if (a === '--warmup') opts.warmup = Number(args[++i]);
    else if (a === '--threads') opts.threads = Number(args[++i]);
    else if (a === '--profile') opts.profile = args[++i];
    else if (a === '--no-optimize') opts.noOptimize = true;
    else if (!model) model = a;
    else throw new Error(`unexpected argument ${a}`);
  }
  // --no-optimize: the graph as written, without ONNX Runtime's graph
  // rewrites (its PadFusion folds a zero Pad into a following MaxPool,
  // whose padding is -inf: a different answer wherever a window at the
  // edge holds only negative values, as after LeakyRelu).
  const so = { graphOptimizationLevel: opts.noOptimize ? 'disabled' : 'all',
               executionMode: 'sequential', interOpNumThreads: 1 };
  if (opts.threads > 0) so.intraOpNumThreads = opts.threads;
  if (opts.profile) { so.enableProfiling = true; so.profileFilePrefix = opts.profile; }
  const session = await ort.InferenceSession.create(model, so);
  const feeds = {};
  for (const name of session.inputNames) {
    if (!opts.inputs[name]) throw new Error(`missing --input for ${name}`);
    feeds[name] = readNpy(opts.inputs[name]);
  }
  let out;
  for (let i = 0; i < opts.warmup; ++i) out = await session.run(feeds);
  const times = [];
  for (let i = 0; i < opts.iterations; ++i) {
    const t0 = process.hrtime.bigint();
    out = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  if (!out) out = await session.run(feeds);
  if (opts.profile) await session.endProfiling();
  if (opts.outputDir) {
    fs.mkdirSync(opts.outputDir, { recursive: true });
    for (const name of session.outputNames) writeNpy(path.join(opts.outputDir, name.replace(/\//g, '_') + '.npy'), out[name]);
  }
  times.sort((a, b) => a - b);
  const mean = times.length ? times.reduce((s, x) => s + x, 0) / times.length : 0;
  console.log(JSON.stringify({ runtime: 'onnxruntime-node ' + require(path.join(__dirname, '..', 'third_party', 'node', 'node_modules', 'onnxruntime-node', 'package.json')).version,
    count: times.length, mean, median: percentile(times, 50), p90: percentile(times, 90), p99: percentile(times, 99),
    min: times[0], max: times[times.length - 1] }));
}

main().catch(e => { console.error(`ort_run: error: ${e.message}`); process.exit(1); });
