package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// InsertExpectingNew runs insert, a statement written for rows that are
// new, under a savepoint of conn's transaction. Should a unique key stop
// it (a row was there after all: a task delivered again, another job
// meanwhile), it rolls back to the savepoint, and upsert, the statement
// written for rows that may be there (ON CONFLICT), runs instead. Each of
// them must start by forgetting what an earlier attempt returned.
//
// Why: ON CONFLICT has Postgres look each row up in the conflict's index
// before inserting it (speculative insertion). A harvest's rows are new
// but for those rare cases, and the look-ups cost about 5 to 9 µs of
// backend CPU a row (20,000 rows of each of the harvest's tables
// replayed, with and without ON CONFLICT); the savepoint costs two round
// trips a statement.
func InsertExpectingNew(ctx context.Context, conn Conn, insert, upsert func() error) error {
	const savepoint = "expecting_new"
	if _, err := conn.ExecContext(ctx, "SAVEPOINT "+savepoint); err != nil {
		return fmt.Errorf("insert new rows: %w", err)
	}
	err := insert()
	if err != nil {
		if !isUniqueViolation(err) {
			return err
		}
		if _, rerr := conn.ExecContext(ctx, "ROLLBACK TO SAVEPOINT "+savepoint); rerr != nil {
			return errors.Join(err, fmt.Errorf("roll back to the rows there before: %w", rerr))
		}
		if err := upsert(); err != nil {
			return err
		}
	}
	if _, err := conn.ExecContext(ctx, "RELEASE SAVEPOINT "+savepoint); err != nil {
		return fmt.Errorf("insert new rows: %w", err)
	}
	return nil
}

// isUniqueViolation reports whether Postgres refused a row for a key
// another row has (SQLSTATE 23505).
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}
