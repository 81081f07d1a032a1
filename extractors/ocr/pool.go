package ocr

import (
	"context"
	"errors"
	"sync"

	"github.com/metaharvest/metaharvest/extractors"
)

// readAll reads the pictures at paths (pages, frames), keeping words of at
// least minConf, with as many tesseracts at once as the Runner has heavy
// slots (up to four; the Runner holds the others back anyway). errs[i] is
// the deterministic failure of picture i, its reading then empty; err is
// set instead when the context ended or a failure was transient (the
// environment's, not the picture's), which stops the reading. A picture too
// small to hold text reads as no text.
func (e *engine) readAll(ctx context.Context, paths []string, minConf float64) (out []reading, errs []error, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out = make([]reading, len(paths))
	errs = make([]error, len(paths))
	workers := min(max(e.run.Slots(), 1), 4, len(paths))
	next := make(chan int)
	var once sync.Once
	var stopErr error
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				rec, err := e.read(ctx, paths[i])
				switch {
				case errors.Is(err, errTooSmall):
				case err != nil && (ctx.Err() != nil || extractors.IsTransient(err)):
					once.Do(func() { stopErr = err; cancel() })
				case err != nil:
					errs[i] = err
				default:
					out[i] = summarize(rec, minConf)
				}
			}
		}()
	}
feed:
	for i := range paths {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if stopErr != nil {
		return nil, nil, stopErr
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return out, errs, nil
}
