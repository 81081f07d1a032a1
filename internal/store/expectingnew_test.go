package store

import (
	"context"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testdb"
)

// InsertExpectingNew: new rows take the insert; a row already there rolls
// back what the insert had written and takes the upsert, in the same
// transaction, which goes on; another error is the caller's, without the
// upsert.
func TestInsertExpectingNew(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sqlDB.Exec(`CREATE TABLE expecting (id int PRIMARY KEY, n int NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	tx, err := sqlDB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	upserts := 0
	write := func(ids ...int) error {
		insert := func() error {
			for _, id := range ids { // one statement a row: the second may fail after the first wrote
				if _, err := tx.ExecContext(ctx, `INSERT INTO expecting VALUES ($1, 1)`, id); err != nil {
					return err
				}
			}
			return nil
		}
		upsert := func() error {
			upserts++
			for _, id := range ids {
				if _, err := tx.ExecContext(ctx, `INSERT INTO expecting VALUES ($1, 1) ON CONFLICT (id) DO UPDATE SET n = expecting.n + 1`, id); err != nil {
					return err
				}
			}
			return nil
		}
		return InsertExpectingNew(ctx, tx, insert, upsert)
	}
	if err := write(1, 2); err != nil || upserts != 0 {
		t.Fatalf("new rows: %v, %d upserts", err, upserts)
	}
	if err := write(3, 2); err != nil || upserts != 1 {
		t.Fatalf("a row there: %v, %d upserts", err, upserts)
	}
	var rows, sum int
	if err := tx.QueryRowContext(ctx, `SELECT count(*), sum(n) FROM expecting`).Scan(&rows, &sum); err != nil {
		t.Fatal(err)
	}
	if rows != 3 || sum != 4 { // 1, 2 twice, 3 once: the insert's row 3 rolled back
		t.Errorf("%d rows, n summing to %d; want 3 and 4", rows, sum)
	}
	failed := InsertExpectingNew(ctx, tx, func() error {
		_, err := tx.ExecContext(ctx, `SELECT 1 / 0`)
		return err
	}, func() error { upserts++; return nil })
	if failed == nil || isUniqueViolation(failed) || upserts != 1 {
		t.Errorf("division by zero: %v, %d upserts", failed, upserts)
	}
}
