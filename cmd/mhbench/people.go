package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/facedesc"
	"github.com/metaharvest/metaharvest/internal/faceindex"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/people"
	"github.com/metaharvest/metaharvest/search"
)

// benchPeople: people across the archive at scale (docs/people.md). An
// archive of faces is seeded straight into Postgres (10 faces a person,
// 10 faces an item, half of the items behind a group), then grown to each
// size of steps; at each, new faces are assigned one at a time by the
// assigner workers run (people.Assigner.Round: the nearest-face index,
// the candidates' descriptors read back, the writes, the counts, the
// search mark), p50 and p99. At the largest size the People page (HTML,
// the server's time to its last byte) and the People API are timed for an
// administrator and for a user who sees half the archive. CPU-bound: on a
// machine shared with other work the figures move with its load.
func benchPeople(ctx context.Context, steps []int) error {
	fmt.Printf("people: assigning a face among %v faces (10 a person); the People page at the largest\n", steps)
	dbURL, drop, err := scratchDB(ctx)
	if err != nil {
		return err
	}
	defer drop()
	db, err := models.Open(dbURL)
	if err != nil {
		return err
	}
	defer func() {
		if s, err := db.DB(); err == nil {
			s.Close()
		}
	}()
	sqlDB, _ := db.DB()
	for _, stmt := range []string{
		`INSERT INTO groups (id, name) VALUES ('bench-half', 'half')`,
		`INSERT INTO locations (id, kind, name) VALUES ('pl1', 'filesystem', 'open'), ('pl2', 'filesystem', 'closed')`,
		`INSERT INTO location_groups (location_id, group_id) VALUES ('pl2', 'bench-half')`,
		`INSERT INTO containers (id, location_id, name) VALUES ('pc1', 'pl1', 'media'), ('pc2', 'pl2', 'media')`,
	} {
		if err := db.Exec(stmt).Error; err != nil {
			return err
		}
	}
	w := newBenchFaces(facedesc.Dims)
	a := &people.Assigner{DB: db, Rule: people.Rule{Threshold: people.DefaultThreshold, MergeBridged: people.DefaultMergeBridged}, Batch: 1, Logger: slog.New(slog.DiscardHandler)}
	seeded := 0
	for _, n := range steps {
		start := time.Now()
		if err := w.seed(ctx, sqlDB, seeded, n); err != nil {
			return fmt.Errorf("seed faces: %w", err)
		}
		seeded = n
		// As autovacuum would have by then: the planner's statistics of
		// the tables just filled.
		if _, err := sqlDB.ExecContext(ctx, `ANALYZE`); err != nil {
			return err
		}
		fmt.Printf("  %8d faces seeded in %s\n", n, time.Since(start).Round(time.Second))
		// The first round after the seeding catches the index up from
		// Postgres (building it at the first step): timed apart.
		start = time.Now()
		if err := w.addItem(ctx, sqlDB, fmt.Sprintf("warm%d", n), 0); err != nil {
			return err
		}
		if _, err := a.Round(ctx); err != nil {
			return err
		}
		fmt.Printf("           index caught up from Postgres in %s\n", time.Since(start).Round(time.Millisecond))
		var took, lookups []time.Duration
		for i := range 200 {
			// Half of the new faces are of known people, half new people.
			person := i * 7919 % (n / 10)
			if i%2 == 1 {
				person = -1
			}
			if err := w.addItem(ctx, sqlDB, fmt.Sprintf("n%d-%d", n, i), person); err != nil {
				return err
			}
			t0 := time.Now()
			if done, err := a.Round(ctx); err != nil || done != 1 {
				return fmt.Errorf("assign: %d items, %v", done, err)
			}
			took = append(took, time.Since(t0))
			q := faceindex.Encode(w.vector(i*31%(n/10), w.rng))
			t0 = time.Now()
			w.index.Search(q, people.DefaultCandidates)
			lookups = append(lookups, time.Since(t0))
		}
		p50, p99 := percentiles(took)
		l50, l99 := percentiles(lookups)
		fmt.Printf("           assign one face: p50 %6.2f ms  p99 %6.2f ms  (target p99 <= 20 ms at 1M); index lookup alone p50 %.3f ms p99 %.3f ms, %d cells\n",
			ms(p50), ms(p99), ms(l50), ms(l99), w.index.Cells())
	}
	return benchPeoplePage(ctx, db, seeded/10)
}

// benchFaces makes faceres-like descriptors (numbers never negative) of
// people and their faces cheaply enough for a million: a face is its
// person's vector with a few numbers changed.
type benchFaces struct {
	rng   *rand.Rand
	dims  int
	index *faceindex.Index // the same codes, for the lookup figure
}

func newBenchFaces(dims int) *benchFaces {
	return &benchFaces{rng: rand.New(rand.NewPCG(44, 4)), dims: dims, index: faceindex.New()}
}

// vector is a new face of person p: the person's numbers (drawn from its
// own seed) with 64 of them drawn again.
func (w *benchFaces) vector(p int, rng *rand.Rand) []float32 {
	pr := rand.New(rand.NewPCG(uint64(p), 99))
	v := make([]float32, w.dims)
	for i := range v {
		v[i] = float32(math.Max(0, pr.NormFloat64()))
	}
	for range 64 {
		v[rng.IntN(w.dims)] = float32(math.Max(0, rng.NormFloat64()))
	}
	n, _ := facedesc.Normalize(v)
	return n
}

// seed adds faces from..to (10 an item, 10 a person), assigned already:
// persons, items, descriptors, faces with their codes, counts.
func (w *benchFaces) seed(ctx context.Context, db *sql.DB, from, to int) error {
	const batch = 2000
	for lo := from; lo < to; lo += batch {
		hi := min(to, lo+batch)
		var fdItem, fdPerson, pfPerson, pfCtr []string
		var fdFace []int32
		var fdDesc, pfCode [][]byte
		var items, itemCtr, itemLoc, persons []string
		for f := lo; f < hi; f++ {
			item, person := f/10, f/10 // one item a person: its 10 faces
			ctr, loc := "pc1", "pl1"
			if item%2 == 1 {
				ctr, loc = "pc2", "pl2"
			}
			if f%10 == 0 {
				items, itemCtr, itemLoc = append(items, fmt.Sprintf("bi%d", item)), append(itemCtr, ctr), append(itemLoc, loc)
				persons = append(persons, fmt.Sprintf("bp%d", person))
			}
			v := w.vector(person, w.rng)
			code := faceindex.Encode(v)
			w.index.Add(int64(f+1), code)
			fdItem, fdFace, fdDesc = append(fdItem, fmt.Sprintf("bi%d", item)), append(fdFace, int32(f%10)), append(fdDesc, facedesc.Quantize(v))
			fdPerson, pfPerson, pfCtr, pfCode = append(fdPerson, "l"+fmt.Sprint(f%10)), append(pfPerson, fmt.Sprintf("bp%d", person)), append(pfCtr, ctr), append(pfCode, code.Bytes())
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		stmts := []struct {
			q    string
			args []any
		}{
			{`INSERT INTO items (id, location_id, container_id, path, name, mime_type, metadata)
SELECT x.id, x.loc, x.ctr, x.id || '.jpg', x.id || '.jpg', 'image/jpeg', '{}' FROM unnest($1::text[], $2::text[], $3::text[]) AS x(id, ctr, loc)`,
				[]any{items, itemCtr, itemLoc}},
			{`INSERT INTO persons (id, faces, items, first_seen, last_seen) SELECT unnest($1::text[]), 10, 1, '2024-01-01', '2024-01-01'`, []any{persons}},
			{`INSERT INTO face_descriptors (item_id, extractor, face, person_id, box_left, box_top, box_width, box_height, model, descriptor, created_at)
SELECT x.i, 'vendor_faces', x.f, x.p, 0, 0, 64, 64, 'bench', x.d, '2024-01-01' FROM unnest($1::text[], $2::int4[], $3::text[], $4::bytea[]) AS x(i, f, p, d)`,
				[]any{fdItem, fdFace, fdPerson, fdDesc}},
			{`INSERT INTO person_faces (item_id, extractor, face, container_id, person_id, local_person, code, described_at, thumbnail, area)
SELECT x.i, 'vendor_faces', x.f, x.c, x.p, x.l, x.code, '2024-01-01', 'bench/' || x.i || '.jpg', 4096
FROM unnest($1::text[], $2::int4[], $3::text[], $4::text[], $5::text[], $6::bytea[]) AS x(i, f, c, p, l, code)`,
				[]any{fdItem, fdFace, pfCtr, pfPerson, fdPerson, pfCode}},
			{`INSERT INTO person_containers (person_id, container_id, location_id, faces, items, first_seen, last_seen)
SELECT x.p, x.c, x.l, 10, 1, '2024-01-01', '2024-01-01' FROM unnest($1::text[], $2::text[], $3::text[]) AS x(p, c, l)`,
				[]any{persons, itemCtr, itemLoc}},
			{`DELETE FROM people_pending`, nil},
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s.q, s.args...); err != nil {
				tx.Rollback()
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// addItem stores a new picture with one face, of person p (-1: someone
// new), as a harvest does: the trigger marks it pending.
func (w *benchFaces) addItem(ctx context.Context, db *sql.DB, id string, p int) error {
	if p < 0 {
		p = 1_000_000_000 + w.rng.IntN(1_000_000_000)
	}
	v := w.vector(p, w.rng)
	meta := `{"vendor_faces": {"faces": [{"person_id": "l0", "width": 64, "height": 64}]}}`
	if _, err := db.ExecContext(ctx, `INSERT INTO items (id, location_id, container_id, path, name, mime_type, metadata)
VALUES ($1, 'pl1', 'pc1', $1, $1, 'image/jpeg', $2)`, id, meta); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, `INSERT INTO face_descriptors (item_id, extractor, face, person_id, box_left, box_top, box_width,
	box_height, model, descriptor) VALUES ($1, 'vendor_faces', 0, 'l0', 0, 0, 64, 64, 'bench', $2)`, id, facedesc.Quantize(v))
	return err
}

// benchPeoplePage times the People page and the People API.
func benchPeoplePage(ctx context.Context, db *gorm.DB, persons int) error {
	cfg, err := config.Load(func(string) (string, bool) { return "", false })
	if err != nil {
		return err
	}
	engine, err := search.Open(search.Config{DB: db})
	if err != nil {
		return err
	}
	client, base, adminTok, stop, err := startAPI(ctx, cfg, db, engine, withPages)
	if err != nil {
		return err
	}
	defer stop()
	var role, user struct{ ID string }
	if err := apiCall(client, base, adminTok, "POST", "/api/data/roles", map[string]any{"name": "people",
		"scopes": []string{"people:read", "items:read"}}, &role); err != nil {
		return err
	}
	if err := apiCall(client, base, adminTok, "POST", "/api/data/users", map[string]any{"email": "half@example.com",
		"password": "bench-password-4", "role_id": role.ID}, &user); err != nil {
		return err
	}
	fmt.Printf("  People page with %d people (a user sees half of them):\n", persons)
	for _, who := range []struct{ label, email, password string }{
		{"administrator", "admin@example.com", "bench-password-1"}, {"user", "half@example.com", "bench-password-4"}} {
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := c.PostForm(base+"/signin", url.Values{"email": {who.email}, "password": {who.password}})
		if err != nil {
			return err
		}
		res.Body.Close()
		tok, err := login(client, base, who.email, who.password)
		if err != nil {
			return err
		}
		for _, target := range []struct{ name, path string }{{"page /people", "/people"}, {"page /people?show=unnamed", "/people?show=unnamed"},
			{"api /api/data/people", "/api/data/people"}} {
			var ts []time.Duration
			for range 20 {
				req, _ := http.NewRequestWithContext(ctx, "GET", base+target.path, nil)
				if target.name[:3] == "api" {
					req.Header.Set("Authorization", "Bearer "+tok)
				}
				t0 := time.Now()
				res, err := c.Do(req)
				if err != nil {
					return err
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					return fmt.Errorf("%s: %d", target.path, res.StatusCode)
				}
				ts = append(ts, time.Since(t0))
			}
			p50, p99 := percentiles(ts)
			fmt.Printf("    %-13s %-28s p50 %7.2f ms  p99 %7.2f ms\n", who.label, target.name, ms(p50), ms(p99))
		}
	}
	fmt.Println()
	return nil
}
