// Command ddbmem serves the embedded DynamoDB engine (package ddbmem) over
// DynamoDB's HTTP protocol, for the AWS CLI, the SDKs of other languages
// and any DynamoDB client:
//
//	go run ./cmd/ddbmem -port 8000
//	aws dynamodb list-tables --endpoint-url http://127.0.0.1:8000
//
// Clients sign their requests with any credentials (the signature is not
// checked) and any region. The data lives in memory until the command
// stops (Ctrl-C). Flags:
//
//	-host  address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)
//	-port  TCP port (default 8000; 0 picks a free port)
//	-stream-shards         open shards per DynamoDB stream (default 1)
//	-stream-shard-records  records after which a shard rolls over (default 10000)
//	-region  region of the ARNs of tables and streams and of stream
//	         records' awsRegion (default ddblocal, as DynamoDB Local)
//	-create-delay, -delete-delay, -update-delay
//	       how long a table stays CREATING, DELETING or UPDATING, as on
//	       DynamoDB (ddbmem.Lifecycle; default 0: every change is immediate)
//
// The DynamoDB Streams API is served on the same port, as DynamoDB Local
// serves it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/tablekit/tablekit/ddbmem"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, nil); err != nil {
		fmt.Fprintln(os.Stderr, "ddbmem:", err)
		os.Exit(2)
	}
}

// run serves until ctx is done. It prints the endpoint URL to out and, if
// ready is not nil, sends the URL on it.
func run(ctx context.Context, args []string, out io.Writer, ready chan<- string) error {
	fs := flag.NewFlagSet("ddbmem", flag.ContinueOnError)
	fs.SetOutput(out)
	host := fs.String("host", "127.0.0.1", "address to listen on")
	port := fs.Int("port", 8000, "TCP port (0 picks a free port)")
	shards := fs.Int("stream-shards", 1, "open shards per DynamoDB stream")
	shardRecords := fs.Int("stream-shard-records", 10_000, "records after which a stream shard rolls over")
	region := fs.String("region", "", "region of ARNs and stream records (default ddblocal)")
	var life ddbmem.Lifecycle
	fs.DurationVar(&life.Create, "create-delay", 0, "how long a new table is CREATING")
	fs.DurationVar(&life.Delete, "delete-delay", 0, "how long a deleted table is DELETING")
	fs.DurationVar(&life.Update, "update-delay", 0, "how long an updated table is UPDATING")
	if err := fs.Parse(args); err != nil {
		return err
	}
	db := ddbmem.New(func(o *ddbmem.Options) {
		o.Stream.Shards, o.Stream.ShardRecords = *shards, *shardRecords
		o.Lifecycle = life
		o.Region = *region
	})
	srv, err := ddbmem.Serve(db, net.JoinHostPort(*host, strconv.Itoa(*port)))
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintf(out, "ddbmem: DynamoDB endpoint at %s (in memory; Ctrl-C stops)\n", srv.URL())
	if ready != nil {
		ready <- srv.URL()
	}
	<-ctx.Done()
	return nil
}
