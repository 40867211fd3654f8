package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "keygen: not implemented yet")
	os.Exit(1)
}
