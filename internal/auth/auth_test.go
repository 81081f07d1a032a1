package auth

import (
	"strings"
	"testing"
	"time"
)

func TestPasswordHash(t *testing.T) {
	t.Parallel()
	h, err := HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$") || strings.Contains(h, "correct horse") {
		t.Fatalf("unexpected hash form %q", h)
	}
	if ok, err := CheckPassword(h, "correct horse"); !ok || err != nil {
		t.Fatalf("right password refused: %v %v", ok, err)
	}
	if ok, _ := CheckPassword(h, "correct horsE"); ok {
		t.Fatal("wrong password accepted")
	}
	h2, _ := HashPassword("correct horse")
	if h2 == h {
		t.Fatal("two hashes of one password are equal: salt missing")
	}
	if _, err := CheckPassword("$argon2id$garbage", "x"); err == nil {
		t.Fatal("malformed hash not reported")
	}
	if CheckPasswordOrDummy("", "anything") {
		t.Fatal("dummy check must fail")
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	if _, err := NewTokens([]byte("short")); err == nil {
		t.Fatal("short secret accepted")
	}
	secret := []byte(strings.Repeat("s", 32))
	tk, _ := NewTokens(secret)
	key, err := tk.IssueAPIKey("k1", "u1")
	if err != nil {
		t.Fatal(err)
	}
	c, err := tk.Parse(key)
	if err != nil || c.Kind != KindAPIKey || c.KeyID != "k1" || c.Subject != "u1" {
		t.Fatalf("api key claims %+v %v", c, err)
	}
	other, _ := NewTokens([]byte(strings.Repeat("o", 32)))
	if _, err := other.Parse(key); err == nil {
		t.Fatal("token signed with another secret accepted")
	}
	login, exp, err := tk.IssueLogin("u1", "t1", time.Hour)
	if err != nil || time.Until(exp) < 59*time.Minute {
		t.Fatalf("login %v exp %v", err, exp)
	}
	if c, err := tk.Parse(login); err != nil || c.Kind != KindLogin {
		t.Fatalf("login claims %+v %v", c, err)
	}
	tk.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	if _, err := tk.Parse(login); err == nil {
		t.Fatal("expired login token accepted")
	}
	if _, err := tk.Parse(key + "x"); err == nil {
		t.Fatal("tampered token accepted")
	}
	if HashToken(key) == key || len(HashToken(key)) != 64 {
		t.Fatal("token hash form")
	}
}
