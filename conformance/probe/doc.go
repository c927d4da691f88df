// Package probe finds things in a target's answers: its schema index,
// search hits, records, handles, continuations, exact numbers, legends,
// completion state and text blocks, in any notation it can read and by
// value, never by the reference adapter's keys or formats (issue 27).
// It sits between the framework (conformance) and the checks: checks
// import probe; probe never imports checks, and the framework neither.
package probe
