package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-shellwords"
)

func runHelp(ctx context.Context, argv, env []string) (Help, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], append(append([]string(nil), argv[1:]...), "--help")...)
	cmd.Env = env
	out, errb := &tailBuffer{max: 64 << 10}, &tailBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, errb
	cmd.Stdin = strings.NewReader("")
	err := cmd.Run()
	h := Help{Stdout: out.String(), Stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return h, fmt.Errorf("--help did not exit within 10s")
	case errors.As(err, &ee):
		h.ExitCode = ee.ExitCode()
	case err != nil:
		return h, err
	}
	return h, nil
}

// runCommand runs one command to completion, bounded in time and output.
func runCommand(ctx context.Context, name string, args, env []string) (string, string, int) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	out, errb := &tailBuffer{max: 1 << 20}, &tailBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr, cmd.Stdin = out, errb, strings.NewReader("")
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		code = -1
	}
	return out.String(), errb.String(), code
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (w *tailBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b = append(w.b, p...)
	if len(w.b) > w.max {
		w.b = w.b[len(w.b)-w.max:]
	}
	return len(p), nil
}

func (w *tailBuffer) String() string { w.mu.Lock(); defer w.mu.Unlock(); return string(w.b) }

// FirstLine is the first line of s, trimmed and bounded to 300 bytes: how a
// report quotes a multi-line message in one line. Empty text is "(empty)".
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	if s == "" {
		return "(empty)"
	}
	return s
}

// Bounds of [StderrTail].
const (
	stderrTailLines = 20
	stderrTailBytes = 4 << 10
)

// StderrTail is the end of a command's stderr as a report shows it: its
// last 20 lines, each bounded like [FirstLine], at most 4 KB in all (a
// traceback's first line says nothing; its last says what broke). The
// report redacts it with everything else.
func StderrTail(s string) []string {
	lines := strings.Split(strings.TrimRight(s, " \t\r\n"), "\n")
	if len(lines) == 1 && strings.TrimSpace(lines[0]) == "" {
		return nil
	}
	lines = lines[max(0, len(lines)-stderrTailLines):]
	out, size := []string(nil), 0
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimRight(lines[i], "\r")
		if len(l) > 300 {
			l = strings.ToValidUTF8(l[:300], "") + "…"
		}
		if size += len(l) + 1; size > stderrTailBytes {
			break
		}
		out = append(out, l)
	}
	slices.Reverse(out)
	return out
}

// lastLine is the last non-empty line of s, bounded like FirstLine.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return FirstLine(s)
}

// ParseCommand splits a command line as a POSIX shell would, without
// running one: quotes and escapes, $VAR and ${VAR} from the environment, a
// leading ~ as the home directory, and leading NAME=value assignments,
// returned apart as env (FOO=1 cmd arg).
func ParseCommand(s string) (env, argv []string, err error) {
	p := shellwords.NewParser()
	p.ParseEnv = true
	env, argv, err = p.ParseWithEnvs(s)
	if err != nil {
		return nil, nil, fmt.Errorf("%q: %w", s, err)
	}
	if len(argv) == 0 {
		return nil, nil, errors.New("empty command")
	}
	home, _ := os.UserHomeDir()
	for i, a := range argv {
		if home != "" && (a == "~" || strings.HasPrefix(a, "~/")) {
			argv[i] = home + a[1:]
		}
	}
	return env, argv, nil
}

// SplitCommand is [ParseCommand]'s argv, with any leading assignments
// kept as words: for lines that are read, not run.
func SplitCommand(s string) ([]string, error) {
	env, argv, err := ParseCommand(s)
	return append(env, argv...), err
}
