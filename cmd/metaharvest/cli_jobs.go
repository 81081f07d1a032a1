package main

import (
	"context"
	"fmt"
	"net/http"
	"text/tabwriter"
	"time"
)

func cliJobs(ctx context.Context, c *cli, args []string) error {
	fs := c.flags("jobs", "jobs [--all] [--limit N]")
	all := fs.Bool("all", false, "recent jobs too, not only those under way")
	limit := fs.Int("limit", 50, "most jobs to list (1 to 500)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: unexpected %q", errCLIUsage, rest)
	}
	state := "running"
	if *all {
		state = "all"
	}
	var out struct {
		Jobs []jobStatus `json:"jobs"`
	}
	if err := c.call(ctx, http.MethodGet, fmt.Sprintf("/api/control/harvest?state=%s&limit=%d", state, *limit), nil, &out); err != nil {
		return err
	}
	if len(out.Jobs) == 0 {
		if *all {
			fmt.Fprintln(c.stdout, "no harvest jobs")
		} else {
			fmt.Fprintln(c.stdout, "no harvest under way")
		}
		return nil
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REQUEST ID\tTYPE\tSTATE\tFILES DONE\tFAILED\tCONTAINER\tCREATED")
	for _, j := range out.Jobs {
		n := j.Counts
		target := j.ContainerID
		if j.ItemID != "" {
			target = "item " + j.ItemID
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%d\t%s\t%s\n", j.RequestID, j.JobType, j.State,
			n.Harvested+n.Failed, n.Enqueued, n.Failed, target, j.Created.Local().Format(time.DateTime))
	}
	return tw.Flush()
}
