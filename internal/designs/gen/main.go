// Command gen writes the generated design documents of the documented
// services (package designs); with -check it writes nothing and exits 1
// when a committed file is stale.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tablekit/tablekit/design"
	"github.com/tablekit/tablekit/internal/designs"
)

func main() {
	check := flag.Bool("check", false, "fail when a generated file is stale, write nothing")
	root := flag.String("root", "", "module root (default: two levels above the current directory when run by go generate)")
	flag.Parse()
	if *root == "" {
		*root = "../.."
		if _, err := os.Stat("go.mod"); err == nil {
			*root = "."
		}
	}
	files, err := designs.Files(designs.All())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var errs []error
	for _, f := range files {
		p := filepath.Join(*root, f.Path)
		if *check {
			errs = append(errs, design.Check(p, f.Data))
			continue
		}
		if _, err := design.Write(p, f.Data); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
