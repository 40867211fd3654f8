package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/tablekit/tablekit/internal/keygen"
)

func main() {
	dir := flag.String("dir", ".", "package directory to process")
	check := flag.Bool("check", false, "write nothing; exit 1 when a generated file is stale")
	version := flag.Bool("version", false, "print the generator's version and exit")
	flag.Parse()
	if *version {
		fmt.Println("keygen", keygen.Version)
		return
	}
	stale, err := run(*dir, *check)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *check && len(stale) > 0 {
		for _, f := range stale {
			fmt.Fprintln(os.Stderr, "keygen: stale:", f)
		}
		os.Exit(1)
	}
}

// run generates the package in dir and returns the files that changed (or,
// with check, would change).
func run(dir string, check bool) ([]string, error) {
	files, err := keygen.Generate(dir)
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, f := range files {
		old, err := os.ReadFile(f.Path)
		exists := err == nil
		if f.Content == nil {
			if !exists {
				continue
			}
			changed = append(changed, f.Path)
			if !check {
				if err := os.Remove(f.Path); err != nil {
					return nil, err
				}
			}
			continue
		}
		if exists && bytes.Equal(old, f.Content) {
			continue
		}
		changed = append(changed, f.Path)
		if !check {
			if err := os.WriteFile(f.Path, f.Content, 0o644); err != nil {
				return nil, err
			}
		}
	}
	return changed, nil
}
