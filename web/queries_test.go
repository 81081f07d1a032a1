package web

import (
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// countQueries counts the statements run through db's callbacks.
func countQueries(t *testing.T, db *gorm.DB) *atomic.Int64 {
	var n atomic.Int64
	inc := func(*gorm.DB) { n.Add(1) }
	for name, err := range map[string]error{
		"query": db.Callback().Query().After("gorm:query").Register("webtest:count_query", inc),
		"row":   db.Callback().Row().After("gorm:row").Register("webtest:count_row", inc),
		"raw":   db.Callback().Raw().After("gorm:raw").Register("webtest:count_raw", inc),
	} {
		if err != nil {
			t.Fatalf("register %s: %v", name, err)
		}
	}
	return &n
}

// The pages run a fixed number of statements whatever the number of
// results, markers or cues (no query per result): 24 results cost what 4
// do, and a video with 300 cues what one with 2 does.
func TestPagesQueryCountIsFixed(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	admin := c.signIn(adminEmail, adminPassword)
	n := countQueries(t, c.db)
	cost := func(target string) int64 {
		t.Helper()
		before := n.Load()
		c.page(target, admin, http.StatusOK)
		return n.Load() - before
	}
	search, item := cost("/?q=lighthouse"), cost("/items/"+url.PathEscape(c.clip)+"?q=lighthouse")
	var ids []string
	cues := ""
	for i := 0; i < 40; i++ {
		ids = append(ids, c.item("pub", models.ContainerID("pub", "media"), "more/lighthouse_"+strconv.Itoa(i)+".mp4", "video/mp4", map[string]any{"mediainfo": map[string]any{"duration": 5.0}}))
	}
	for i := 0; i < 300; i++ {
		if i > 0 {
			cues += ","
		}
		cues += `{"start_at":` + strconv.Itoa(i) + `,"end_at":` + strconv.Itoa(i) + `.5,"text":"lighthouse ` + strconv.Itoa(i) + `"}`
	}
	c.must(c.db.Exec(`UPDATE captions SET cues = ?::jsonb WHERE id = 'cap1'`, "["+cues+"]").Error)
	c.index(append(ids, c.clip)...)
	if got := cost("/?q=lighthouse"); got != search {
		t.Errorf("the search page ran %d statements for 24 results, %d for 4", got, search)
	}
	if got := cost("/items/" + url.PathEscape(c.clip) + "?q=lighthouse"); got != item {
		t.Errorf("the item page ran %d statements with 300 cues, %d with 2", got, item)
	}
	t.Logf("statements: search page %d, item page %d", search, item)
}
