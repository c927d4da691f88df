package realrskit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// The pinned upstream: PDP-Connect/pdpp, the reference AS and RS, at one
// commit (Apache-2.0; its LICENSE and NOTICE sit at the archive's top level
// and stay in the unpacked tree). The archive is pinned by its bytes: an
// archive of the commit made another way (GitHub's own, say) has other
// bytes and is refused, saying which archive the pin names.
var Pinned = Pin{
	Name:   "pdpp-reference-fceb768.tgz",
	Commit: "fceb7683023de50e898c3fa40c51b71d5cccff01",
	SHA256: "f14d7a96750a87e71762d6bf1a23218afb0f902301dc270891ebebc8fdf7967d",
	URL:    "https://codeload.github.com/PDP-Connect/pdpp/tar.gz/fceb7683023de50e898c3fa40c51b71d5cccff01",
}

// A Pin is a source archive: its file name, commit, checksum and where it
// is downloaded from by default (REALRS_URL overrides).
type Pin struct {
	Name, Commit, SHA256, URL string
}

// downloadTimeout bounds one download of the archive (about 9 MB).
const downloadTimeout = 5 * time.Minute

// ChecksumError is an archive whose bytes are not the pinned ones.
type ChecksumError struct {
	Source    string // a path or a URL
	Want, Got string
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("%s has sha256 %s, but the pinned archive's is %s: it is not the pinned source (set REALRS_TARBALL to the pinned archive, %s)",
		e.Source, e.Got, e.Want, Pinned.Name)
}

// DownloadError is an archive that could not be downloaded.
type DownloadError struct {
	URL string
	Err error
}

func (e *DownloadError) Error() string {
	return fmt.Sprintf("download of the reference RS source %s: %v (with no network to it, set REALRS_TARBALL to a local copy of %s)", e.URL, e.Err, Pinned.Name)
}

func (e *DownloadError) Unwrap() error { return e.Err }

// ErrNoArchive says the archive is neither named, cached nor to be downloaded.
var ErrNoArchive = errors.New("no local copy of the reference RS source")

// ArchiveSource says where Archive looks, in order.
type ArchiveSource struct {
	Tarball  string    // REALRS_TARBALL: a local archive, checked and used in place
	Beside   string    // a copy found beside the checkout (../shared/realrs in CI), used like Tarball
	CacheDir string    // where a download is kept (<work>/archive)
	Download bool      // download when there is no local copy
	URL      string    // REALRS_URL, else the pin's
	Log      io.Writer // what is downloaded and where it is cached
}

// Archive is the path of a verified copy of p's archive: the named
// tarball, else the one beside the checkout, else the cached download,
// else (when src.Download) a fresh download into the cache.
func (p Pin) Archive(ctx context.Context, src ArchiveSource) (string, error) {
	for _, local := range []string{src.Tarball, src.Beside} {
		if local == "" {
			continue
		}
		if err := p.verify(local); err != nil {
			return "", err
		}
		return local, nil
	}
	cached := filepath.Join(src.CacheDir, p.Name)
	if _, err := os.Stat(cached); err == nil {
		if err := p.verify(cached); err != nil {
			return "", err
		}
		return cached, nil
	}
	if !src.Download {
		return "", ErrNoArchive
	}
	url := src.URL
	if url == "" {
		url = p.URL
	}
	if src.Log != nil {
		fmt.Fprintf(src.Log, "[realrs] downloading the reference RS source (commit %.7s, about 9 MB) from %s into %s\n", p.Commit, url, cached)
	}
	if err := p.download(ctx, url, cached); err != nil {
		return "", err
	}
	return cached, nil
}

// download writes url's body to dest once its checksum is the pin's; a
// wrong or partial body never reaches dest.
func (p Pin) download(ctx context.Context, url, dest string) error {
	ctx, cancel := context.WithTimeout(ctx, downloadTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return &DownloadError{URL: url, Err: err}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return &DownloadError{URL: url, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &DownloadError{URL: url, Err: fmt.Errorf("HTTP %d", resp.StatusCode)}
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".download-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, h), resp.Body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &DownloadError{URL: url, Err: err}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != p.SHA256 {
		return &ChecksumError{Source: url, Want: p.SHA256, Got: got}
	}
	return os.Rename(tmp.Name(), dest)
}

// verify checks the file at path against the pin.
func (p Pin) verify(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("the reference RS source archive: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("the reference RS source archive %s: %w", path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != p.SHA256 {
		return &ChecksumError{Source: path, Want: p.SHA256, Got: got}
	}
	return nil
}
