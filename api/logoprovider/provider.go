package logoprovider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Training is what is sent to train a brand's logo.
type Training struct {
	Name    string   `json:"name"`
	Website string   `json:"website"`
	Images  []string `json:"images"` // URLs the provider fetches
}

// Provider trains logo recognition.
type Provider interface {
	// Submit starts a training and returns the provider's id of it.
	Submit(ctx context.Context, t Training) (string, error)
	// Complete reports whether the training of that id is done.
	Complete(ctx context.Context, id string) (bool, error)
}

// Timeout bounds one call to the provider.
const Timeout = 30 * time.Second

// maxAnswer bounds what is read of an answer.
const maxAnswer = 1 << 20

// HTTP is the Provider reached over HTTP (see the package documentation).
type HTTP struct {
	base   string
	key    string
	client *http.Client
}

var _ Provider = (*HTTP)(nil)

// NewHTTP returns the adapter for the provider at base (an http(s) URL)
// with API key key.
func NewHTTP(base, key string) (*HTTP, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("logo provider: the URL must be http(s)")
	}
	if key == "" {
		return nil, errors.New("logo provider: no key")
	}
	return &HTTP{base: strings.TrimRight(base, "/"), key: key, client: &http.Client{Timeout: Timeout}}, nil
}

// Submit implements Provider.
func (h *HTTP) Submit(ctx context.Context, t Training) (string, error) {
	body, err := json.Marshal(t)
	if err != nil {
		return "", fmt.Errorf("logo provider: encode training: %w", err)
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := h.call(ctx, http.MethodPost, h.base+"/trainings", body, &out); err != nil {
		return "", err
	}
	if out.ID == "" {
		return "", errors.New("logo provider: the answer names no training id")
	}
	return out.ID, nil
}

// Complete implements Provider.
func (h *HTTP) Complete(ctx context.Context, id string) (bool, error) {
	var out struct {
		Complete *bool `json:"complete"`
	}
	if err := h.call(ctx, http.MethodGet, h.base+"/trainings/"+url.PathEscape(id), nil, &out); err != nil {
		return false, err
	}
	if out.Complete == nil {
		return false, errors.New("logo provider: the answer does not say whether the training is complete")
	}
	return *out.Complete, nil
}

func (h *HTTP) call(ctx context.Context, method, u string, body []byte, out any) error {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return fmt.Errorf("logo provider: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+h.key)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := h.client.Do(req)
	if err != nil {
		return fmt.Errorf("logo provider: %s %s: %w", method, req.URL.Path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("logo provider: read answer: %w", err)
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return fmt.Errorf("logo provider: %s %s answered %d", method, req.URL.Path, res.StatusCode)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("logo provider: the answer is not JSON: %w", err)
	}
	return nil
}
