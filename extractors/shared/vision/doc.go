// Package vision is the worker's side of the vision sidecar
// (deploy/vision/server.js): a Node process running nsfwjs (adult
// content) and Human (face descriptors, COCO objects) on the TensorFlow.js
// WebAssembly backend, offline, asked one picture at a time over JSON
// lines. The extractors nsfw, vendor_faces and objects share it: one pool
// of processes per worker process for the three (Open), each process
// loading a model once, when first asked for it.
//
// What it holds: the sidecar's settings (Settings: VISION_SIDECAR_DIR,
// VISION_NODE, VISION_PROCESSES, with the NSFW_* names of before as
// aliases), the check that it is installed (Installed: without it the
// extractors are "not available: vision sidecar not
// installed ..."), the protocol (ParseReady, ParseAnswer, ReadLine), the
// pool (requests with a deadline, answers with a size bound, processes
// replaced when they crash, hang, fall out of step or pass their memory
// bound, restarted after restartAfter pictures), the PPM pictures the
// worker writes for it (WritePPM: node never parses a file a user made)
// and face descriptors (Descriptor: decoded, L2-normalised, quantised to
// int8 for storage).
package vision
