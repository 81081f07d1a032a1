package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// The operator's commands (harvest, search, jobs) are clients of a running
// platform: they speak to its API over HTTP, with the base URL and API key
// from METAHARVEST_URL and METAHARVEST_API_KEY or --url and --api-key, and
// need none of the platform's own configuration.

// cliCommands are the client commands, dispatched before any platform
// configuration is read.
var cliCommands = map[string]func(ctx context.Context, c *cli, args []string) error{
	"harvest": cliHarvest,
	"search":  cliSearch,
	"jobs":    cliJobs,
}

// Exit statuses of the client commands.
const (
	exitFailure      = 1
	exitUsage        = 2
	exitFilesFailed  = 3
	cliRequestTimout = 30 * time.Second
)

// errCLIUsage marks a usage mistake (exit status 2).
var errCLIUsage = errors.New("usage")

// exitError carries an exit status other than 1.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// cli is the state of one client command.
type cli struct {
	base string
	key  string
	// keySet: METAHARVEST_API_KEY is set, said (never shown) by the help.
	keySet bool
	http   *http.Client
	stdout io.Writer
	stderr io.Writer
	// tty: stderr is a terminal (the progress bar redraws itself in place).
	tty bool
	now func() time.Time
}

// runCLI runs a client command and returns its exit status.
func runCLI(ctx context.Context, name string, args []string, stdout, stderr io.Writer, lookup func(string) (string, bool)) int {
	cmd := cliCommands[name]
	env := func(k, def string) string {
		if v, ok := lookup(k); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
		return def
	}
	c := &cli{base: env("METAHARVEST_URL", "http://localhost:8080"), key: env("METAHARVEST_API_KEY", ""),
		keySet: env("METAHARVEST_API_KEY", "") != "", http: &http.Client{Timeout: cliRequestTimout}, stdout: stdout, stderr: stderr, tty: isTerminal(stderr), now: time.Now}
	err := cmd(ctx, c, args)
	var ee *exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errCLIUsage):
		fmt.Fprintf(stderr, "metaharvest %s: %v\n", name, err)
		return exitUsage
	case errors.As(err, &ee):
		fmt.Fprintf(stderr, "metaharvest %s: %s\n", name, ee.msg)
		return ee.code
	}
	fmt.Fprintf(stderr, "metaharvest %s: %v\n", name, err)
	return exitFailure
}

// flags returns a flag set with the common flags bound to c.
func (c *cli) flags(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	// Help shows a flag's default through its Value's String: the key's
	// never prints itself, the URL's hides a password it may hold.
	fs.Var(urlFlag{&c.base}, "url", "base `URL` of the platform (METAHARVEST_URL)")
	keyFrom := "not set"
	if c.keySet {
		keyFrom = "set, not shown"
	}
	fs.Var(secretFlag{&c.key}, "api-key", "an API key's jwt or a login `token` (default: METAHARVEST_API_KEY, "+keyFrom+")")
	fs.Usage = func() {
		fmt.Fprintf(c.stderr, "usage: metaharvest %s\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

// secretFlag is a flag whose value is a credential: it never prints it
// (help, errors), so its default, taken from the environment, stays there.
type secretFlag struct{ v *string }

func (f secretFlag) String() string { return "" }

func (f secretFlag) Set(s string) error {
	*f.v = s
	return nil
}

// urlFlag is a URL flag that prints the URL with its password hidden.
type urlFlag struct{ v *string }

func (f urlFlag) String() string {
	if f.v == nil {
		return ""
	}
	return redactURL(*f.v)
}

func (f urlFlag) Set(s string) error {
	*f.v = s
	return nil
}

// redactURL is u with the password of its user information replaced by
// xxxxx; a string that does not parse has everything between its scheme
// and its last @ replaced, since the parser cannot say where a password
// ends.
func redactURL(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Redacted()
	}
	at := strings.LastIndex(u, "@")
	if at < 0 {
		return u
	}
	scheme := ""
	if i := strings.Index(u[:at], "://"); i >= 0 {
		scheme = u[:i+3]
	}
	return scheme + "xxxxx" + u[at:]
}

// parse parses args, flags and positional arguments in any order.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", errCLIUsage, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return rest, nil
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
}

// apiError is the platform's error body.
type apiError struct {
	Status  int
	Code    string            `json:"code"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields"`
}

func (e *apiError) Error() string {
	msg := fmt.Sprintf("%s (%d %s)", e.Message, e.Status, e.Code)
	for k, v := range e.Fields {
		msg += fmt.Sprintf("; %s %s", k, v)
	}
	return msg
}

// call sends a request to the API and decodes a 2xx JSON answer into out.
func (c *cli) call(ctx context.Context, method, path string, body, out any) error {
	if c.key == "" {
		return &exitError{exitUsage, "no API key: set METAHARVEST_API_KEY or pass --api-key"}
	}
	var r io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(raw)
	}
	u, err := url.JoinPath(c.base, path)
	if err != nil {
		// url.Error quotes the whole URL, password and all: say only what is wrong.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("%w: --url %q: %v", errCLIUsage, redactURL(c.base), err)
	}
	if i := strings.IndexByte(path, '?'); i >= 0 { // JoinPath escapes '?'
		u, _ = url.JoinPath(c.base, path[:i])
		u += path[i:]
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if res.StatusCode/100 != 2 {
		var e struct {
			Error apiError `json:"error"`
		}
		if json.Unmarshal(raw, &e) == nil && e.Error.Code != "" {
			e.Error.Status = res.StatusCode
			return &e.Error
		}
		return fmt.Errorf("%s %s: %s", method, path, res.Status)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s %s: unreadable answer: %w", method, path, err)
	}
	return nil
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
