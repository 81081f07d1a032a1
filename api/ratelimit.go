package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/metaharvest/metaharvest/internal/config"
)

// loginLimiter counts failed logins per account and per client in Redis, so
// every api process of a deployment shares the counts.
type loginLimiter struct {
	rdb        *redis.Client
	prefix     string
	maxAccount int64
	maxClient  int64
	window     time.Duration
}

func newLoginLimiter(rdb *redis.Client, cfg config.Config) *loginLimiter {
	prefix := "metaharvest:login:"
	if cfg.RedisNamespace != "" {
		prefix = cfg.RedisNamespace + ":login:"
	}
	return &loginLimiter{rdb: rdb, prefix: prefix, maxAccount: int64(cfg.LoginMaxFailures),
		maxClient: 4 * int64(cfg.LoginMaxFailures), window: cfg.LoginWindow}
}

func (l *loginLimiter) keys(email, client string) (string, string) {
	h := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email))))
	return l.prefix + "acct:" + hex.EncodeToString(h[:12]), l.prefix + "client:" + client
}

// blocked returns how long the caller must wait, or 0.
func (l *loginLimiter) blocked(ctx context.Context, email, client string) (time.Duration, error) {
	acct, cl := l.keys(email, client)
	pipe := l.rdb.Pipeline()
	a, c := pipe.Get(ctx, acct), pipe.Get(ctx, cl)
	at, ct := pipe.PTTL(ctx, acct), pipe.PTTL(ctx, cl)
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return 0, err
	}
	var wait time.Duration
	if n, _ := a.Int64(); n >= l.maxAccount {
		wait = max(wait, at.Val())
	}
	if n, _ := c.Int64(); n >= l.maxClient {
		wait = max(wait, ct.Val())
	}
	if wait < 0 {
		wait = time.Second
	}
	return wait, nil
}

// failed records a failed attempt.
func (l *loginLimiter) failed(ctx context.Context, email, client string) error {
	acct, cl := l.keys(email, client)
	pipe := l.rdb.TxPipeline()
	for _, k := range []string{acct, cl} {
		pipe.Incr(ctx, k)
		pipe.ExpireNX(ctx, k, l.window)
	}
	_, err := pipe.Exec(ctx)
	return err
}

// succeeded clears the account's count (not the client's: one good
// password must not reset a client guessing many accounts).
func (l *loginLimiter) succeeded(ctx context.Context, email string) error {
	acct, _ := l.keys(email, "")
	return l.rdb.Del(ctx, acct).Err()
}
