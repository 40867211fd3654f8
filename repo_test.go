package tablekit_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/internal/testenv"
)

// maxTrackedFile is the largest file the repository may track: every
// importer downloads the whole module, so build outputs and data dumps stay
// out.
const maxTrackedFile = 1 << 20

// binaryMagic are the first bytes of compiled executables (ELF, Mach-O in
// both byte orders and both widths, universal Mach-O, and PE).
var binaryMagic = [][]byte{
	{0x7f, 'E', 'L', 'F'},
	{0xfe, 0xed, 0xfa, 0xce}, {0xce, 0xfa, 0xed, 0xfe},
	{0xfe, 0xed, 0xfa, 0xcf}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe},
	{'M', 'Z'},
}

// trackedFileProblem says what is wrong with a tracked file of the given git
// mode and content, or "" when it may be committed. Scripts (a "#!" first
// line) may be executable; any other executable file, any compiled binary
// whatever its mode, and any file over 1 MB may not.
func trackedFileProblem(mode string, size int64, head []byte) string {
	for _, m := range binaryMagic {
		if bytes.HasPrefix(head, m) {
			return "is a compiled executable"
		}
	}
	if mode == "100755" && !bytes.HasPrefix(head, []byte("#!")) {
		return "is executable but not a script"
	}
	if size > maxTrackedFile {
		return "is larger than 1 MB"
	}
	return ""
}

func TestTrackedFileProblem(t *testing.T) {
	tests := []struct {
		name string
		mode string
		size int64
		head string
		bad  bool
	}{
		{"source", "100644", 100, "package x", false},
		{"script", "100755", 100, "#!/usr/bin/env bash", false},
		{"elf", "100755", 100, "\x7fELF\x02", true},
		{"elf not executable", "100644", 100, "\x7fELF\x02", true},
		{"mach-o", "100755", 100, "\xcf\xfa\xed\xfe", true},
		{"executable text", "100755", 100, "hello", true},
		{"large", "100644", maxTrackedFile + 1, "package x", true},
		{"exactly 1 MB", "100644", maxTrackedFile, "package x", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := trackedFileProblem(tt.mode, tt.size, []byte(tt.head))
			if (got != "") != tt.bad {
				t.Fatalf("trackedFileProblem = %q, want bad=%v", got, tt.bad)
			}
		})
	}
}

// TestNoTrackedBinaries fails on any tracked executable that is not a script
// and on any tracked file over 1 MB (README: build outputs are never
// committed; .gitignore lists the examples' binaries).
func TestNoTrackedBinaries(t *testing.T) {
	for _, f := range trackedFiles(t) {
		info, err := os.Stat(f.path)
		if err != nil {
			continue // deleted in the work tree: the commit will say
		}
		fh, err := os.Open(f.path)
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 4)
		n, _ := fh.Read(head)
		fh.Close()
		if p := trackedFileProblem(f.mode, info.Size(), head[:n]); p != "" {
			t.Errorf("%s %s (%d bytes): remove it with git rm --cached and list it in .gitignore", f.path, p, info.Size())
		}
	}
}

type trackedFile struct{ mode, path string }

// trackedFiles lists the files git tracks, with their git modes. Outside a
// git checkout of the module (a copy from the module proxy) every regular
// file of the tree counts, with the mode its permission bits give.
func trackedFiles(t *testing.T) []trackedFile {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	wd, _ := os.Getwd()
	if err != nil || filepath.Clean(strings.TrimSpace(string(top))) != filepath.Clean(wd) {
		if testenv.Required() {
			t.Fatalf("not a git checkout of the module (git rev-parse: %v)", err)
		}
		var files []trackedFile
		err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			mode := "100644"
			if info.Mode()&0o111 != 0 {
				mode = "100755"
			}
			files = append(files, trackedFile{mode, path})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	out, err := exec.Command("git", "ls-files", "-s", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []trackedFile
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		meta, path, ok := strings.Cut(rec, "\t")
		if !ok {
			t.Fatalf("git ls-files: odd record %q", rec)
		}
		mode := strings.Fields(meta)[0]
		if mode == "120000" || mode == "160000" { // symlink, submodule
			continue
		}
		files = append(files, trackedFile{mode, path})
	}
	return files
}

// The generic packages stay independent of the table runtime: the cache
// shares only the not-found error value (internal/notfound) with it.
func TestCacheDoesNotImportEntity(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./cache/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "github.com/tablekit/tablekit/entity" || strings.HasPrefix(pkg, "github.com/tablekit/tablekit/entity/") {
			t.Errorf("package cache depends on %s", pkg)
		}
	}
}
