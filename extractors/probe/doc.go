// Package probe is the technical-metadata family of extractors: mediainfo
// (container, streams, video and audio properties), audioinfo (the audio
// view with its tags), m2ts (MPEG transport stream programs and PIDs), dpx
// (DPX image headers, parsed in Go) and drm (protected content). The
// ffprobe-based ones share one ffprobe reading per file (extractors/shared/av); the
// container walks (ISO base media boxes, transport stream packets, ASF
// header objects, DPX headers) are small bounded parsers of their own, so a
// hostile file costs a bounded amount of reading and memory. An HLS
// playlist named as a media file (a .mp4 that is a list of URLs) is taken
// by mediainfo only to be refused with a recorded error, before any tool
// reads it.
package probe
