// Package provider is the one way metaharvest reaches a third-party
// analysis service (weather, audio classification, sports recognition, and
// the speech, recognition, logo, NSFW and NLP services that plug in the
// same way): an HTTP client configured by a URL and a key, that speaks
// JSON, bounds what it sends and what it reads, retries what may succeed
// later, and refuses to be redirected to another host.
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
// Media data is base64 (encoding/json's []byte), each item bounded by the
// extractor that sends it (a 30 s mono 16 kHz WAV, a few JPEG frames of at
// most 640 pixels); a request body is at most 16 MiB (Config.MaxRequest).
// Results may carry more fields than these: they are ignored. Values out of
// range (a confidence outside 0..1, a negative time) are dropped by the
// extractor that reads them, never stored.
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
