// The example packaging/go/test.sh builds in a fresh module against the
// module fetched from the file proxy: one lock (prints its fencing token)
// and one leader election (prints "elected" and the term's token).
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/zkl-project/zkl-go"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: example HOST:PORT")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	fmt.Printf("libzkl %s\n", zkl.Version())

	client, err := zkl.Connect(ctx, zkl.Config{Servers: os.Args[1]})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	lock, err := client.NewLock("/zkl-pkg-go/lock", nil) // nil: fair lock
	if err != nil {
		log.Fatal(err)
	}
	token, err := lock.Acquire(ctx, zkl.DefaultOwner)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("locked token=%d\n", token)
	if err := lock.Unlock(); err != nil {
		log.Fatal(err)
	}
	lock.Close()

	election, err := client.NewElection("/zkl-pkg-go/election", zkl.ElectionOptions{ID: "pkg-go"})
	if err != nil {
		log.Fatal(err)
	}
	term, err := election.Campaign(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if !election.IsLeader() {
		log.Fatal("campaign returned but not leader")
	}
	fmt.Printf("elected token=%d\n", term)
	if err := election.Resign(); err != nil {
		log.Fatal(err)
	}
	election.Close()
}
