package realrskit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func pinOf(body []byte) Pin {
	sum := sha256.Sum256(body)
	return Pin{Name: "src.tgz", Commit: "0123456789", SHA256: hex.EncodeToString(sum[:])}
}

// serve is a local HTTP server standing in for the archive's host.
func serve(t *testing.T, body []byte) (*httptest.Server, *int) {
	t.Helper()
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		if r.URL.Path != "/src.tgz" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// A download whose checksum is the pin's lands in the cache, says what
// it downloads and where, and is not downloaded again.
func TestArchiveDownloadWithMatchingChecksum(t *testing.T) {
	body := []byte("the pinned archive's bytes")
	srv, hits := serve(t, body)
	cache := filepath.Join(t.TempDir(), "archive")
	var log strings.Builder
	src := ArchiveSource{CacheDir: cache, Download: true, URL: srv.URL + "/src.tgz", Log: &log}
	path, err := pinOf(body).Archive(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(body) || filepath.Dir(path) != cache {
		t.Errorf("Archive = %s holding %q", path, got)
	}
	if !strings.Contains(log.String(), srv.URL) || !strings.Contains(log.String(), cache) {
		t.Errorf("the download log %q names neither the URL nor the cache", log.String())
	}
	srv.Close()
	if again, err := pinOf(body).Archive(context.Background(), src); err != nil || again != path || *hits != 1 {
		t.Errorf("second Archive = %s, %v after %d downloads; want the cached copy", again, err, *hits)
	}
}

// A download with other bytes is refused with a typed error naming both
// checksums, and leaves nothing in the cache.
func TestArchiveDownloadWithWrongChecksum(t *testing.T) {
	srv, _ := serve(t, []byte("not the pinned bytes"))
	cache := filepath.Join(t.TempDir(), "archive")
	pin := pinOf([]byte("the pinned archive's bytes"))
	_, err := pin.Archive(context.Background(), ArchiveSource{CacheDir: cache, Download: true, URL: srv.URL + "/src.tgz"})
	var ce *ChecksumError
	if !errors.As(err, &ce) || ce.Want != pin.SHA256 || ce.Got == pin.SHA256 || !strings.Contains(err.Error(), "REALRS_TARBALL") {
		t.Fatalf("Archive = %v; want a ChecksumError naming both sums and REALRS_TARBALL", err)
	}
	if left, _ := os.ReadDir(cache); len(left) != 0 {
		t.Errorf("the refused download left %v in the cache", left)
	}
}

func TestArchiveDownloadFailures(t *testing.T) {
	srv, _ := serve(t, nil)
	pin := pinOf([]byte("x"))
	var de *DownloadError
	if _, err := pin.Archive(context.Background(), ArchiveSource{CacheDir: t.TempDir(), Download: true, URL: srv.URL + "/missing.tgz"}); !errors.As(err, &de) || !strings.Contains(err.Error(), "404") {
		t.Errorf("a 404: %v; want a DownloadError saying 404", err)
	}
	if _, err := pin.Archive(context.Background(), ArchiveSource{CacheDir: t.TempDir(), Download: true, URL: "http://127.0.0.1:1/src.tgz"}); !errors.As(err, &de) {
		t.Errorf("an unreachable host: %v; want a DownloadError", err)
	}
	if _, err := pin.Archive(context.Background(), ArchiveSource{CacheDir: t.TempDir()}); !errors.Is(err, ErrNoArchive) {
		t.Errorf("nothing local, no download: %v; want ErrNoArchive", err)
	}
}

// REALRS_TARBALL is used in place once its checksum is the pin's.
func TestArchiveFromLocalTarball(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.tgz"), filepath.Join(dir, "bad.tgz")
	_ = os.WriteFile(good, []byte("pinned"), 0o644)
	_ = os.WriteFile(bad, []byte("other"), 0o644)
	pin := pinOf([]byte("pinned"))
	if path, err := pin.Archive(context.Background(), ArchiveSource{Tarball: good, CacheDir: t.TempDir(), Download: true, URL: "http://127.0.0.1:1/"}); err != nil || path != good {
		t.Errorf("Archive = %s, %v; want %s in place, with no download", path, err, good)
	}
	var ce *ChecksumError
	if _, err := pin.Archive(context.Background(), ArchiveSource{Tarball: bad, CacheDir: t.TempDir()}); !errors.As(err, &ce) || ce.Source != bad {
		t.Errorf("a wrong REALRS_TARBALL: %v; want a ChecksumError naming it", err)
	}
	if _, err := pin.Archive(context.Background(), ArchiveSource{Tarball: filepath.Join(dir, "none.tgz")}); err == nil || !strings.Contains(err.Error(), "none.tgz") {
		t.Errorf("a missing REALRS_TARBALL: %v", err)
	}
}

// The pin is the archive CI has beside the checkout, when it is there.
func TestPinMatchesTheArchiveBesideTheCheckout(t *testing.T) {
	beside := pinnedBeside(t, "to compare the pin with")
	if tr, err := Pinned.verify(beside, beside); err != nil || tr.repack {
		t.Errorf("verify = %+v, %v; want the pinned bytes", tr, err)
	}
	// The tree digest is read from the same archive, not just written down.
	if tr, err := Pinned.treeOf(beside); err != nil || tr.digest != Pinned.Tree || tr.repack {
		t.Errorf("the pinned archive's tree: %+v, %v; the pin says %s", tr, err, Pinned.Tree)
	}
}

// pinnedBeside is the pinned archive CI keeps beside the checkout; the test
// skips, saying what for, where it is absent.
func pinnedBeside(t *testing.T, what string) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	beside := filepath.Join(filepath.Dir(root), "shared", "realrs", Pinned.Name)
	if !fileExists(beside) {
		t.Skipf("no %s beside the checkout %s", beside, what)
	}
	return beside
}

// Launch asks for the archive before it starts anything.
func TestLaunchWithoutArchiveStartsNothing(t *testing.T) {
	work := t.TempDir()
	_, err := Launch(context.Background(), Options{Work: work, State: filepath.Join(work, "state")})
	if !errors.Is(err, ErrNoArchive) {
		t.Fatalf("Launch = %v; want ErrNoArchive", err)
	}
	if fileExists(filepath.Join(work, "state")) {
		t.Error("Launch made a state dir with no archive to start from")
	}
}

// The embedded launcher unpacks once, with its scripts executable.
func TestLauncherUnpacks(t *testing.T) {
	work := t.TempDir()
	dir, err := unpackKit(work)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"start.sh", "stop.sh", "launch.ts", "seed-data.ts", "stubs/remote-surface/package.json"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".sh") && fi.Mode()&0o100 == 0 {
			t.Errorf("%s is not executable", f)
		}
	}
	if again, err := unpackKit(work); err != nil || again != dir {
		t.Errorf("second unpack = %s, %v; want %s", again, err, dir)
	}
}
