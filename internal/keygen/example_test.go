package keygen_test

import (
	"fmt"
	"path/filepath"

	"github.com/tablekit/tablekit/internal/keygen"
)

func ExampleGenerate() {
	files, err := keygen.Generate("sample")
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		fmt.Println(filepath.ToSlash(f.Path), len(f.Content) > 0)
	}
	// Output:
	// sample/more_keys.go true
	// sample/rules_keys.go true
	// sample/sample_keys.go true
}
