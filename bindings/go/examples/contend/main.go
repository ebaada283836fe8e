// contend: run two (or more) of these at once on the same path; they take
// turns holding one ZooKeeper lock and print the fencing token of each hold.
//
//	go run ./examples/contend -servers 127.0.0.1:2181 -name one &
//	go run ./examples/contend -servers 127.0.0.1:2181 -name two
//
// A holder passes its fencing token to whatever it protects; a resource
// that remembers the highest token seen can reject a stale holder.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/zkl-project/zkl-go"
)

func main() {
	servers := flag.String("servers", "127.0.0.1:2181", "ZooKeeper connect string")
	path := flag.String("path", "/zkl-examples/contend", "lock path")
	name := flag.String("name", fmt.Sprint(os.Getpid()), "name printed with each hold")
	n := flag.Int("n", 5, "number of holds")
	hold := flag.Duration("hold", 500*time.Millisecond, "how long to hold each time")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	connectCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	client, err := zkl.Connect(connectCtx, zkl.Config{Servers: *servers})
	cancel()
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	lock, err := client.NewLock(*path, &zkl.LockOptions{Data: []byte(*name)})
	if err != nil {
		log.Fatal(err)
	}
	defer lock.Close()

	for i := 0; i < *n; i++ {
		waitCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
		token, err := lock.Acquire(waitCtx, zkl.DefaultOwner)
		cancel()
		if err != nil {
			log.Fatalf("%s: acquire: %v", *name, err)
		}
		fmt.Printf("%s acquired token=%d\n", *name, token)
		select {
		case err := <-lock.Lost(): // the session went: stop using the resource
			log.Fatalf("%s: lost the lock: %v", *name, err)
		case <-ctx.Done():
		case <-time.After(*hold): // the work done under the lock
		}
		if err := lock.Unlock(); err != nil {
			log.Fatalf("%s: release: %v", *name, err)
		}
		fmt.Printf("%s released token=%d\n", *name, token)
		if ctx.Err() != nil {
			return
		}
	}
}
