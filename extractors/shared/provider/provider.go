package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// Defaults of Config.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultAttempts    = 3
	DefaultMaxResponse = 1 << 20
	DefaultMaxRequest  = 16 << 20
	defaultBackoff     = 500 * time.Millisecond
	maxRetryAfter      = 10 * time.Second
	maxRedirects       = 3
	maxErrorMessage    = 200
)

// Settings are the provider settings of an extractor: PREFIX_URL and
// PREFIX_KEY, both required, the key secret. Env.Get("url") and
// Env.Get("key") read them; FromEnv makes the client.
func Settings(prefix, service string) []extractors.Setting {
	return []extractors.Setting{
		{Name: "url", Env: prefix + "_URL", Kind: extractors.KindText, Required: true,
			Doc: "base URL of the " + service + " provider (https://...); the task name is appended (see extractors/shared/provider)"},
		{Name: "key", Env: prefix + "_KEY", Kind: extractors.KindText, Required: true, Secret: true,
			Doc: "key of the " + service + " provider, sent as a bearer token"},
	}
}

// FromEnv makes the client of an extractor declared with Settings.
func FromEnv(env extractors.Env) (*Client, error) {
	return New(Config{URL: env.Get("url"), Key: env.Get("key")})
}

// Config configures a Client. Zero values take the defaults.
type Config struct {
	// URL is the provider's base URL (http or https, no user info).
	URL string
	// Key is sent as "Authorization: Bearer <key>".
	Key string
	// Timeout bounds one attempt, answer read included.
	Timeout time.Duration
	// Attempts is the number of tries of a call that may succeed later.
	Attempts int
	// MaxResponse and MaxRequest bound the bodies, in bytes.
	MaxResponse int64
	MaxRequest  int
	// Backoff is the pause before the second try; it doubles after.
	Backoff time.Duration
	// Transport, when set, replaces the client's own (tests).
	Transport http.RoundTripper
}

// Client calls one provider. It is safe for concurrent use.
type Client struct {
	base *url.URL
	key  string
	cfg  Config
	http *http.Client
}

// New checks cfg and returns its client.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("provider URL must be an absolute http or https URL")
	}
	if u.User != nil {
		return nil, errors.New("provider URL must not carry a user or password: set the key")
	}
	if cfg.Key == "" {
		return nil, errors.New("provider key is empty")
	}
	if strings.ContainsAny(cfg.Key, "\r\n") {
		return nil, errors.New("provider key holds a line break")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = DefaultAttempts
	}
	if cfg.MaxResponse <= 0 {
		cfg.MaxResponse = DefaultMaxResponse
	}
	if cfg.MaxRequest <= 0 {
		cfg.MaxRequest = DefaultMaxRequest
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = defaultBackoff
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	c := &Client{base: u, key: cfg.Key, cfg: cfg}
	rt := cfg.Transport
	if rt == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.ResponseHeaderTimeout = cfg.Timeout
		rt = t
	}
	c.http = &http.Client{Transport: rt, CheckRedirect: c.checkRedirect}
	return c, nil
}

// checkRedirect follows a redirect only to the provider's own scheme and
// host: the key must not travel elsewhere, nor the item's data.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return errRedirect("too many redirects")
	}
	if req.URL.Scheme != c.base.Scheme || !strings.EqualFold(req.URL.Host, c.base.Host) {
		return errRedirect("redirect to another host refused")
	}
	return nil
}

type errRedirect string

func (e errRedirect) Error() string { return string(e) }

// Host is the provider's host, for Data's source fields.
func (c *Client) Host() string { return c.base.Host }

// Error is a provider's refusal (a non-2xx answer).
type Error struct {
	Task    string
	Status  int
	Message string
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("provider %s: status %d", e.Task, e.Status)
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		msg += " (key refused)"
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// Call sends input for task and decodes the result into out. See the
// package doc for what is retried and what an error means.
func (c *Client) Call(ctx context.Context, task string, input, out any) error {
	if task == "" || strings.ContainsAny(task, "/?#%") {
		return fmt.Errorf("provider: bad task name %q", task)
	}
	body, err := json.Marshal(map[string]any{"task": task, "input": input})
	if err != nil {
		return fmt.Errorf("provider %s: encode request: %w", task, err)
	}
	if len(body) > c.cfg.MaxRequest {
		return fmt.Errorf("provider %s: request of %d bytes, at most %d", task, len(body), c.cfg.MaxRequest)
	}
	var last error
	pause := c.cfg.Backoff
	for attempt := 1; ; attempt++ {
		raw, retryAfter, err := c.once(ctx, task, body)
		if err == nil {
			if err := json.Unmarshal(raw, out); err != nil {
				return fmt.Errorf("provider %s: malformed answer: %w", task, err)
			}
			return nil
		}
		if ctx.Err() != nil {
			return extractors.Transient(fmt.Errorf("provider %s: %w", task, ctx.Err()))
		}
		if !retryable(err) {
			return err
		}
		last = err
		if attempt >= c.cfg.Attempts {
			break
		}
		wait := pause + rand.N(pause/2+1)
		if retryAfter > wait {
			wait = retryAfter
		}
		pause *= 2
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return extractors.Transient(fmt.Errorf("provider %s: %w", task, ctx.Err()))
		case <-t.C:
		}
	}
	return extractors.Transient(fmt.Errorf("%w (after %d tries)", last, c.cfg.Attempts))
}

// retryable says whether a failed attempt may succeed later.
func retryable(err error) bool {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Status >= 500 || pe.Status == http.StatusRequestTimeout || pe.Status == http.StatusTooManyRequests
	}
	var ne *netError
	return errors.As(err, &ne)
}

// netError is a failure to reach the provider or to read its answer in
// time: retryable.
type netError struct{ err error }

func (e *netError) Error() string { return e.err.Error() }
func (e *netError) Unwrap() error { return e.err }

// once makes one attempt. It returns the answer's body, or an error and
// the pause the provider asked for (Retry-After).
func (c *Client) once(ctx context.Context, task string, body []byte) ([]byte, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	u := *c.base
	u.Path += "/" + task
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, 0, fmt.Errorf("provider %s: %w", task, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "metaharvest")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, c.transportError(task, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxResponse+1))
	if err != nil {
		return nil, 0, &netError{fmt.Errorf("provider %s: read answer: %w", task, unwrapURL(err))}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, retryAfterOf(resp.Header.Get("Retry-After")), &Error{Task: task, Status: resp.StatusCode, Message: ErrorMessage(raw)}
	}
	if int64(len(raw)) > c.cfg.MaxResponse {
		return nil, 0, fmt.Errorf("provider %s: answer over %d bytes", task, c.cfg.MaxResponse)
	}
	return raw, 0, nil
}

// transportError words a failure of http.Client.Do without the URL (whose
// query might hold a secret): a refused redirect is deterministic, the
// rest (time-outs, refused or reset connections) retryable.
func (c *Client) transportError(task string, err error) error {
	var re errRedirect
	if errors.As(err, &re) {
		return fmt.Errorf("provider %s: %s", task, re)
	}
	return &netError{fmt.Errorf("provider %s: %w", task, unwrapURL(err))}
}

func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		var ne net.Error
		if errors.As(ue.Err, &ne) && ne.Timeout() {
			return fmt.Errorf("timed out: %w", context.DeadlineExceeded)
		}
		return ue.Err
	}
	return err
}

func retryAfterOf(h string) time.Duration {
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s > 0 {
		return min(time.Duration(s)*time.Second, maxRetryAfter)
	}
	return 0
}

// ErrorMessage reads the message of an error answer ({"error": {"message":
// ...}} or {"error": "..."}), cut to 200 characters and made printable; ""
// when there is none.
func ErrorMessage(body []byte) string {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil || len(v.Error) == 0 {
		return ""
	}
	var msg string
	var obj struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(v.Error, &msg) != nil {
		if json.Unmarshal(v.Error, &obj) != nil {
			return ""
		}
		msg = obj.Message
		if obj.Code != "" {
			msg = strings.TrimSpace(obj.Code + ": " + msg)
		}
	}
	return CleanText(msg, maxErrorMessage)
}

// CleanText keeps the printable characters of s, at most n runes (an
// ellipsis marks a cut), trimmed: for text a provider answers.
func CleanText(s string, n int) string {
	var b strings.Builder
	count := 0
	for _, r := range strings.ToValidUTF8(s, "") {
		if count >= n {
			b.WriteString("…")
			break
		}
		if r < 0x20 || r == 0x7f {
			r = ' '
		}
		b.WriteRune(r)
		count++
	}
	return strings.TrimSpace(b.String())
}

// CallMedia sends media for task in Batches, one call each, in order,
// with input {"media": batch}, and gives add each batch with its answer
// (decoded into a new T). It stops at the first error.
func CallMedia[T any](ctx context.Context, c *Client, task string, media []Media, add func(batch []Media, answer T) error) error {
	for _, batch := range Batches(media) {
		var answer T
		if err := c.Call(ctx, task, map[string]any{"media": batch}, &answer); err != nil {
			return err
		}
		if err := add(batch, answer); err != nil {
			return fmt.Errorf("provider %s: %w", task, err)
		}
	}
	return nil
}
