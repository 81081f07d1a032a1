package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Token kinds carried in the "typ" claim.
const (
	KindAPIKey = "key"
	KindLogin  = "login"
	// KindSession is a browser session of the queue dashboard, carried in
	// a cookie. Parse refuses it: it is no bearer credential.
	KindSession = "session"
)

// Claims of a metaharvest bearer token.
type Claims struct {
	Kind  string `json:"typ"`
	KeyID string `json:"kid,omitempty"`
	jwt.RegisteredClaims
}

// Tokens signs and verifies bearer tokens with the deployment's secret.
type Tokens struct {
	secret []byte
	now    func() time.Time
}

// NewTokens uses secret (at least 32 bytes) for HS256.
func NewTokens(secret []byte) (*Tokens, error) {
	if len(secret) < 32 {
		return nil, errors.New("token secret must be at least 32 bytes")
	}
	return &Tokens{secret: secret, now: time.Now}, nil
}

// IssueAPIKey returns the jwt of a new API key. API keys do not expire; they
// end when deactivated or deleted (checked against the stored hash).
func (t *Tokens) IssueAPIKey(keyID, userID string) (string, error) {
	return t.sign(Claims{Kind: KindAPIKey, KeyID: keyID, RegisteredClaims: jwt.RegisteredClaims{
		Subject: userID, IssuedAt: jwt.NewNumericDate(t.now()),
	}})
}

// IssueLogin returns a login token valid for ttl.
func (t *Tokens) IssueLogin(userID, tokenID string, ttl time.Duration) (string, time.Time, error) {
	exp := t.now().Add(ttl).UTC().Truncate(time.Second)
	s, err := t.sign(Claims{Kind: KindLogin, RegisteredClaims: jwt.RegisteredClaims{
		Subject: userID, ID: tokenID, IssuedAt: jwt.NewNumericDate(t.now()), ExpiresAt: jwt.NewNumericDate(exp),
	}})
	return s, exp, err
}

func (t *Tokens) sign(c Claims) (string, error) {
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(t.secret)
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	return s, nil
}

// IssueSession returns a dashboard session token valid for ttl.
func (t *Tokens) IssueSession(userID string, ttl time.Duration) (string, error) {
	return t.sign(Claims{Kind: KindSession, RegisteredClaims: jwt.RegisteredClaims{
		Subject: userID, IssuedAt: jwt.NewNumericDate(t.now()), ExpiresAt: jwt.NewNumericDate(t.now().Add(ttl)),
	}})
}

// ParseSession verifies a dashboard session token and returns its user.
func (t *Tokens) ParseSession(token string) (string, error) {
	var c Claims
	_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return t.secret, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithTimeFunc(t.now), jwt.WithExpirationRequired())
	if err != nil || c.Kind != KindSession || c.Subject == "" {
		return "", ErrBadToken
	}
	return c.Subject, nil
}

// ErrBadToken covers every reason a token is refused by its signature or form.
var ErrBadToken = errors.New("invalid token")

// Parse verifies signature, algorithm and expiry.
func (t *Tokens) Parse(token string) (*Claims, error) {
	var c Claims
	_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return t.secret, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithTimeFunc(t.now))
	if err != nil || (c.Kind != KindAPIKey && c.Kind != KindLogin) || c.Subject == "" {
		return nil, ErrBadToken
	}
	if c.Kind == KindAPIKey && c.KeyID == "" {
		return nil, ErrBadToken
	}
	return &c, nil
}

// HashToken is how API key values are stored.
func HashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// CSRF is the anti-forgery token of a session token: a page of the web UI
// sends it in a header (access.CSRFHeader) with each state-changing request
// it makes to the api. Another site can neither read it (it is in the page)
// nor derive it (it is keyed by the deployment's secret).
func (t *Tokens) CSRF(session string) string {
	m := hmac.New(sha256.New, t.secret)
	m.Write([]byte("csrf\x00"))
	m.Write([]byte(session))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// CheckCSRF reports whether token is session's CSRF token (in constant time).
func (t *Tokens) CheckCSRF(session, token string) bool {
	if session == "" || token == "" || len(token) > 128 {
		return false
	}
	return hmac.Equal([]byte(t.CSRF(session)), []byte(token))
}
