package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// DataBucket is the S3-compatible bucket that holds the platform's own
// files when api and workers share no disk: the artifacts extractors make
// (under <prefix>artifacts/) and the upload store (under
// <prefix>uploadstore/). Without it both live in DATA_DIR, as on one host.
//
//   - DATA_BUCKET_ENDPOINT: http(s)://host[:port], or host[:port] for TLS.
//   - DATA_BUCKET: the bucket's name (required with the endpoint).
//   - DATA_BUCKET_PREFIX: a key prefix (a folder) inside the bucket,
//     default none, so that one bucket can serve several deployments.
//   - DATA_BUCKET_REGION: the bucket's region (default: asked of the
//     server; us-east-1 for presigned URLs when the server does not say).
//   - DATA_BUCKET_ACCESS_KEY_ID, DATA_BUCKET_SECRET_ACCESS_KEY (secret):
//     static credentials; both empty means anonymous.
//   - DATA_BUCKET_PATH_STYLE: true (endpoint/bucket/key, as MinIO and
//     versitygw want), false (bucket.endpoint/key), empty: chosen by the
//     client from the endpoint.
//   - DATA_BUCKET_BROWSER_ENDPOINT: the bucket's endpoint as browsers
//     reach it. Set, the api answers an artifact request (once the item's
//     visibility is checked) with a redirect to a presigned URL of it
//     instead of streaming the bytes itself. Empty (the default): streamed.
//   - DATA_BUCKET_URL_TTL: how long such a URL is valid, in seconds
//     (default 300, at most 604800: S3's limit).
type DataBucket struct {
	Endpoint        string
	Name            string
	Prefix          string // "" or ending in "/"
	Region          string
	AccessKeyID     string
	SecretAccessKey string
	PathStyle       string
	BrowserEndpoint string
	URLTTL          time.Duration
}

// Enabled reports whether the platform's files live in the bucket.
func (b DataBucket) Enabled() bool { return b.Name != "" }

// maxURLTTL is the longest validity S3 accepts for a presigned URL.
const maxURLTTL = 7 * 24 * time.Hour

func loadDataBucket(str func(key, def string) string, integer func(key string, def, min int64) int64, problems *[]string) DataBucket {
	b := DataBucket{
		Endpoint: str("DATA_BUCKET_ENDPOINT", ""), Name: str("DATA_BUCKET", ""),
		Prefix: strings.Trim(str("DATA_BUCKET_PREFIX", ""), "/"), Region: str("DATA_BUCKET_REGION", ""),
		AccessKeyID: str("DATA_BUCKET_ACCESS_KEY_ID", ""), SecretAccessKey: str("DATA_BUCKET_SECRET_ACCESS_KEY", ""),
		PathStyle: strings.ToLower(str("DATA_BUCKET_PATH_STYLE", "")), BrowserEndpoint: str("DATA_BUCKET_BROWSER_ENDPOINT", ""),
		URLTTL: time.Duration(integer("DATA_BUCKET_URL_TTL", 300, 1)) * time.Second,
	}
	bad := func(format string, args ...any) { *problems = append(*problems, fmt.Sprintf(format, args...)) }
	if (b.Name == "") != (b.Endpoint == "") {
		bad("DATA_BUCKET and DATA_BUCKET_ENDPOINT must be set together")
	}
	if b.Endpoint != "" {
		if _, _, err := b.HostPort(); err != nil {
			bad("DATA_BUCKET_ENDPOINT %s", err)
		}
	}
	if b.Name != "" && !validBucketName(b.Name) {
		bad("DATA_BUCKET must be a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens")
	}
	if b.Prefix != "" {
		for seg := range strings.SplitSeq(b.Prefix, "/") {
			if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "\\\x00") {
				bad("DATA_BUCKET_PREFIX must be a key prefix like metaharvest/prod, without empty, . or .. segments")
				break
			}
		}
		b.Prefix += "/"
	}
	if (b.AccessKeyID == "") != (b.SecretAccessKey == "") {
		bad("DATA_BUCKET_ACCESS_KEY_ID and DATA_BUCKET_SECRET_ACCESS_KEY must be set together")
	}
	switch b.PathStyle {
	case "", "true", "false":
	default:
		bad("DATA_BUCKET_PATH_STYLE must be true or false")
	}
	if b.BrowserEndpoint != "" {
		if b.Name == "" {
			bad("DATA_BUCKET_BROWSER_ENDPOINT needs DATA_BUCKET")
		}
		if u, err := url.Parse(b.BrowserEndpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			bad("DATA_BUCKET_BROWSER_ENDPOINT must be an http(s) URL of a host, without a path")
		}
	}
	if b.URLTTL > maxURLTTL {
		bad("DATA_BUCKET_URL_TTL must be at most %d seconds", int(maxURLTTL/time.Second))
	}
	return b
}

// HostPort is the endpoint as an S3 client wants it: host[:port], and
// whether to use TLS (an endpoint without a scheme does).
func (b DataBucket) HostPort() (hostport string, secure bool, err error) {
	return endpointHost(b.Endpoint)
}

// BrowserHostPort is the browser endpoint as HostPort gives the endpoint;
// empty when there is none.
func (b DataBucket) BrowserHostPort() (hostport string, secure bool, err error) {
	if b.BrowserEndpoint == "" {
		return "", false, nil
	}
	return endpointHost(b.BrowserEndpoint)
}

func endpointHost(e string) (string, bool, error) {
	raw := e
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", false, fmt.Errorf("is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return "", false, fmt.Errorf("must be http:// or https://")
	case u.User != nil:
		return "", false, fmt.Errorf("must not hold credentials (use DATA_BUCKET_ACCESS_KEY_ID and DATA_BUCKET_SECRET_ACCESS_KEY)")
	case u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return "", false, fmt.Errorf("must be a host[:port], without a path or query")
	}
	return u.Host, u.Scheme == "https", nil
}

// validBucketName is S3's rule for new buckets, which every server accepts.
func validBucketName(n string) bool {
	if len(n) < 3 || len(n) > 63 || n[0] == '.' || n[0] == '-' || n[len(n)-1] == '.' || n[len(n)-1] == '-' {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-') {
			return false
		}
	}
	return !strings.Contains(n, "..")
}
