// guarded: acquire a lock, write a value under it with a guarded write, and
// release. The write is applied only while the hold is real at the
// ZooKeeper quorum: a holder that was frozen, cut off or expired writes
// nothing, whatever it believes.
//
//	go run ./examples/guarded -servers 127.0.0.1:2181 -path /zkl-examples/job -value hello
//
// The value goes to PATH/state (strictly below the lock's path, as every
// guarded write's operations must): created on the first run, replaced
// (version-checked) on later ones.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/zkl-project/zkl-go"
)

func main() {
	servers := flag.String("servers", "127.0.0.1:2181", "ZooKeeper connect string")
	path := flag.String("path", "/zkl-examples/guarded", "lock path")
	value := flag.String("value", time.Now().Format(time.RFC3339), "value to write to PATH/state")
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := zkl.Connect(ctx, zkl.Config{Servers: *servers})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	lock, err := client.NewLock(*path, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer lock.Close()
	token, err := lock.Acquire(ctx, zkl.DefaultOwner)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("acquired %s, fencing token %d\n", *path, token)

	state := *path + "/state"
	r, err := lock.Write(ctx, zkl.DefaultOwner, zkl.NewOps().Create(state, []byte(*value), zkl.CreatePersistent))
	if errors.Is(err, zkl.ErrExists) {
		// There from an earlier run: replace it, whatever its version.
		r, err = lock.Write(ctx, zkl.DefaultOwner, zkl.NewOps().Set(state, []byte(*value), zkl.AnyVersion))
	}
	switch {
	case errors.Is(err, zkl.ErrInDoubt):
		log.Fatalf("the connection broke during the write: read %s back before retrying", state)
	case err != nil:
		log.Fatal(err) // nothing was written (ErrLost: the hold was gone)
	}
	fmt.Printf("wrote %q to %s (data version %d)\n", *value, state, r.Versions[0])

	if err := lock.Unlock(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("released")
}
