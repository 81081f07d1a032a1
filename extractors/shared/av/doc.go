// Package av is what the audio and video extractor families share: one
// ffprobe reading per file (Read, kept in Input.Shared so that mediainfo,
// audioinfo, m2ts, drm and the analyses pay for one ffprobe), and the
// arguments that keep ffmpeg and ffprobe on the local file (InputArgs: no
// protocol but file, a whitelist of media demuxers, so that a playlist
// disguised as .mp4 fetches nothing and a concat list reads nothing else),
// and ReadVideo, ReadMoving and ReadAudio for the extractors that need a
// stream (a file without it is not theirs: ErrUnsupported).
package av
