package realrskit

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The launcher: start.sh (toolchain, install, build, start), stop.sh,
// launch.ts (seeding and token minting inside the upstream tree),
// seed-data.ts and a stub for one unpublished upstream dependency. It is
// mcpcheck's own code; kit/README.md says what it does and why.
//
//go:embed kit
var kitFiles embed.FS

// unpackKit writes the launcher under work, in a folder named for its
// content, so a changed launcher never runs from an old copy. A copy
// already there is used as it is.
func unpackKit(work string) (string, error) {
	sub, err := fs.Sub(kitFiles, "kit")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_ = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(sub, p)
			h.Write([]byte(p + "\x00"))
			h.Write(b)
		}
		return err
	})
	dir := filepath.Join(work, "kit-"+hex.EncodeToString(h.Sum(nil))[:12])
	if fileExists(filepath.Join(dir, ".complete")) {
		return dir, nil
	}
	tmp, err := os.MkdirTemp(work, ".kit-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	err = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dest := filepath.Join(tmp, p)
		if d.IsDir() {
			return os.MkdirAll(dest, 0o755)
		}
		b, err := fs.ReadFile(sub, p)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		return os.WriteFile(dest, b, mode)
	})
	if err == nil {
		err = os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o644)
	}
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil && !fileExists(filepath.Join(dir, ".complete")) {
		return "", err
	}
	return dir, nil
}
