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
// and stay in the unpacked tree). The archive is pinned by its bytes, and
// by its tree (tree.go): GitHub's own archive of the commit, the default
// download, has other bytes but the pinned tree once packaged as the
// pinned archive is; it is repacked that way. Any other archive is refused,
// naming both checksums.
var Pinned = Pin{
	Name:   "pdpp-reference-fceb768.tgz",
	Commit: "fceb7683023de50e898c3fa40c51b71d5cccff01",
	SHA256: "f14d7a96750a87e71762d6bf1a23218afb0f902301dc270891ebebc8fdf7967d",
	Tree:   "9a09f21661984e02ee8352b1254ad8b03585b68bf1b489d1ca29153fc4a1075b",
	Omit:   pinnedOmits,
	URL:    "https://codeload.github.com/PDP-Connect/pdpp/tar.gz/fceb7683023de50e898c3fa40c51b71d5cccff01",
}

// A Pin is a source archive: its file name, commit, checksum, tree digest
// and the files its packaging leaves out, and where it is downloaded from
// by default (REALRS_URL overrides).
type Pin struct {
	Name, Commit, SHA256, Tree, URL string
	Omit                            []string
}

// downloadTimeout bounds one download of the archive (about 9 MB).
const downloadTimeout = 5 * time.Minute

// ChecksumError is an archive whose bytes are not the pinned ones, nor its
// tree the pinned tree.
type ChecksumError struct {
	Source    string // a path or a URL
	Want, Got string
	// Tree says why its tree is not the pinned one: another digest, or an
	// archive that could not be read.
	Tree string
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("%s has sha256 %s, but the pinned archive's is %s, and %s: it is not the pinned source (set REALRS_TARBALL to the pinned archive, %s)",
		e.Source, e.Got, e.Want, e.Tree, Pinned.Name)
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
	cached := filepath.Join(src.CacheDir, p.Name)
	for _, local := range []string{src.Tarball, src.Beside} {
		if local == "" {
			continue
		}
		return p.usable(local, local, cached, src.Log)
	}
	if _, err := os.Stat(cached); err == nil {
		return p.usable(cached, cached, cached, src.Log)
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
	if err := p.download(ctx, url, cached, src.Log); err != nil {
		return "", err
	}
	return cached, nil
}

// usable is the archive at path (from source) when its bytes are the
// pin's, or its tree is the pinned tree laid out as the pinned archive;
// a repack of it into dest when its tree is the pinned tree laid out
// another way (GitHub's archive); else a ChecksumError.
func (p Pin) usable(path, source, dest string, log io.Writer) (string, error) {
	t, err := p.verify(path, source)
	switch {
	case err != nil:
		return "", err
	case !t.repack:
		return path, nil
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", err
	}
	tmp := dest + ".repack"
	if err := p.repack(path, t.top, tmp); err != nil {
		return "", fmt.Errorf("repack %s as the pinned archive: %w", source, err)
	}
	if log != nil {
		fmt.Fprintf(log, "[realrs] %s holds the pinned tree (commit %.7s) in another packaging; repacked as the pinned archive into %s\n", source, p.Commit, dest)
	}
	return dest, os.Rename(tmp, dest)
}

// download writes url's body to dest once its bytes or its tree are the
// pin's (see [Pin.usable]); a wrong or partial body never reaches dest.
func (p Pin) download(ctx context.Context, url, dest string, log io.Writer) error {
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
	_, err = io.Copy(tmp, resp.Body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &DownloadError{URL: url, Err: err}
	}
	got, err := p.usable(tmp.Name(), url, dest, log)
	if err != nil || got == dest {
		return err
	}
	return os.Rename(tmp.Name(), dest)
}

// verify checks the file at path (from source) against the pin: its bytes,
// else its tree.
func (p Pin) verify(path, source string) (tree, error) {
	f, err := os.Open(path)
	if err != nil {
		return tree{}, fmt.Errorf("the reference RS source archive: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return tree{}, fmt.Errorf("the reference RS source archive %s: %w", path, err)
	}
	got := hex.EncodeToString(h.Sum(nil))
	if got == p.SHA256 {
		return tree{}, nil
	}
	ce := &ChecksumError{Source: source, Want: p.SHA256, Got: got}
	t, err := p.treeOf(path)
	switch {
	case p.Tree == "":
		ce.Tree = "the pin names no tree"
	case err != nil:
		ce.Tree = "its tree could not be read: " + err.Error()
	case t.digest != p.Tree:
		ce.Tree = fmt.Sprintf("its tree digest %s is not the pinned tree's %s", t.digest, p.Tree)
	default:
		return t, nil
	}
	return tree{}, ce
}
