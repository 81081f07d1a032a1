// Package captions is the family of caption extractors: timed transcripts
// reported as extractors.Caption records (stored in the captions table,
// searched as transcript.text, the basis of keyword hits by time). They
// are linked to the item's segments by time when the search index builds
// them (search.BuildSegments): each segment's summary.transcript holds the
// text of the cues overlapping its stretch (until the next segment, at
// most search.TranscriptReach seconds), with the caption's source and
// language, and cues no segment reaches make segments of their own, so
// that a segment search finds a subtitle's words at the frame shown with
// them. Uploaded captions are linked alike.
//
//   - caption_files: an item that is a caption file (SubRip, WebVTT,
//     SubStation Alpha, TTML/DFXP, Scenarist SCC) gives one caption of
//     source "file"; a media item gives one caption of source "sidecar"
//     per caption file next to it named like it (clip.srt, clip.en.vtt,
//     clip.eng.forced.srt for clip.mp4), found through Input.Siblings
//     (local storage only), its language from the name.
//   - captions (v1): the text subtitle tracks of a media file, one caption
//     of source "embedded" per track, labelled with the stream index.
//   - captionsv2: the same, plus CEA-608 closed captions (caption tracks,
//     and captions inside the video stream), and every subtitle stream
//     listed with its metadata, bitmap subtitles included (not read).
//
// Parsers are pure functions of the bytes (ParseSRT, ParseVTT, ParseASS,
// ParseTTML, Parse): bounded by MaxFileSize, extractors.MaxCues and a
// per-cue text limit, with the text encoding detected as for any text file
// (doctext: UTF-8 with or without BOM, UTF-16, or a single-byte code page:
// Western, Central European, Cyrillic, Greek, Turkish). Embedded tracks and SCC are turned
// into SubRip by ffmpeg and read by the same SRT parser. Times are seconds,
// exact to the millisecond the source gives.
package captions
