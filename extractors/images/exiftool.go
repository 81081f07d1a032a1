package images

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// exiftool -stay_open: one perl start costs ~100 ms, reading one JPEG's
// tags a few ms, so a worker keeps a small pool of exiftool processes
// that read requests from their standard input (one argument per line,
// "-executeN" runs them) and answer on standard output, each answer
// ending with the line "{readyN}". The numbers are per request, so a late
// answer of a killed request can never be taken for the next one's.

const (
	// defaultAnswerLimit bounds one answer: only the tags the extractor
	// reads are asked for, so anything near this is a hostile file
	// (thousands of keywords in a huge XMP packet).
	defaultAnswerLimit = 4 << 20
	// defaultRequestTimeout bounds one file within the extractor's own
	// time limit: exiftool reads metadata, not pixels.
	defaultRequestTimeout = time.Minute
	// defaultRestartAfter restarts a process after that many files, so
	// that whatever perl keeps growing stays bounded.
	defaultRestartAfter = 1000
	// exiftoolMemory bounds the address space of one exiftool: perl dies
	// with "Out of memory" rather than the machine swapping on a hostile
	// XMP packet, and the process is started again.
	exiftoolMemory = 1 << 30
	// readChunk is the read size of answers.
	readChunk = 32 << 10
)

// stayOpen is a pool of long-lived exiftool processes (extractors.Helpers)
// started through the shared Runner, each serving one request at a time.
// A process is started on first need, killed and forgotten when a request
// fails (late, too long, malformed), and restarted after
// defaultRestartAfter files.
type stayOpen struct {
	run    *extractors.Runner
	log    *slog.Logger
	common []string // the arguments of every request (-common_args)

	answerLimit int
	timeout     time.Duration
	memory      int64 // address-space bound of each process

	helpers *extractors.Helpers[*extractors.Proc]
	seq     atomic.Uint64
}

func newStayOpen(run *extractors.Runner, log *slog.Logger, size int, common []string) *stayOpen {
	s := &stayOpen{run: run, log: log, common: common, answerLimit: defaultAnswerLimit, timeout: defaultRequestTimeout,
		memory: exiftoolMemory}
	s.helpers = extractors.NewHelpers(size, s.start, nil)
	s.helpers.RestartAfter = defaultRestartAfter
	// Start numbering at a random point: two pools (tests, a restarted
	// worker) never expect the same marks.
	s.seq.Store(rand.Uint64N(1 << 40))
	return s
}

// Query asks exiftool about the file at path (absolute) and returns its
// answer without the ready mark: the JSON of -json. The answer of a file
// exiftool cannot read is still JSON, with an "Error" tag.
func (s *stayOpen) Query(ctx context.Context, path string) ([]byte, error) {
	arg, err := argLine(path)
	if err != nil {
		return nil, err
	}
	h, err := s.helpers.Acquire(ctx)
	switch {
	case errors.Is(err, extractors.ErrHelpersClosed):
		return nil, fmt.Errorf("exiftool: %w", err)
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("exiftool: waiting for a process: %w", err)
	case err != nil:
		return nil, extractors.Transient(fmt.Errorf("exiftool: %w", err))
	}
	out, err := s.ask(ctx, h.Proc, arg)
	s.helpers.Release(h, err == nil)
	return out, err
}

func (s *stayOpen) ask(ctx context.Context, proc *extractors.Proc, arg string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	// A late answer is ended by killing the process: the read below
	// then meets the end of its output.
	stop := context.AfterFunc(ctx, proc.Kill)
	defer stop()

	n := s.seq.Add(1)
	req := arg + "\n-execute" + strconv.FormatUint(n, 10) + "\n"
	if _, err := io.WriteString(proc.Stdin, req); err != nil {
		return nil, s.failure(ctx, proc, fmt.Errorf("exiftool: send request: %w", err))
	}
	out, err := readAnswer(proc.Stdout, readyMark(n), s.answerLimit)
	if err == nil && len(out) > 0 && out[0] != '[' {
		// -json answers are arrays: anything else is left over from
		// another request, and the process is out of step.
		err = errors.New("exiftool: answer out of step with its request")
	}
	if err != nil {
		return nil, s.failure(ctx, proc, err)
	}
	return out, nil
}

// failure words a failed request after its cause: the caller's context
// (cancelled or late: the error wraps ctx.Err()) or the process.
func (s *stayOpen) failure(ctx context.Context, proc *extractors.Proc, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("exiftool killed: %w", ctxErr)
	}
	proc.Kill()
	<-proc.Done()
	if perr := proc.Err(); perr != nil && !errors.Is(err, extractors.ErrOutputLimit) {
		return fmt.Errorf("%w (%v)", err, perr)
	}
	return err
}

// start starts one exiftool for the pool; ctx is the pool's lifetime.
func (s *stayOpen) start(ctx context.Context) (*extractors.Proc, *extractors.Proc, error) {
	args := append([]string{"-config", "", "-stay_open", "True", "-@", "-", "-common_args"}, s.common...)
	p, err := s.run.Start(ctx, extractors.Cmd{Name: "exiftool", Args: args, MaxMemory: s.memory})
	if err != nil {
		return nil, nil, err
	}
	if n := s.helpers.Started(); n > 0 && s.log != nil {
		s.log.Debug("exiftool started again", slog.Int64("starts", n+1), slog.Int("pid", p.Pid()))
	}
	return p, p, nil
}

// Close kills every process, busy or not; queries after it fail.
func (s *stayOpen) Close() error { return s.helpers.Close() }

// argLine is a file name as one line of exiftool's argument file. A name
// is always written as a C string ("#[CSTR]" with \\, \n, \r and \t
// escaped): a line break in a name would otherwise end the argument and
// start another one, an option chosen by whoever named the file. NUL
// cannot be passed at all, and a relative name could read as an option.
func argLine(path string) (string, error) {
	if !strings.HasPrefix(path, "/") {
		return "", fmt.Errorf("exiftool: file name %q is not absolute", path)
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", errors.New("exiftool: file name contains NUL")
	}
	var b strings.Builder
	b.WriteString("#[CSTR]")
	for _, r := range []byte(path) {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteByte(r)
		}
	}
	return b.String(), nil
}

func readyMark(n uint64) []byte { return []byte("{ready" + strconv.FormatUint(n, 10) + "}\n") }

// readAnswer reads r until the line mark (the ready line of this request)
// and returns what came before it. It fails when r ends first, when more
// than limit bytes come before the mark (extractors.ErrOutputLimit), and
// when anything follows the mark in the same read: exiftool writes nothing
// until the next request, so the stream is out of step.
func readAnswer(r io.Reader, mark []byte, limit int) ([]byte, error) {
	var buf []byte
	chunk := make([]byte, readChunk)
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			from := max(0, len(buf)-len(mark))
			buf = append(buf, chunk[:n]...)
			if i := findMark(buf, mark, from); i >= 0 {
				if i+len(mark) != len(buf) {
					return nil, errors.New("exiftool: output after the ready mark")
				}
				if i > limit {
					return nil, fmt.Errorf("exiftool: %w: answer over %d bytes", extractors.ErrOutputLimit, limit)
				}
				return buf[:i], nil
			}
			if len(buf) > limit+len(mark) {
				return nil, fmt.Errorf("exiftool: %w: answer over %d bytes", extractors.ErrOutputLimit, limit)
			}
		}
		if err != nil {
			if err == io.EOF {
				return nil, errors.New("exiftool: output ended before the ready mark")
			}
			return nil, fmt.Errorf("exiftool: read answer: %w", err)
		}
	}
}

// findMark returns the index of mark at the start of a line of buf, looking
// from index from on, or -1.
func findMark(buf, mark []byte, from int) int {
	for {
		i := bytes.Index(buf[from:], mark)
		if i < 0 {
			return -1
		}
		i += from
		if i == 0 || buf[i-1] == '\n' {
			return i
		}
		from = i + 1
	}
}
