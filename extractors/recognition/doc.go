// Package recognition holds the extractors of the recognition family:
// analyses that need a third-party provider here (no offline model for
// them exists in the registries this project can install from), each
// sending a bounded sample of the item to its provider through
// extractors/shared/provider (its package doc holds the request and answer
// contract) and storing what it answers. Without their provider's
// settings they are listed as "not available: <provider> provider
// setting ... not set" and never run; all are off by default (they cost
// money and send the item's content away).
//
//   - vendor_audio_classification (what an item's sound is: speech, music,
//     crowd...) and vendorsports (the sport a video shows), the reference's
//     vendor-branded analyses: VENDOR_API_URL and VENDOR_API_KEY.
//   - tags: image and video recognition, the labels (objects, scenes,
//     activities) and the people recognised by name in a picture or in
//     frames of a video: RECOGNITION_API_URL and RECOGNITION_API_KEY.
//   - logos: logo detection, the gmlogos of the original product's
//     clients: LOGO_PROVIDER_URL and LOGO_PROVIDER_KEY, the provider that
//     logo training teaches.
//
// The samples, cut on the local file only (extractors/shared/provider,
// sample.go):
//
//   - vendor_audio_classification: VENDOR_AUDIO_SECONDS (default 30, at
//     most 120) of the first audio stream from the middle of the item (the
//     whole item when shorter), mono 16 kHz 16-bit WAV: about 1 MB for
//     30 s. Label times are made item times (clip time + clip start).
//   - vendorsports: VENDOR_SPORTS_FRAMES (default 4, at most 16) frames
//     spread evenly over the video, JPEG of at most 640 pixels wide; the
//     frames of video_main_frames are sent instead when it ran (its files,
//     when JPEG and under 2 MiB each).
//   - tags and logos: a picture item itself (decoded here: pixel limit
//     RECOGNITION_MAX_PIXELS / LOGO_MAX_PIXELS, EXIF orientation), as a
//     JPEG of at most 640 pixels on its long side; or RECOGNITION_FRAMES /
//     LOGO_FRAMES (default 10, at most 100) frames of a video as
//     vendorsports takes them, sent at most 8 MiB of pictures a request.
//
// Labels are cleaned (provider.Labels.Clean: a name, a confidence within
// 0..1, times within the item) and kept the most confident first (at most
// 500); logos likewise (provider.LogoAnswer.Clean, a box outside the
// picture dropped). A video also gets a segment at each frame's time with
// what was found in it, in the segment summary's shapes: labels as tags
// (source "vendor" for the vendor analyses, the answering service or the
// provider's host for tags), people by name, logos with their size and
// quadrilateral (corners in fractions of the frame). The item summary
// counts those tags and logos by the segments they are in; tags and logos
// also store their names counted over the pictures (appearances), which
// is all a picture item has, since a picture has no segments.
package recognition
