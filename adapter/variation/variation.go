// Package variation changes the reference adapter through the seams it
// exposes (MCP middleware, its RS transport, a wrapper around its hosted
// handler, its Tuning knobs and its command line), never through branches
// in its handlers. The catalogue holds the mutants: named single faults,
// each with the scenario ids that must fail against it, which prove that
// every check can fail. mcpcheck selects one; the shipped pdpp-mcp does not
// import this package.
package variation

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/pdpp-connect/mcpcheck/adapter"
)

// A Variation is one named change to the reference adapter: a mutant (a
// single fault some check must catch) or a conforming variant (a single
// freedom the seeds allow, which every check must pass).
type Variation struct {
	ID string
	// Kills, for a mutant, are what must fail against it: clause keys
	// ("S029.2") or, for a fault no one clause owns, scenario ids.
	Kills []string
	// Collateral, for a mutant, are further scenario ids its fault really
	// breaks; the matrix fails on any other failing id.
	Collateral []string
	Doc        string
	// Freedom and Allowed, for a conforming variant, name the freedom it
	// exercises and quote the seed text that allows it.
	Freedom, Allowed string
	// Exercises, for a conforming variant, are the clause keys or scenario
	// ids whose checks meet its freedom: they must accept it
	// (`mcpcheck scenarios ID` lists it there).
	Exercises []string
	// Advised, for a conforming variant, are clause keys where its
	// freedom meets one of mcpcheck's own recommended rules (a defence in
	// depth the seed does not ask for): those clauses may fail it, at the
	// recommended level only.
	Advised []string
	// Inapplicable, for a conforming variant, are the scenario ids its
	// freedom leaves with no subject (an adapter that forwards the RS's
	// fan-in never refuses an ambiguous read), each with why: n/a there is
	// right where the reference passes. Any other n/a judges it less.
	Inapplicable map[string]string
	// KnownFalse, for a conforming variant, are the check ids that fail or
	// judge it less than the reference today although it conforms: each
	// with the cause in the checks. The matrix requires exactly this set,
	// so a fixed check must leave the list.
	KnownFalse map[string]string
	// Apply makes the change through the seams.
	Apply func(*Seams)
}

// Conforming reports a variant, which no check may fail.
func (v Variation) Conforming() bool { return v.Freedom != "" }

// Seams are where a variation changes the reference adapter.
type Seams struct {
	// Command is the pdpp-mcp command line: its help text, and the
	// Configure hook through which every Options change reaches each
	// subcommand. Use Options to change Options.
	Command *adapter.Command
	// Stdout is where the command writes; a variation may wrap it. Nil
	// for an adapter built in process.
	Stdout io.Writer
	// Getenv is the command's environment; it returns "" for an adapter
	// built in process.
	Getenv adapter.Env
}

// Options adds a change to the Options the adapter is built with, over
// every transport; Options.Stdio says which one.
func (s *Seams) Options(change func(*adapter.Options)) {
	prev := s.Command.Configure
	s.Command.Configure = func(o *adapter.Options) {
		if prev != nil {
			prev(o)
		}
		change(o)
	}
}

// All returns the mutants, sorted by id.
func All() []Variation { return sorted(catalogue) }

// Variants returns the conforming variants, sorted by id.
func Variants() []Variation { return sorted(variants) }

func sorted(vs []Variation) []Variation {
	out := slices.Clone(vs)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Lookup finds a variation by id. The empty id is no variation (nil).
func Lookup(id string) (*Variation, error) {
	if id == "" {
		return nil, nil
	}
	for _, v := range append(slices.Clone(catalogue), variants...) {
		if v.ID == id {
			return &v, nil
		}
	}
	var ids []string
	for _, v := range append(slices.Clone(catalogue), variants...) {
		ids = append(ids, v.ID)
	}
	sort.Strings(ids)
	return nil, fmt.Errorf("unknown mutant or variant %q (known: %s)", id, strings.Join(ids, ", "))
}

// Configure applies v (nil: none) to the Options of an adapter built in
// process, with no command line and an empty environment.
func Configure(v *Variation, opts *adapter.Options) {
	if v == nil {
		return
	}
	s := &Seams{Command: &adapter.Command{}, Getenv: func(string) string { return "" }}
	v.Apply(s)
	if s.Command.Configure != nil {
		s.Command.Configure(opts)
	}
}

// Run runs pdpp-mcp with v (nil: none) applied, as adapter.Main does.
func Run(ctx context.Context, v *Variation, args []string, getenv adapter.Env, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := adapter.Command{}
	s := &Seams{Command: &cmd, Stdout: stdout, Getenv: getenv}
	if v != nil {
		v.Apply(s)
	}
	return cmd.Run(ctx, args, getenv, stdin, s.Stdout, stderr)
}

// Main is pdpp-mcp with a hidden --mutant NAME flag that selects a
// variation: what mcpcheck's hidden pdpp-mcp subcommand runs.
func Main(ctx context.Context, args []string, getenv adapter.Env, stdin io.Reader, stdout, stderr io.Writer) int {
	id, args := cutMutantFlag(args)
	v, err := Lookup(id)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return adapter.ExitUsage
	}
	return Run(ctx, v, args, getenv, stdin, stdout, stderr)
}

// cutMutantFlag takes --mutant NAME (or --mutant=NAME, one dash or two)
// out of args, wherever it is.
func cutMutantFlag(args []string) (string, []string) {
	id, out := "", make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "mutant" {
			out = append(out, a)
			continue
		}
		if !hasValue && i+1 < len(args) {
			i++
			value = args[i]
		}
		id = value
	}
	return id, out
}

// MustLookup is Lookup for ids known to exist; it panics on any other.
func MustLookup(id string) *Variation {
	v, err := Lookup(id)
	if err != nil {
		panic(err)
	}
	return v
}
