// Package faceindex finds, among many stored face descriptors, the few
// nearest to a new one without comparing it with every face: the
// candidate step of assigning a face to a person (package people), which
// then compares the candidates' full descriptors exactly.
//
// Each descriptor is reduced to a Code: the signs of its projections on
// CodeBits fixed random directions (random-hyperplane hashing), taken of
// the descriptor less the mean descriptor of many faces (centre.f32). The
// share of differing bits between two codes estimates the angle between
// the centred descriptors (angle/π), so faces of one person differ in far
// fewer bits than faces of two people (on the labelled set of people:
// median 123 bits of 256 between different people, 1 % of pairs under 91).
// A code is 32 bytes: a million faces hold 32 MB of codes.
//
// The codes are partitioned into cells (an inverted file): k-means in
// Hamming space with majority-vote centroids, about √n cells. A search
// ranks the centroids, reads the members of the nearest Probe cells only
// and returns the K members nearest in Hamming distance. Cells are trained
// again whenever the index has grown fourfold since the last training;
// until MinTrain codes there is one cell (an exact scan of a few thousand
// codes is as fast as probing).
//
// An Index is safe for concurrent use.
package faceindex
