// Command codex is the runnable example of the Codex unified data layer
// (seed 001). It is being built; for now it only checks the toolchain.
package main

import "fmt"

func main() {
	fmt.Println("tablekit codex example: the table runtime is not built yet")
}
