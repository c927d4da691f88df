package conformance

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"
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

// lastLine is the last non-empty line of s, bounded like FirstLine.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return FirstLine(s)
}

// SplitCommand splits a command line on spaces, honouring single and double
// quotes and backslash escapes. It does not run a shell.
func SplitCommand(s string) ([]string, error) {
	var (
		args    []string
		cur     strings.Builder
		inArg   bool
		quote   rune
		escaped bool
	)
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, inArg = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inArg = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if quote != 0 || escaped {
		return nil, errors.New("unterminated quote or escape in command")
	}
	if inArg {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	return args, nil
}
