package apidump

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// The files Check reads, relative to the module root.
const (
	// CurrentFile holds the API of the code as it is (regenerated with
	// go run ./internal/cmd/apidump -w).
	CurrentFile = "api/next.txt"
	// ChangelogFile is the changelog in the Keep a Changelog shape.
	ChangelogFile = "CHANGELOG.md"
)

// ReleaseFile is the frozen API of a released version, written when the
// version is cut: api/v0.3.0.txt.
func ReleaseFile(version string) string { return "api/v" + version + ".txt" }

var (
	// ErrStale means the API file does not match the code.
	ErrStale = errors.New("apidump: the API file is stale")
	// ErrUnmentioned means the API lost or changed an identifier of the last
	// release that the changelog's Unreleased section does not name.
	ErrUnmentioned = errors.New("apidump: API change missing from the changelog")
	// ErrChangelog means the changelog has no Unreleased section or no
	// released version.
	ErrChangelog = errors.New("apidump: malformed changelog")
)

// Changelog is what Check reads from CHANGELOG.md.
type Changelog struct {
	Unreleased string // the text of the "## [Unreleased]" section
	Latest     string // the newest released version, "0.3.0"
}

var versionHeading = regexp.MustCompile(`^## \[(\d+\.\d+\.\d+)\]`)

// ParseChangelog reads the Unreleased section and the newest released
// version of a Keep a Changelog file. It returns ErrChangelog when either is
// missing.
func ParseChangelog(text string) (Changelog, error) {
	var c Changelog
	var in, seen bool
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "## ") {
			if m := versionHeading.FindStringSubmatch(l); m != nil && c.Latest == "" {
				c.Latest = m[1]
			}
			in = strings.HasPrefix(l, "## [Unreleased]")
			seen = seen || in
			continue
		}
		if in {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	c.Unreleased = b.String()
	if !seen {
		return c, fmt.Errorf("%w: no \"## [Unreleased]\" section", ErrChangelog)
	}
	if c.Latest == "" {
		return c, fmt.Errorf("%w: no released version (\"## [X.Y.Z] - date\")", ErrChangelog)
	}
	return c, nil
}

// Check verifies the module rooted at root:
//   - CurrentFile lists exactly the exported API of the code (else ErrStale,
//     naming the lines that differ and the command that regenerates it);
//   - every line of the latest release's API file (ReleaseFile) that the
//     current API lacks, an identifier removed or changed since that release,
//     is named ([Ident]) in the changelog's Unreleased section (else
//     ErrUnmentioned, naming each identifier to mention).
//
// It returns the latest released version found in the changelog.
func Check(root string) (string, error) {
	mod, err := ModulePath(root)
	if err != nil {
		return "", err
	}
	cur, err := Dump(root, mod)
	if err != nil {
		return "", err
	}
	file, err := ReadFile(filepath.Join(root, CurrentFile))
	if err != nil {
		return "", fmt.Errorf("%w: %v (go run ./internal/cmd/apidump -w writes it)", ErrStale, err)
	}
	if gone, added := Diff(file, cur); len(gone)+len(added) > 0 {
		var b strings.Builder
		for _, l := range added {
			fmt.Fprintf(&b, "\n+ %s", l)
		}
		for _, l := range gone {
			fmt.Fprintf(&b, "\n- %s", l)
		}
		return "", fmt.Errorf("%w: %s differs from the code; review the change and run go run ./internal/cmd/apidump -w:%s", ErrStale, CurrentFile, b.String())
	}
	text, err := os.ReadFile(filepath.Join(root, ChangelogFile))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrChangelog, err)
	}
	cl, err := ParseChangelog(string(text))
	if err != nil {
		return "", err
	}
	released, err := ReadFile(filepath.Join(root, ReleaseFile(cl.Latest)))
	if err != nil {
		return cl.Latest, fmt.Errorf("%w: the API of release %s: %v", ErrChangelog, cl.Latest, err)
	}
	removed, _ := Diff(released, cur)
	var missing []string
	seen := map[string]bool{}
	for _, l := range removed {
		id := Ident(l)
		if seen[id] {
			continue
		}
		seen[id] = true
		if !strings.Contains(cl.Unreleased, id) {
			missing = append(missing, fmt.Sprintf("\n  %s (was: %s)", id, l))
		}
	}
	if len(missing) > 0 {
		return cl.Latest, fmt.Errorf("%w: since %s these identifiers were removed or changed; name each in the Unreleased section of %s with its new spelling and a one-line migration:%s",
			ErrUnmentioned, cl.Latest, ChangelogFile, strings.Join(missing, ""))
	}
	return cl.Latest, nil
}
