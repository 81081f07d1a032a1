package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/metaharvest/metaharvest/internal/blobstore"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/worker"
)

const artifactsUsage = `usage: metaharvest artifacts <command>

commands:
  migrate [--to bucket|directory] [--verify] [--uploads=false] [--workers N]
        copy the artifacts (and the upload store) of DATA_DIR into the
        DATA_BUCKET bucket (--to bucket, the default), or the bucket's back
        into DATA_DIR (--to directory). Resumable: a file already at the
        destination, complete, is skipped, so a run again after an
        interruption copies what is left. --verify compares every file's
        MD5 at both ends (and copies again one that differs).
  sweep [--grace DURATION]
        remove the artifact files no artifact row names, last modified
        more than the grace ago (default 6h; workers also sweep daily).`

var errArtifactsUsage = errors.New("unknown artifacts command")

// openFiles opens the artifact store (and upload bucket) of cfg and, for
// a bucket, checks it: a bucket the server refuses (missing, credentials
// refused) stops the process with a clear message; one that does not
// answer yet is only logged, since the processes must start during an
// outage too (requests answer 502 and harvests retry until it is back).
func openFiles(ctx context.Context, cfg config.Config, logger *slog.Logger) (*blobstore.Files, error) {
	files, err := blobstore.Open(cfg)
	if err != nil {
		return nil, err
	}
	checkCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := files.Check(checkCtx); err != nil {
		if blobstore.IsRefusal(err) {
			return nil, fmt.Errorf("DATA_BUCKET: %w", err)
		}
		logger.Warn("the data bucket does not answer; artifacts and uploads wait for it", slog.String("error", err.Error()))
	}
	return files, nil
}

// runArtifacts runs `metaharvest artifacts ...`, printing progress for a
// person on stdout.
func runArtifacts(ctx context.Context, args []string, cfg config.Config, stdout io.Writer) error {
	if len(args) == 0 {
		return errArtifactsUsage
	}
	switch args[0] {
	case "migrate":
		return artifactsMigrate(ctx, args[1:], cfg, stdout)
	case "sweep":
		return artifactsSweep(ctx, args[1:], cfg, stdout)
	}
	return errArtifactsUsage
}

func artifactsMigrate(ctx context.Context, args []string, cfg config.Config, stdout io.Writer) error {
	fs := flag.NewFlagSet("artifacts migrate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	to := fs.String("to", "bucket", "bucket or directory")
	verify := fs.Bool("verify", false, "compare every file's MD5 at both ends")
	uploads := fs.Bool("uploads", true, "copy the upload store too")
	workers := fs.Int("workers", 8, "files copied at once")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || (*to != "bucket" && *to != "directory") || *workers < 1 {
		return errArtifactsUsage
	}
	if !cfg.DataBucket.Enabled() {
		return errors.New("DATA_BUCKET and DATA_BUCKET_ENDPOINT are not set: there is no bucket to migrate to or from")
	}
	files, err := blobstore.Open(cfg)
	if err != nil {
		return err
	}
	type tree struct {
		name       string
		dir, other blobstore.Store
	}
	trees := []tree{{"artifacts", blobstore.NewDir(filepath.Join(cfg.DataDir, "artifacts")), files.Artifacts}}
	if *uploads {
		trees = append(trees, tree{"upload store", blobstore.NewDir(filepath.Join(cfg.DataDir, "uploadstore")), files.Uploads})
	}
	for _, t := range trees {
		from, dst := t.dir, t.other
		if *to == "directory" {
			from, dst = t.other, t.dir
		}
		fmt.Fprintf(stdout, "%s: %s -> %s\n", t.name, from, dst)
		start := time.Now()
		report := func(p blobstore.Progress) {
			fmt.Fprintf(stdout, "  %d files (%s): %d copied (%s), %d already there, %d verified, %d copied again  [%s]\n",
				p.Listed, byteText(p.ListedBytes), p.Copied, byteText(p.CopiedBytes), p.Present, p.Verified, p.Recopied,
				time.Since(start).Round(time.Second))
		}
		p, err := blobstore.Copy(ctx, from, dst, blobstore.CopyOptions{Verify: *verify, Workers: *workers, Report: report})
		if err != nil {
			report(p)
			return fmt.Errorf("%s: %w (run the command again: it goes on where it stopped)", t.name, err)
		}
		fmt.Fprintf(stdout, "%s: done, %d files, %d copied, %d already there", t.name, p.Listed, p.Copied, p.Present)
		if *verify {
			fmt.Fprintf(stdout, ", %d verified", p.Verified)
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

func artifactsSweep(ctx context.Context, args []string, cfg config.Config, stdout io.Writer) error {
	fs := flag.NewFlagSet("artifacts sweep", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	grace := fs.Duration("grace", 6*time.Hour, "files younger than this are kept")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || *grace < 0 {
		return errArtifactsUsage
	}
	files, err := blobstore.Open(cfg)
	if err != nil {
		return err
	}
	db, err := openMigrated(ctx, cfg)
	if err != nil {
		return err
	}
	sqlDB, _ := db.DB()
	defer sqlDB.Close()
	before := time.Now().Add(-*grace)
	after, total := "", 0
	for {
		next, removed, err := worker.SweepArtifacts(ctx, db, files.Artifacts, after, 1, before)
		total += removed
		if err != nil {
			return fmt.Errorf("sweep %s after %q: %w", files.Artifacts, after, err)
		}
		if removed > 0 || next == "" {
			fmt.Fprintf(stdout, "  %d orphans removed so far (up to %q)\n", total, next)
		}
		if next == "" {
			break
		}
		after = next
	}
	fmt.Fprintf(stdout, "sweep of %s: done, %d orphans removed\n", files.Artifacts, total)
	return nil
}

func byteText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
}
