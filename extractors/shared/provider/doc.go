// Package provider is the one way metaharvest reaches a third-party
// analysis service (weather, audio classification, sports recognition,
// speech to text, recognition and tags, logos, adult content and language
// analysis): an HTTP client configured by a URL and a key, that speaks
// JSON, bounds what it sends and what it reads, retries what may succeed
// later, and refuses to be redirected to another host; the samples of an
// item it sends (sample.go); and the checks every answer passes before
// it is stored (labels.go, answers.go).
//
// An extractor that needs a provider declares Settings(prefix) — PREFIX_URL
// and PREFIX_KEY, both Required, the key Secret — so that without them it
// is listed as "not available: ... not set" and never runs. Nothing is
// faked in production: tests start their own provider (httptest).
//
// # Contract
//
// Every call is one request:
//
//	POST {PREFIX_URL}/{task}
//	Authorization: Bearer {PREFIX_KEY}
//	Content-Type: application/json
//	Accept: application/json
//	User-Agent: metaharvest
//
//	{"task": "<task>", "input": {...}}
//
// and a 2xx answer whose body is the task's result, a JSON object, at most
// 1 MiB (Config.MaxResponse). The tasks and their input and result:
//
//	weather
//	  input  {"latitude": 48.8584, "longitude": 2.2945, "time": "2024-05-01T14:03:00+02:00"}
//	  result {"temperature_c": 18.5, "conditions": "light rain",
//	          "wind": {"speed_kmh": 12, "direction_deg": 270}, "source": "ECMWF ERA5"}
//
//	audio_classification
//	  input  {"media": [{"type": "audio/wav", "start": 0, "duration": 30, "data": "<base64>"}]}
//	  result {"labels": [{"name": "music", "confidence": 0.92, "start": 0, "end": 12.5}]}
//
//	sports
//	  input  {"media": [{"type": "image/jpeg", "time": 12.0, "data": "<base64>"}, ...]}
//	  result {"labels": [{"name": "football", "confidence": 0.88, "time": 12.0}]}
//
//	speech_to_text
//	  input  {"media": [{"type": "audio/wav", "start": 60, "duration": 60, "data": "<base64>"}],
//	          "language": "en"}
//	  result {"language": "en-GB", "source": "model-7",
//	          "words": [{"text": "hello", "start": 0.21, "end": 0.52, "confidence": 0.97}]}
//
//	recognition
//	  input  {"media": [{"type": "image/jpeg", "time": 12.0, "data": "<base64>"}, ...]}
//	  result {"labels": [{"name": "dog", "confidence": 0.91, "time": 12.0}],
//	          "people": [{"name": "Ada Lovelace", "confidence": 0.8, "time": 12.0}]}
//
//	logos
//	  input  {"media": [{"type": "image/jpeg", "time": 12.0, "data": "<base64>"}, ...]}
//	  result {"logos": [{"name": "Acme", "confidence": 0.8, "time": 12.0,
//	          "box": {"left": 0.1, "top": 0.05, "width": 0.2, "height": 0.1}}]}
//
//	nsfw
//	  input  {"media": [{"type": "image/jpeg", "time": 12.0, "data": "<base64>"}, ...]}
//	  result {"results": [{"nsfw_score": 0.93, "categories": {"porn": 0.9, "sexy": 0.03, "neutral": 0.07}}, ...]}
//
//	nlp
//	  input  {"text": "The mayor of Paris opened the bridge..."}
//	  result {"language": {"code": "en", "name": "English", "confidence": 0.99},
//	          "sentiment": [{"name": "positive", "confidence": 0.71}, {"name": "neutral", "confidence": 0.2}],
//	          "key_phrases": [{"name": "new bridge", "appearances": 3}],
//	          "entities": [{"name": "Paris", "type": "place", "appearances": 2}]}
//
// What the tasks mean:
//
//   - speech_to_text: the words heard in one clip of an item's audio (mono
//     16 kHz WAV, at most SPEECH_API_CLIP_SECONDS: an item is sent clip
//     after clip, one call each, start and duration saying where the clip
//     is in the item). Word times are seconds from the start of the clip.
//     "language" in the input is a BCP 47 hint, left out when not
//     configured; the result's is what was heard.
//   - recognition, logos and nsfw: pictures, JPEG of at most 640 pixels on
//     the long side (a picture item, or frames of a video with their time
//     in the item, seconds; a picture item has none). A label, person or
//     logo gives the time of the picture it was seen in. A box is in
//     fractions (0..1) of the picture from its top left corner. nsfw
//     answers one result per picture, in the order sent: nsfw_score is the
//     probability of adult content (0 safe, 1 unsafe), categories those of
//     porn, sexy, hentai, drawing and neutral (others are ignored).
//   - nlp: the text an item holds (its documents' text, OCR, transcripts,
//     titles: at most 200 KiB, UTF-8). Sentiment names are positive,
//     negative, neutral and mixed; an entity type is person, place or
//     organization (other types are kept as "other").
//
// Any result may say which service or model answered ("source", at most
// 64 characters), stored with the data.
//
// Media data is base64 (encoding/json's []byte), each item bounded by the
// extractor that sends it (Bounds in sample.go: a WAV of at most a few
// minutes, JPEG pictures of at most 640 pixels and 2 MiB); pictures are
// sent at most 8 MiB of them a request (Batches), the calls in order, and
// a request body is at most 16 MiB (Config.MaxRequest). Results may carry
// more fields than these: they are ignored. Values out of range (a
// confidence outside 0..1, a negative time, a box outside the picture, a
// word without times) are dropped by the extractor that reads them
// (answers.go), never stored; an answer that cannot be matched to what was
// sent (an nsfw answer with another number of results) is an error.
//
// Errors are any non-2xx status, with an optional body {"error": {"code":
// "...", "message": "..."}} or {"error": "..."} whose message (cut to 200
// characters) goes into the recorded error. What is retried: 5xx, 408 and
// 429 answers (Retry-After honoured up to 10 s), time-outs and connection
// failures, up to Config.Attempts tries with a growing pause; when the
// tries run out the error is marked extractors.Transient (the harvest task
// is retried later). Every other failure is deterministic and recorded:
// 4xx (401 and 403 say the key was refused), a malformed or oversized
// answer, a redirect to another scheme or host. The key travels in the
// header only and never appears in an error.
package provider
