// Package realrsdiff holds the differential test between the fixture RS's
// real profile (fakers.Fixture.RealRS) and the reference PDPP RS of the
// kit in ../shared/realrs: the same requests to both, compared by status,
// error code and param, role-abstracted error text and body shape. It has
// no code of its own.
package realrsdiff
