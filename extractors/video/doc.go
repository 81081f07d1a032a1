// Package video is the family of extractors that decode audio and video to
// make things people look at and listen to: video_main_frames (frames at
// scene changes, keyframes and periodic intervals, written as JPEG
// artifacts and reported as the item's segments, which faces and OCR then
// enrich), video_previews (a small H.264/AAC MP4 a browser plays) and
// audio_previews (an AAC .m4a of an audio file).
//
// Every decode goes through the shared Runner as a Heavy program with a
// memory bound, opens the file with av.InputArgs (local file only, media
// demuxers only), and is preceded by checks on the ffprobe reading that
// av.Read shares between extractors: a picture over maxPixels is refused
// before any frame is decoded, and the decoder is told the same bound
// (-max_pixels) for pictures whose size changes mid-stream. How much of a
// stream is decoded is capped (max_duration settings, -t); afterwards the
// decoded extent is compared with the declared duration, so that a
// truncated file and a stream that goes on past what it declares (or past
// the cap without declaring a length) end as recorded errors rather than as
// partial results that look whole.
package video
