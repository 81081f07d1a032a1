package store

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/models"
)

// The walk finds a page's items by probing each path in (container_id,
// path), whatever Postgres believes of the container: here its items were
// all written after the table's statistics (as while a harvest fills a new
// container), the case in which a join read every item of the container
// for each page. The plan reads items only through that index, once a
// path, and finds the listed items among new paths.
func TestItemsAtPathsProbesEachPath(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	must := mustFor(t)
	seedContainer(t, db, "l1", "c1")
	must(db.Exec(`ANALYZE items`).Error)
	must(db.Exec(`INSERT INTO items (id, location_id, container_id, path, name)
		SELECT md5('p' || g), 'l1', 'c1', 'd/p' || g, 'p' || g FROM generate_series(1, 3000) g`).Error)
	var paths []string
	for i := 2990; i < 3490; i++ { // 10 items, then new files
		paths = append(paths, fmt.Sprintf("d/p%d", i+1))
	}

	var raw []byte
	must(db.Raw("EXPLAIN (FORMAT JSON) "+itemsAtPathsSQL, models.Strings(paths), "c1").Row().Scan(&raw))
	var plans []struct{ Plan planNode }
	must(json.Unmarshal(raw, &plans))
	var reads []planNode
	plans[0].Plan.walk(func(n planNode) {
		if n.RelationName == "items" {
			reads = append(reads, n)
		}
	})
	if len(reads) != 1 || reads[0].NodeType != "Index Scan" || reads[0].IndexName != "items_container_id_path_key" {
		t.Fatalf("items read by %+v, want one index scan of items_container_id_path_key a path:\n%s", reads, raw)
	}

	found, err := itemsAtPaths(db, "c1", paths)
	must(err)
	if len(found) != 10 {
		t.Fatalf("found %d items, want 10", len(found))
	}
	for _, f := range found {
		n := strings.TrimPrefix(paths[f.at], "d/p")
		if sum := md5.Sum([]byte("p" + n)); f.id != hex.EncodeToString(sum[:]) || f.at >= 10 {
			t.Errorf("%s found for %s (path %d)", f.id, paths[f.at], f.at)
		}
	}
}
