// Package vendor holds the reference's vendor-branded analyses that need a
// third-party provider here (no offline model for them exists in the
// registries this project can install from): vendor_audio_classification
// (what an item's sound is: speech, music, crowd...) and vendorsports (the
// sport a video shows). Both send a bounded sample of the item to the
// provider configured by VENDOR_API_URL and VENDOR_API_KEY through
// extractors/provider (its package doc holds the request and answer
// contract) and store the labels it answers; without those settings they
// are listed as "not available: vendor provider setting ... not set".
//
// The samples, cut with ffmpeg on the local file only (av.InputArgs):
//
//   - vendor_audio_classification: VENDOR_AUDIO_SECONDS (default 30, at
//     most 120) of the first audio stream from the middle of the item (the
//     whole item when shorter), mono 16 kHz 16-bit WAV: about 1 MB for
//     30 s. Label times are made item times (clip time + clip start).
//   - vendorsports: VENDOR_SPORTS_FRAMES (default 4, at most 16) frames
//     spread evenly over the video, JPEG of at most 640 pixels wide; the
//     frames of video_main_frames are sent instead when it ran (its files,
//     when JPEG and under 2 MiB each).
//
// Labels are cleaned (provider.Labels.Clean: a name, a confidence within
// 0..1, times within the item) and kept the most confident first (at most
// 500). A video also gets a segment at each label's time with the label as
// a tag (source "vendor").
package vendor
