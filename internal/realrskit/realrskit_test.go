package realrskit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAttachReadsTokenFiles(t *testing.T) {
	dir := t.TempDir()
	for name, v := range map[string]string{"client_token_gmail": "g\n", "client_token_github": "h", "owner_token": "o\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	k, err := Attach("http://127.0.0.1:1/", dir)
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := k.Tokens()
	if err != nil {
		t.Fatal(err)
	}
	if k.URL != "http://127.0.0.1:1" || strings.Join(k.Connectors(), ",") != "github,gmail" ||
		tokens.Client["gmail"] != "g" || tokens.Client["github"] != "h" || tokens.Owner != "o" {
		t.Errorf("Attach = %+v, tokens %+v", k, tokens)
	}
	if err := k.Stop(); err != nil {
		t.Errorf("Stop of an attached RS: %v", err)
	}
	if _, err := Attach("http://127.0.0.1:1", t.TempDir()); err == nil {
		t.Error("Attach to a dir without client tokens: no error")
	}
}

func TestKeyValuesAndTail(t *testing.T) {
	v := keyValues("[realrs] ready\nrs_url=http://127.0.0.1:5\n state_dir=/x=y \n")
	if v["rs_url"] != "http://127.0.0.1:5" || v["state_dir"] != "/x=y" {
		t.Errorf("keyValues = %v", v)
	}
	if got := tail("a\nb\nc\n", 2); got != "b\nc" {
		t.Errorf("tail = %q", got)
	}
}
