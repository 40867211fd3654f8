// Command apidump writes or checks the module's API file (api/next.txt): the
// exported API, one line per identifier (see package internal/apidump).
//
//	go run ./internal/cmd/apidump          # prints the API to standard output
//	go run ./internal/cmd/apidump -w       # rewrites api/next.txt
//	go run ./internal/cmd/apidump -check   # exits 1 when api/next.txt is stale or the changelog misses a change
//	go run ./internal/cmd/apidump -o FILE  # writes the API to FILE (api/vX.Y.Z.txt when cutting a release)
//
// Run it from the module root, or pass -root.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tablekit/tablekit/internal/apidump"
)

func main() {
	root := flag.String("root", ".", "the module root")
	write := flag.Bool("w", false, "rewrite "+apidump.CurrentFile)
	check := flag.Bool("check", false, "check "+apidump.CurrentFile+" and the changelog; exit 1 on a problem")
	out := flag.String("o", "", "write the API to this file")
	flag.Parse()
	if err := run(*root, *write, *check, *out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(root string, write, check bool, out string) error {
	if check {
		_, err := apidump.Check(root)
		return err
	}
	mod, err := apidump.ModulePath(root)
	if err != nil {
		return err
	}
	lines, err := apidump.Dump(root, mod)
	if err != nil {
		return err
	}
	text := apidump.Format(lines)
	switch {
	case write:
		out = filepath.Join(root, apidump.CurrentFile)
	case out == "":
		_, err := os.Stdout.Write(text)
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return os.WriteFile(out, text, 0o644)
}
