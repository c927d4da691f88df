package realrskit

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The pinned archive is `git archive` of its commit repackaged: three
// release-policy scripts left out and publishConfig.registry dropped from
// three package.json files (../shared/realrs/README.md). GitHub's own
// archive of the commit (one top folder, a pax global header) therefore
// has other bytes but, read the same way, the same tree: the tree digest
// hashes every file's path and content after that packaging, so either
// archive of the commit is recognised.

// pinnedOmits are the files the pinned archive leaves out.
var pinnedOmits = []string{
	"scripts/check-package-release-policy.ts",
	"scripts/release-package-matrix.test.ts",
	"scripts/release-package-matrix.ts",
}

// maxTreeFile bounds one file read into memory (the largest pinned file is
// far smaller); maxTreeFiles bounds the number of entries.
const (
	maxTreeFile  = 64 << 20
	maxTreeFiles = 100_000
)

// A treeEntry is one archive member as the tree digest sees it.
type treeEntry struct {
	name string // slash path below the archive's root
	kind byte   // 'f' file, 'l' symlink
	sum  string // sha256 of the packaged content, or the link target
}

// A tree is what treeOf read of an archive.
type tree struct {
	digest string // see the comment above
	top    string // the top folder stripped, or ""
	// repack says the archive is not laid out as the pinned one (a top
	// folder, an omitted file, a publishConfig.registry).
	repack bool
}

// treeOf reads a .tgz as the tree digest does.
func (p Pin) treeOf(archive string) (tree, error) {
	var entries []treeEntry
	var t tree
	err := walkArchive(archive, func(h *tar.Header, body []byte) error {
		switch h.Typeflag {
		case tar.TypeReg:
			content := body
			if path.Base(h.Name) == "package.json" {
				var dropped bool
				content, dropped = packaged(body)
				t.repack = t.repack || dropped
			}
			s := sha256.Sum256(content)
			entries = append(entries, treeEntry{h.Name, 'f', hex.EncodeToString(s[:])})
		case tar.TypeSymlink:
			entries = append(entries, treeEntry{h.Name, 'l', h.Linkname})
		}
		return nil
	})
	if err != nil {
		return tree{}, err
	}
	t.top = commonTop(entries)
	for i := range entries {
		entries[i].name = strings.TrimPrefix(entries[i].name, t.top)
	}
	n := len(entries)
	entries = slices.DeleteFunc(entries, func(e treeEntry) bool { return slices.Contains(p.Omit, e.name) })
	t.repack = t.repack || t.top != "" || len(entries) < n
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	h := sha256.New()
	for _, e := range entries {
		fmt.Fprintf(h, "%s\x00%c\x00%s\n", e.name, e.kind, e.sum)
	}
	t.digest = hex.EncodeToString(h.Sum(nil))
	return t, nil
}

// walkArchive calls fn for each member of a .tgz, names cleaned of "./";
// pax global headers and directories are skipped.
func walkArchive(archive string, fn func(h *tar.Header, body []byte) error) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: not a gzip archive: %w", archive, err)
	}
	tr := tar.NewReader(zr)
	for n := 0; ; n++ {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", archive, err)
		}
		if n > maxTreeFiles {
			return fmt.Errorf("%s: more than %d entries", archive, maxTreeFiles)
		}
		if h.Typeflag == tar.TypeXGlobalHeader || h.Typeflag == tar.TypeDir {
			continue
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if name == "." || strings.HasPrefix(name, "../") || path.IsAbs(name) {
			return fmt.Errorf("%s: member %q leaves the tree", archive, h.Name)
		}
		if h.Size > maxTreeFile {
			return fmt.Errorf("%s: member %s is over %d bytes", archive, name, maxTreeFile)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			return fmt.Errorf("%s: %w", archive, err)
		}
		h.Name = name
		if err := fn(h, body); err != nil {
			return err
		}
	}
}

// commonTop is the one top folder every entry sits in ("pdpp-<sha>/" in
// GitHub's archive), or "".
func commonTop(entries []treeEntry) string {
	if len(entries) == 0 {
		return ""
	}
	first, _, ok := strings.Cut(entries[0].name, "/")
	if !ok {
		return ""
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.name, first+"/") {
			return ""
		}
	}
	return first + "/"
}

// registryField is a publishConfig.registry line, with the comma that
// joins it to its neighbours.
var registryField = regexp.MustCompile(`(,\s*"registry"\s*:\s*"[^"]*")|("registry"\s*:\s*"[^"]*"\s*,?)`)

// packaged is a package.json as the pinned archive packages it, without
// publishConfig.registry, as canonical JSON (so its layout does not count).
// dropped says it had the field.
func packaged(body []byte) (canonical []byte, dropped bool) {
	var doc map[string]any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return body, false // not JSON: compared as bytes
	}
	if pc, ok := doc["publishConfig"].(map[string]any); ok {
		_, dropped = pc["registry"]
		delete(pc, "registry")
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return body, false
	}
	return out, dropped
}

// repack writes the members of archive below top, less the pin's omits and
// with publishConfig.registry taken out of package.json files, as a .tgz
// laid out like the pinned one ("./path"), to dest.
func (p Pin) repack(archive, top, dest string) error {
	out, err := os.Create(dest)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(out)
	tw := tar.NewWriter(zw)
	err = walkArchive(archive, func(h *tar.Header, body []byte) error {
		name := strings.TrimPrefix(h.Name, top)
		if slices.Contains(p.Omit, name) {
			return nil
		}
		if want, dropped := packaged(body); h.Typeflag == tar.TypeReg && path.Base(name) == "package.json" && dropped {
			trimmed := registryField.ReplaceAll(body, nil)
			if got, _ := packaged(trimmed); !bytes.Equal(got, want) {
				return fmt.Errorf("%s: %s: publishConfig.registry could not be taken out as text", archive, name)
			}
			body = trimmed
		}
		hdr := &tar.Header{Name: "./" + name, Typeflag: h.Typeflag, Mode: h.Mode, Linkname: h.Linkname, ModTime: h.ModTime, Size: int64(len(body))}
		if h.Typeflag != tar.TypeReg {
			hdr.Size = 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err := tw.Write(body[:hdr.Size])
		return err
	})
	err = errors.Join(err, tw.Close(), zw.Close(), out.Close())
	if err != nil {
		os.Remove(dest)
	}
	return err
}
