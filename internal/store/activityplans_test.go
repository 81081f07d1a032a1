package store

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/models"
)

// Every statement that reads activity rows reads them through an index: a
// job's harvestend rows are indexed by (request_id, item_id) in
// activities_end only and its other rows in activities_request_item only
// (migration 00027), so a statement that forgets the kinds (allKinds)
// reads the whole table, on a platform with a row for every file it ever
// harvested. The statements are recorded as the report functions run them,
// then explained with sequential scans priced out: a plan that still reads
// activities in sequence has no index to read.
func TestActivityReadsUseAnIndex(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	must := mustFor(t)
	const req, itemID = "req1", "item1"
	seedContainer(t, db, "l1", "c1")
	must(db.Create(&models.Item{ID: itemID, LocationID: "l1", ContainerID: "c1", Path: "a.jpg", Name: "a.jpg"}).Error)
	must(db.Create(&models.Job{RequestID: req, LocationID: "l1", ContainerID: "c1", Extractors: models.Strings{"hashes", "exif"},
		WalkComplete: true, EnqueuedCount: 1}).Error)
	must(db.Exec(`INSERT INTO activities (dedupe_key, kind, request_id, item_id, name, source, error, error_hash, runs, run_ms, run_end_us) VALUES
		('', 'harvestend', ?, ?, 'a.jpg', 'a.jpg', '1 extractor(s) failed: exif', '', '{hashes}', '{3}', '{10}'),
		('', 'extractor', ?, ?, 'exif', 'a.jpg', 'boom', md5('boom'), NULL, NULL, NULL),
		('walk1', 'walk', ?, '', '', 'page 1', '', '', NULL, NULL, NULL)`, req, itemID, req, itemID, req).Error)

	rec := &statements{}
	reads := db.Session(&gorm.Session{NewDB: true})
	must(reads.Callback().Query().After("gorm:query").Register("test:record", rec.record))
	must(reads.Callback().Row().After("gorm:row").Register("test:record", rec.record))

	admin, page := Viewer{Admin: true}, Page{Limit: 10}
	item := models.Item{ID: itemID, ContainerID: "c1"}
	now := time.Now()
	_, err := ReadJobActivity(reads, req)
	must(err)
	_, _, err = ItemJobs(reads, admin, item, page)
	must(err)
	_, _, err = ItemActivities(reads, itemID, req, page)
	must(err)
	_, err = ItemExtractorErrors(reads, itemID, req, "exif")
	must(err)
	_, _, err = JobItems(reads, req, page)
	must(err)
	_, _, err = JobExtractorErrors(reads, req, "exif", page)
	must(err)
	_, _, err = JobErrorFiles(reads, req, "exif", "9bf0b6bd8e8ef3b2ea1f9ab3ed43f7ea", page)
	must(err)
	_, err = ExtractorCounts(reads, "request_id = ?", req)
	must(err)
	_, err = ExtractorCounts(reads, "item_id = ? AND request_id = ?", itemID, req)
	must(err)
	_, err = ExtractorRan(reads, "exif", "request_id = ?", req)
	must(err)
	_, err = JobsExtractorCounts(reads, admin, []string{req})
	must(err)
	_, err = CountRunningJobs(reads, admin)
	must(err)
	_, err = FinishedItems(reads, req, []string{itemID})
	must(err)
	_, err = WalkingRecently(reads, "c1", "other", now.Add(-time.Hour), now)
	must(err)
	_, err = StalledJobs(reads, now.Add(-time.Hour), now)
	must(err)

	sqlDB, err := db.DB()
	must(err)
	explained := 0
	for _, st := range rec.all() {
		if !strings.Contains(st.sql, "activit") {
			continue
		}
		explained++
		tx, err := sqlDB.Begin()
		must(err)
		_, err = tx.Exec("SET LOCAL enable_seqscan = off")
		must(err)
		var raw []byte
		err = tx.QueryRow("EXPLAIN (FORMAT JSON) "+st.sql, st.vars...).Scan(&raw)
		must(tx.Rollback())
		if err != nil {
			t.Fatalf("explain %s: %v", st.sql, err)
		}
		var plans []struct{ Plan planNode }
		must(json.Unmarshal(raw, &plans))
		if scan := plans[0].Plan.seqScanOf("activities"); scan {
			t.Errorf("reads activities in sequence, no index answers it:\n%s", st.sql)
		}
	}
	if explained < 15 {
		t.Fatalf("only %d statements on activity rows recorded", explained)
	}
}

// statements records the statements a session runs, with their arguments.
type statements struct {
	mu   sync.Mutex
	list []statement
}

type statement struct {
	sql  string
	vars []any
}

func (s *statements) record(db *gorm.DB) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list = append(s.list, statement{sql: db.Statement.SQL.String(), vars: append([]any(nil), db.Statement.Vars...)})
}

func (s *statements) all() []statement {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]statement(nil), s.list...)
}

// planNode is a node of Postgres's JSON plan, with what the test reads.
type planNode struct {
	NodeType     string     `json:"Node Type"`
	RelationName string     `json:"Relation Name"`
	IndexName    string     `json:"Index Name"`
	Plans        []planNode `json:"Plans"`
}

// walk calls visit with n and every node below it.
func (n planNode) walk(visit func(planNode)) {
	visit(n)
	for _, c := range n.Plans {
		c.walk(visit)
	}
}

// seqScanOf reports whether the plan reads the relation in sequence.
func (n planNode) seqScanOf(relation string) bool {
	seq := false
	n.walk(func(c planNode) { seq = seq || c.NodeType == "Seq Scan" && c.RelationName == relation })
	return seq
}
