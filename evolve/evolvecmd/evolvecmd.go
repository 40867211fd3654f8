// Package evolvecmd is the command that runs package evolve's jobs on a
// team's own entities. Wiring it takes one short main in the team's
// module, naming their table, entities and jobs:
//
//	package main
//
//	func main() {
//		evolvecmd.Main(evolvecmd.Config{
//			Table:    post.NewTable, // func(entity.Client, string) *entity.Table
//			Entities: []evolve.Entity{evolve.EntityOf[post.Post](), evolve.EntityOf[codex.Category]()},
//			Jobs: []evolve.Job{{Name: "post-author-index", Steps: []evolve.Step{
//				evolve.Backfill(evolve.EntityOf[post.Post](), post.AuthorIDCreatedAt)}}},
//		})
//	}
//
// and then, from a shell (go run ./cmd/evolve, or a go tool entry):
//
//	evolve [flags] doctor              list items that do not match the code
//	evolve [flags] plan JOB            dry run: what JOB would change
//	evolve [flags] apply JOB           run JOB (shared by every process running it)
//	evolve [flags] resume JOB          the same: go on from the checkpoints
//	evolve [flags] status JOB          segments, owners, counts
//
// Flags: -endpoint URL (default $TABLEKIT_DYNAMODB_ENDPOINT; required:
// a DynamoDB Local or engine endpoint, or set Config.Client for AWS),
// -table NAME (default the Config's table), -segments, -workers, -page
// (Scan page size; a checkpoint follows each page), -rcu,
// -wcu (capacity units per second), -lease (lease duration),
// -lease-table, -progress auto|bars|lines|none, -md FILE and -json FILE
// (the final report; "-" for standard output).
//
// Progress goes to standard error: live bars (per segment: scanned,
// changed, skipped, conflicts, failures; rate; ETA from the table's item
// count) when it is a terminal, plain log lines otherwise.
package evolvecmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/evolve"
	"github.com/tablekit/tablekit/lease"
)

// Config is a team's wiring of the command.
type Config struct {
	// Table returns the team's table on a client, by name ("" for its
	// default name). Required.
	Table func(c entity.Client, name string) *entity.Table
	// Entities are the entity types the doctor knows.
	Entities []evolve.Entity
	// Jobs are the jobs plan, apply, resume and status accept by name.
	Jobs []evolve.Job
	// Client is the DynamoDB client (for instance a *dynamodb.Client for
	// AWS). nil: entity.LocalClient on the -endpoint flag.
	Client entity.Client
}

// Main runs the command with os.Args and exits with its status.
func Main(cfg Config) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Run(ctx, cfg, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit statuses of [Run].
const (
	ExitOK       = 0
	ExitFailed   = 1 // the job failed, or the doctor found problems
	ExitUsage    = 2 // bad flags, verb or job name
	ExitRefused  = 3 // the job does not fit the table (evolve.ErrUnfit)
	ExitProblems = 4 // the doctor found problems, or items failed
)

// Run runs the command with args (without the program name), writing
// reports to stdout and progress and errors to stderr, and returns the
// exit status.
func Run(ctx context.Context, cfg Config, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("evolve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	endpoint := fs.String("endpoint", os.Getenv("TABLEKIT_DYNAMODB_ENDPOINT"), "DynamoDB endpoint URL")
	table := fs.String("table", "", "table name (default: the configured table's)")
	segments := fs.Int("segments", 4, "parallel scan segments of the job")
	workers := fs.Int("workers", 0, "segments this process works on at once (default: segments)")
	page := fs.Int("page", 100, "items per Scan page (a checkpoint is written after each page)")
	rcu := fs.Float64("rcu", 0, "read capacity units per second (0: unlimited)")
	wcu := fs.Float64("wcu", 0, "write capacity units per second (0: unlimited)")
	leaseDur := fs.Duration("lease", 10*time.Second, "lease duration of a segment")
	leaseTable := fs.String("lease-table", "", "table of the job's leases (default: the job's table)")
	owner := fs.String("owner", "", "this process's name in the leases (default host:pid)")
	progress := fs.String("progress", "auto", "auto, bars, lines or none")
	md := fs.String("md", "", "write the final report in Markdown to FILE (- for stdout)")
	js := fs.String("json", "", "write the final report in JSON to FILE (- for stdout)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: evolve [flags] doctor | plan JOB | apply JOB | resume JOB | status JOB")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return ExitUsage
	}
	verb, rest := fs.Arg(0), fs.Args()
	if len(rest) > 0 {
		rest = rest[1:]
	}
	if cfg.Table == nil {
		fmt.Fprintln(stderr, "evolve: Config.Table is nil")
		return ExitUsage
	}
	c := cfg.Client
	if c == nil {
		if *endpoint == "" {
			fmt.Fprintln(stderr, "evolve: no -endpoint (or TABLEKIT_DYNAMODB_ENDPOINT), and Config.Client is nil")
			return ExitUsage
		}
		c = entity.LocalClient(*endpoint)
	}
	tbl := cfg.Table(c, *table)
	opts := func(o *evolve.Options) {
		o.Segments, o.Workers, o.ReadUnits, o.WriteUnits, o.LeaseTable = *segments, *workers, *rcu, *wcu, *leaseTable
		o.PageSize = int32(*page)
		o.Lease = func(lo *lease.Options) {
			lo.Duration = *leaseDur
			if *owner != "" {
				lo.Owner = *owner
			}
		}
	}
	var job evolve.Job
	if verb != "doctor" {
		if len(rest) != 1 {
			fs.Usage()
			return ExitUsage
		}
		found := false
		for _, j := range cfg.Jobs {
			if j.Name == rest[0] {
				job, found = j, true
			}
		}
		if !found {
			fmt.Fprintf(stderr, "evolve: unknown job %q (jobs: %s)\n", rest[0], jobNames(cfg.Jobs))
			return ExitUsage
		}
	}
	out := outputs{md: *md, js: *js, stdout: stdout}
	switch verb {
	case "doctor":
		pr := newRenderer(*progress, stderr, "doctor", *segments, itemCount(ctx, tbl))
		d, err := evolve.Doctor(ctx, tbl, cfg.Entities, 3, opts, func(o *evolve.Options) { o.Progress = pr })
		pr.close()
		if err != nil {
			fmt.Fprintln(stderr, "evolve:", err)
			return ExitFailed
		}
		if err := out.write(DoctorMarkdown(d), d); err != nil {
			fmt.Fprintln(stderr, "evolve:", err)
			return ExitFailed
		}
		if d.Problems > 0 {
			return ExitProblems
		}
		return ExitOK
	case "plan", "apply", "resume":
		pr := newRenderer(*progress, stderr, job.Name, *segments, itemCount(ctx, tbl))
		rep, err := evolve.Run(ctx, tbl, job, opts, func(o *evolve.Options) {
			o.DryRun = verb == "plan"
			o.Progress = pr
		})
		pr.close()
		if errors.Is(err, evolve.ErrUnfit) {
			fmt.Fprintln(stderr, err)
			return ExitRefused
		}
		if err != nil {
			fmt.Fprintln(stderr, "evolve:", err)
			if rep == nil {
				return ExitFailed
			}
		}
		if werr := out.write(ReportMarkdown(rep), rep); werr != nil {
			fmt.Fprintln(stderr, "evolve:", werr)
			return ExitFailed
		}
		switch {
		case err != nil:
			return ExitFailed
		case rep.Counts.Failures > 0:
			return ExitProblems
		}
		return ExitOK
	case "status":
		st, err := evolve.Status(ctx, tbl, job.Name, opts)
		if err != nil {
			fmt.Fprintln(stderr, "evolve:", err)
			return ExitFailed
		}
		if out.md == "" && out.js == "" {
			out.md = "-"
		}
		if err := out.write(StatusMarkdown(st), st); err != nil {
			fmt.Fprintln(stderr, "evolve:", err)
			return ExitFailed
		}
		return ExitOK
	default:
		fs.Usage()
		return ExitUsage
	}
}

func jobNames(js []evolve.Job) string {
	var n []string
	for _, j := range js {
		n = append(n, j.Name)
	}
	return strings.Join(n, ", ")
}

// itemCount is the table's approximate item count (0 when unknown).
func itemCount(ctx context.Context, t *entity.Table) int64 {
	out, err := t.Client().DescribeTable(ctx, describe(t.Name()))
	if err != nil || out.Table == nil || out.Table.ItemCount == nil {
		return 0
	}
	return *out.Table.ItemCount
}

type outputs struct {
	md, js string
	stdout io.Writer
}

// write writes the Markdown and JSON reports where the flags say; with
// neither flag, the Markdown goes to stdout.
func (o outputs) write(md string, v any) error {
	if o.md == "" && o.js == "" {
		o.md = "-"
	}
	put := func(dst, text string) error {
		switch dst {
		case "":
			return nil
		case "-":
			_, err := io.WriteString(o.stdout, text)
			return err
		default:
			return os.WriteFile(dst, []byte(text), 0o644)
		}
	}
	if err := put(o.md, md); err != nil {
		return err
	}
	if o.js == "" {
		return nil
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return put(o.js, string(b)+"\n")
}
