// Package logoprovider passes logo training requests to an external logo
// recognition provider. Provider is what the api needs of one; HTTP is the
// adapter for a provider reached over HTTP with an API key
// (LOGO_PROVIDER_KEY, LOGO_PROVIDER_URL).
//
// The adapter's protocol, JSON both ways, the key as a bearer credential:
//
//	POST {base}/trainings {"name", "website", "images": [url, ...]}
//	  -> 2xx {"id": "<provider request id>"}
//	GET  {base}/trainings/{id}
//	  -> 2xx {"id", "complete": bool}
//
// The provider fetches the images from their URLs (the logo bucket). Any
// other status, a body that is not such JSON, or no answer within Timeout
// is an error; the api answers 502 then.
package logoprovider
