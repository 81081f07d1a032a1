package archive

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"

	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// Memory bounds of the stream decoders.
const (
	maxXZDict     = 64 << 20 // xz -9 uses 64 MiB
	maxZstdWindow = 64 << 20
	maxZstdMemory = 256 << 20
)

// guard stops a decompressed stream at MaxStreamBytes, and fails it as a
// bomb once it gave more than MaxRatio times the compressed bytes read
// past RatioFloor. It also checks the time limit every megabyte.
type guard struct {
	r     io.Reader
	in    *doctext.Counter // the compressed bytes the decoder reads
	l     *listing
	out   int64
	check int64
}

func (g *guard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	g.out += int64(n)
	switch {
	case g.out > MaxStreamBytes:
		return 0, &stopError{stopBytes}
	case g.out > RatioFloor && g.out > MaxRatio*max(g.in.N, 1):
		return 0, bomb(fmt.Sprintf("%d bytes came out of %d compressed", g.out, g.in.N))
	case g.out >= g.check:
		g.check = g.out + 1<<20
		if err := g.l.check(); err != nil {
			return 0, err
		}
	}
	return n, err
}

// compression names the single-stream compressors by magic number.
type compression string

const (
	gz   compression = "gzip"
	bz2  compression = "bzip2"
	xzc  compression = "xz"
	zstc compression = "zstd"
)

// walkStream lists a compressed stream: a tar inside is walked entry by
// entry; anything else is one entry, its size counted by decompressing
// it (within the guard's caps).
func walkStream(l *listing, sc scope, kind compression, r io.ReaderAt, size int64, name string) error {
	if kind == xzc {
		if err := checkXZ(r, size); err != nil {
			return err
		}
	}
	in := &doctext.Counter{R: io.NewSectionReader(r, 0, size)}
	var dec io.Reader
	inner := innerName(name, kind)
	switch kind {
	case gz:
		zr, err := gzip.NewReader(in)
		if err != nil {
			return fmt.Errorf("gzip: %w", err)
		}
		if zr.Name != "" {
			inner = zr.Name
		}
		dec = zr
	case bz2:
		dec = bzip2.NewReader(in)
	case xzc:
		// DictCap is a floor for this library: the dictionaries come from the
		// block headers, which checkXZ bounded.
		xr, err := xz.ReaderConfig{DictCap: lzma.MinDictCap}.NewReader(in)
		if err != nil {
			return fmt.Errorf("xz: %w", err)
		}
		dec = xr
	case zstc:
		zr, err := zstd.NewReader(in, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxMemory(maxZstdMemory), zstd.WithDecoderMaxWindow(maxZstdWindow))
		if err != nil {
			return fmt.Errorf("zstd: %w", err)
		}
		defer zr.Close()
		dec = zr
	default:
		return fmt.Errorf("unknown compression %q", kind)
	}
	g := &guard{r: dec, in: in, l: l, check: 1 << 20}
	br := bufio.NewReaderSize(g, 64<<10)
	head, err := br.Peek(512)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		if endsWalk(err) || l.ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("%s: %w", kind, err)
	}
	if isTar(head) {
		if sc.depth == 0 {
			l.format = "tar." + map[compression]string{gz: "gz", bz2: "bz2", xzc: "xz", zstc: "zst"}[kind]
		}
		return walkTar(l, sc, br)
	}
	return walkSingle(l, sc, br, inner, size)
}

// walkSingle lists the one file of a compressed stream.
func walkSingle(l *listing, sc scope, r io.Reader, name string, compressed int64) error {
	keep := int64(MaxTextFile)
	if sc.depth == 0 && archiveExts[extOf(name)] {
		keep = MaxNestedSize
	}
	var head bytes.Buffer
	n, err := io.Copy(&head, io.LimitReader(r, keep+1))
	if err == nil {
		var rest int64
		rest, err = io.Copy(io.Discard, r)
		n += rest
	}
	var hostile *hostileError
	if errors.As(err, &hostile) {
		return err
	}
	e := Entry{Name: name, Size: n, CompressedSize: compressed, Mode: fileModeOf, Type: "file"}
	if err != nil && !endsWalk(err) {
		if l.ctx.Err() != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("decompress: %w", err)
		}
		err = damaged(fmt.Errorf("decompress: %w", err))
	}
	unsafe, addErr := l.add(sc, e)
	if err != nil {
		return err
	}
	if addErr != nil {
		return addErr
	}
	if n <= keep {
		if l.wantsText(e, unsafe) {
			l.addText(head.Bytes())
		}
		if l.wantsNested(sc, e, unsafe) {
			return l.walkNested(name, head.Bytes())
		}
	}
	return nil
}

// innerName is the name of the file inside a compressed one: the outer
// name without the compressor's extension (a.txt.gz -> a.txt, a.tgz ->
// a.tar).
func innerName(name string, kind compression) string {
	base := name[strings.LastIndexAny(name, `/\`)+1:]
	lower := strings.ToLower(base)
	for ext, repl := range map[string]string{".tgz": ".tar", ".tbz2": ".tar", ".tbz": ".tar", ".txz": ".tar", ".tzst": ".tar",
		".gz": "", ".bz2": "", ".xz": "", ".zst": ""} {
		if strings.HasSuffix(lower, ext) {
			return base[:len(base)-len(ext)] + repl
		}
	}
	if base == "" {
		return "data"
	}
	return base + ".out"
}
