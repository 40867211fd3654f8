package tablekit_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/apidump"
)

// TestAPIFile fails when api/next.txt does not list exactly the exported API
// of the code, or when an identifier of the last release was removed or
// changed without a mention in CHANGELOG.md's Unreleased section. Its error
// says what to run and what to write.
func TestAPIFile(t *testing.T) {
	if _, err := apidump.Check("."); err != nil {
		t.Fatal(err)
	}
}

// TestVersionIsLatestRelease holds tablekit.Version equal to the newest
// released version of the changelog.
func TestVersionIsLatestRelease(t *testing.T) {
	text, err := os.ReadFile(apidump.ChangelogFile)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := apidump.ParseChangelog(string(text))
	if err != nil {
		t.Fatal(err)
	}
	if cl.Latest != tablekit.Version {
		t.Fatalf("tablekit.Version = %q, the changelog's latest release is %q", tablekit.Version, cl.Latest)
	}
	if _, err := os.Stat(apidump.ReleaseFile(cl.Latest)); err != nil {
		t.Fatalf("the API of release %s is not frozen: %v", cl.Latest, err)
	}
}

// TestAPICheckCatchesRename drives the check on a temporary copy of package
// retry: renaming an exported function fails it as stale; regenerating the
// API file fails it as missing from the changelog; naming the identifier in
// the Unreleased section passes it.
func TestAPICheckCatchesRename(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.24\n")
	files, err := filepath.Glob("retry/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var src string // retry.go, which declares Exponential
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "func Exponential(") {
			src = filepath.Base(f)
		}
		write(filepath.Join("retry", filepath.Base(f)), string(b))
	}
	if src == "" {
		t.Fatal("no file of package retry declares Exponential")
	}
	regenerate := func() []string {
		t.Helper()
		lines, err := apidump.Dump(root, "example.com/m")
		if err != nil {
			t.Fatal(err)
		}
		write(apidump.CurrentFile, string(apidump.Format(lines)))
		return lines
	}
	const changelog = "# Changelog\n\n## [Unreleased]\n\n### Changed\n%s\n## [1.0.0] - 2026-01-01\n\n### Added\n- retry\n"
	released := regenerate()
	write(apidump.ReleaseFile("1.0.0"), string(apidump.Format(released)))
	write(apidump.ChangelogFile, strings.Replace(changelog, "%s", "", 1))
	if _, err := apidump.Check(root); err != nil {
		t.Fatalf("check of the released state: %v", err)
	}

	// The rename, without touching the API file.
	p := filepath.Join(root, "retry", src)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	write(filepath.Join("retry", src), strings.Replace(string(b), "func Exponential(", "func Doubling(", 1))
	_, err = apidump.Check(root)
	if !errors.Is(err, apidump.ErrStale) || !strings.Contains(err.Error(), "func Exponential(") || !strings.Contains(err.Error(), "func Doubling(") {
		t.Fatalf("after the rename: got %v, want ErrStale naming both spellings", err)
	}

	// The API file regenerated: the changelog must name the removal.
	regenerate()
	_, err = apidump.Check(root)
	if !errors.Is(err, apidump.ErrUnmentioned) || !strings.Contains(err.Error(), "retry.Exponential") {
		t.Fatalf("after regenerating: got %v, want ErrUnmentioned naming retry.Exponential", err)
	}

	write(apidump.ChangelogFile, strings.Replace(changelog, "%s",
		"- `retry.Exponential` → `retry.Doubling`. Migration: rename the call.\n", 1))
	if _, err := apidump.Check(root); err != nil {
		t.Fatalf("after the changelog entry: %v", err)
	}
}

func TestIdent(t *testing.T) {
	tests := []struct{ line, want string }{
		{"pkg github.com/tablekit/tablekit/lock, func New(Backend, ...func(*Options)) *Locker", "lock.New"},
		{"pkg github.com/tablekit/tablekit/lock, method (*Locker) Obtain(context.Context, string) (*Lock, error)", "lock.Locker.Obtain"},
		{"pkg github.com/tablekit/tablekit/query, method (Query[T]) Page(context.Context) (Page[T], error)", "query.Query.Page"},
		{"pkg github.com/tablekit/tablekit/entity, func NewStore[T any, PT interface { *T Item }](*Table) *Store[T, PT]", "entity.NewStore"},
		{"pkg github.com/tablekit/tablekit/lock, type Options struct, Retry retry.Strategy", "lock.Options.Retry"},
		{"pkg github.com/tablekit/tablekit/lock, type Options struct", "lock.Options"},
		{"pkg github.com/tablekit/tablekit/lock, type RetryStrategy = retry.Strategy", "lock.RetryStrategy"},
		{"pkg github.com/tablekit/tablekit/lock/valkeylock, type Client interface, Eval(context.Context, *cache.Script, []string, []string) (any, error)", "valkeylock.Client.Eval"},
		{"pkg github.com/tablekit/tablekit/cache, type Conn interface, embedded io.Closer", "cache.Conn.Closer"},
		{"pkg github.com/tablekit/tablekit/cache, const DefaultJitter = 0.1", "cache.DefaultJitter"},
		{"pkg github.com/tablekit/tablekit/retry, var ErrGaveUp", "retry.ErrGaveUp"},
		{"pkg github.com/tablekit/tablekit, const Version = \"0.3.0\"", "tablekit.Version"},
	}
	for _, tt := range tests {
		if got := apidump.Ident(tt.line); got != tt.want {
			t.Errorf("Ident(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestAPIDiff(t *testing.T) {
	removed, added := apidump.Diff([]string{"a", "b", "d"}, []string{"b", "c", "d", "e"})
	if diff := cmp.Diff([]string{"a"}, removed); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff([]string{"c", "e"}, added); diff != "" {
		t.Error(diff)
	}
}
