// Package faces holds vendor_faces, the face detector of pictures and
// video frames: pigo (a pure-Go cascade whose model, cascade/facefinder,
// ships embedded in this package with its licence), rectangles with a
// score, face crops, segments of the frames with faces, and the unknown
// people of the item.
package faces
