package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// jobStatus is GET /api/control/harvest/{request_id}.
type jobStatus struct {
	RequestID   string `json:"request_id"`
	JobType     string `json:"job_type"`
	State       string `json:"state"`
	Skipped     string `json:"skipped"`
	LocationID  string `json:"location_id"`
	ContainerID string `json:"container_id"`
	ItemID      string `json:"item_id"`
	Counts      struct {
		Walked    int64 `json:"walked"`
		Enqueued  int64 `json:"enqueued"`
		Harvested int64 `json:"harvested"`
		Failed    int64 `json:"failed"`
		Skipped   int64 `json:"skipped"`
	} `json:"counts"`
	Created    time.Time  `json:"created"`
	StartedAt  *time.Time `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

func (s jobStatus) finished() bool {
	return s.State == "done" || s.State == "failed" || s.State == "cancelled"
}

// maxUnreachable is how long --wait keeps asking a platform that does not
// answer (a restarting api) before it gives up.
const maxUnreachable = 2 * time.Minute

func cliHarvest(ctx context.Context, c *cli, args []string) error {
	fs := c.flags("harvest", "harvest --location L --container C [--wait] [flags]")
	loc := fs.String("location", "", "location: its id or its name (required)")
	ctr := fs.String("container", "", "container of the location: its id or its name (required)")
	wait := fs.Bool("wait", false, "show the progress (files, rate, errors, ETA) until the harvest ends")
	force := fs.Bool("force", false, "harvest every file, not only the new and changed ones")
	again := fs.Bool("ignore-recently-walked", false, "harvest even if the container was walked, or its last harvest ran, less than a minute ago")
	priority := fs.Int("priority", 0, "1 (highest) to 10 (default 5)")
	exts := fs.String("extractors", "", "comma-separated extractor names (default: the container's profile)")
	interval := fs.Duration("interval", time.Second, "how often --wait asks for progress")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 || *loc == "" || *ctr == "" || *interval <= 0 {
		fs.Usage()
		return fmt.Errorf("%w: --location and --container are required, and nothing else", errCLIUsage)
	}
	locID, err := c.resolveLocation(ctx, *loc)
	if err != nil {
		return err
	}
	ctrID, err := c.resolveContainer(ctx, locID, *ctr)
	if err != nil {
		return err
	}
	body := map[string]any{"location_id": locID, "container_id": ctrID, "force": *force, "ignore_recently_walked": *again}
	if *priority != 0 {
		body["priority"] = *priority
	}
	if *exts != "" {
		body["extractors"] = strings.Split(*exts, ",")
	}
	var started struct {
		RequestID string `json:"request_id"`
		Skipped   string `json:"skipped"`
		Message   string `json:"message"`
	}
	if err := c.call(ctx, http.MethodPost, "/api/control/harvest", body, &started); err != nil {
		return err
	}
	if !*wait {
		fmt.Fprintln(c.stdout, started.RequestID)
		if started.Skipped != "" {
			fmt.Fprintf(c.stderr, "skipped: %s\n", started.Message)
		}
		return nil
	}
	fmt.Fprintf(c.stderr, "harvest %s of %s / %s\n", started.RequestID, *loc, *ctr)
	return c.waitJob(ctx, started.RequestID, *interval)
}

// waitJob shows a job's progress until it ends and says how it ended.
func (c *cli) waitJob(ctx context.Context, id string, interval time.Duration) error {
	bar := &progressBar{out: c.stderr, tty: c.tty, now: c.now}
	var st jobStatus
	var unreachableSince time.Time
	for {
		err := c.call(ctx, http.MethodGet, "/api/control/harvest/"+url.PathEscape(id), nil, &st)
		var ae *apiError
		switch {
		case err == nil:
			unreachableSince = time.Time{}
			bar.show(st)
		case ctx.Err() != nil:
			bar.done()
			return &exitError{exitFailure, fmt.Sprintf("stopped waiting; harvest %s goes on (metaharvest jobs)", id)}
		case errors.As(err, &ae) && ae.Status < 500:
			bar.done()
			return err
		default: // the platform is restarting or unreachable: keep asking for a while
			if unreachableSince.IsZero() {
				unreachableSince = c.now()
			} else if c.now().Sub(unreachableSince) > maxUnreachable {
				bar.done()
				return err
			}
		}
		if st.finished() {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(interval):
		}
	}
	bar.done()
	took := time.Duration(0)
	if st.StartedAt != nil && st.FinishedAt != nil {
		took = st.FinishedAt.Sub(*st.StartedAt).Round(100 * time.Millisecond)
	}
	n := st.Counts
	summary := fmt.Sprintf("%s: %d harvested, %d failed, %d unchanged of %d files in %s",
		st.State, n.Harvested, n.Failed, n.Skipped, n.Walked, took)
	if st.Skipped != "" {
		summary += " (skipped: " + st.Skipped + ")"
	}
	fmt.Fprintln(c.stdout, summary)
	switch {
	case st.State != "done":
		return &exitError{exitFailure, fmt.Sprintf("harvest %s %s (its activity: /api/data/v3/activity/request/%s)", id, st.State, id)}
	case n.Failed > 0:
		return &exitError{exitFilesFailed, fmt.Sprintf("%d files failed (metaharvest: /api/data/v3/activity/request/%s/extractors)", n.Failed, id)}
	}
	return nil
}

// resolveLocation accepts a location's id or its (unique) name.
func (c *cli) resolveLocation(ctx context.Context, l string) (string, error) {
	var out struct {
		Locations []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"locations"`
	}
	if err := c.call(ctx, http.MethodGet, "/api/data/v3/locations", nil, &out); err != nil {
		return "", err
	}
	var byName []string
	for _, loc := range out.Locations {
		if loc.ID == l {
			return loc.ID, nil
		}
		if loc.Name == l {
			byName = append(byName, loc.ID)
		}
	}
	switch len(byName) {
	case 1:
		return byName[0], nil
	case 0:
		return "", fmt.Errorf("no location with id or name %q", l)
	}
	return "", fmt.Errorf("%d locations are named %q: give its id (%s)", len(byName), l, strings.Join(byName, ", "))
}

// resolveContainer accepts a container's name (listed from storage, by
// prefix) or its id.
func (c *cli) resolveContainer(ctx context.Context, locID, name string) (string, error) {
	cursor := ""
	for {
		var out struct {
			Containers []struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"containers"`
			NextCursor string `json:"next_cursor"`
		}
		q := url.Values{"prefix": {name}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		if err := c.call(ctx, http.MethodGet, "/api/data/locations/"+url.PathEscape(locID)+"/containers?"+q.Encode(), nil, &out); err != nil {
			return "", err
		}
		for _, ct := range out.Containers {
			if ct.Name == name || ct.ID == name {
				return ct.ID, nil
			}
		}
		if out.NextCursor == "" {
			return name, nil // not a name of this location: an id, which the api checks
		}
		cursor = out.NextCursor
	}
}

// progressBar draws a job's progress: in place on a terminal, as a line per
// change (at most one every few seconds) otherwise.
type progressBar struct {
	out   interface{ Write([]byte) (int, error) }
	tty   bool
	now   func() time.Time
	first time.Time // when the first file finished was seen
	base  int64     // files finished by then
	last  string
	shown time.Time
	drawn bool
}

const (
	barWidth      = 24
	plainInterval = 5 * time.Second
)

func (p *progressBar) show(st jobStatus) {
	line := p.line(st)
	now := p.now()
	if p.tty {
		fmt.Fprintf(p.out, "\r\033[K%s", line)
		p.drawn = true
		return
	}
	if line != p.last && (now.Sub(p.shown) >= plainInterval || st.finished() || p.last == "") {
		fmt.Fprintln(p.out, line)
		p.last, p.shown = line, now
	}
}

func (p *progressBar) done() {
	if p.drawn {
		fmt.Fprintln(p.out)
		p.drawn = false
	}
}

// line renders: state, bar, files done of files to do, rate, errors, ETA.
func (p *progressBar) line(st jobStatus) string {
	n := st.Counts
	doneFiles := n.Harvested + n.Failed
	total := n.Enqueued
	now := p.now()
	if doneFiles > 0 && p.first.IsZero() {
		p.first, p.base = now, doneFiles
	}
	rate := 0.0
	if el := now.Sub(p.first).Seconds(); !p.first.IsZero() && el >= 0.5 {
		rate = float64(doneFiles-p.base) / el
	}
	eta := "-"
	switch {
	case st.finished():
		eta = "0s"
	case st.State == "harvesting" && rate > 0 && total >= doneFiles:
		eta = (time.Duration(float64(total-doneFiles)/rate*float64(time.Second)) + time.Second/2).Round(time.Second).String()
	}
	filled := 0
	if total > 0 {
		filled = int(min(doneFiles, total) * barWidth / total)
	}
	of := fmt.Sprint(total)
	if st.State == "walking" || st.State == "queued" {
		of += "+" // the walk may find more
	}
	return fmt.Sprintf("%-10s [%s%s] %d/%s files  %.1f files/s  %d errors  ETA %s",
		st.State, strings.Repeat("#", filled), strings.Repeat("-", barWidth-filled), doneFiles, of, rate, n.Failed, eta)
}
