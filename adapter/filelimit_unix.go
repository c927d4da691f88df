//go:build unix

package adapter

import "syscall"

// openFileLimit is the process's open-file limit (RLIMIT_NOFILE, whose
// soft value the Go runtime raises to the hard one at start), 0 if unknown.
func openFileLimit() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil || l.Cur == ^uint64(0) { // RLIM_INFINITY
		return 0
	}
	return l.Cur
}
