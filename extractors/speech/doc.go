// Package speech is the speech-to-text family: speech_to_text turns the
// spoken words of an audio file, or of the sound of a video, into a timed
// transcript, offline.
//
// The engine here is CMU PocketSphinx (Debian's pocketsphinx with its US
// English model pocketsphinx-en-us, shipped inside the package: nothing is
// downloaded at run time). It is fast and small (about 0.5 s of one core per
// second of audio, about 110 MB of memory) and of low accuracy (roughly one
// word in four to one in three wrong on read speech, worse on noise and
// music): good enough to find an item by the words it says, not to read
// as subtitles. No better offline engine with a model inside a package is
// served by the registries this project uses (no Whisper or Vosk model is
// packaged), so a better engine plugs in as a Recognizer (an HTTP provider
// configured by key) and reuses Result.
//
// The audio stream is decoded by ffmpeg (local file only, av.InputArgs) to
// 16 kHz mono PCM, padded so that sample 0 is the start of the file's
// timeline, and streamed into pocketsphinx_continuous through Go, which
// counts what it feeds: at most SPEECH_MAX_SECONDS of audio is recognised,
// and when the extractor's time limit draws near the feed is closed, so
// that the words recognised so far are kept (complete: false, stopped_by
// "time_limit") instead of the whole run being lost.
//
// The transcript is reported twice: as a Caption (source "speech",
// language "en", format "speech"), whose cues are phrases cut at pauses,
// utterance ends and a maximum length, searchable as transcript.text and
// read by keyword hits with their times; and in Data (text, word and cue
// counts, seconds processed, mean word confidence). The extractor writes
// no Segments itself: the search index links every caption of an item,
// this one included, to the item's segments by time when it builds them
// (summary.transcript with source "speech"; see search.BuildSegments), and
// the phrases no frame reaches (an audio file has no frames) become
// segments of their own at their start, so that a segment search finds a
// spoken word at the second it is said.
//
// # speech_to_text_provider
//
// The Provider recogniser sends the same decoded audio to a provider
// (extractors/shared/provider, task speech_to_text) configured by SPEECH_API_URL
// and SPEECH_API_KEY (without them it is "not available: speech provider
// setting ... not set"): clip after clip of SPEECH_API_CLIP_SECONDS (60,
// 10 to 300) as mono 16 kHz WAV, one call each, in order, with the
// language hint SPEECH_API_LANGUAGE when set; clips without sound (below
// -60 dBFS) are not sent. SPEECH_MAX_SECONDS bounds it as it bounds
// pocketsphinx, and near the time limit no further clip is sent (the
// words so far kept, stopped_by "time_limit"). Its words (checked:
// provider.Transcript.Clean) go through Result like pocketsphinx's: the
// same Caption (source "speech", the language the provider heard), the
// same Data, the transcript under "transcript" instead of "text" (a
// top-level "text" is read as a document's own text by keyword hits,
// which read the caption already).
package speech
