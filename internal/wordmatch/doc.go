// Package wordmatch finds words and phrases in text the way a person
// looking for them expects: whole words only ("cat" is not found in
// "category"), whatever the case ("Paris" finds "PARIS"), whatever the
// accents ("cafe" finds "café" and "café" finds "CAFE"), and phrases of
// several words across any spacing or punctuation between them ("new
// york" finds "New-York" and "new\nyork").
//
// Text and phrases are cut into words the same way: a word is a run of
// letters, numbers and combining marks; anything else separates words
// (so "don't" is the two words "don" and "t", on both sides). Each word is
// folded: compatibility decomposition (NFKD: "ﬁ" is "fi"), combining marks
// removed (accents), Unicode case folding ("ß" is "ss"). Scripts written
// without spaces (Chinese, Japanese, Thai) are one word per run, so only a
// whole run matches there.
package wordmatch
