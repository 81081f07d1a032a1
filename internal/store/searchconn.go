package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Conn is what an engine that indexes inside the caller's transaction
// writes with: a *sql.Tx, or a GORM transaction's ConnPool (search.Conn).
type Conn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Querier runs a query: a *sql.DB, a *sql.Tx (search.Querier).
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// TxConn is the connection of tx, a transaction, for an engine to write
// with in it.
func TxConn(tx *DB) (Conn, error) {
	conn, ok := tx.Statement.ConnPool.(Conn)
	if !ok {
		return nil, fmt.Errorf("%T is not a database connection", tx.Statement.ConnPool)
	}
	return conn, nil
}
