// Package images holds the extractors of still pictures and of the
// pictures of videos: exiv2 (EXIF, XMP and IPTC metadata read by a
// long-lived exiftool) and thumbnailer (thumbnails of images and videos,
// and a sprite sheet for scrubbing videos). Load, the safe decoder of
// pictures (pixel floods refused before decoding, EXIF orientation
// applied, formats Go does not decode handed to ffmpeg under a memory
// bound), serves the face detector too.
package images
