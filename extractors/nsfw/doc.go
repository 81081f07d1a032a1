// Package nsfw is the adult-content extractor "nsfw": nsfwjs 4.4.0 (a
// MobileNetV2 image classifier trained on drawing, hentai, neutral, porn
// and sexy pictures, weights shipped in its npm package) on the
// TensorFlow.js 4.22 WebAssembly backend, run offline by a Node sidecar.
//
// # The sidecar
//
// The vision sidecar (extractors/shared/vision, deploy/vision), shared
// with vendor_faces and objects: one pool of node processes per worker
// process (VISION_PROCESSES, 0: sized to the CPUs and the memory limit),
// each loading nsfwjs's model once, when first asked (about a second),
// then classifying one picture in 0.1 to 0.3 s. Requests have a deadline
// (a minute: the process is killed and replaced), answers a size bound,
// processes a resident-memory bound and a restart after 5000 pictures.
// Nothing is fetched at run time: the weights and the .wasm binaries are
// read from node_modules (tested with the network namespace empty,
// unshare -n). Without the sidecar (no node, or deploy/setup.sh not run)
// the extractor is not available: "not available: vision
// sidecar not installed at DIR (no ...)". The settings NSFW_SIDECAR_DIR,
// NSFW_NODE and NSFW_PROCESSES of before are read as aliases of
// VISION_SIDECAR_DIR, VISION_NODE and VISION_PROCESSES.
//
// The worker decodes every picture itself (images.Loader: pixel limit
// checked before decoding, EXIF orientation, transparency over white),
// squeezes it to the model's square (224 pixels; nsfwjs ignores the
// aspect too) and hands node a binary PPM file: node never parses a file
// a user made.
//
// # Output
//
// nsfw_score is the probability of the adult categories (porn + hentai +
// sexy), 0 safe to 1 unsafe; nsfw is nsfw_score >= NSFW_THRESHOLD (0.5:
// adult more probable than not). scores holds the five probabilities. A
// video is classified frame by frame (the frames of video_main_frames
// when it ran, else one sampled every second, widened to at most 300):
// one segment per frame with summary.nsfw {source "nsfwjs", nsfw,
// nsfw_score, categories}, read by the adult endpoints, and in the data
// the highest score of each category (scores, nsfw_score), the means
// (mean_scores, mean_nsfw_score), and the frames over the threshold.
//
// BenchmarkPicture measures the cost of a picture through the extractor
// against the bare sidecar, and the sidecar's memory; deploy/vision/README.md
// has the figures (on a busy 2-core machine: 0.3 s a picture either way,
// 180 MB resident).
//
// # nsfw_provider
//
// The same analysis by a provider (extractors/shared/provider, task nsfw),
// configured by NSFW_API_URL and NSFW_API_KEY (without them "not
// available: adult-content provider setting ... not set"), for a
// deployment without the sidecar or with a better classifier behind a
// key. It sends a picture item itself (decoded here, NSFW_MAX_PIXELS, as a
// JPEG of at most 640 pixels) or NSFW_API_FRAMES (30, at most 100) frames
// spread over a video (video_main_frames' when it ran), and reads one
// verdict per picture: nsfw_score, and the categories above when the
// provider gives them. It writes nsfw's shapes: nsfw_score and nsfw
// against NSFW_THRESHOLD, scores and category, for a video the means, the
// frames over the threshold and one segment per frame with summary.nsfw
// (source: the service that answered, else the provider's host), which the
// adult endpoints read whichever extractor wrote it. A picture the provider
// gave no usable score for is left out (frames_analysed counts the
// others); none at all is an error, as is an answer whose results cannot be
// matched to the pictures sent.
package nsfw
