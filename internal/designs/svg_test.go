package designs

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tablekit/tablekit/internal/testenv"
)

// TestSVG parses every committed design.svg as XML and renders it to PNG
// with a real renderer (librsvg's rsvg-convert), which must succeed.
func TestSVG(t *testing.T) {
	testenv.RequireBinary(t, "rsvg-convert")
	for _, s := range All() {
		if s.Table == nil {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			path := filepath.Join(root, Dir(s), "design.svg")
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			dec := xml.NewDecoder(bytes.NewReader(raw))
			var rootName string
			rects, texts := 0, 0
			for {
				tok, err := dec.Token()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("design.svg does not parse: %v", err)
				}
				if se, ok := tok.(xml.StartElement); ok {
					if rootName == "" {
						rootName = se.Name.Local
					}
					switch se.Name.Local {
					case "rect":
						rects++
					case "text":
						texts++
					}
				}
			}
			if rootName != "svg" || rects < 2 || texts < 2 {
				t.Fatalf("root %q, %d rects, %d texts", rootName, rects, texts)
			}
			png := filepath.Join(t.TempDir(), s.Name+".png")
			out, err := exec.Command("rsvg-convert", "-f", "png", "-o", png, path).CombinedOutput()
			if err != nil {
				t.Fatalf("rsvg-convert: %v: %s", err, out)
			}
			b, err := os.ReadFile(png)
			if err != nil || len(b) < 8 || !bytes.Equal(b[:8], []byte("\x89PNG\r\n\x1a\n")) {
				t.Fatalf("not a PNG (%d bytes): %v", len(b), err)
			}
			t.Logf("%s: %d rects, %d texts, PNG %d bytes", s.Name, rects, texts, len(b))
		})
	}
}
