package conformance

import (
	"path"
	"reflect"
	"runtime"
	"strconv"
	"strings"
)

// A DataUse is fixture data a check read, seen while it ran: a value it
// discovered in the target's own data ([Discover]: the schema index, a
// search term) or a fixture it forked the target onto ([T.Fork]). Run
// against the reference adapter, a check's uses say where its data comes
// from (`mcpcheck scenarios ID`, scenarios/INDEX.md), which no reading of
// the helpers that choose it shows at a glance.
type DataUse struct {
	Discovery string // the discovery's key ("fan-in-term"), or ""
	Fixture   string // the forked fixture's name ("evidence", "scale:1,1,30,120"), or ""
	// At is where the check asks for it: the first function outside the
	// framework, "conformance/probe/hits.go:64 FanInTerm".
	At string
}

// noteUse records a data use of the check being run.
func (r *checkRun) noteUse(u DataUse) {
	r.mu.Lock()
	r.uses = append(r.uses, u)
	r.mu.Unlock()
}

// usesSince are the uses recorded after the first n.
func (r *checkRun) usesSince(n int) []DataUse {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]DataUse(nil), r.uses[n:]...)
}

func (r *checkRun) useCount() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.uses) }

// moduleRoot is the module's directory as the binary's file names spell
// it: an absolute path, or the module path under -trimpath.
var moduleRoot = func() string {
	_, file, _, _ := runtime.Caller(0)
	return path.Dir(path.Dir(file))
}()

// ModuleFile is file relative to the module root ("conformance/checks/
// s029_fetch_document_shape.go"), for a file name from runtime.FuncForPC
// or runtime.Caller; a file outside the module is returned as is.
func ModuleFile(file string) string {
	return strings.TrimPrefix(file, moduleRoot+"/")
}

// FuncPos is where the function at pc begins: its file relative to the
// module, its line and its short name.
func FuncPos(pc uintptr) (file string, line int, name string) {
	f := runtime.FuncForPC(pc)
	if f == nil {
		return "", 0, ""
	}
	file, line = f.FileLine(f.Entry())
	return ModuleFile(file), line, shortFuncName(f.Name())
}

// callerOutsideFramework is "file.go:LINE name" of the first caller that is
// not package conformance itself: the check or helper that asked.
func callerOutsideFramework() string {
	pcs := make([]uintptr, 16)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, framework+".") && f.Function != "" {
			at := ModuleFile(f.File) + ":" + strconv.Itoa(f.Line)
			if n := shortFuncName(f.Function); n != "" {
				at += " " + n
			}
			return at
		}
		if !more {
			return ""
		}
	}
}

// framework is this package's import path.
var framework = reflect.TypeOf(Check{}).PkgPath()

// shortFuncName is a function's name without its package ("fanInTerm",
// "(*call).fetch"); "" for a closure of a package variable, which only
// its file and line name well.
func shortFuncName(full string) string {
	name := full[strings.LastIndexByte(full, '/')+1:]
	_, name, _ = strings.Cut(name, ".")
	if strings.HasPrefix(name, "init.") || strings.HasPrefix(name, "glob.") {
		return ""
	}
	return name
}
