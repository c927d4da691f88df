package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

const modulePath = "github.com/pdpp-connect/mcpcheck"

// Runs the README's `go install …@latest` lines against a module proxy that
// serves the committed HEAD as a release, so the install path is tested
// before the module is published. It builds three binaries from an empty
// module cache, so it runs only when MCPCHECK_INSTALL_TEST is set (make ci).
func TestGoInstallLatestFromAModuleProxy(t *testing.T) {
	if os.Getenv("MCPCHECK_INSTALL_TEST") == "" {
		t.Skip("set MCPCHECK_INSTALL_TEST=1 to install from a local module proxy (make ci does)")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("no go tool")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").CombinedOutput(); err != nil {
		t.Skipf("not a git checkout, nothing to release: %v %s", err, out)
	}
	const version = "v0.99.0"
	tmp := t.TempDir()
	at := filepath.Join(tmp, "proxy", modulePath, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	z, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	// HEAD's tree, as git archive gives it: zip.CreateFromVCS does not
	// recognise a git worktree (its .git is a file).
	src := filepath.Join(tmp, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := exec.Command("sh", "-c", `git -C "$1" archive --format=tar HEAD | tar -x -C "$2"`, "sh", root, src)
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("git archive HEAD: %v\n%s", err, out)
	}
	if err := zip.CreateFromDir(z, module.Version{Path: modulePath, Version: version}, src); err != nil {
		t.Fatal(err)
	}
	_ = z.Close()
	gomod, _ := os.ReadFile(filepath.Join(root, "go.mod"))
	info, _ := json.Marshal(map[string]any{"Version": version, "Time": time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)})
	for name, body := range map[string][]byte{"list": []byte(version + "\n"), version + ".mod": gomod, version + ".info": info} {
		if err := os.WriteFile(filepath.Join(at, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	modcache, _ := exec.Command(goTool, "env", "GOMODCACHE").Output()
	upstream, _ := exec.Command(goTool, "env", "GOPROXY").Output()
	bin := filepath.Join(tmp, "bin")
	env := append(os.Environ(),
		"GOPROXY=file://"+filepath.Join(tmp, "proxy")+",file://"+filepath.Join(strings.TrimSpace(string(modcache)), "cache", "download")+","+strings.TrimSpace(string(upstream)),
		"GOSUMDB=off", "GOFLAGS=-modcacherw", "GOWORK=off", "GOTOOLCHAIN=local",
		"GOMODCACHE="+filepath.Join(tmp, "modcache"), "GOBIN="+bin)
	args := []string{"install"}
	for _, cmd := range []string{"mcpcheck", "pdpp-mcp", "pdpp-fake-rs"} {
		args = append(args, modulePath+"/cmd/"+cmd+"@latest")
	}
	install := exec.Command(goTool, args...)
	install.Dir, install.Env = tmp, env // outside any module, as a user would
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	for _, run := range [][]string{{"mcpcheck", "version"}, {"pdpp-mcp", "--version"}} {
		out, err := exec.Command(filepath.Join(bin, run[0]), run[1:]...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), version) {
			t.Errorf("%s: %v %s; want the installed version %s", strings.Join(run, " "), err, out, version)
		}
	}
	if out, err := exec.Command(filepath.Join(bin, "mcpcheck"), "S001").CombinedOutput(); err != nil || !strings.Contains(string(out), "1 passed") {
		t.Errorf("installed mcpcheck S001: %v\n%s", err, out)
	}
	if out, err := exec.Command(filepath.Join(bin, "pdpp-fake-rs"), "--help").CombinedOutput(); err != nil {
		t.Errorf("installed pdpp-fake-rs --help: %v\n%s", err, out)
	}
}
