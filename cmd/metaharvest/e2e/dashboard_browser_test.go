package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/internal/testredis"
	"github.com/metaharvest/metaharvest/internal/testsvc"
)

// chromiumPath finds Debian's chromium (deploy/setup.sh --s3 installs it),
// and fails t at once, saying how to install it, when there is none.
func chromiumPath(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal(testsvc.Missing("chromium", "the browser tests drive it; deploy/setup.sh --s3 installs Debian's chromium"))
	return ""
}

// The queue dashboard in a real browser: opening /monitoring/ without a
// session leads to the login page, logging in there sets the session
// cookie (which page scripts cannot read), and the dashboard then loads and
// lists the deployment's queues stage01..stage10. A screenshot is left in
// the temporary directory (out of the repository) for a person to look at.
func TestQueueDashboardInBrowser(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	// Its own Redis database: the dashboard lists every queue there is.
	p := newPlatformOn(t, testdb.URL(t), testredis.OwnDatabase(t))
	c, _ := p.startAPI()

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromiumOptions(t, chromium)...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx, chromedpErrors())
	defer cancel()
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTime()

	var loginURL string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(c.base+"/monitoring/"),
		chromedp.WaitVisible("#email", chromedp.ByID),
		chromedp.Location(&loginURL),
	); err != nil {
		t.Fatalf("open the dashboard: %v", err)
	}
	if !strings.HasSuffix(loginURL, "/api/monitoring/login") {
		t.Fatalf("without a session the browser is at %s, want the login page", loginURL)
	}
	if err := chromedp.Run(ctx,
		chromedp.SendKeys("#email", "admin@example.com", chromedp.ByID),
		chromedp.SendKeys("#password", "ops-password-1", chromedp.ByID),
		chromedp.Click("#login", chromedp.ByID),
	); err != nil {
		t.Fatalf("log in: %v", err)
	}
	// The dashboard is a script-built page: wait until it lists every
	// stage queue of this deployment (named with its Redis namespace).
	var text, where, cookies string
	deadline := time.Now().Add(60 * time.Second)
	for {
		if err := chromedp.Run(ctx,
			chromedp.Location(&where),
			chromedp.Evaluate(`document.body ? document.body.innerText : ""`, &text),
		); err != nil {
			t.Fatalf("read the page: %v", err)
		}
		missing := []string{}
		for i := 1; i <= 10; i++ {
			if q := fmt.Sprintf("%s:stage%02d", p.ns, i); !strings.Contains(text, q) {
				missing = append(missing, q)
			}
		}
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dashboard at %s does not list %v:\n%.2000s", where, missing, text)
		}
		time.Sleep(250 * time.Millisecond)
	}
	if !strings.Contains(where, "/monitoring/") {
		t.Fatalf("after logging in the browser is at %s", where)
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.cookie`, &cookies)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(cookies, "mh_monitoring") {
		t.Fatalf("page scripts can read the session cookie: %q", cookies)
	}
	var shot []byte
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&shot, 100)); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	out := filepath.Join(os.TempDir(), "metaharvest-dashboard-"+p.ns+".png")
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("dashboard screenshot: %s", out)
}
