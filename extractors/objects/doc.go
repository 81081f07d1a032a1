// Package objects holds the extractor "objects": the 80 object classes of
// COCO (person, car, dog, laptop, cup ...) found offline in pictures and
// in the frames of videos by Human's centernet model, run by the vision
// sidecar (extractors/shared/vision, deploy/vision) that nsfw and
// vendor_faces share.
//
// A picture is decoded here (OBJECTS_MAX_PIXELS, EXIF orientation) and
// sent at most 640 pixels on its long side; a video sends OBJECTS_FRAMES
// (30) frames: those of video_main_frames when it ran, else frames spread
// over it (extractors/shared/provider's sampling, as the provider-backed
// picture analyses take them). Objects under OBJECTS_MIN_CONFIDENCE (0.25,
// chosen on hand-labelled pictures: docs/vision.md) are dropped.
//
// It writes labels where the reference's clients look: the data's
// labels (each object: name, confidence, box in fractions of the
// picture, time) and tags (names with their appearances and best
// confidence), names (the distinct names, for a facet and for search by
// word), and for a video a segment at each frame's time with the objects
// as summary.tags (source "human-centernet"), which the item summary, the
// timeline's tags lane and segment search read. The hit counts labels and
// tag count items with objects.
//
// COCO has no scenes, flowers, landmarks, logos or text: a beach, a rose,
// the Eiffel tower are not found (docs/vision.md says what it sees and
// misses).
package objects
