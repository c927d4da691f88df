package realrskit

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// member is one file of a test archive.
type member struct{ name, body string }

// tgz packs members as a .tgz, with a pax global header first when
// comment is set (as git archive writes the commit id).
func tgz(t *testing.T, comment string, members ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	if comment != "" {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header", PAXRecords: map[string]string{"comment": comment}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range members {
		if err := tw.WriteHeader(&tar.Header{Name: m.name, Mode: 0o644, Size: int64(len(m.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(m.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const (
	pkgPinned = "{\n  \"name\": \"@pdpp/cli\",\n  \"publishConfig\": {\n    \"access\": \"public\"\n  }\n}\n"
	pkgGitHub = "{\n  \"name\": \"@pdpp/cli\",\n  \"publishConfig\": {\n    \"access\": \"public\",\n    \"registry\": \"https://npm.example\"\n  }\n}\n"
)

// pinnedAndGitHub are one commit's archive as the pin packages it, the
// pin naming its bytes and tree, and as GitHub packages it: a top folder,
// a pax global header, an omitted script and publishConfig.registry.
func pinnedAndGitHub(t *testing.T) (Pin, []byte, []byte) {
	t.Helper()
	pinned := tgz(t, "", member{"./LICENSE", "Apache-2.0"}, member{"./packages/cli/package.json", pkgPinned}, member{"./scripts/run.ts", "run()"})
	github := tgz(t, "0123456789", member{"pdpp-0123456/LICENSE", "Apache-2.0"}, member{"pdpp-0123456/packages/cli/package.json", pkgGitHub},
		member{"pdpp-0123456/scripts/release-package-matrix.ts", "release()"}, member{"pdpp-0123456/scripts/run.ts", "run()"})
	dir := t.TempDir()
	file := filepath.Join(dir, "pinned.tgz")
	if err := os.WriteFile(file, pinned, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(pinned)
	pin := Pin{Name: "src.tgz", Commit: "0123456789", SHA256: hex.EncodeToString(sum[:]), Omit: []string{"scripts/release-package-matrix.ts"}}
	tr, err := pin.treeOf(file)
	if err != nil || tr.repack {
		t.Fatalf("the pinned archive's tree: %+v, %v", tr, err)
	}
	pin.Tree = tr.digest
	return pin, pinned, github
}

// GitHub's archive of the pinned commit, downloaded, has other bytes but
// the pinned tree: it is repacked into the cache as the pinned archive is
// laid out, said so, and used again without a second download.
func TestArchiveDownloadOfGitHubsArchiveIsRepacked(t *testing.T) {
	pin, _, github := pinnedAndGitHub(t)
	srv, hits := serve(t, github)
	cache := filepath.Join(t.TempDir(), "archive")
	var log strings.Builder
	src := ArchiveSource{CacheDir: cache, Download: true, URL: srv.URL + "/src.tgz", Log: &log}
	path, err := pin.Archive(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "repacked as the pinned archive") {
		t.Errorf("the log does not say the archive was repacked: %q", log.String())
	}
	var names []string
	_ = walkArchive(path, func(h *tar.Header, body []byte) error {
		names = append(names, h.Name)
		if h.Name == "packages/cli/package.json" && string(body) != pkgPinned {
			t.Errorf("the repacked package.json is\n%s\nwant\n%s", body, pkgPinned)
		}
		return nil
	})
	if strings.Join(names, " ") != "LICENSE packages/cli/package.json scripts/run.ts" {
		t.Errorf("the repacked archive holds %v", names)
	}
	if tr, err := pin.treeOf(path); err != nil || tr.digest != pin.Tree || tr.repack {
		t.Errorf("the repack's tree: %+v, %v", tr, err)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 1 {
		t.Errorf("the cache holds %v, want the repack alone", entries)
	}
	srv.Close()
	if again, err := pin.Archive(context.Background(), src); err != nil || again != path || *hits != 1 {
		t.Errorf("second Archive = %s, %v after %d downloads; want the cached repack", again, err, *hits)
	}
}

// An archive laid out like GitHub's whose tree differs by one file is
// refused, naming both byte checksums and both tree digests.
func TestArchiveWithAnotherTreeIsRefused(t *testing.T) {
	pin, _, _ := pinnedAndGitHub(t)
	other := tgz(t, "0123456789", member{"pdpp-0123456/LICENSE", "MIT"}, member{"pdpp-0123456/packages/cli/package.json", pkgGitHub},
		member{"pdpp-0123456/scripts/run.ts", "run()"})
	srv, _ := serve(t, other)
	cache := filepath.Join(t.TempDir(), "archive")
	_, err := pin.Archive(context.Background(), ArchiveSource{CacheDir: cache, Download: true, URL: srv.URL + "/src.tgz"})
	var ce *ChecksumError
	if !errors.As(err, &ce) || !strings.Contains(ce.Tree, pin.Tree) || !strings.Contains(err.Error(), "tree digest") {
		t.Fatalf("Archive = %v; want a ChecksumError naming the trees", err)
	}
	if left, _ := os.ReadDir(cache); len(left) != 0 {
		t.Errorf("the refused download left %v in the cache", left)
	}
}

// A local REALRS_TARBALL in GitHub's packaging is repacked into the cache
// too, never changed in place.
func TestLocalGitHubArchiveIsRepackedIntoTheCache(t *testing.T) {
	pin, _, github := pinnedAndGitHub(t)
	local := filepath.Join(t.TempDir(), "github.tgz")
	if err := os.WriteFile(local, github, 0o444); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "archive")
	path, err := pin.Archive(context.Background(), ArchiveSource{Tarball: local, CacheDir: cache})
	if err != nil || filepath.Dir(path) != cache {
		t.Fatalf("Archive = %s, %v; want a repack in the cache", path, err)
	}
	if got, _ := os.ReadFile(local); !bytes.Equal(got, github) {
		t.Error("the local archive was changed")
	}
}

// The pinned archive beside the checkout, packaged as GitHub would (a top
// folder, the three release-policy scripts, publishConfig.registry in the
// three package.json files that publish), is recognised as the pinned tree
// and repacked to it.
func TestGitHubPackagingOfThePinnedTreeIsRecognised(t *testing.T) {
	beside := pinnedBeside(t, "to package as GitHub would")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	add := func(name string, body []byte) {
		if err := tw.WriteHeader(&tar.Header{Name: "pdpp-fceb768/" + name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write(body)
	}
	published := 0
	err := walkArchive(beside, func(h *tar.Header, body []byte) error {
		if strings.HasSuffix(h.Name, "package.json") && bytes.Contains(body, []byte(`"tag": "latest"`)) {
			body = bytes.Replace(body, []byte(`"tag": "latest"`), []byte(`"tag": "latest",`+"\n    "+`"registry": "https://registry.npmjs.org/"`), 1)
			published++
		}
		if h.Typeflag == tar.TypeReg {
			add(h.Name, body)
		}
		return nil
	})
	if err != nil || published != 3 {
		t.Fatalf("packaging as GitHub: %v, %d package.json files with publishConfig (want 3)", err, published)
	}
	for _, omitted := range Pinned.Omit {
		add(omitted, []byte("// release policy\n"))
	}
	if err := errors.Join(tw.Close(), zw.Close()); err != nil {
		t.Fatal(err)
	}
	github := filepath.Join(t.TempDir(), "github.tgz")
	if err := os.WriteFile(github, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), Pinned.Name)
	path, err := Pinned.usable(github, github, dest, nil)
	if err != nil || path != dest {
		t.Fatalf("usable = %s, %v; want a repack at %s", path, err, dest)
	}
	if tr, err := Pinned.treeOf(dest); err != nil || tr.digest != Pinned.Tree || tr.repack {
		t.Errorf("the repack's tree: %+v, %v; want the pinned tree laid out as pinned", tr, err)
	}
}
