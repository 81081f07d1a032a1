package blobstore

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress is what Copy did so far.
type Progress struct {
	// Listed files of the source, and their bytes.
	Listed, ListedBytes int64
	// Copied files and bytes.
	Copied, CopiedBytes int64
	// Present: files the destination had already, complete (same size;
	// same content when verifying).
	Present int64
	// Verified: files whose content was compared at both ends and found
	// equal (after a copy, or already present).
	Verified int64
	// Recopied: files present with other content, copied again.
	Recopied int64
}

// CopyOptions tune Copy.
type CopyOptions struct {
	// Verify compares every file's MD5 at both ends after its copy, and
	// of every file already present (which is copied again when it
	// differs).
	Verify bool
	// Workers is how many files are copied at once (default 8).
	Workers int
	// Report is called after each page of up to PageSize files.
	Report func(Progress)
}

// PageSize is how many keys Copy and Sweep list at a time.
const PageSize = 1000

// Copy copies every file of from to to, page by page in key order. It
// is resumable: a file already at the destination with its size is
// skipped, since every write is atomic (a file there is complete), so a
// copy run again after an interruption does only what is left.
func Copy(ctx context.Context, from, to Store, opt CopyOptions) (Progress, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = 8
	}
	var p Progress
	after := ""
	for {
		page, err := from.List(ctx, "", after, PageSize)
		if err != nil {
			return p, fmt.Errorf("list %s: %w", from, err)
		}
		if len(page) == 0 {
			return p, nil
		}
		last := page[len(page)-1].Key
		have, err := listUpTo(ctx, to, after, last)
		if err != nil {
			return p, fmt.Errorf("list %s: %w", to, err)
		}
		var (
			mu    sync.Mutex
			wg    sync.WaitGroup
			first error
			sem   = make(chan struct{}, workers)
		)
		for _, src := range page {
			p.Listed++
			p.ListedBytes += src.Size
			dst, present := have[src.Key]
			present = present && dst.Size == src.Size
			if present && !opt.Verify {
				p.Present++
				continue
			}
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				copied, recopied, verified, err := copyOne(ctx, from, to, src, dst, present, opt.Verify)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					if first == nil {
						first = err
					}
					return
				}
				if copied {
					p.Copied++
					p.CopiedBytes += src.Size
				} else {
					p.Present++
				}
				if recopied {
					p.Recopied++
				}
				if verified {
					p.Verified++
				}
			}()
		}
		wg.Wait()
		if first != nil {
			return p, first
		}
		if opt.Report != nil {
			opt.Report(p)
		}
		after = last
	}
}

// listUpTo lists to's files after after up to and including last.
func listUpTo(ctx context.Context, s Store, after, last string) (map[string]Info, error) {
	out := map[string]Info{}
	for {
		page, err := s.List(ctx, "", after, PageSize)
		if err != nil {
			return nil, err
		}
		for _, in := range page {
			if in.Key > last {
				return out, nil
			}
			out[in.Key] = in
		}
		if len(page) < PageSize {
			return out, nil
		}
		after = page[len(page)-1].Key
	}
}

// copyOne copies src unless it is present with the same content (when
// verifying), then checks the copy when verifying.
func copyOne(ctx context.Context, from, to Store, src, dst Info, present, verify bool) (copied, recopied, verified bool, err error) {
	if present {
		same, err := sameContent(ctx, from, to, src, dst)
		if err != nil {
			return false, false, false, err
		}
		if same {
			return false, false, true, nil
		}
		recopied = true
	}
	o, err := from.Open(ctx, src.Key, true)
	if err != nil {
		return false, false, false, fmt.Errorf("copy %s: %w", src.Key, err)
	}
	_, err = to.Put(ctx, src.Key, o, o.Info().Size)
	o.Close()
	if err != nil {
		return false, false, false, fmt.Errorf("copy %s: %w", src.Key, err)
	}
	if verify {
		info, err := to.Stat(ctx, src.Key)
		if err != nil {
			return false, false, false, fmt.Errorf("verify %s: %w", src.Key, err)
		}
		same, err := sameContent(ctx, from, to, src, info)
		if err != nil {
			return false, false, false, err
		}
		if !same {
			return false, false, false, fmt.Errorf("verify %s: the copy in %s differs from the original", src.Key, to)
		}
		verified = true
	}
	return true, recopied, verified, nil
}

func sameContent(ctx context.Context, from, to Store, a, b Info) (bool, error) {
	if a.Size != b.Size {
		return false, nil
	}
	da, err := Digest(ctx, from, a)
	if err != nil {
		return false, err
	}
	db, err := Digest(ctx, to, b)
	if err != nil {
		return false, err
	}
	return da == db, nil
}

// Digest is the hex MD5 of a file's content: a bucket's ETag when it is
// one (an object put in one request), else computed by reading the file.
func Digest(ctx context.Context, s Store, in Info) (string, error) {
	if s.Kind() == KindBucket && isMD5(in.ETag) {
		return in.ETag, nil
	}
	o, err := s.Open(ctx, in.Key, true)
	if err != nil {
		return "", fmt.Errorf("digest %s: %w", in.Key, err)
	}
	defer o.Close()
	h := md5.New()
	if _, err := io.Copy(h, o); err != nil {
		return "", fmt.Errorf("digest %s: %w", in.Key, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func isMD5(etag string) bool {
	if len(etag) != 32 {
		return false
	}
	_, err := hex.DecodeString(etag)
	return err == nil
}

// Sweep removes the files of s nothing refers to any more, one page at a
// time: it lists up to limit keys after after, asks known which of them
// are referred to, and removes the others last modified before
// olderThan (a harvest publishes its files before it records their rows,
// so a young file without a row may be one being recorded). It returns
// the last key it listed, to pass as after for the next page ("" once the
// listing is over), and how many files it removed.
func Sweep(ctx context.Context, s Store, after string, limit int, olderThan time.Time,
	known func(ctx context.Context, keys []string) (map[string]bool, error)) (next string, removed int, err error) {
	page, err := s.List(ctx, "", after, limit)
	if err != nil {
		return after, 0, err
	}
	if len(page) == 0 {
		return "", 0, nil
	}
	keys := make([]string, len(page))
	for i, in := range page {
		keys[i] = in.Key
	}
	used, err := known(ctx, keys)
	if err != nil {
		return after, 0, err
	}
	var orphans []string
	for _, in := range page {
		if !used[in.Key] && in.Modified.Before(olderThan) {
			orphans = append(orphans, in.Key)
		}
	}
	if err := s.Remove(ctx, orphans); err != nil {
		return after, 0, err
	}
	next = page[len(page)-1].Key
	if len(page) < limit {
		next = ""
	}
	return next, len(orphans), nil
}
