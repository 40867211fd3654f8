package designs

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/design"
	"github.com/tablekit/tablekit/query"
)

const root = "../.."

// TestFresh is the check mode run by the test command: every generated
// file must equal what the declarations give.
func TestFresh(t *testing.T) {
	files, err := Files(All())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := design.Check(filepath.Join(root, f.Path), f.Data); err != nil {
			t.Errorf("%v (run: go generate ./internal/designs)", err)
		}
	}
}

// TestCheckFailsWhenStale changes a key template of a declared pattern and
// expects the check to fail with ErrStale.
func TestCheckFailsWhenStale(t *testing.T) {
	s := Codex()
	s.Patterns = append([]query.Pattern(nil), s.Patterns...)
	s.Patterns[2].SK.Template = "ARTICLE#"
	files, err := Files([]design.Service{s})
	if err != nil {
		t.Fatal(err)
	}
	err = design.Check(filepath.Join(root, files[0].Path), files[0].Data)
	var se *design.StaleError
	if !errors.Is(err, design.ErrStale) || !errors.As(err, &se) || !strings.HasSuffix(se.Path, "entity/codex/DESIGN.md") {
		t.Fatalf("stale document: %v", err)
	}
}
