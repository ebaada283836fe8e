// pg_fenced: a PostgreSQL row guarded by a zkl fencing token, in Go with
// pgx (docs/FENCING.md; the C twin is ../pg_fenced.c).
//
//	go run -tags=dynamic . SERVERS PG_URL [KEY [VALUE]]
//	    take the lock /zkl-examples/fencing/KEY, write VALUE to row KEY of
//	    table `fenced` through the fence, release. Exit 0: written;
//	    3: refused (a newer holder wrote the row: stop).
//	go run -tags=dynamic . SERVERS PG_URL --stale-demo KEY
//	    A acquires (token tA) and loses the lock (its client is closed);
//	    B acquires (tB > tA) and writes; A's write with tA must be refused.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/zkl-project/zkl-go"
)

const schema = `CREATE TABLE IF NOT EXISTS fenced (
	key   text   PRIMARY KEY,
	value text   NOT NULL,
	fence bigint NOT NULL)`

// Insert, or update only if the stored token is not newer than ours ("<=":
// the same holder writes again and again with its token).
const write = `INSERT INTO fenced AS f (key, value, fence) VALUES ($1, $2, $3)
	ON CONFLICT (key) DO UPDATE SET value = excluded.value, fence = excluded.fence
	WHERE f.fence <= excluded.fence`

// ErrStale: the row holds a newer token; the holder must stop.
var ErrStale = errors.New("fencing token is stale")

func fencedWrite(ctx context.Context, db *pgx.Conn, key, value string, token uint64) error {
	tag, err := db.Exec(ctx, write, key, value, int64(token))
	if err != nil {
		return err
	}
	if tag.RowsAffected() != 1 {
		return ErrStale
	}
	return nil
}

func connectDB(ctx context.Context, url string) (*pgx.Conn, error) {
	db, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	if _, err := db.Exec(ctx, schema); err != nil {
		db.Close(ctx)
		return nil, err
	}
	return db, nil
}

// acquire connects a client and takes the lock; returns its token.
func acquire(ctx context.Context, servers, path string) (*zkl.Client, *zkl.Lock, uint64, error) {
	c, err := zkl.Connect(ctx, zkl.Config{Servers: servers})
	if err != nil {
		return nil, nil, 0, err
	}
	l, err := c.NewLock(path, nil)
	if err != nil {
		c.Close()
		return nil, nil, 0, err
	}
	token, err := l.Acquire(ctx, zkl.DefaultOwner)
	if err != nil {
		c.Close()
		return nil, nil, 0, err
	}
	return c, l, token, nil
}

func runOnce(ctx context.Context, servers, url, key, value string) int {
	db, err := connectDB(ctx, url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "postgres:", err)
		return 1
	}
	defer db.Close(ctx)
	c, l, token, err := acquire(ctx, servers, "/zkl-examples/fencing/"+key)
	if err != nil {
		fmt.Fprintln(os.Stderr, "zkl:", err)
		return 1
	}
	defer c.Close()
	defer l.Release(zkl.DefaultOwner)
	fmt.Printf("acquired, fencing token %d\n", token)
	if !l.IsHeld() { // ask, then write with the token
		fmt.Println("no longer held: not writing")
		return 3
	}
	switch err := fencedWrite(ctx, db, key, value, token); {
	case errors.Is(err, ErrStale):
		fmt.Printf("refused: token %d is stale, stopping\n", token)
		return 3
	case err != nil:
		fmt.Fprintln(os.Stderr, "write:", err)
		return 1
	}
	fmt.Printf("written: %s=%s with token %d\n", key, value, token)
	return 0
}

func staleDemo(ctx context.Context, servers, url, key string) error {
	path := "/zkl-examples/fencing/" + key
	db, err := connectDB(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close(ctx)
	a, _, ta, err := acquire(ctx, servers, path)
	if err != nil {
		return err
	}
	fmt.Printf("A acquired, token %d\n", ta)
	a.Close() // A's session and node are gone; A still has its token
	b, bl, tb, err := acquire(ctx, servers, path)
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Printf("B acquired, token %d\n", tb)
	if tb <= ta {
		return fmt.Errorf("B's token %d is not above A's %d", tb, ta)
	}
	if err := fencedWrite(ctx, db, key, "B", tb); err != nil {
		return fmt.Errorf("B's write: %w", err)
	}
	bl.Release(zkl.DefaultOwner)
	if err := fencedWrite(ctx, db, key, "A", ta); !errors.Is(err, ErrStale) {
		return fmt.Errorf("A's stale write (token %d) was not refused: %v", ta, err)
	}
	fmt.Printf("A's write with token %d refused: 0 rows affected\n", ta)
	var value string
	var fence int64
	if err := db.QueryRow(ctx, "SELECT value, fence FROM fenced WHERE key = $1", key).Scan(&value, &fence); err != nil {
		return err
	}
	if value != "B" || uint64(fence) != tb {
		return fmt.Errorf("row %s is (%s, %d), not B's write", key, value, fence)
	}
	fmt.Printf("row %s: value B, fence %d: stale holder refused\n", key, tb)
	return nil
}

func main() {
	args := os.Args[1:]
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if len(args) == 4 && args[2] == "--stale-demo" {
		if err := staleDemo(ctx, args[0], args[1], args[3]); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL:", err)
			os.Exit(1)
		}
		return
	}
	if len(args) < 2 || len(args) > 4 {
		fmt.Fprintln(os.Stderr, "usage: pg_fenced SERVERS PG_URL [KEY [VALUE]] | SERVERS PG_URL --stale-demo KEY")
		os.Exit(2)
	}
	key, value := "report", "hello"
	if len(args) > 2 {
		key = args[2]
	}
	if len(args) > 3 {
		value = args[3]
	}
	os.Exit(runOnce(ctx, args[0], args[1], key, value))
}
